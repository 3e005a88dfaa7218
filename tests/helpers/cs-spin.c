// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-spin SECONDS [CPU]: burn CPU for SECONDS (wall clock), pinned to CPU
 * when given. Forced-idle tests run one per SMT sibling. With
 * CS_SPIN_REPORT set, just before it exits it prints the kernel's final
 * count of its forced idle, in ms ("core_forceidle_sum N"): what a test
 * compares the daemon's accounting with, taken at the only moment that
 * does not depend on how fast the machine started it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void report_forceidle(void)
{
	FILE *f = fopen("/proc/self/sched", "re");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "core_forceidle_sum", 18) == 0) {
			char *colon = strchr(line, ':');

			if (colon)
				printf("core_forceidle_sum %s", colon + 1 + strspn(colon + 1, " "));
		}
	fclose(f);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec start, now;
	volatile unsigned long x = 0;

	if (argc > 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(atoi(argv[2]), &set);
		if (sched_setaffinity(0, sizeof(set), &set) < 0) {
			perror("sched_setaffinity");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		for (int i = 0; i < 100000; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	if (getenv("CS_SPIN_REPORT"))
		report_forceidle();
	return 0;
}
