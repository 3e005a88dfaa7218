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

#define SLICE_DAEMON_NS 100000u /* the kernel's least */

/* Ask for a slice of slice_ns for the calling thread and the threads it
 * creates afterwards, its policy, nice value and reset-on-fork flag kept
 * (a thread under another policy, real-time, deadline, idle or an
 * extensible scheduler's, is left alone: -EOPNOTSUPP).
 * *ret_ns is the slice the kernel reports afterwards: 0 where it reports
 * none (before 6.12, which also ignores the request). 0 or -errno. */
int slice_request(uint64_t slice_ns, uint64_t *ret_ns);
