/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A minimal test harness: each TEST prints one PASS/FAIL line, which
 * tests/run-checks counts. CHECK records a failure and goes on. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_case_failed;
static int unit_total_failed;

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "  %s:%d: check failed: %s\n", __FILE__, \
				__LINE__, #cond);                                \
			unit_case_failed = 1;                                    \
		}                                                                \
	} while (0)

#define CHECK_STREQ(a, b)                                                         \
	do {                                                                      \
		const char *unit_a_ = (a), *unit_b_ = (b);                        \
		if (!unit_a_ || !unit_b_ || strcmp(unit_a_, unit_b_) != 0) {      \
			fprintf(stderr, "  %s:%d: \"%s\" != \"%s\"\n", __FILE__, \
				__LINE__, unit_a_ ? unit_a_ : "(null)",           \
				unit_b_ ? unit_b_ : "(null)");                    \
			unit_case_failed = 1;                                     \
		}                                                                 \
	} while (0)

/* UNIT_ONLY=NAME in the environment runs only the test named NAME. */
#define RUN(fn)                                                                     \
	do {                                                                        \
		if (getenv("UNIT_ONLY") && strcmp(getenv("UNIT_ONLY"), #fn) != 0)  \
			break;                                                      \
		unit_case_failed = 0;                                               \
		fn();                                                               \
		printf("%s: unit/%s\n", unit_case_failed ? "FAIL" : "PASS", #fn); \
		fflush(stdout);                                                     \
		unit_total_failed += unit_case_failed;                              \
	} while (0)

#define UNIT_EXIT() return unit_total_failed ? 1 : 0
