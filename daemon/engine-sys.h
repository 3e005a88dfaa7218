/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Everything the engine asks of the kernel, in one table: /proc, pidfds,
 * cookies and their holders, SMT. engine_sys_linux() is the real one; the
 * model test gives the engine a fake kernel through the same table, so the
 * engine's decisions are tested against a kernel that behaves like Linux
 * without needing core scheduling on the host. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "procinfo.h"
#include "sched_core.h"

struct holder;

struct engine_sys {
	/* procinfo_read(), procinfo_for_each_pid() */
	int (*read)(void *u, pid_t pid, struct procinfo *ret);
	int (*start_time)(void *u, pid_t pid, uint64_t *ret);
	int (*for_each_pid)(void *u, procinfo_pid_fn fn, void *fn_userdata);
	/* fn(tid) for each thread of pid. */
	int (*for_each_thread)(void *u, pid_t pid, procinfo_pid_fn fn, void *fn_userdata);
	/* Whether tgid (started at start) still has a live thread: 1, 0 when
	 * every thread exited (a zombie or gone), or a negative errno. */
	int (*process_alive)(void *u, pid_t tgid, uint64_t start);
	/* An fd, or a negative errno. */
	int (*pidfd_open)(void *u, pid_t pid);
	bool (*pidfd_alive)(void *u, int fd);
	void (*pidfd_close)(void *u, int fd);
	int (*cookie_get)(void *u, pid_t tid, sc_cookie *ret);
	int (*cookie_create)(void *u, pid_t pid);
	/* Push h's cookie (NULL: 0) to every thread of pid. */
	int (*cookie_assign)(void *u, const struct holder *h, pid_t pid);
	/* A holder with a fresh cookie (adopt_tid 0), or adopting the cookie
	 * of thread adopt_tid. */
	int (*holder_new)(void *u, pid_t adopt_tid, struct holder **ret);
	void (*holder_free)(void *u, struct holder *h);
	sc_cookie (*holder_cookie)(void *u, const struct holder *h);
	/* 1 when SMT is active, 0 when not. */
	int (*smt_active)(void *u);
	/* 1 when a sched_ext scheduler is loaded, 0 when not. */
	int (*sched_ext_enabled)(void *u);
	/* CPU time pid's threads ran, in ns (schedstat's sum_exec_runtime). */
	int (*cpu_ns)(void *u, pid_t pid, uint64_t *ret);
	/* CLOCK_MONOTONIC in ns: the proc connector's event timestamps. */
	uint64_t (*now_ns)(void *u);
	/* The daemon's heartbeat in its state file: mark path with the time
	 * up to which processes were seen (a now_ns() value: the last event
	 * taken), as its modification time; and read back that time in the
	 * unit of procinfo's start_time (clock ticks since boot), so that a
	 * process started later is known to have started unseen. May be NULL:
	 * no heartbeat. */
	int (*touch)(void *u, const char *path, uint64_t seen_ns);
	int (*seen_until)(void *u, const char *path, uint64_t *ret);
	/* Not used by the engine; for a table built on another (the dry run's),
	 * may be NULL otherwise. The process thread tid belongs to. */
	int (*thread_group)(void *u, pid_t tid, pid_t *ret);
	/* fn(child) for each child process of pid. */
	int (*for_each_child)(void *u, pid_t pid, procinfo_pid_fn fn, void *fn_userdata);
	/* What procinfo_read_stat() reads, of a process whose pidfd the
	 * caller holds (a thread group's leader): the engine's read of a fork
	 * child it copies from its parent, and the dry run's cookie model,
	 * which needs only the start time and the parent. May be NULL: the
	 * engine then reads the child whole, the dry run uses read. */
	int (*read_stat)(void *u, pid_t pid, struct procinfo *ret);
	/* procinfo_read_exe(): the exe link alone, for the fork child read
	 * with read_stat. May be NULL with read_stat. */
	int (*read_exe)(void *u, pid_t pid, char *buf, size_t size);
	/* procinfo_read_rest(): the rest of a whole read after read_stat. May
	 * be NULL with read_stat. */
	int (*read_rest)(void *u, pid_t pid, struct procinfo *ret);
	/* May the unprivileged uid and gid act on process pid as the kernel
	 * would let them (auth_may_act_on() of its creds, read now)? 0,
	 * -EPERM, -ESRCH when it is gone, other negative errnos as met. May
	 * be NULL: an unprivileged placement then binds until the rules or a
	 * request end it. */
	int (*may_act)(void *u, pid_t pid, uid_t uid, gid_t gid);
	/* Does process pid run with no_new_privs (NoNewPrivs: 1 in its
	 * status: no exec of a setuid program gains it ids or privilege)? 1,
	 * 0, or a negative errno. May be NULL: none is taken to. */
	int (*no_new_privs)(void *u, pid_t pid);
	/* Not used by the engine; may be NULL. Now, in the unit of procinfo's
	 * start_time (clock ticks of CLOCK_BOOTTIME): the dry run dates what it
	 * saw of a process with it. */
	int (*boot_ticks)(void *u, uint64_t *ret);
	/* Not a kernel call; may be NULL. The engine no longer tracks process
	 * pid started at start, which it has seen end (its exit event, a
	 * pidfd that polled exited, a scan that did not list it): a table
	 * keeping records of processes (the dry run's) drops its own. */
	void (*forget)(void *u, pid_t pid, uint64_t start);
	void *userdata;
};

/* The real kernel, with /proc at proc_root (tests point it at a fake tree).
 * Free with engine_sys_linux_free(). */
struct engine_sys *engine_sys_linux_new(const char *proc_root);
struct engine_sys *engine_sys_linux_free(struct engine_sys *s);

/* A dry run on top of real: everything read (/proc, pidfds, the clock,
 * sched_ext) is real's, but no cookie is ever applied: CREATE and SHARE_TO
 * are recorded in memory, GET answers what was recorded, a process with no
 * record carries its parent's (what fork copies), and SMT is reported on.
 * real must outlive it and provide thread_group and for_each_child. */
struct engine_sys *engine_sys_dry_new(const struct engine_sys *real);
struct engine_sys *engine_sys_dry_free(struct engine_sys *s);
/* Holders the dry run made and has not freed: the cookies it keeps alive. */
unsigned engine_sys_dry_holders(const struct engine_sys *s);
/* Processes with a recorded cookie (some may have exited since). */
size_t engine_sys_dry_records(const struct engine_sys *s);
