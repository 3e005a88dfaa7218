// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-time ROUNDS K COMMAND...: the wall-clock time of one run of each
 * COMMAND (a string of words split at spaces), spawned and waited for.
 * Each round runs every command K times in turn, so that a slower or
 * busier stretch of the run weighs on all of them alike. Prints, per
 * command, "runs median p10 p90 rounds-median COMMAND" in us: the median
 * of the per-run times, and the median over rounds of a round's mean. */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#define MAX_CMDS 8
#define MAX_WORDS 32

extern char **environ;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The q-quantile (nearest rank) of n values, sorted in place. */
static double quantile(double *v, size_t n, double q)
{
	size_t i = (size_t)((double)n * q + 0.999);

	qsort(v, n, sizeof(*v), cmp);
	return v[i < 1 ? 0 : i - 1];
}

static double tv_us(struct timeval tv)
{
	return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

/* One run: spawn, wait; the time it took in us, and in *ret_cpu the CPU
 * time it used; -1 when it failed. */
static double run_once(char **argv, const posix_spawn_file_actions_t *fa, double *ret_cpu)
{
	double t0 = now_us();
	struct rusage ru;
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, argv[0], fa, NULL, argv, environ) != 0)
		return -1;
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	*ret_cpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	return now_us() - t0;
}

int main(int argc, char **argv)
{
	char *words[MAX_CMDS][MAX_WORDS + 1];
	posix_spawn_file_actions_t fa;
	double *runs[MAX_CMDS], *means[MAX_CMDS], *cpu[MAX_CMDS];
	int rounds, k, n = argc - 3;

	if (argc < 4 || n > MAX_CMDS || (rounds = atoi(argv[1])) < 1 || (k = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: cs-time ROUNDS K COMMAND... (at most %d commands)\n", MAX_CMDS);
		return 2;
	}
	for (int c = 0; c < n; c++) {
		char *save, *w = strtok_r(strdup(argv[3 + c]), " ", &save);
		int i = 0;

		for (; w && i < MAX_WORDS; w = strtok_r(NULL, " ", &save))
			words[c][i++] = w;
		words[c][i] = NULL;
		runs[c] = calloc((size_t)rounds * (size_t)k, sizeof(double));
		means[c] = calloc((size_t)rounds, sizeof(double));
		cpu[c] = calloc((size_t)rounds * (size_t)k, sizeof(double));
		if (i == 0 || !runs[c] || !means[c] || !cpu[c]) {
			fprintf(stderr, "cs-time: bad command '%s'\n", argv[3 + c]);
			return 2;
		}
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	for (int r = 0; r < rounds; r++)
		for (int c = 0; c < n; c++) {
			double sum = 0;

			for (int i = 0; i < k; i++) {
				double t = run_once(words[c], &fa, &cpu[c][r * k + i]);

				if (t < 0) {
					fprintf(stderr, "cs-time: '%s' failed\n", argv[3 + c]);
					return 1;
				}
				runs[c][r * k + i] = t;
				sum += t;
			}
			means[c][r] = sum / k;
		}
	for (int c = 0; c < n; c++) {
		size_t total = (size_t)rounds * (size_t)k;
		double med = quantile(runs[c], total, 0.5), p10 = quantile(runs[c], total, 0.1);
		double p90 = quantile(runs[c], total, 0.9);

		printf("%zu %.0f %.0f %.0f %.0f %.0f %s\n", total, med, p10, p90, quantile(means[c], (size_t)rounds, 0.5),
		       quantile(cpu[c], total, 0.5), argv[3 + c]);
	}
	return 0;
}
