// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-proc [ITERATIONS]: what each read the daemon makes of a process
 * costs, against the floor's one readlink of /proc/PID/exe, on this kernel.
 * The subject is a child that sleeps; each row is one call of the daemon's
 * own reader (daemon/procinfo.c), timed over ITERATIONS calls a round, the
 * median of the rounds. A child the daemon has to read whole costs it at
 * least the "pidfd + whole read, ids by pidfd" row in the kernel (the
 * row above it on a kernel before 6.13, which has no PIDFD_GET_INFO; on a
 * later one its cgroup comes from the id the same ioctl gives, where a
 * cgroup2 mount shows the id's path),
 * where the floor pays the first: the bound under the CPU-per-exec ratio
 * (3c) that no bookkeeping in user space can go below while the uid, gid,
 * cgroup and start time are read. Prints one table. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procinfo.h"

#define ROUNDS 9

static pid_t subject;
static struct procinfo info;
static char link_buf[PROCINFO_PATH_MAX];

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The floor's read: one readlink by path (tests/helpers/cs-floor.c). */
static int op_floor(void)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)subject);
	return readlink(path, link_buf, sizeof(link_buf) - 1) < 0 ? -errno : 0;
}

static int op_exe(void)
{
	return procinfo_read_exe("/proc", subject, link_buf, sizeof(link_buf));
}

static int op_stat(void)
{
	return procinfo_read_stat("/proc", subject, &info);
}

static int op_rest(void)
{
	return procinfo_read_rest("/proc", subject, &info);
}

static int op_whole(void)
{
	return procinfo_read("/proc", subject, &info);
}

/* What the engine holds across a read: a pidfd, polled at the end. */
static int op_pidfd(void)
{
	int fd = (int)syscall(SYS_pidfd_open, subject, 0), r;

	if (fd < 0)
		return -errno;
	r = procinfo_pidfd_poll(fd);
	close(fd);
	return r < 0 ? r : 0;
}

static int op_pidfd_whole(void)
{
	int fd = (int)syscall(SYS_pidfd_open, subject, 0), r;

	if (fd < 0)
		return -errno;
	r = procinfo_read("/proc", subject, &info);
	if (r >= 0)
		r = procinfo_pidfd_poll(fd);
	close(fd);
	return r < 0 ? r : 0;
}

/* The engine's read: the ids (and the cgroup, by its id) from the pidfd
 * it holds where the kernel answers PIDFD_GET_INFO (Linux 6.13), not from
 * status (and the cgroup file); then stat and exe by their paths, with no
 * directory of the process opened (the ioctl ties them to it). */
static int op_pidfd_whole_ids(void)
{
	int fd = (int)syscall(SYS_pidfd_open, subject, 0), r;

	if (fd < 0)
		return -errno;
	r = procinfo_read_pidfd("/proc", subject, fd, &info);
	if (r >= 0)
		r = procinfo_pidfd_poll(fd);
	close(fd);
	return r < 0 ? r : 0;
}

struct op {
	const char *name;
	int (*fn)(void);
	double us;
};

int main(int argc, char **argv)
{
	struct op ops[] = {
		{ "floor: readlink of exe", op_floor, 0 },
		{ "exe link (procinfo_read_exe)", op_exe, 0 },
		{ "stat (procinfo_read_stat)", op_stat, 0 },
		{ "status, cgroup, exe (_read_rest)", op_rest, 0 },
		{ "whole read (procinfo_read)", op_whole, 0 },
		{ "pidfd open, poll, close", op_pidfd, 0 },
		{ "pidfd + whole read", op_pidfd_whole, 0 },
		{ "pidfd + whole read, ids by pidfd", op_pidfd_whole_ids, 0 },
	};
	long iters = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	size_t n = sizeof(ops) / sizeof(ops[0]);
	int status;

	if (iters <= 0) {
		fprintf(stderr, "usage: bench-proc [ITERATIONS]\n");
		return 2;
	}
	subject = fork();
	if (subject < 0) {
		perror("bench-proc: fork");
		return 1;
	}
	if (subject == 0) {
		pause();
		_exit(0);
	}
	for (size_t i = 0; i < n; i++) {
		double us[ROUNDS];
		int r = ops[i].fn();

		if (r < 0) {
			fprintf(stderr, "bench-proc: %s: %s\n", ops[i].name, strerror(-r));
			kill(subject, SIGKILL);
			waitpid(subject, &status, 0);
			return 1;
		}
		for (int k = 0; k < ROUNDS; k++) {
			double t0 = now_ns();

			for (long j = 0; j < iters; j++)
				(void)ops[i].fn();
			us[k] = (now_ns() - t0) / (double)iters / 1000.0;
		}
		qsort(us, ROUNDS, sizeof(us[0]), cmp_double);
		ops[i].us = us[ROUNDS / 2];
	}
	kill(subject, SIGKILL);
	waitpid(subject, &status, 0);
	printf("== 3e. what a read of /proc costs, host (a sleeping child; median of %d rounds of %ld calls; "
	       "ratio to the floor's readlink)\n",
	       ROUNDS, iters);
	printf("%-36s %10s %8s\n", "read", "us/call", "ratio");
	for (size_t i = 0; i < n; i++)
		printf("%-36s %10.2f %8.2f\n", ops[i].name, ops[i].us, ops[i].us / ops[0].us);
	printf("(ids by pidfd: %s", procinfo_pidfd_ids_supported() > 0 ? "PIDFD_GET_INFO"
					  : "this kernel has no PIDFD_GET_INFO (Linux 6.13): status, as the row above");
	if (procinfo_pidfd_ids_supported() > 0)
		printf("; the cgroup %s", procinfo_cgroups_by_id() ? "by its id" : "read from its file (no cgroup2 mount)");
	if (procinfo_reads_by_paths())
		printf("; stat and exe by their paths, no directory opened");
	printf(")\n");
	return 0;
}
