/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fake file trees for the unit tests (and the host benchmarks): write a
 * file, remove a tree. A fixture that cannot be written ends the program:
 * the test would prove nothing. Includers define _GNU_SOURCE first
 * (nftw() with FTW_DEPTH). */
#pragma once

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Write text to the file the format names. */
static inline void fixture_put(const char *text, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void fixture_put(const char *text, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

static inline int fixture_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return type == FTW_DP ? rmdir(path) : unlink(path);
}

static inline void fixture_rm_rf(const char *path)
{
	if (nftw(path, fixture_rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		fprintf(stderr, "  could not remove %s\n", path);
}
