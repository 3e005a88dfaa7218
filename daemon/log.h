/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging: the journal (with structured fields) under systemd, stderr
 * otherwise. Per-event messages go through log_task(), which rate-limits. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <syslog.h>

void log_setup(void);
void log_set_max_level(int level);
int log_get_max_level(void);

void log_full(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Logs with %m meaning -r, returns r (negative). */
int log_errno(int level, int r, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A per-event message about one process, with CORESCHED_PID= and
 * CORESCHED_GROUP= fields; at most a burst per interval, the rest counted
 * and summarized. */
void log_task(int level, pid_t pid, const char *group, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* log_task() that also says which rule placed the process: CORESCHED_RULE=
 * "file:line" of its group's section. */
void log_task_rule(int level, pid_t pid, const char *group, const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
unsigned long log_suppressed(void);

#define log_debug(...) log_full(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_full(LOG_INFO, __VA_ARGS__)
#define log_notice(...) log_full(LOG_NOTICE, __VA_ARGS__)
#define log_warning(...) log_full(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_full(LOG_ERR, __VA_ARGS__)
