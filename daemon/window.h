/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The untagged window: how long a process ran between the kernel's event
 * (its exec, fork or uid change, as the proc connector stamps it) and the
 * moment the daemon had given it its group's cookie and read it back.
 * A log-linear histogram of microseconds: exact below 16 µs, then eight
 * buckets an octave (each at most 12.5% wide), so that its quantiles
 * keep that precision at any count, in fixed memory. Pure logic: the
 * engine records into it, and the benchmark's floor uses the same one. */
#pragma once

#include <stdint.h>

#define WINDOW_EXACT   16u  /* values below this many µs have a bucket each */
#define WINDOW_SUB     8u   /* buckets per octave above them */
#define WINDOW_OCTAVES 40u  /* 2^44 µs is half a year: the last bucket holds the rest, and a
			     * quantile there is only the longest window seen */
#define WINDOW_BUCKETS (WINDOW_EXACT + WINDOW_OCTAVES * WINDOW_SUB)

struct window_hist {
	uint64_t n;       /* windows recorded */
	uint64_t sum_us;  /* their sum */
	uint64_t max_us;  /* the longest */
	uint64_t bucket[WINDOW_BUCKETS];
};

void window_add(struct window_hist *h, uint64_t us);
/* The smallest bucket bound at or above which a fraction q (0 < q <= 1)
 * of the windows lie below or at, clamped to the longest window seen: an
 * upper bound of the q quantile, within a bucket's width. 0 when empty. */
uint64_t window_quantile(const struct window_hist *h, double q);
/* Bucket i holds the values in [window_bucket_low(i), window_bucket_low(i + 1)). */
uint64_t window_bucket_low(unsigned i);
unsigned window_bucket_of(uint64_t us);
