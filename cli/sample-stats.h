/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Summary statistics of repeated measurements, as benchmark tables give
 * them: mean, sample standard deviation, standard error of the mean, and
 * the last two relative to the mean. Pure: no I/O. */
#pragma once

#include <stddef.h>

struct sample_stats {
	size_t n;
	double mean;
	double std;     /* sample (n - 1) standard deviation; NAN when n < 2 */
	double sem;     /* std / sqrt(n); NAN when n < 2 */
	double std_pct; /* 100 * std / |mean|; NAN when the mean is 0 or n < 2 */
	double sem_pct;
};

/* Summarises v[0..n). -EINVAL when n is 0. */
int sample_stats_compute(const double *v, size_t n, struct sample_stats *ret);
