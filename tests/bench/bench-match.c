// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-match [ITERATIONS]: rule matching time per process with 10, 100
 * and 1,000 groups, the cost every exec pays in the daemon. Groups are
 * realistic: MatchExe= exact paths, a MatchComm= in some,
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

#define ROUNDS 9
#define N_SIZES 3

/* One configuration: its two inputs (0: the last group's executable, 1:
 * one nothing matches) and each round's ns per look-up for both. */
struct row {
	struct conf *conf;
	struct match_input in[2];
	char exe[64];
	double ns[2][ROUNDS];
};

static int row_init(struct row *r, int n, int globs)
{
	const struct match_input base = { .comm = "x", .uid = 1000, .gid = 1000, .cgroup = "/user.slice" };

	r->conf = load(n, globs);
	snprintf(r->exe, sizeof(r->exe), "/usr/bin/app%d", n - 1);
	r->in[0] = r->in[1] = base;
	r->in[0].exe = r->exe;
	r->in[1].exe = "/usr/bin/unmatched";
	return r->conf ? 0 : -1;
}

static double time_one(const struct conf *c, const struct match_input *in, long iters)
{
	struct match_result m;
	double start = now_ns();

	for (long i = 0; i < iters; i++)
		rules_match(c, in, &m);
	return (now_ns() - start) / (double)iters;
}

/* A warm-up that checks the verdicts (the first pass pays for cold caches
 * and page faults, which no long-running daemon does), then the rounds,
 * each timing every row in turn: a burst of load on the host then hits
 * the 10- and the 1,000-group rows alike instead of one table line. */
static int time_rows(struct row *rows, size_t n, long iters)
{
	struct match_result m;

	for (size_t i = 0; i < n; i++)
		for (long k = 0; k < iters / 10 + 1; k++)
			if (rules_match(rows[i].conf, &rows[i].in[0], &m) != 1 ||
			    rules_match(rows[i].conf, &rows[i].in[1], &m) != 0)
				return -1;
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < n; i++)
			for (int k = 0; k < 2; k++)
				rows[i].ns[k][r] = time_one(rows[i].conf, &rows[i].in[k], iters);
	return 0;
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), cmp_double);
	return v[ROUNDS / 2];
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
	static const int sizes[N_SIZES] = { 10, 100, 1000 };
	struct row rows[2 * N_SIZES];
	long iters;

	if (argc == 6 && strcmp(argv[1], "--count") == 0)
		return count_only(atol(argv[2]), atoi(argv[3]), argv[4], argv[5]);
	iters = argc > 1 ? atol(argv[1]) : 100000;
	for (int i = 0; i < 2 * N_SIZES; i++)
		if (row_init(&rows[i], sizes[i % N_SIZES], i >= N_SIZES) < 0)
			return 1;
	if (time_rows(rows, 2 * N_SIZES, iters) < 0) {
		fprintf(stderr, "bench-match: wrong match result\n");
		return 1;
	}
	printf("== 5b. rule matching time per process (host, median of %d interleaved rounds of %ld look-ups, "
	       "ns per look-up)\n", ROUNDS, iters);
	printf("%-7s %-13s %12s %12s\n", "groups", "patterns", "last-group", "no-match");
	for (int globs = 0; globs <= 1; globs++) {
		double last[N_SIZES], none[N_SIZES];

		for (int i = 0; i < N_SIZES; i++) {
			struct row *r = &rows[globs * N_SIZES + i];

			last[i] = median(r->ns[0]);
			none[i] = median(r->ns[1]);
			printf("%-7d %-13s %12.0f %12.0f\n", sizes[i], globs ? "10% globs" : "exact paths", last[i],
			       none[i]);
		}
		printf("%-7s %-13s %12.1f %12.1f\n", "1000:10", "ratio", last[N_SIZES - 1] / last[0],
		       none[N_SIZES - 1] / none[0]);
	}
	for (int i = 0; i < 2 * N_SIZES; i++)
		conf_free(rows[i].conf);
	return 0;
}
