// SPDX-License-Identifier: GPL-2.0-or-later
/* Name resolution happens once, at load time, so that matching never calls
 * into NSS and a typo is an error naming the line rather than a rule that
 * silently never matches. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conf-ids.h"

static bool all_digits(const char *s)
{
	return *s && strspn(s, "0123456789") == strlen(s);
}

int conf_ids_parse(const char *s, uint32_t *ret)
{
	unsigned long long v = 0;

	if (!all_digits(s) || strlen(s) > 10)
		return -EINVAL;
	for (const char *p = s; *p; p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (v >= UINT32_MAX)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

int conf_ids_user(const char *s, uint32_t *ret)
{
	struct passwd *pw;

	if (all_digits(s))
		return conf_ids_parse(s, ret);
	pw = getpwnam(s);
	if (!pw)
		return -ENOENT;
	*ret = pw->pw_uid;
	return 0;
}

int conf_ids_group(const char *s, uint32_t *ret)
{
	struct group *gr;

	if (all_digits(s))
		return conf_ids_parse(s, ret);
	gr = getgrnam(s);
	if (!gr)
		return -ENOENT;
	*ret = gr->gr_gid;
	return 0;
}

static int push(uint32_t **arr, size_t *n, uint32_t id)
{
	uint32_t *q = realloc(*arr, (*n + 1) * sizeof(*q));

	if (!q)
		return -ENOMEM;
	q[(*n)++] = id;
	*arr = q;
	return 0;
}

/* The listed members. Names are copied out first: getpwnam() may reuse
 * the buffers behind the group entry. */
static int listed_members(const struct group *gr, uint32_t **arr, size_t *n)
{
	size_t count = 0;
	char **names;
	struct passwd *pw;
	int r = 0;

	while (gr->gr_mem && gr->gr_mem[count])
		count++;
	names = calloc(count + 1, sizeof(*names));
	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < count && r == 0; i++)
		if (!(names[i] = strdup(gr->gr_mem[i])))
			r = -ENOMEM;
	for (size_t i = 0; i < count && r == 0; i++)
		if ((pw = getpwnam(names[i])))
			r = push(arr, n, pw->pw_uid);
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	return r;
}

int conf_ids_members(const char *group, uint32_t **ret_uids, size_t *ret_n)
{
	struct group *gr = getgrnam(group);
	uint32_t *arr = NULL;
	struct passwd *pw;
	size_t n = 0;
	gid_t gid;
	int r;

	if (!gr)
		return -ENOENT;
	gid = gr->gr_gid;
	r = listed_members(gr, &arr, &n);
	setpwent();
	while (r == 0 && (pw = getpwent()))
		if (pw->pw_gid == gid)
			r = push(&arr, &n, pw->pw_uid);
	endpwent();
	if (r < 0) {
		free(arr);
		return r;
	}
	*ret_uids = arr;
	*ret_n = n;
	return 0;
}
