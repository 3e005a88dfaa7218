// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-match [ITERATIONS]: rule matching time per process with 10, 100
 * and 1,000 groups, the cost every exec pays in the daemon. Groups are
 * realistic: MatchExe= exact paths, a MatchComm= and a MatchUser= in some,
 * and a share of globs (which need a scan, not a hash look-up). Inputs:
 * a process matching the last group (the worst case for first-match) and
 * one matching nothing (the common case). Prints one table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench-conf.h"
#include "conf.h"

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

/* Median of five rounds after a warm-up: the first round pays for cold
 * caches and page faults, which no long-running daemon does. */
static double time_match(const struct conf *c, const struct match_input *in, long iters, int *ret_hit)
{
	struct match_result m;
	double rounds[5];
	int hit = 0;

	for (long i = 0; i < iters / 10 + 1; i++)
		hit += rules_match(c, in, &m);
	for (int r = 0; r < 5; r++) {
		double start = now_ns();

		for (long i = 0; i < iters; i++)
			rules_match(c, in, &m);
		rounds[r] = (now_ns() - start) / (double)iters;
	}
	qsort(rounds, 5, sizeof(rounds[0]), cmp_double);
	*ret_hit = hit > 0;
	return rounds[2];
}

static int bench(int n, int globs, long iters, double *ret_last, double *ret_none)
{
	char *text = bench_make_conf(n, globs), *err = NULL, exe[64];
	struct match_input in = { .comm = "x", .uid = 1000, .gid = 1000, .cgroup = "/user.slice" };
	struct conf *c = NULL;
	int hit_last, hit_none;

	if (!text || conf_load_string(text, "bench", &c, &err) < 0) {
		fprintf(stderr, "bench-match: %s\n", err ? err : "out of memory");
		free(text);
		free(err);
		return -1;
	}
	snprintf(exe, sizeof(exe), "/usr/bin/app%d", n - 1);
	in.exe = exe;
	*ret_last = time_match(c, &in, iters, &hit_last);
	in.exe = "/usr/bin/unmatched";
	*ret_none = time_match(c, &in, iters, &hit_none);
	conf_free(c);
	free(text);
	return hit_last && !hit_none ? 0 : -1;
}

int main(int argc, char **argv)
{
	long iters = argc > 1 ? atol(argv[1]) : 100000;
	static const int sizes[] = { 10, 100, 1000 };

	printf("== 5b. rule matching time per process (host, median of 5 x %ld look-ups, ns per look-up)\n", iters);
	printf("%-7s %-13s %12s %12s\n", "groups", "patterns", "last-group", "no-match");
	for (int globs = 0; globs <= 1; globs++) {
		double last[3], none[3];

		for (int i = 0; i < 3; i++)
			if (bench(sizes[i], globs, iters, &last[i], &none[i]) < 0) {
				fprintf(stderr, "bench-match: wrong match result at %d groups\n", sizes[i]);
				return 1;
			}
		for (int i = 0; i < 3; i++)
			printf("%-7d %-13s %12.0f %12.0f\n", sizes[i], globs ? "10% globs" : "exact paths",
			       last[i], none[i]);
		printf("%-7s %-13s %12.1f %12.1f\n", "1000:10", "ratio", last[2] / last[0], none[2] / none[0]);
	}
	return 0;
}
