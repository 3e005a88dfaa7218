// SPDX-License-Identifier: GPL-2.0-or-later
/* The untagged window's histogram (window.h). */
#include <math.h>

#include "window.h"

/* The octave of us (>= WINDOW_EXACT): its highest bit, counted from that
 * of WINDOW_EXACT; the next three bits pick the bucket within it. */
unsigned window_bucket_of(uint64_t us)
{
	unsigned bit, octave;

	if (us < WINDOW_EXACT)
		return (unsigned)us;
	bit = 63u - (unsigned)__builtin_clzll(us);
	octave = bit - 4u; /* WINDOW_EXACT is 1 << 4 */
	if (octave >= WINDOW_OCTAVES)
		return WINDOW_BUCKETS - 1;
	return WINDOW_EXACT + octave * WINDOW_SUB + (unsigned)((us >> (bit - 3u)) & (WINDOW_SUB - 1));
}

uint64_t window_bucket_low(unsigned i)
{
	unsigned octave, sub;

	if (i < WINDOW_EXACT)
		return i;
	if (i >= WINDOW_BUCKETS)
		return UINT64_MAX;
	octave = (i - WINDOW_EXACT) / WINDOW_SUB;
	sub = (i - WINDOW_EXACT) % WINDOW_SUB;
	return (uint64_t)(WINDOW_SUB + sub) << (octave + 1u);
}

void window_add(struct window_hist *h, uint64_t us)
{
	h->n++;
	h->sum_us += us;
	if (us > h->max_us)
		h->max_us = us;
	h->bucket[window_bucket_of(us)]++;
}

uint64_t window_quantile(const struct window_hist *h, double q)
{
	uint64_t rank, seen = 0, high;

	if (!h->n || !(q > 0))
		return 0;
	if (q > 1)
		q = 1;
	rank = (uint64_t)ceil(q * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (unsigned i = 0; i < WINDOW_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen < rank)
			continue;
		/* The bucket's last value, not beyond the longest seen. */
		high = i + 1 < WINDOW_BUCKETS ? window_bucket_low(i + 1) - 1 : h->max_us;
		return high < h->max_us ? high : h->max_us;
	}
	return h->max_us;
}
