// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-match [ITERATIONS]: rule matching time per process with 10, 100
 * and 1,000 groups, the cost every exec pays in the daemon. Groups are
 * realistic: MatchExe= exact paths, a MatchComm= and a MatchUser= in some,
 * and a share of globs. Inputs: a process matching the last group (the
 * worst case for first-match) and one matching nothing (the common case).
 * Prints one table.
 * bench-match --count N GROUPS exact|globs last|none: N look-ups of one
 * row and nothing else, for counting instructions under callgrind
 * (tests/bench/callgrind-match.sh). */
#include <stdbool.h>
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

static struct conf *load(int n, int globs)
{
	char *text = bench_make_conf(n, globs), *err = NULL;
	struct conf *c = NULL;

	if (!text || conf_load_string(text, "bench", &c, &err) < 0) {
		fprintf(stderr, "bench-match: %s\n", err ? err : "out of memory");
		c = NULL;
	}
	free(text);
	free(err);
	return c;
}

static int bench(int n, int globs, long iters, double *ret_last, double *ret_none)
{
	struct match_input in = { .comm = "x", .uid = 1000, .gid = 1000, .cgroup = "/user.slice" };
	struct conf *c = load(n, globs);
	int hit_last, hit_none;
	char exe[64];

	if (!c)
		return -1;
	snprintf(exe, sizeof(exe), "/usr/bin/app%d", n - 1);
	in.exe = exe;
	*ret_last = time_match(c, &in, iters, &hit_last);
	in.exe = "/usr/bin/unmatched";
	*ret_none = time_match(c, &in, iters, &hit_none);
	conf_free(c);
	return hit_last && !hit_none ? 0 : -1;
}

/* The look-ups alone, rules_match() called count times; the same inputs as
 * bench(). Returns 0 when every call gave the expected result. */
static int count_only(long count, int n, const char *patterns, const char *input)
{
	struct match_input in = { .comm = "x", .uid = 1000, .gid = 1000, .cgroup = "/user.slice" };
	bool last = strcmp(input, "last") == 0;
	struct match_result m;
	struct conf *c;
	long hits = 0;
	char exe[64];

	if (n < 1 || (strcmp(patterns, "exact") && strcmp(patterns, "globs")) || (!last && strcmp(input, "none"))) {
		fprintf(stderr, "usage: bench-match --count N GROUPS exact|globs last|none\n");
		return 2;
	}
	c = load(n, strcmp(patterns, "globs") == 0);
	if (!c)
		return 1;
	snprintf(exe, sizeof(exe), "/usr/bin/app%d", n - 1);
	in.exe = last ? exe : "/usr/bin/unmatched";
	for (long i = 0; i < count; i++)
		hits += rules_match(c, &in, &m);
	conf_free(c);
	printf("look-ups %ld hits %ld\n", count, hits);
	return hits == (last ? count : 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const int sizes[] = { 10, 100, 1000 };
	long iters;

	if (argc == 6 && strcmp(argv[1], "--count") == 0)
		return count_only(atol(argv[2]), atoi(argv[3]), argv[4], argv[5]);
	iters = argc > 1 ? atol(argv[1]) : 100000;

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
