// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-spin SECONDS [CPU]: burn CPU for SECONDS (wall clock), pinned to CPU
 * when given. Forced-idle tests run one per SMT sibling. With
 * CS_SPIN_REPORT set, just before it exits it prints the kernel's final
 * count of its forced idle, in ms ("core_forceidle_sum N"): what a test
 * compares the daemon's accounting with, taken at the only moment that
 * does not depend on how fast the machine started it.
 *
 * With CS_SPIN_CHURN_MS=N the loop runs in worker threads that live about
 * N ms each, the main thread only starting and joining them: a process
 * whose threads keep exiting. CS_SPIN_THREADS=K (default 1) keeps K of
 * them alive at once, started N/K ms apart, so that one exits while the
 * others run; with 1 the next starts as the previous exits. The workers
 * inherit the pinning. The report then sums what each thread read of
 * itself just before it ended. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;
static double report_ms;
static int reported;

/* The calling thread's core_forceidle_sum into the report. */
static void note_forceidle(const char *path)
{
	FILE *f = fopen(path, "re");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "core_forceidle_sum", 18) == 0) {
			char *colon = strchr(line, ':');

			if (colon) {
				pthread_mutex_lock(&report_lock);
				report_ms += strtod(colon + 1, NULL);
				reported = 1;
				pthread_mutex_unlock(&report_lock);
			}
		}
	fclose(f);
}

static double elapsed(const struct timespec *from)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - from->tv_sec) + (double)(now.tv_nsec - from->tv_nsec) / 1e9;
}

static void spin_for(double secs)
{
	struct timespec start;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 100000; i++)
			x++;
	} while (elapsed(&start) < secs);
}

struct worker {
	pthread_t th;
	double secs;
	int running;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	spin_for(w->secs);
	if (getenv("CS_SPIN_REPORT"))
		note_forceidle("/proc/thread-self/sched");
	return NULL;
}

/* Workers of life_ms each, k alive at once, until secs have passed. */
static int churn(double secs, double life_ms, int k)
{
	struct worker *w = calloc((size_t)k, sizeof(*w));
	double step = life_ms / 1000.0 / k;
	struct timespec start;
	long n = 0;

	if (!w) {
		perror("calloc");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct worker *x = &w[n % k];
		double left = secs - elapsed(&start), next;
		struct timespec wake;
		int r;

		if (left <= 0)
			break;
		if (x->running) {
			pthread_join(x->th, NULL);
			x->running = 0;
		}
		x->secs = life_ms / 1000.0 < left ? life_ms / 1000.0 : left;
		r = pthread_create(&x->th, NULL, worker_main, x);
		if (r) {
			errno = r;
			perror("pthread_create");
			return 1;
		}
		x->running = 1;
		n++;
		next = step * (double)n;
		if (next >= secs)
			break;
		wake.tv_sec = start.tv_sec + (time_t)next;
		wake.tv_nsec = start.tv_nsec + (long)((next - (double)(time_t)next) * 1e9);
		if (wake.tv_nsec >= 1000000000L) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000L;
		}
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) == EINTR)
			;
	}
	for (int i = 0; i < k; i++)
		if (w[i].running)
			pthread_join(w[i].th, NULL);
	free(w);
	return 0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	const char *churn_ms = getenv("CS_SPIN_CHURN_MS"), *threads = getenv("CS_SPIN_THREADS");

	if (argc > 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	if (churn_ms && atof(churn_ms) > 0) {
		int k = threads ? atoi(threads) : 1;

		if (churn(secs, atof(churn_ms), k > 0 ? k : 1))
			return 1;
	} else
		spin_for(secs);
	if (getenv("CS_SPIN_REPORT")) {
		note_forceidle("/proc/self/sched");
		if (reported)
			printf("core_forceidle_sum %.6f\n", report_ms);
	}
	return 0;
}
