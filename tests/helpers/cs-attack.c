// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-attack MODE ...: small racers for tests/integration/attack-lib.sh.
 *   we SECS CMD...         wait up to SECS for our own cookie to be non-zero,
 *                          then exec CMD at once
 *   cgfork CGDIR N         clone3(CLONE_INTO_CGROUP) N children into CGDIR
 *                          at once; children (and we) sleep, no exec
 *   cpexec SECS N CMD...   wait up to SECS for our cookie (0: not at all),
 *                          then clone(CLONE_PARENT) N children that exec CMD
 *   cpfork SECS N          the same, but the children do not exec: they run
 *                          our program, under our parent
 *   texec SECS NT CMD...   start NT threads, wait up to SECS for our cookie,
 *                          then the last thread (not the main one) execs CMD
 *   tstorm N MS            create N threads, one every MS milliseconds, from
 *                          the first instruction on; all sleep
 *   chain DEPTH CMD...     fork a chain DEPTH deep; every level but the leaf
 *                          exits as soon as its child is forked; the leaf
 *                          execs CMD (an orphan, reparented to init)
 *   rename NAME N          prctl(PR_SET_NAME, NAME), then fork N at once
 *   cookie PID             print PID's cookie (the kernel's, PIDTYPE_PID)
 * Children die with their parent (PDEATHSIG) unless they exec. Exit 2 on a
 * usage or set-up error. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define A_PR_SCHED_CORE 62
#define A_GET 0

static unsigned long long own_cookie(void)
{
	unsigned long long c = 0;

	if (prctl(A_PR_SCHED_CORE, A_GET, 0, 0, (unsigned long)&c) < 0)
		return 0;
	return c;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wait_placed(double secs)
{
	struct timespec p = { 0, 5000000 };
	double end = now_s() + secs;

	while (secs > 0 && now_s() < end && !own_cookie())
		nanosleep(&p, NULL);
}

static void forever(void)
{
	for (;;)
		pause();
}

static char **exec_argv;

static void *exec_thread(void *arg)
{
	(void)arg;
	execvp(exec_argv[0], exec_argv);
	perror("cs-attack: exec");
	_exit(127);
}

static void *sleeper(void *arg)
{
	(void)arg;
	forever();
	return NULL;
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (strcmp(m, "we") == 0 && argc > 3) {
		wait_placed(atof(argv[2]));
		execvp(argv[3], argv + 3);
		perror("cs-attack: exec");
		return 127;
	}
	if (strcmp(m, "cgfork") == 0 && argc == 4) {
		int fd = open(argv[2], O_RDONLY | O_DIRECTORY | O_CLOEXEC), n = atoi(argv[3]);

		if (fd < 0) {
			perror(argv[2]);
			return 2;
		}
		for (int i = 0; i < n; i++) {
			struct clone_args ca = { .flags = CLONE_INTO_CGROUP, .exit_signal = SIGCHLD,
						 .cgroup = (uint64_t)fd };
			long pid = syscall(SYS_clone3, &ca, sizeof(ca));

			if (pid < 0) {
				perror("cs-attack: clone3");
				return 2;
			}
			if (pid == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				forever();
			}
		}
		forever();
	}
	if (strcmp(m, "cpexec") == 0 && argc > 4) {
		int n = atoi(argv[3]);

		wait_placed(atof(argv[2]));
		for (int i = 0; i < n; i++) {
			long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);

			if (pid < 0) {
				perror("cs-attack: clone");
				return 2;
			}
			if (pid == 0) {
				execvp(argv[4], argv + 4);
				_exit(127);
			}
		}
		forever();
	}
	if (strcmp(m, "cpfork") == 0 && argc == 4) {
		int n = atoi(argv[3]);

		wait_placed(atof(argv[2]));
		for (int i = 0; i < n; i++) {
			long pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);

			if (pid < 0) {
				perror("cs-attack: clone");
				return 2;
			}
			if (pid == 0)
				forever(); /* dies with whoever kills it: no PDEATHSIG, the parent is another */
		}
		forever();
	}
	if (strcmp(m, "texec") == 0 && argc > 4) {
		int nt = atoi(argv[3]);
		pthread_t t;

		for (int i = 0; i < nt - 1; i++)
			if (pthread_create(&t, NULL, sleeper, NULL) != 0)
				return 2;
		wait_placed(atof(argv[2]));
		exec_argv = argv + 4;
		if (pthread_create(&t, NULL, exec_thread, NULL) != 0)
			return 2;
		forever();
	}
	if (strcmp(m, "tstorm") == 0 && argc == 4) {
		int n = atoi(argv[2]);
		struct timespec p = { 0, atol(argv[3]) * 1000000L };
		pthread_t t;

		for (int i = 0; i < n; i++) {
			if (pthread_create(&t, NULL, sleeper, NULL) != 0)
				return 2;
			if (p.tv_nsec)
				nanosleep(&p, NULL);
		}
		forever();
	}
	if (strcmp(m, "chain") == 0 && argc > 3) {
		int depth = atoi(argv[2]);

		for (int i = 0; i < depth; i++) {
			pid_t pid = fork();

			if (pid < 0)
				return 2;
			if (pid > 0)
				_exit(0);
		}
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	if (strcmp(m, "rename") == 0 && argc == 4) {
		int n = atoi(argv[3]);

		prctl(PR_SET_NAME, argv[2]);
		for (int i = 0; i < n; i++) {
			pid_t pid = fork();

			if (pid == 0) {
				prctl(PR_SET_PDEATHSIG, SIGKILL);
				forever();
			}
		}
		forever();
	}
	if (strcmp(m, "cookie") == 0 && argc == 3) {
		unsigned long long c = 0;

		if (prctl(A_PR_SCHED_CORE, A_GET, atoi(argv[2]), 0, (unsigned long)&c) < 0) {
			printf("!%s\n", strerrorname_np(errno));
			return 1;
		}
		printf("0x%llx\n", c);
		return 0;
	}
	fprintf(stderr, "usage: cs-attack we|cgfork|cpexec|cpfork|texec|tstorm|chain|rename|cookie ...\n");
	return 2;
}
