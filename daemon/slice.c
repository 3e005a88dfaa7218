// SPDX-License-Identifier: GPL-2.0-or-later
/* The event loop's time slice: see slice.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "slice.h"

/* struct sched_attr as of its first version (48 bytes): glibc before 2.41
 * does not declare it, and the utilization clamps that follow are not
 * asked for. */
struct attr_v0 {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#define FLAG_RESET_ON_FORK 0x01

static int get_attr(struct attr_v0 *a)
{
	memset(a, 0, sizeof(*a));
	return syscall(SYS_sched_getattr, 0, a, sizeof(*a), 0) < 0 ? -errno : 0;
}

int slice_request(uint64_t slice_ns, uint64_t *ret_ns)
{
	struct attr_v0 a;
	int r = get_attr(&a);

	*ret_ns = 0;
	if (r < 0)
		return r;
	if (a.sched_policy != SCHED_OTHER && a.sched_policy != SCHED_BATCH)
		return -EOPNOTSUPP;
	a.size = sizeof(a);
	a.sched_flags &= FLAG_RESET_ON_FORK;
	a.sched_runtime = slice_ns;
	a.sched_deadline = a.sched_period = 0;
	if (syscall(SYS_sched_setattr, 0, &a, 0) < 0)
		return -errno;
	r = get_attr(&a);
	if (r < 0)
		return r;
	*ret_ns = a.sched_runtime;
	return 0;
}
