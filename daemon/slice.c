// SPDX-License-Identifier: GPL-2.0-or-later
/* The event loop's time slice: see slice.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slice.h"

int slice_get_attr(pid_t tid, struct slice_attr *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, tid, a, sizeof(*a), 0) < 0 ? -errno : 0;
}

int slice_request(uint64_t slice_ns, uint64_t *ret_ns)
{
	struct slice_attr a;
	int r = slice_get_attr(0, &a);

	*ret_ns = 0;
	if (r < 0)
		return r;
	if (a.sched_policy != SCHED_OTHER && a.sched_policy != SCHED_BATCH)
		return -EOPNOTSUPP;
	a.size = sizeof(a);
	a.sched_flags &= SLICE_FLAG_RESET_ON_FORK;
	a.sched_runtime = slice_ns;
	a.sched_deadline = a.sched_period = 0;
	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0)
		return -errno;
	r = slice_get_attr(0, &a);
	if (r < 0)
		return r;
	*ret_ns = a.sched_runtime;
	return 0;
}
