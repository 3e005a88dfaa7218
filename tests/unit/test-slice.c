// SPDX-License-Identifier: GPL-2.0-or-later
/* slice_request() against the running kernel: the slice it reports back,
 * the policy, nice value and reset-on-fork flag kept, a thread made
 * afterwards inheriting it, a real-time thread left alone. Each case runs
 * in a child process, so the test's own scheduling is untouched. */
#define _GNU_SOURCE
#include "slice.h"
#include "unit.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* se.slice of thread tid as /proc/self/task/TID/sched shows it (a second
 * reading of the kernel's), or 0 where the kernel shows none. */
static uint64_t proc_slice(pid_t tid)
{
	char path[64], line[256];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/sched", (int)tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "se.slice : %llu", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Does this kernel take a slice of a fair task's own (Linux 6.12)? Asked
 * in a child: 0 if it does, else the reason it cannot be known to. */
static const char *kernel_takes_slices(void)
{
	pid_t p = fork();
	int st;

	if (p == 0) {
		uint64_t ns;
		int r = slice_request(SLICE_DAEMON_NS, &ns);

		if (r == 0)
			_exit(ns == SLICE_DAEMON_NS ? 0 : 1);
		_exit(r == -EOPNOTSUPP ? 2 : 3);
	}
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return "the probe did not run";
	switch (WEXITSTATUS(st)) {
	case 0:
		return NULL;
	case 1:
		return "this kernel takes no time slice of a task's own (Linux 6.12 and later do)";
	case 2:
		return "this test runs under a policy that has no slice (not SCHED_OTHER or SCHED_BATCH)";
	default:
		return "sched_getattr or sched_setattr is refused here";
	}
}

/* Runs fn in a child; the child's CHECKs fail the case. Returns its exit
 * status (77: it had nothing to check). */
static int in_child(void (*fn)(void))
{
	pid_t p = fork();
	int st = 0;

	if (p == 0) {
		unit_case_failed = 0;
		fn();
		fflush(stderr);
		_exit(unit_case_failed);
	}
	CHECK(p > 0);
	CHECK(waitpid(p, &st, 0) == p);
	CHECK(WIFEXITED(st) && (WEXITSTATUS(st) == 0 || WEXITSTATUS(st) == 77));
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void *thread_slice(void *arg)
{
	struct slice_attr a;

	*(uint64_t *)arg = slice_get_attr(0, &a) == 0 ? a.sched_runtime : 1;
	return NULL;
}

static void taken_nice_kept(void)
{
	struct slice_attr a;
	uint64_t ns = 0, inherited = 0, shown;
	pthread_t th;

	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, 0);
	CHECK(errno == 0);
	nice = nice < 19 ? nice + 1 : 19; /* raised, which needs no privilege */
	CHECK(setpriority(PRIO_PROCESS, 0, nice) == 0);
	CHECK(slice_request(SLICE_DAEMON_NS, &ns) == 0);
	CHECK(ns == SLICE_DAEMON_NS);
	CHECK(slice_get_attr(0, &a) == 0);
	CHECK(a.sched_policy == SCHED_OTHER);
	CHECK(a.sched_nice == nice);
	CHECK(a.sched_runtime == SLICE_DAEMON_NS);
	shown = proc_slice(gettid());
	CHECK(shown == 0 || shown == SLICE_DAEMON_NS);
	CHECK(pthread_create(&th, NULL, thread_slice, &inherited) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	CHECK(inherited == SLICE_DAEMON_NS);
}

static void batch_and_reset_on_fork_kept(void)
{
	struct sched_param sp = { 0 };
	struct slice_attr a;
	uint64_t ns = 0;

	CHECK(sched_setscheduler(0, SCHED_BATCH | SCHED_RESET_ON_FORK, &sp) == 0);
	CHECK(slice_request(SLICE_DAEMON_NS, &ns) == 0);
	CHECK(ns == SLICE_DAEMON_NS);
	CHECK(slice_get_attr(0, &a) == 0);
	CHECK(a.sched_policy == SCHED_BATCH);
	CHECK(a.sched_flags & SLICE_FLAG_RESET_ON_FORK);
}

static void realtime_left_alone(void)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct slice_attr a;
	uint64_t ns = 7;

	if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
		_exit(77); /* not allowed to: nothing to check (the caller says so) */
	CHECK(slice_request(SLICE_DAEMON_NS, &ns) == -EOPNOTSUPP);
	CHECK(ns == 0);
	CHECK(slice_get_attr(0, &a) == 0);
	CHECK(a.sched_policy == SCHED_FIFO && a.sched_priority == 1);
}

static void slice_taken(void)
{
	CHECK(in_child(taken_nice_kept) == 0);
	CHECK(in_child(batch_and_reset_on_fork_kept) == 0);
}

int main(void)
{
	const char *why = kernel_takes_slices();

	if (!why)
		RUN(slice_taken);
	else
		printf("SKIP: unit/slice_taken: %s\n", why);
	unit_case_failed = 0;
	if (in_child(realtime_left_alone) == 77)
		printf("SKIP: unit/slice_realtime: SCHED_FIFO is refused here (it needs CAP_SYS_NICE and real-time runtime)\n");
	else {
		printf("%s: unit/slice_realtime\n", unit_case_failed ? "FAIL" : "PASS");
		unit_total_failed += unit_case_failed;
	}
	return unit_total_failed ? 1 : 0;
}
