// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-probe [TIMEOUT_MS]: first thing after exec, read our own cookie in a
 * tight loop until it is set; print the delay in microseconds from the
 * start of main (or "timeout"). Measures the untagged window as the
 * process itself sees it. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sched_core.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	double start = now_us(), limit = (argc > 1 ? atof(argv[1]) : 1000) * 1000;
	sc_cookie c = 0;

	while (sc_get(0, &c) == 0 && c == 0)
		if (now_us() - start > limit) {
			printf("timeout\n");
			return 1;
		}
	printf("%.1f\n", now_us() - start);
	return 0;
}
