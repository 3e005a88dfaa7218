// SPDX-License-Identifier: GPL-2.0-or-later
#include "sched_core.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
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

bool sc_smt_switchable(void)
{
	char buf[32] = "";
	FILE *f = fopen("/sys/devices/system/cpu/smt/control", "re");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return strcmp(buf, "on") == 0 || strcmp(buf, "off") == 0;
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
		/* The kernel answers EINVAL to everything without CONFIG_SCHED_CORE;
		 * with it, EINVAL is about the call (a thread id where a process
		 * is needed, a bad scope). */
		if (sc_probe() == -EINVAL)
			return "core scheduling is not supported: the kernel lacks CONFIG_SCHED_CORE";
		return "invalid argument: the kernel has core scheduling but refused the call "
		       "(a thread id where a process id is needed?)";
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

/* Decimal digits only: strtoul() would take a sign and wrap "-1" around. */
static const char *fault_number(const char *s, unsigned long max, unsigned long *ret)
{
	unsigned long v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (max - (unsigned long)(*p - '0')) / 10)
			return NULL;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (p == s)
		return NULL;
	*ret = v;
	return p;
}

int sc_fault_parse(const char *spec, const char *site, unsigned *ret_index, unsigned long *ret_count)
{
	size_t n = strlen(site);
	unsigned idx = 0;

	for (const char *p = spec; p && *p; idx++) {
		const char *end = strchr(p, ',');
		const char *stop = end ? end : p + strlen(p);
		unsigned long err, count = 0;
		const char *q;

		if ((size_t)(stop - p) > n && strncmp(p, site, n) == 0 && p[n] == ':') {
			q = fault_number(p + n + 1, 4095, &err);
			if (q && *q == ':')
				q = fault_number(q + 1, ULONG_MAX, &count);
			if (!q || q != stop || err == 0)
				return -EINVAL;
			*ret_index = idx;
			*ret_count = count;
			return (int)err;
		}
		p = end ? end + 1 : NULL;
	}
	return 0;
}

#ifdef CORESCHED_FAULT_INJECTION
#define FAULT_SLOTS 16

int sc_fault(const char *site)
{
	/* Holder threads call the wrappers too: the counts are atomic, and a
	 * bounded fault fails exactly count calls however they interleave. */
	static atomic_ulong used[FAULT_SLOTS];
	unsigned long count, seen;
	unsigned idx;
	int err;

	err = sc_fault_parse(getenv("CORESCHED_FAULT"), site, &idx, &count);
	if (err <= 0)
		return 0;
	if (count > 0) {
		if (idx >= FAULT_SLOTS)
			return 0; /* nowhere to count: never rather than always */
		seen = atomic_load(&used[idx]);
		do
			if (seen >= count)
				return 0;
		while (!atomic_compare_exchange_weak(&used[idx], &seen, seen + 1));
	}
	/* Marked apart from the daemon's own messages, which the tests look for. */
	fprintf(stderr, "fault-injection: %s fails with errno %d\n", site, err);
	return -err;
}
#endif
