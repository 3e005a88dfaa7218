// SPDX-License-Identifier: GPL-2.0-or-later
#include "log.h"
#include "errmsg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <systemd/sd-journal.h>
#include <time.h>
#include <unistd.h>

#define RATELIMIT_INTERVAL_SEC 10
#define RATELIMIT_BURST 50

static int max_level = LOG_INFO;
#define LOG_LINE_MAX 2048 /* a message, NUL included */

static bool to_journal;
static time_t window_start;
static unsigned window_count;
static unsigned long suppressed;

/* JOURNAL_STREAM names the stream systemd connected stderr to: only then is
 * the journal where our stderr would go anyway. */
void log_setup(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long dev, ino;
	struct stat st;

	if (e && sscanf(e, "%lu:%lu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	    st.st_dev == dev && st.st_ino == ino)
		to_journal = true;
}

void log_set_max_level(int level)
{
	max_level = level;
}

int log_get_max_level(void)
{
	return max_level;
}

static void emit(int level, pid_t pid, const char *group, const char *rule, const char *msg)
{
	if (to_journal) {
		if (pid > 0)
			sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", level, "CORESCHED_PID=%d", (int)pid,
					"CORESCHED_GROUP=%s", group ? group : "", "CORESCHED_RULE=%s",
					rule ? rule : "", NULL);
		else
			sd_journal_send("MESSAGE=%s", msg, "PRIORITY=%i", level, NULL);
		return;
	}
	/* One line per message: a comm, a path or a cgroup quoted in it may
	 * hold control characters (the journal keeps them as data). */
	char esc[4 * LOG_LINE_MAX + 1];

	if (strlen(msg) < LOG_LINE_MAX) {
		sc_escape_controls_to(msg, esc);
		msg = esc;
	}
	fprintf(stderr, "coreschedd: %s\n", msg);
}

void log_full(int level, const char *fmt, ...)
{
	char buf[LOG_LINE_MAX];
	va_list ap;

	if (level > max_level)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	emit(level, 0, NULL, NULL, buf);
}

int log_errno(int level, int r, const char *fmt, ...)
{
	char buf[LOG_LINE_MAX];
	va_list ap;

	if (level <= max_level) {
		errno = r < 0 ? -r : r;
		va_start(ap, fmt);
		vsnprintf(buf, sizeof(buf), fmt, ap);
		va_end(ap);
		emit(level, 0, NULL, NULL, buf);
	}
	return r < 0 ? r : -r;
}

static bool ratelimit_ok(void)
{
	time_t now = time(NULL);

	if (now - window_start >= RATELIMIT_INTERVAL_SEC) {
		if (suppressed && window_count > RATELIMIT_BURST)
			emit(LOG_NOTICE, 0, NULL, NULL, "some per-process messages were suppressed (rate limit)");
		window_start = now;
		window_count = 0;
	}
	if (++window_count > RATELIMIT_BURST) {
		suppressed++;
		return false;
	}
	return true;
}

static void vlog_task(int level, pid_t pid, const char *group, const char *rule, const char *fmt, va_list ap)
{
	char buf[LOG_LINE_MAX];

	if (level > max_level || !ratelimit_ok())
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	emit(level, pid, group, rule, buf);
}

void log_task(int level, pid_t pid, const char *group, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_task(level, pid, group, NULL, fmt, ap);
	va_end(ap);
}

void log_task_rule(int level, pid_t pid, const char *group, const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog_task(level, pid, group, rule, fmt, ap);
	va_end(ap);
}

unsigned long log_suppressed(void)
{
	return suppressed;
}
