/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The groups both host benchmarks use (bench-match times their matching,
 * bench-event replays events against them), so the two tables describe
 * the same configurations. */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* n groups on /usr/bin/appN; with globs every tenth is a glob under /opt/appN/bin
 * instead; every seventh adds MatchComm=. Malloc'd; NULL out of memory. */
static inline char *bench_make_conf(int n, bool globs)
{
	size_t cap = (size_t)n * 160 + 64, len = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	len += (size_t)snprintf(s + len, cap - len, "[Daemon]\nReconcileSec=0\n");
	for (int i = 0; i < n; i++) {
		len += (size_t)snprintf(s + len, cap - len, "[Group g%d]\n", i);
		if (globs && i % 10 == 5)
			len += (size_t)snprintf(s + len, cap - len, "MatchExe=/opt/app%d/bin/*\n", i);
		else
			len += (size_t)snprintf(s + len, cap - len, "MatchExe=/usr/bin/app%d\n", i);
		if (i % 7 == 3)
			len += (size_t)snprintf(s + len, cap - len, "MatchComm=app%d\n", i);
	}
	return s;
}
