// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-storm RATE SECONDS EXE [ARG...]: start EXE at RATE per second (0: as
 * fast as one spawning process can) for SECONDS (or until SIGTERM), never
 * waiting for a child between starts, and print "execs=N secs=S rate=R"
 * with the rate achieved. The exec storm the benchmarks state their figures under. */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;
static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts = { (time_t)t, (long)((t - (double)(time_t)t) * 1e9) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_NOCLDWAIT };
	double rate, secs, start, end;
	unsigned long n = 0;
	pid_t pid;

	if (argc < 4) {
		fprintf(stderr, "usage: cs-storm RATE SECONDS EXE [ARG...]\n");
		return 2;
	}
	rate = atof(argv[1]);
	secs = atof(argv[2]);
	struct sigaction term = { .sa_handler = on_term };
	posix_spawn_file_actions_t fa;

	/* The children's output must not mix into our one line of figures. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);

	sigaction(SIGCHLD, &sa, NULL); /* children reap themselves */
	sigaction(SIGTERM, &term, NULL);
	start = now_s();
	end = start + secs;
	while (!stop && now_s() < end) {
		if (rate > 0)
			sleep_until(start + (double)n / rate);
		if (posix_spawn(&pid, argv[3], &fa, NULL, argv + 3, environ) == 0)
			n++;
	}
	end = now_s();
	printf("execs=%lu secs=%.2f rate=%.0f\n", n, end - start, (double)n / (end - start));
	return 0;
}
