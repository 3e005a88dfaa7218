// SPDX-License-Identifier: GPL-2.0-or-later
/* The Prometheus textfile side of forced-idle accounting: exposition text
 * built in memory, then swapped into place so that node_exporter never
 * reads a half-written file. Never synced to disk: see fi_metrics_write. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemp() */
#endif
#include "errmsg.h"
#include "forceidle.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int fi_metrics_write(const char *path, const char *text)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	char dir[PATH_MAX], tmp[PATH_MAX];
	int fd, r;

	if (!*base)
		return -EINVAL;
	if (!slash)
		strcpy(dir, ".");
	else if (snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path) >=
		 (int)sizeof(dir))
		return -ENAMETOOLONG;
	/* A leading dot: the textfile collector reads only *.prom. */
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, base) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* No fsync: it runs in the event loop, and a disk that is slow to
	 * flush would hold every event behind it. The rename is what the
	 * collector needs (it never sees half a file); after a power loss the
	 * next interval writes the file again. */
	r = write_all(fd, text, strlen(text));
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		unlink(tmp);
		return r;
	}
	return 0;
}

static void put(char *buf, size_t size, size_t i, char c)
{
	if (i + 1 < size)
		buf[i] = c;
}

/* Label values escape \, " and newline; HELP text only \ and newline. The
 * format is UTF-8, and a reader refuses the whole file over one byte that
 * is not (a cgroup's name, in a key, can hold any): such a byte becomes
 * U+FFFD. */
static size_t escape(const char *s, bool quote, char *buf, size_t size)
{
	size_t n = 0;

	for (; *s; s++) {
		char e = *s == '\\' ? '\\' : *s == '\n' ? 'n' : (quote && *s == '"') ? '"' : 0;
		size_t len = sc_utf8_len(s);

		if (len == 0) {
			put(buf, size, n++, '\xef');
			put(buf, size, n++, '\xbf');
			put(buf, size, n++, '\xbd');
		} else if (len > 1) {
			for (size_t i = 0; i < len; i++)
				put(buf, size, n++, s[i]);
			s += len - 1;
		} else if (e) {
			put(buf, size, n++, '\\');
			put(buf, size, n++, e);
		} else {
			put(buf, size, n++, *s);
		}
	}
	if (size > 0)
		buf[n < size ? n : size - 1] = '\0';
	return n;
}

size_t fi_label_escape(const char *value, char *buf, size_t size)
{
	return escape(value, true, buf, size);
}

struct fi_buf {
	char *p;
	size_t len, cap;
};

static int buf_reserve(struct fi_buf *b, size_t extra)
{
	size_t need = b->len + extra + 1, cap = b->cap ? b->cap : 256;
	char *p;

	if (need <= b->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

static int buf_add(struct fi_buf *b, const char *s)
{
	size_t n = strlen(s);

	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	memcpy(b->p + b->len, s, n + 1);
	b->len += n;
	return 0;
}

/* Appends each string up to a NULL. */
static int buf_addv(struct fi_buf *b, ...)
{
	va_list ap;
	const char *s;
	int r = 0;

	va_start(ap, b);
	while (r == 0 && (s = va_arg(ap, const char *)))
		r = buf_add(b, s);
	va_end(ap);
	return r;
}

static int buf_add_escaped(struct fi_buf *b, const char *s, bool quote)
{
	size_t n = escape(s, quote, NULL, 0);

	if (buf_reserve(b, n) < 0)
		return -ENOMEM;
	escape(s, quote, b->p + b->len, n + 1);
	b->len += n;
	return 0;
}

struct fi_family {
	char *name, *help, *type;
	struct fi_buf body; /* header and samples */
};

struct fi_metrics {
	struct fi_family *fam;
	size_t n_fam, cap_fam;
	struct fi_buf text;
};

struct fi_metrics *fi_metrics_new(void)
{
	return calloc(1, sizeof(struct fi_metrics));
}

static void family_done(struct fi_family *f)
{
	free(f->name);
	free(f->help);
	free(f->type);
	free(f->body.p);
}

struct fi_metrics *fi_metrics_free(struct fi_metrics *m)
{
	if (m) {
		for (size_t i = 0; i < m->n_fam; i++)
			family_done(&m->fam[i]);
		free(m->fam);
		free(m->text.p);
		free(m);
	}
	return NULL;
}

static bool valid_name(const char *s, bool colon)
{
	if (!*s || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (colon && *s == ':')))
			return false;
	return true;
}

/* Shortest text that reads back as the same double. */
static void format_value(double v, char *buf, size_t size)
{
	if (isnan(v)) {
		snprintf(buf, size, "NaN");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, size, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, size, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* name{l="v",...} value\n */
static int sample_line(struct fi_buf *b, const char *name, const char *const *labels, double value)
{
	char num[32];
	int r = buf_add(b, name);

	for (size_t i = 0; r == 0 && labels && labels[i]; i += 2) {
		r = buf_addv(b, i == 0 ? "{" : ",", labels[i], "=\"", NULL);
		if (r == 0)
			r = buf_add_escaped(b, labels[i + 1], true);
		if (r == 0)
			r = buf_add(b, "\"");
	}
	if (r == 0 && labels && labels[0])
		r = buf_add(b, "}");
	format_value(value, num, sizeof(num));
	return r < 0 ? r : buf_addv(b, " ", num, "\n", NULL);
}

static int check_args(const char *name, const char *help, const char *type, const char *const *labels)
{
	if (!valid_name(name, true) || !help || !type)
		return -EINVAL;
	if (strcmp(type, "counter") != 0 && strcmp(type, "gauge") != 0)
		return -EINVAL;
	for (size_t i = 0; labels && labels[i]; i += 2)
		if (!valid_name(labels[i], false) || !labels[i + 1])
			return -EINVAL;
	return 0;
}

static struct fi_family *family_find(struct fi_metrics *m, const char *name)
{
	for (size_t i = 0; i < m->n_fam; i++)
		if (strcmp(m->fam[i].name, name) == 0)
			return &m->fam[i];
	return NULL;
}

static int family_add(struct fi_metrics *m, const char *name, const char *help, const char *type,
		      struct fi_family **ret)
{
	struct fi_family f = { .name = strdup(name), .help = strdup(help), .type = strdup(type) };
	int r = f.name && f.help && f.type ? 0 : -ENOMEM;

	if (r == 0 && m->n_fam == m->cap_fam) {
		size_t cap = m->cap_fam ? m->cap_fam * 2 : 8;
		struct fi_family *p = realloc(m->fam, cap * sizeof(*p));

		if (!p)
			r = -ENOMEM;
		else {
			m->fam = p;
			m->cap_fam = cap;
		}
	}
	if (r == 0)
		r = buf_addv(&f.body, "# HELP ", name, " ", NULL);
	if (r == 0)
		r = buf_add_escaped(&f.body, help, false);
	if (r == 0)
		r = buf_addv(&f.body, "\n# TYPE ", name, " ", type, "\n", NULL);
	if (r < 0) {
		family_done(&f);
		return r;
	}
	m->fam[m->n_fam] = f;
	*ret = &m->fam[m->n_fam++];
	return 0;
}

int fi_metrics_add(struct fi_metrics *m, const char *name, const char *help, const char *type,
		   const char *const *labels, double value)
{
	struct fi_buf line = { 0 };
	struct fi_family *f;
	int r;

	r = check_args(name, help, type, labels);
	if (r < 0)
		return r;
	f = family_find(m, name);
	if (f && (strcmp(f->help, help) != 0 || strcmp(f->type, type) != 0))
		return -EINVAL;
	/* Build the line first so that a failure leaves m as it was. */
	r = sample_line(&line, name, labels, value);
	if (r == 0 && !f) {
		r = family_add(m, name, help, type, &f);
		if (r == 0 && (r = buf_add(&f->body, line.p)) < 0)
			family_done(&m->fam[--m->n_fam]);
	} else if (r == 0) {
		r = buf_add(&f->body, line.p);
	}
	free(line.p);
	return r;
}

const char *fi_metrics_text(struct fi_metrics *m)
{
	m->text.len = 0;
	if (buf_reserve(&m->text, 0) < 0)
		return NULL;
	m->text.p[0] = '\0';
	for (size_t i = 0; i < m->n_fam; i++)
		if (buf_add(&m->text, m->fam[i].body.p) < 0)
			return NULL;
	return m->text.p;
}
