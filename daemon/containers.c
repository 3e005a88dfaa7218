// SPDX-License-Identifier: GPL-2.0-or-later
/* The container cgroup table (see containers.h): a hashmap keyed by the
 * cgroup path, so that an exec is looked up by its cgroup and each ancestor
 * in turn, whatever the number of containers. */
#include "containers.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hashmap.h"
#include "procinfo.h"

#define CGROUP_FS "/sys/fs/cgroup"
/* Below this many entries a prune is not worth its syscalls. */
#define PRUNE_MIN 256

struct container_entry {
	const char *group;
	const char *key;
	char cgroup[]; /* then group and key, in the same allocation */
};

/* NULL until the first remember: most machines hook no container, and the
 * look-up on every exec then costs one test. */
static struct hashmap *table;
/* A prune costs one access() per entry, so it runs only when the table
 * reaches this size, which then becomes twice the entries that survived:
 * at least as many remembers as the prune's syscalls pass before the next
 * one (O(1) amortized). At CONTAINERS_MAX it stays there: a table full of
 * live entries is pruned on every refused remember, a cost paid only by a
 * host already past the bound. */
static size_t prune_at = PRUNE_MIN;

static char root[PATH_MAX];
static bool root_known;

static struct container_entry *entry_new(const char *cgroup, const char *group, const char *key)
{
	size_t nc = strlen(cgroup) + 1, ng = strlen(group) + 1, nk = strlen(key) + 1;
	struct container_entry *en = malloc(sizeof(*en) + nc + ng + nk);

	if (!en)
		return NULL;
	memcpy(en->cgroup, cgroup, nc);
	en->group = memcpy(en->cgroup + nc, group, ng);
	en->key = memcpy(en->cgroup + nc + ng, key, nk);
	return en;
}

static bool has_controllers(const char *dir)
{
	char path[PATH_MAX];

	return snprintf(path, sizeof(path), "%s/cgroup.controllers", dir) < (int)sizeof(path) &&
	       access(path, F_OK) == 0;
}

void containers_set_root(const char *dir)
{
	char unified[PATH_MAX];

	root_known = true;
	root[0] = '\0';
	if (snprintf(unified, sizeof(unified), "%s/unified", dir) >= (int)sizeof(unified))
		return;
	if (has_controllers(dir))
		snprintf(root, sizeof(root), "%s", dir);
	else if (has_controllers(unified))
		snprintf(root, sizeof(root), "%s", unified);
}

/* Only a cgroup known to be gone counts: without a v2 hierarchy, or when
 * the path cannot be checked, the entry may be live and stays. */
static bool entry_gone(const struct container_entry *en)
{
	char path[sizeof(root) + PROCINFO_PATH_MAX];

	if (!root_known)
		containers_set_root(CGROUP_FS);
	if (!root[0] || snprintf(path, sizeof(path), "%s%s", root, en->cgroup) >= (int)sizeof(path))
		return false;
	return access(path, F_OK) < 0 && (errno == ENOENT || errno == ENOTDIR);
}

/* Containers that ended took their cgroups with them. */
static int table_prune(void)
{
	size_t n = hashmap_size(table);
	void **v = malloc(n * sizeof(*v));

	if (!v)
		return -ENOMEM;
	n = hashmap_values(table, v, n);
	for (size_t i = 0; i < n; i++) {
		struct container_entry *en = v[i];

		if (entry_gone(en)) {
			hashmap_remove_str(table, en->cgroup);
			free(en);
		}
	}
	free(v);
	return 0;
}

/* Room for one more entry: 0 or -ENOSPC (or -ENOMEM from a full table
 * that could not be pruned). */
static int table_make_room(void)
{
	int r;

	if (hashmap_size(table) < prune_at)
		return 0;
	r = table_prune();
	prune_at = 2 * hashmap_size(table);
	if (prune_at < PRUNE_MIN)
		prune_at = PRUNE_MIN;
	if (prune_at > CONTAINERS_MAX)
		prune_at = CONTAINERS_MAX;
	if (hashmap_size(table) < CONTAINERS_MAX)
		return 0;
	return r < 0 ? r : -ENOSPC;
}

int containers_remember(const char *cgroup, const char *group, const char *key)
{
	struct container_entry *en, *old;
	int r;

	/* Not absolute: it would be no cgroup's path, or ("") claim all. */
	if (!cgroup || cgroup[0] != '/' || !group || !key)
		return -EINVAL;
	if (!table && !(table = hashmap_new(true)))
		return -ENOMEM;
	old = hashmap_get_str(table, cgroup);
	if (!old && (r = table_make_room()) < 0)
		return r;
	en = entry_new(cgroup, group, key);
	if (!en)
		return -ENOMEM;
	r = hashmap_put_str(table, cgroup, en);
	if (r < 0) {
		free(en);
		return r;
	}
	free(old);
	return 0;
}

bool containers_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' || (n == 1 && b[0] == '/'));
}

/* Every path b for which containers_within(cgroup, b) holds is cgroup cut
 * at one of its slashes (or "/"), so trying those cuts from the longest
 * finds the longest match. */
int containers_lookup(const char *cgroup, const char **ret_group, const char **ret_key)
{
	char prefix[PROCINFO_PATH_MAX];
	const struct container_entry *en;
	size_t n;

	if (!table || hashmap_size(table) == 0 || !cgroup)
		return 0;
	n = strlen(cgroup);
	if (n >= sizeof(prefix)) /* longer than any cgroup procinfo reads */
		return 0;
	memcpy(prefix, cgroup, n + 1);
	for (;;) {
		char *slash;

		en = hashmap_get_str(table, prefix);
		if (en)
			break;
		slash = strrchr(prefix, '/');
		if (!slash || (slash == prefix && prefix[1] == '\0'))
			return 0;
		slash[slash == prefix] = '\0'; /* "/a" becomes "/", not "" */
	}
	*ret_group = en->group;
	*ret_key = en->key;
	return 1;
}

static void entry_free(void *userdata, void *value)
{
	(void)userdata;
	free(value);
}

bool containers_none(void)
{
	return !table || hashmap_size(table) == 0;
}

void containers_clear(void)
{
	if (table)
		hashmap_foreach(table, entry_free, NULL);
	table = hashmap_free(table);
	prune_at = PRUNE_MIN;
}
