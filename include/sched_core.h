/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The kernel's core-scheduling API (prctl PR_SCHED_CORE), shared by the
 * daemon, the CLI and the hook. Every function returns 0 or a negative errno. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#endif
#ifndef PR_SCHED_CORE_GET
#define PR_SCHED_CORE_GET 0
#define PR_SCHED_CORE_CREATE 1
#define PR_SCHED_CORE_SHARE_TO 2
#define PR_SCHED_CORE_SHARE_FROM 3
#endif

/* uapi names these only since 5.16. */
enum sc_scope {
	SC_SCOPE_THREAD = 0,       /* PIDTYPE_PID */
	SC_SCOPE_THREAD_GROUP = 1, /* PIDTYPE_TGID */
	SC_SCOPE_PROCESS_GROUP = 2 /* PIDTYPE_PGID */
};

/* The kernel writes a u64: a narrower type here once overwrote a stack. */
typedef uint64_t sc_cookie;

int sc_get(pid_t tid, sc_cookie *ret_cookie);
int sc_create(pid_t pid, enum sc_scope scope);
int sc_share_to(pid_t pid, enum sc_scope scope);
int sc_share_from(pid_t tid);

/* What the running kernel offers: 0 when cookies work, -EINVAL without
 * CONFIG_SCHED_CORE, -ENODEV when SMT is absent or switched off. */
int sc_probe(void);

/* After sc_probe() said -ENODEV: does /sys/devices/system/cpu/smt/control
 * say SMT comes back with one write ("off"; or "on", with siblings
 * offline)? False where it says the CPU has none ("notsupported",
 * "notimplemented"), it was forced off until a reboot ("forceoff"), or it
 * cannot be read (nothing says SMT is there to switch on). The daemon
 * waits for SMT only where it is true, and the container hook holds to
 * its fail mode only there. */
bool sc_smt_switchable(void);

/* "pid", "tgid", "pgid" (util-linux names); -EINVAL on anything else. */
int sc_scope_from_string(const char *s, enum sc_scope *ret_scope);
const char *sc_scope_to_string(enum sc_scope scope);

/* One line naming the cause of a failed call, for users. */
const char *sc_strerror(int negerrno);

/* Fault injection for tests: when the environment variable
 * CORESCHED_FAULT="site:errno[:count],..." names a call site, the call
 * there fails with -errno instead of reaching the kernel, for the first
 * count calls (0 or absent: every call). Compiled in only with
 * -DCORESCHED_FAULT_INJECTION; otherwise sc_fault() is a constant 0 and
 * costs nothing. */
#ifdef CORESCHED_FAULT_INJECTION
int sc_fault(const char *site);
#else
static inline int sc_fault(const char *site)
{
	(void)site;
	return 0;
}
#endif

/* Pure: the first entry of spec (NULL: none) that names site. Returns its
 * errno (1..4095) and writes the entry's position and count; 0 when no
 * entry names site; -EINVAL when that entry is malformed. */
int sc_fault_parse(const char *spec, const char *site, unsigned *ret_index, unsigned long *ret_count);
