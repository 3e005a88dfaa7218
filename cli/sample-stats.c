// SPDX-License-Identifier: GPL-2.0-or-later
#include "sample-stats.h"

#include <errno.h>
#include <math.h>

int sample_stats_compute(const double *v, size_t n, struct sample_stats *ret)
{
	struct sample_stats s = { .n = n, .std = NAN, .sem = NAN, .std_pct = NAN, .sem_pct = NAN };
	double sum = 0, sq = 0;

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s.mean = sum / (double)n;
	/* Two passes: the sum of squared deviations does not cancel the way
	 * sum(x^2) - n*mean^2 does for large, close values. */
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - s.mean) * (v[i] - s.mean);
	if (n >= 2) {
		s.std = sqrt(sq / (double)(n - 1));
		s.sem = s.std / sqrt((double)n);
		if (s.mean != 0) {
			s.std_pct = 100.0 * s.std / fabs(s.mean);
			s.sem_pct = 100.0 * s.sem / fabs(s.mean);
		}
	}
	*ret = s;
	return 0;
}
