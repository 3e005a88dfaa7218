// SPDX-License-Identifier: GPL-2.0-or-later
/* The summary statistics behind coresched stats --count, against values
 * worked out by hand. */
#include <errno.h>
#include <math.h>

#include "unit.h"
/* The CLI's objects are not in the test libraries; the file is pure. */
#include "../../cli/sample-stats.c"

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(b) > 1 ? fabs(b) : 1);
}

/* Deviations -3 -1 -1 -1 0 0 2 4: squares sum to 32, variance 32/7. */
static void eight_values(void)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct sample_stats s;

	CHECK(sample_stats_compute(v, 8, &s) == 0);
	CHECK(s.n == 8);
	CHECK(near(s.mean, 5.0));
	CHECK(near(s.std, 2.1380899353));   /* sqrt(32/7) */
	CHECK(near(s.sem, 0.7559289460));   /* sqrt(32/7) / sqrt(8) */
	CHECK(near(s.std_pct, 42.761798706));
	CHECK(near(s.sem_pct, 15.118578920));
}

static void two_values(void)
{
	const double v[] = { 1, 3 };
	struct sample_stats s;

	CHECK(sample_stats_compute(v, 2, &s) == 0);
	CHECK(near(s.mean, 2.0));
	CHECK(near(s.std, 1.4142135624)); /* sqrt(2 / 1) */
	CHECK(near(s.sem, 1.0));          /* sqrt(2) / sqrt(2) */
	CHECK(near(s.std_pct, 70.710678119));
	CHECK(near(s.sem_pct, 50.0));
}

/* One value has a mean but no spread: the sample std is undefined. */
static void one_value(void)
{
	const double v[] = { 7 };
	struct sample_stats s;

	CHECK(sample_stats_compute(v, 1, &s) == 0);
	CHECK(near(s.mean, 7.0));
	CHECK(isnan(s.std) && isnan(s.sem) && isnan(s.std_pct) && isnan(s.sem_pct));
}

static void zero_mean_has_no_percentages(void)
{
	const double v[] = { -1, 1 };
	struct sample_stats s;

	CHECK(sample_stats_compute(v, 2, &s) == 0);
	CHECK(near(s.mean, 0.0));
	CHECK(near(s.std, 1.4142135624));
	CHECK(isnan(s.std_pct) && isnan(s.sem_pct));
}

/* Percentages are relative to |mean|, so never negative. */
static void negative_mean(void)
{
	const double v[] = { -2, -4 };
	struct sample_stats s;

	CHECK(sample_stats_compute(v, 2, &s) == 0);
	CHECK(near(s.mean, -3.0));
	CHECK(near(s.std_pct, 47.140452079)); /* 100 * sqrt(2) / 3 */
}

/* Large, close values (nanosecond counters) keep their small spread. */
static void large_close_values(void)
{
	const double v[] = { 1e12 + 1, 1e12 + 2, 1e12 + 3 };
	struct sample_stats s;

	CHECK(sample_stats_compute(v, 3, &s) == 0);
	CHECK(near(s.mean, 1e12 + 2));
	CHECK(fabs(s.std - 1.0) < 1e-6);
	CHECK(fabs(s.sem - 0.5773502692) < 1e-6); /* 1 / sqrt(3) */
}

static void empty_is_einval(void)
{
	struct sample_stats s = { .n = 42 };

	CHECK(sample_stats_compute(NULL, 0, &s) == -EINVAL);
	CHECK(s.n == 42);
}

int main(void)
{
	RUN(eight_values);
	RUN(two_values);
	RUN(one_value);
	RUN(zero_mean_has_no_percentages);
	RUN(negative_mean);
	RUN(large_close_values);
	RUN(empty_is_einval);
	UNIT_EXIT();
}
