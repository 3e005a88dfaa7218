// SPDX-License-Identifier: GPL-2.0-or-later
#include "pam-args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int value(const char *arg, const char *const names[], size_t n, int *ret)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(arg, names[i]) == 0) {
			*ret = (int)i;
			return 0;
		}
	return -EINVAL;
}

int pam_args_parse(int argc, const char **argv, struct pam_args *ret, char *err, size_t err_size)
{
	static const char *const fails[] = { "open", "new", "closed" };
	static const char *const models[] = { "auto", "fork", "exec" };
	struct pam_args a = { PAM_FAIL_OPEN, PAM_MODEL_AUTO, PAM_CORESCHED_SOCKET, 5000, false };

	for (int i = 0; i < argc; i++) {
		const char *s = argv[i];
		int v, r = 0;
		char *end;

		if (strncmp(s, "fail=", 5) == 0 && (r = value(s + 5, fails, 3, &v)) == 0)
			a.fail = (enum pam_fail)v;
		else if (strncmp(s, "model=", 6) == 0 && (r = value(s + 6, models, 3, &v)) == 0)
			a.model = (enum pam_model)v;
		else if (strncmp(s, "socket=", 7) == 0 && s[7] == '/' && strlen(s + 7) < 108)
			a.socket = s + 7;
		else if (strncmp(s, "timeout=", 8) == 0) {
			long ms;

			errno = 0;
			ms = strtol(s + 8, &end, 10);
			if (errno || end == s + 8 || *end || ms < 1 || ms > 600000) {
				snprintf(err, err_size, "argument '%s': timeout= takes milliseconds, 1 to 600000", s);
				return -EINVAL;
			}
			a.timeout_ms = (int)ms;
		} else if (strcmp(s, "debug") == 0)
			a.debug = true;
		else {
			snprintf(err, err_size, "argument '%s': %s", s,
				 r < 0 && s[0] == 'f' ? "fail= takes open, new or closed" :
				 r < 0 ? "model= takes auto, fork or exec" :
				 strncmp(s, "socket=", 7) == 0 ? "socket= takes an absolute path under 108 bytes" :
								"unknown argument");
			return -EINVAL;
		}
	}
	*ret = a;
	return 0;
}

/* Where the value of the first "key" starts, or NULL. */
static const char *find(const char *json, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = strchr(json, '"'); p; p = strchr(p + 1, '"')) {
		if (strncmp(p + 1, key, n) != 0 || p[n + 1] != '"')
			continue;
		p += n + 2;
		p += strspn(p, " \t\n");
		if (*p != ':')
			continue;
		p++;
		return p + strspn(p, " \t\n");
	}
	return NULL;
}

bool pam_args_json_string(const char *json, const char *key, char *buf, size_t size)
{
	const char *v = find(json, key), *end;

	if (!v || *v != '"' || !(end = strchr(v + 1, '"')))
		return false;
	if (buf && size)
		snprintf(buf, size, "%.*s", (int)(end - v - 1), v + 1);
	return true;
}

bool pam_args_json_true(const char *json, const char *key)
{
	const char *v = find(json, key);

	return v && strncmp(v, "true", 4) == 0;
}
