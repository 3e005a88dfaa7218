/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Confinement for coreschedd (capabilities, a seccomp allow-list) and for
 * workloads started with "coresched run --lock" (no cookie changes).
 * Every int function returns 0 or a negative errno. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum sandbox_mode {
	SANDBOX_OFF,     /* no filter */
	SANDBOX_ENFORCE, /* calls off the list fail with ENOSYS */
	SANDBOX_LOG,     /* calls off the list succeed and are logged by the kernel */
};

/* Keep only CAP_SYS_PTRACE and CAP_NET_ADMIN (those held now) in the
 * permitted and effective sets, empty the inheritable and ambient sets,
 * shrink the bounding set to them and set no_new_privs. Capabilities are
 * per thread: call it before any thread exists (-EBUSY otherwise). */
int sandbox_drop_caps(void);
/* The same for the calling thread with any set (a mask of 1 << CAP_*):
 * no_new_privs, bounding set shrunk (with CAP_SETPCAP), ambient and
 * inheritable emptied, permitted and effective cut to keep. */
int sandbox_keep_caps(uint64_t keep);
/* Whether cap is in the calling thread's effective set. */
bool sandbox_has_cap(int cap);

/* Install the daemon's allow-list on every thread of the process. Calls the
 * daemon must never make (ptrace, execve, module and mount calls, ...) kill
 * the process in both ENFORCE and LOG mode. */
int sandbox_seccomp(enum sandbox_mode mode);

/* "off", "enforce", "log"; -EINVAL on anything else. */
int sandbox_mode_from_string(const char *s, enum sandbox_mode *ret_mode);
const char *sandbox_mode_to_string(enum sandbox_mode mode);

/* What is in force, for status output: "caps=cap_sys_ptrace,cap_net_admin
 * seccomp=enforce syscalls=N". Points at static storage. */
const char *sandbox_describe(void);
/* Syscalls on the installed allow-list; 0 when no filter is installed. */
unsigned sandbox_syscall_count(void);

/* For the workload of "coresched run --lock": make prctl(PR_SCHED_CORE, ...)
 * fail with EPERM in this process and everything it executes, leaving all
 * else allowed. Sets no_new_privs, so setuid programs started from the
 * workload run without their privileges. */
int sandbox_lock_sched_core(void);
