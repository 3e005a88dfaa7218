// SPDX-License-Identifier: GPL-2.0-or-later
#include "sched_core.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

static int sc_prctl(int cmd, pid_t pid, enum sc_scope scope, unsigned long uaddr)
{
	if (prctl(PR_SCHED_CORE, cmd, (unsigned long)pid, (unsigned long)scope, uaddr) < 0)
		return -errno;
	return 0;
}

int sc_get(pid_t tid, sc_cookie *ret_cookie)
{
	unsigned long long cookie = 0;
	int r;

	r = sc_fault("get");
	if (r < 0)
		return r;
	r = sc_prctl(PR_SCHED_CORE_GET, tid, SC_SCOPE_THREAD, (unsigned long)&cookie);
	if (r < 0)
		return r;
	*ret_cookie = cookie;
	return 0;
}

int sc_create(pid_t pid, enum sc_scope scope)
{
	int r = sc_fault("create");

	return r < 0 ? r : sc_prctl(PR_SCHED_CORE_CREATE, pid, scope, 0);
}

int sc_share_to(pid_t pid, enum sc_scope scope)
{
	int r = sc_fault("share_to");

	return r < 0 ? r : sc_prctl(PR_SCHED_CORE_SHARE_TO, pid, scope, 0);
}

int sc_share_from(pid_t tid)
{
	int r = sc_fault("share_from");

	return r < 0 ? r : sc_prctl(PR_SCHED_CORE_SHARE_FROM, tid, SC_SCOPE_THREAD, 0);
}

int sc_probe(void)
{
	sc_cookie c;

	return sc_get(0, &c);
}

static const char *const scope_names[] = {
	[SC_SCOPE_THREAD] = "pid",
	[SC_SCOPE_THREAD_GROUP] = "tgid",
	[SC_SCOPE_PROCESS_GROUP] = "pgid",
};

int sc_scope_from_string(const char *s, enum sc_scope *ret_scope)
{
	for (unsigned i = 0; i < sizeof(scope_names) / sizeof(scope_names[0]); i++)
		if (strcmp(s, scope_names[i]) == 0) {
			*ret_scope = (enum sc_scope)i;
			return 0;
		}
	return -EINVAL;
}

const char *sc_scope_to_string(enum sc_scope scope)
{
	if ((unsigned)scope >= sizeof(scope_names) / sizeof(scope_names[0]))
		return "?";
	return scope_names[scope];
}

const char *sc_strerror(int negerrno)
{
	switch (-negerrno) {
	case EINVAL:
		return "core scheduling is not supported: the kernel lacks CONFIG_SCHED_CORE";
	case ENODEV:
		return "core scheduling is unavailable: SMT is absent or switched off";
	case ESRCH:
		return "no such process";
	case EPERM:
		return "permission denied: CAP_SYS_PTRACE or the same user id is needed";
	default:
		return strerror(-negerrno);
	}
}

#ifdef CORESCHED_FAULT_INJECTION
/* CORESCHED_FAULT="site:errno[:count],...": count 0 or absent = always. */
int sc_fault(const char *site)
{
	static int used[16];
	const char *spec = getenv("CORESCHED_FAULT");
	size_t n = strlen(site);
	int idx = 0;

	for (const char *p = spec; p && *p; idx++) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (len > n && strncmp(p, site, n) == 0 && p[n] == ':') {
			char *rest;
			long err = strtol(p + n + 1, &rest, 10);
			long count = *rest == ':' ? strtol(rest + 1, NULL, 10) : 0;

			if (idx < 16 && (count == 0 || used[idx] < count)) {
				if (idx < 16)
					used[idx]++;
				return (int)-err;
			}
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}
#else
int sc_fault(const char *site)
{
	(void)site;
	return 0;
}
#endif
