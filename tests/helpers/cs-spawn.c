// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-spawn N: fork N children that sleep until the parent goes away, print
 * "ready N", then wait. On SIGUSR1 the parent polls its children's cookies
 * until every one is non-zero (or 120 s pass) and prints
 * "tagged T/N in MS ms": the time a daemon takes to converge on N live
 * processes, measured from the signal. Scale and convergence benchmarks. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "sched_core.h"

static volatile sig_atomic_t stop, check;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		check = 1;
	else
		stop = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Children are checked in order; a tagged one never needs a second look. */
static void wait_tagged(const pid_t *kids, long n)
{
	double start = now_ms();
	struct timespec pause_ts = { 0, 1000000 };
	long done = 0;
	sc_cookie c;

	while (done < n && now_ms() - start < 120000) {
		if (sc_get(kids[done], &c) == 0 && c != 0) {
			done++;
			continue;
		}
		nanosleep(&pause_ts, NULL);
	}
	printf("tagged %ld/%ld in %.0f ms\n", done, n, now_ms() - start);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	long n = argc > 1 ? atol(argv[1]) : 0, i;
	pid_t *kids = calloc(n > 0 ? n : 1, sizeof(*kids));
	pid_t parent = getpid();

	if (n <= 0 || !kids) {
		fprintf(stderr, "usage: cs-spawn N\n");
		return 2;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	for (i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			for (;;)
				pause();
		}
		if (kids[i] < 0) {
			fprintf(stderr, "cs-spawn: fork %ld failed\n", i);
			n = i;
			break;
		}
	}
	printf("ready %ld\n", n);
	fflush(stdout);
	while (!stop) {
		pause();
		if (check) {
			check = 0;
			wait_tagged(kids, n);
		}
	}
	return 0;
}
