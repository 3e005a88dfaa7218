// SPDX-License-Identifier: GPL-2.0-or-later
/* The untagged window's histogram: buckets tile the range without gaps,
 * each at most 12.5% wide, and quantiles are upper bounds within a bucket
 * of the exact ones, computed here from the sorted values. */
#include <stdint.h>
#include <stdlib.h>

#include "unit.h"
#include "window.h"

static void buckets_tile(void)
{
	CHECK(window_bucket_low(0) == 0);
	for (unsigned i = 0; i + 1 < WINDOW_BUCKETS; i++) {
		uint64_t lo = window_bucket_low(i), hi = window_bucket_low(i + 1);

		CHECK(lo < hi);
		CHECK(window_bucket_of(lo) == i && window_bucket_of(hi - 1) == i && window_bucket_of(hi) == i + 1);
		/* width at most an eighth of the low bound (exact below 16) */
		CHECK(lo < WINDOW_EXACT ? hi - lo == 1 : (hi - lo) * 8 <= lo);
	}
	CHECK(window_bucket_of(UINT64_MAX) == WINDOW_BUCKETS - 1);
	CHECK(window_bucket_low(WINDOW_BUCKETS) == UINT64_MAX);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Random values over six decades: each quantile is at or above the exact
 * one and below it plus its bucket's width. */
static void quantiles_bound_exact(void)
{
	enum { N = 5000 };
	static uint64_t v[N];
	static const double qs[] = { 0.01, 0.5, 0.9, 0.99, 0.999, 1.0 };
	struct window_hist h = {};
	uint64_t sum = 0;

	srand(7);
	for (unsigned i = 0; i < N; i++) {
		v[i] = (uint64_t)rand() % 1000 * (uint64_t[]){ 1, 10, 100, 1000, 10000, 100000 }[rand() % 6];
		window_add(&h, v[i]);
		sum += v[i];
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	CHECK(h.n == N && h.sum_us == sum && h.max_us == v[N - 1]);
	for (unsigned i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		unsigned rank = (unsigned)(qs[i] * N + 0.999999); /* ceil */
		uint64_t exact = v[rank - 1], got = window_quantile(&h, qs[i]);

		CHECK(got >= exact);
		CHECK(got - exact <= (exact < WINDOW_EXACT ? 0 : exact / 8 + 1));
	}
	CHECK(window_quantile(&h, 1.0) == v[N - 1]);
}

static void empty_and_one(void)
{
	struct window_hist h = {};

	CHECK(window_quantile(&h, 0.5) == 0);
	window_add(&h, 0);
	CHECK(window_quantile(&h, 0.99) == 0 && h.n == 1);
	window_add(&h, 1u << 20);
	CHECK(window_quantile(&h, 0.5) == 0);
	CHECK(window_quantile(&h, 1.0) == 1u << 20); /* clamped to the longest seen */
	CHECK(window_quantile(&h, 0) == 0);
}

int main(void)
{
	RUN(buckets_tile);
	RUN(quantiles_bound_exact);
	RUN(empty_and_one);
	UNIT_EXIT();
}
