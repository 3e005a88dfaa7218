/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The event loop's time slice. A process event wakes the daemon while the
 * process it reports runs on: a child that just executed a program goes
 * on loading it, often on the CPU the daemon is woken on, and the daemon
 * may wait for it to sleep or to run out its slice (the kernel's default,
 * about 3 ms on eight CPUs or more), priority or not. From Linux 6.12 a
 * fair task may ask for a slice of its own (sched_attr.sched_runtime, 0.1
 * to 100 ms), and a task waking with a shorter slice than the running
 * one's preempts it. The daemon's work per event is short, so it asks for
 * the shortest: its untagged window then does not wait for the process it
 * is about to tag. */
#pragma once

#include <stdint.h>
#include <sys/types.h>

#define SLICE_MIN_NS 100000u     /* the kernel's least */
#define SLICE_MAX_NS 100000000u  /* ...and most */
#define SLICE_DAEMON_NS SLICE_MIN_NS /* TimeSliceUSec='s default */

/* struct sched_attr as of its first version (48 bytes): glibc before 2.41
 * does not declare it, and the utilization clamps that follow are not
 * asked for. */
struct slice_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime; /* a fair task's slice, from 6.12 */
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#define SLICE_FLAG_RESET_ON_FORK 0x01

/* Thread tid's (0: the caller's) scheduling attributes, as sched_getattr(2)
 * reports them. 0 or -errno. */
int slice_get_attr(pid_t tid, struct slice_attr *a);

/* Ask for a slice of slice_ns for the calling thread and the threads it
 * creates afterwards, its policy, nice value and reset-on-fork flag kept
 * (a thread under another policy, real-time, deadline, idle or an
 * extensible scheduler's, is left alone: -EOPNOTSUPP).
 * *ret_ns is the slice the kernel reports afterwards: 0 where it reports
 * none (before 6.12, which also ignores the request). 0 or -errno. */
int slice_request(uint64_t slice_ns, uint64_t *ret_ns);
