// SPDX-License-Identifier: GPL-2.0-or-later
/* Loading coreschedd's configuration: which files, in which order, and the
 * grammar of one file. libinih splits Key=value lines; our own line reader
 * in front of it counts lines, rejects over-long ones and handles section
 * headers, because the packaged libinih truncates long lines and section
 * names and then reports shifted line numbers. */
#define _GNU_SOURCE /* asprintf */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "conf-internal.h"
#include "errmsg.h"

#define GROUP_NAME_MAX 64

struct line_reader {
	struct conf_loader *ld;
	FILE *f;          /* the file, or NULL to read from text */
	const char *text;
	char *buf;
	size_t cap;
};

struct dropin {
	char *name;
	char *path;
};

static int vfail(struct conf_loader *ld, int err, const char *file, unsigned line, const char *fmt, va_list ap)
{
	char *msg = NULL, *raw = NULL;
	int n;

	if (ld->r)
		return ld->r;
	ld->r = -err;
	if (vasprintf(&msg, fmt, ap) < 0)
		return ld->r;
	if (line)
		n = asprintf(&raw, "%s:%u: %s", file, line, msg);
	else
		n = asprintf(&raw, "%s: %s", file, msg);
	/* A file name or a value quoted from the file: control bytes escaped. */
	ld->error = n < 0 ? NULL : sc_escape_controls(raw);
	free(raw);
	free(msg);
	return ld->r;
}

int conf_fail(struct conf_loader *ld, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(ld, EINVAL, ld->file, ld->line, fmt, ap);
	va_end(ap);
	return r;
}

__attribute__((format(printf, 4, 5)))
static int fail_at(struct conf_loader *ld, const char *file, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(ld, EINVAL, file, line, fmt, ap);
	va_end(ap);
	return r;
}

int conf_fail_file(struct conf_loader *ld, int err, const char *file, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vfail(ld, err, file, 0, fmt, ap);
	va_end(ap);
	return r;
}

bool conf_group_name_valid(const char *name)
{
	size_t n = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n >= 1 && n <= GROUP_NAME_MAX && name[n] == '\0';
}

static struct group *group_free(struct group *g)
{
	if (!g)
		return NULL;
	for (int k = 0; k < _MATCH_KIND_MAX; k++)
		conf_words_clear(g, (enum match_kind)k);
	free(g->name);
	free(g->description);
	free(g->file);
	free(g->allow_uids);
	free(g->allow_gids);
	free(g);
	return NULL;
}

struct conf *conf_free(struct conf *c)
{
	if (!c)
		return NULL;
	rules_index_free(c->index);
	for (size_t i = 0; i < c->n_groups; i++)
		group_free(c->groups[i]);
	free(c->groups);
	for (size_t i = 0; i < c->n_sources; i++)
		free(c->sources[i]);
	free(c->sources);
	free(c->daemon.metrics_file);
	free(c->container.group);
	free(c);
	return NULL;
}

/* Each warning as one line: a path quoted from the file or read from the
 * disk may hold control bytes. */
static void warn(conf_warning_fn fn, void *userdata, const char *msg)
{
	char *esc = sc_escape_controls(msg);

	fn(userdata, esc ? esc : msg);
	free(esc);
}

/* A MatchExe= path (no pattern) the kernel never shows as a process's
 * program: one through a symbolic link (the exe link is the resolved path:
 * /bin/sh is /usr/bin/dash on a merged /usr) or a script (its process runs
 * the #! line's interpreter). Said as it is on disk now. */
static void exe_word_warning(const struct group *g, size_t w, conf_warning_fn fn, void *userdata)
{
	const char *word = g->match_words[MATCH_EXE][w];
	unsigned line = g->exe_word_lines ? g->exe_word_lines[w] : g->line;
	char msg[2 * PATH_MAX + 512], head[2], *real;
	struct stat st;
	int fd;

	if (strpbrk(word, "*?[") || !(real = realpath(word, NULL)))
		return;
	if (strcmp(real, word) != 0) {
		snprintf(msg, sizeof(msg),
			 "%s:%u: [Group %s] MatchExe=%s resolves to %s (a symbolic link on the way, or a path "
			 "not in its plain form): a process shows the resolved path, so this word matches none; "
			 "name that path",
			 g->file ? g->file : "?", line, g->name, word, real);
		warn(fn, userdata, msg);
	} else if ((fd = open(word, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) >= 0) {
		/* Non-blocking, and only a regular file is read: a FIFO or a
		 * device a user put on the path must not hold the load. */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && read(fd, head, 2) == 2 && head[0] == '#' &&
		    head[1] == '!') {
			snprintf(msg, sizeof(msg),
				 "%s:%u: [Group %s] MatchExe=%s is a script: its processes run the interpreter "
				 "its #! line names, so this word matches none; match the script by MatchComm= "
				 "(its file name) or name the interpreter",
				 g->file ? g->file : "?", line, g->name, word);
			warn(fn, userdata, msg);
		}
		close(fd);
	}
	free(real);
}

void conf_warnings(const struct conf *c, conf_warning_fn fn, void *userdata)
{
	char msg[1024];

	for (size_t i = 0; i < c->n_groups; i++) {
		const struct group *g = c->groups[i];

		for (size_t w = 0; w < g->n_match_words[MATCH_EXE]; w++)
			exe_word_warning(g, w, fn, userdata);

		/* A rule acts after the program started, and a lock is a filter
		 * the process must install on itself before its exec. */
		if (g->lock && g->match_mask) {
			snprintf(msg, sizeof(msg),
				 "%s:%u: [Group %s] Lock=yes locks only what 'coresched run -g %s' starts; "
				 "processes its Match*= rules place (or 'assign' moves) are not locked",
				 g->file ? g->file : "?", g->lock_line ? g->lock_line : g->line, g->name, g->name);
			warn(fn, userdata, msg);
		}
	}
	if (c->container.lock) {
		snprintf(msg, sizeof(msg),
			 "%s:%u: [Container] Lock=yes locks only containers started through coresched-runtime; "
			 "the OCI hook (hooks.d) gives a container its cookie but cannot lock it",
			 c->container.lock_file ? c->container.lock_file : "?", c->container.lock_line);
		warn(fn, userdata, msg);
	}
}

const struct group *conf_find_group(const struct conf *c, const char *name)
{
	for (size_t i = 0; i < c->n_groups; i++)
		if (strcmp(c->groups[i]->name, name) == 0)
			return c->groups[i];
	return NULL;
}

/* Checks that need the whole section; runs when the section ends. */
static int group_finish(struct conf_loader *ld)
{
	struct group *g = ld->group;

	if (!g)
		return 0;
	ld->group = NULL;
	g->match_mask = 0;
	for (int k = 0; k < _MATCH_KIND_MAX; k++)
		if (g->n_match_words[k])
			g->match_mask |= 1u << k;
	if (g->per == PER_CGROUP && !g->n_match_words[MATCH_CGROUP])
		return fail_at(ld, ld->file, ld->per_line, "Per=cgroup needs MatchCgroup=");
	if (g->trusted && g->per != PER_GROUP)
		return fail_at(ld, ld->file, ld->per_line > ld->trusted_line ? ld->per_line : ld->trusted_line,
			       "Trusted=yes cannot be combined with Per=%s", per_mode_to_string(g->per));
	return 0;
}

static int group_open(struct conf_loader *ld, const char *name)
{
	struct conf *c = ld->conf;
	const struct group *old;
	struct group *g, **groups;

	if (!*name)
		return conf_fail(ld, "[Group] needs a name");
	if (!conf_group_name_valid(name))
		return conf_fail(ld, "invalid group name '%s' (1 to %d of A-Z a-z 0-9 _ . -)", name,
				 GROUP_NAME_MAX);
	old = conf_find_group(c, name);
	if (old)
		return conf_fail(ld, "group '%s' already defined at %s:%u", name, old->file, old->line);
	if (c->n_groups >= CONF_MAX_GROUPS)
		return conf_fail(ld, "too many groups (limit %d)", CONF_MAX_GROUPS);
	groups = realloc(c->groups, (c->n_groups + 1) * sizeof(*groups));
	if (!groups)
		return conf_fail(ld, "%s", strerror(ENOMEM));
	c->groups = groups;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strdup(name)) || !(g->file = strdup(ld->file))) {
		group_free(g);
		return conf_fail(ld, "%s", strerror(ENOMEM));
	}
	g->line = ld->line;
	g->order = (unsigned)c->n_groups; /* load sequence until sorted */
	c->groups[c->n_groups++] = g;
	ld->group = g;
	ld->section = SECTION_GROUP;
	ld->per_line = ld->trusted_line = ld->line;
	return 0;
}

/* p starts with '['. */
static int loader_section(struct conf_loader *ld, const char *p)
{
	const char *end = strrchr(p, ']');
	char inner[CONF_LINE_MAX + 1];
	size_t len;
	int r;

	r = group_finish(ld);
	if (r < 0)
		return r;
	ld->section = SECTION_NONE;
	if (!end || end[1 + strspn(end + 1, " \t\r\v\f")] != '\0')
		return conf_fail(ld, "invalid section header '%s'", p);
	len = (size_t)(end - p - 1);
	memcpy(inner, p + 1, len);
	inner[len] = '\0';
	if (strcmp(inner, "Daemon") == 0)
		ld->section = SECTION_DAEMON;
	else if (strcmp(inner, "Container") == 0)
		ld->section = SECTION_CONTAINER;
	else if (strncmp(inner, "Group", 5) == 0 && (!inner[5] || inner[5] == ' ' || inner[5] == '\t'))
		return group_open(ld, inner + 5 + strspn(inner + 5, " \t"));
	else
		return conf_fail(ld, "unknown section [%s]", inner);
	return 0;
}

/* 1: hand the line to libinih; 0: hand it a blank line; <0: error. */
static int loader_line(struct conf_loader *ld, const char *line)
{
	const char *p = line + strspn(line, " \t\r\v\f");
	const char *sep;

	if (!*p || *p == '#' || *p == ';')
		return 0;
	if (*p == '[')
		return loader_section(ld, p) < 0 ? ld->r : 0;
	/* libinih would also take "Key: value"; the grammar does not. */
	sep = strpbrk(p, "=:");
	if (!sep || *sep == ':')
		return conf_fail(ld, "expected Key=value, got '%s'", p);
	return 1;
}

/* A line of the file into rd->buf, without its '\n': 1, 0 at the end,
 * <0. At most CONF_LINE_MAX + 2 characters (the text and a '\r') are
 * read: a line that has more is too long whatever follows, and is not
 * read on, so that a line end that never comes (a device, a runaway
 * write) costs no memory; and only the end of the file ends it, not a
 * failure to read. */
static int reader_file_line(struct line_reader *rd, size_t *ret_len)
{
	const size_t max = CONF_LINE_MAX + 2;
	size_t len = 0;
	int ch = 0;

	if (!rd->buf) {
		rd->buf = malloc(max + 1);
		if (!rd->buf)
			return -ENOMEM;
		rd->cap = max + 1;
	}
	errno = 0;
	while (len < max) {
		ch = getc_unlocked(rd->f);
		if (ch == EOF || ch == '\n')
			break;
		rd->buf[len++] = (char)ch;
	}
	if (ch == EOF) {
		if (ferror(rd->f))
			return -(errno ? errno : EIO);
		if (len == 0)
			return 0;
	}
	rd->buf[len] = '\0';
	*ret_len = len;
	return 1;
}

/* The next line into rd->buf without its line end: 1, 0 at the end, <0. */
static int reader_next(struct line_reader *rd, size_t *ret_len)
{
	size_t len = 0;
	int r;

	if (rd->f) {
		r = reader_file_line(rd, &len);
		if (r <= 0)
			return r;
	} else {
		if (!*rd->text)
			return 0;
		len = strcspn(rd->text, "\n");
		len += rd->text[len] == '\n';
		if (len + 1 > rd->cap) {
			char *b = realloc(rd->buf, len + 1);

			if (!b)
				return -ENOMEM;
			rd->buf = b;
			rd->cap = len + 1;
		}
		memcpy(rd->buf, rd->text, len);
		rd->buf[len] = '\0';
		rd->text += len;
	}
	if (len && rd->buf[len - 1] == '\n')
		rd->buf[--len] = '\0';
	if (len && rd->buf[len - 1] == '\r')
		rd->buf[--len] = '\0';
	*ret_len = len;
	return 1;
}

static char *reader_ini(char *str, int num, void *stream)
{
	struct line_reader *rd = stream;
	struct conf_loader *ld = rd->ld;
	const char *line;
	size_t len = 0;
	int r;

	if (ld->r)
		return NULL;
	r = reader_next(rd, &len);
	if (r < 0)
		conf_fail_file(ld, -r, ld->file, "read error: %s", strerror(-r));
	if (r <= 0)
		return NULL;
	ld->line++;
	line = rd->buf;
	if (strlen(line) != len) {
		conf_fail(ld, "NUL byte in line");
		return NULL;
	}
	if (len > CONF_LINE_MAX || len + 3 > (size_t)num) {
		conf_fail(ld, "line too long");
		return NULL;
	}
	if (ld->line == 1 && strncmp(line, "\xef\xbb\xbf", 3) == 0)
		line += 3;
	r = loader_line(ld, line);
	if (r < 0)
		return NULL;
	strcpy(str, r ? line : "");
	return str;
}

static const char *section_label(const struct conf_loader *ld, char *buf, size_t size)
{
	if (ld->section == SECTION_DAEMON)
		return "Daemon";
	if (ld->section == SECTION_CONTAINER)
		return "Container";
	snprintf(buf, size, "Group %s", ld->group ? ld->group->name : "");
	return buf;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	struct conf_loader *ld = user;
	const struct conf_key *k;
	char label[GROUP_NAME_MAX + 8];

	(void)section; /* always "": the reader keeps headers from libinih */
	if (ld->r)
		return 0;
	if (ld->section == SECTION_NONE)
		return conf_fail(ld, "key '%s' outside of any section", name), 0;
	k = conf_key_find(ld->section, name);
	if (!k)
		return conf_fail(ld, "unknown key '%s' in [%s]", name, section_label(ld, label, sizeof(label))),
		       0;
	return conf_key_apply(ld, k, value) == 0;
}

/* Debian builds libinih with run-time settings. Lines reach it one at a
 * time from our reader, already length-checked, so give it room for the
 * longest and switch off what the grammar does not have. */
static void inih_setup(void)
{
	ini_max_line = CONF_LINE_MAX + 3;
	ini_allow_multiline = false;
	ini_allow_inline_comments = false;
	ini_allow_no_value = false;
	ini_allow_bom = false;
}

static int parse_stream(struct conf_loader *ld, struct line_reader *rd)
{
	int r;

	ld->line = 0;
	ld->section = SECTION_NONE;
	ld->group = NULL;
	inih_setup();
	r = ini_parse_stream(reader_ini, rd, on_key, ld);
	free(rd->buf);
	if (!ld->r)
		group_finish(ld);
	if (ld->r)
		return ld->r;
	if (r != 0) /* the reader lets through only lines libinih accepts */
		return conf_fail_file(ld, EINVAL, ld->file, "syntax error");
	return 0;
}

static int add_source(struct conf_loader *ld, const char *path)
{
	struct conf *c = ld->conf;
	char **s = realloc(c->sources, (c->n_sources + 1) * sizeof(*s));

	if (!s)
		return conf_fail_file(ld, ENOMEM, path, "%s", strerror(ENOMEM));
	c->sources = s;
	s[c->n_sources] = strdup(path);
	if (!s[c->n_sources])
		return conf_fail_file(ld, ENOMEM, path, "%s", strerror(ENOMEM));
	ld->file = s[c->n_sources++];
	return 0;
}

/* A device other than /dev/null (which reads as an empty file): a
 * terminal or /dev/ptmx would be read until a line end that may never
 * come, and opening some acts (a watchdog arms): never opened. A
 * directory is left to the read, which fails. */
static bool is_device(const struct stat *st)
{
	return !S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode) && !S_ISFIFO(st->st_mode) &&
	       !(S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3));
}

/* Opened non-blocking and checked first: a FIFO would hold the load (and
 * a reload, the event loop) until someone writes to it. */
static int open_file(struct conf_loader *ld, const char *path, bool missing_ok, FILE **ret)
{
	struct stat st;
	int fd, flags, err;

	if (stat(path, &st) == 0 && is_device(&st))
		return conf_fail_file(ld, EINVAL, path, "cannot open: a device, not a file");
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && missing_ok)
			return 0;
		return conf_fail_file(ld, errno, path, "cannot open: %s", strerror(errno));
	}
	if (fstat(fd, &st) < 0 || (flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		err = errno;
		close(fd);
		return conf_fail_file(ld, err, path, "cannot open: %s", strerror(err));
	}
	if (S_ISFIFO(st.st_mode)) {
		close(fd);
		return conf_fail_file(ld, EINVAL, path, "cannot open: a FIFO, not a file");
	}
	if (is_device(&st)) { /* put there since the stat() */
		close(fd);
		return conf_fail_file(ld, EINVAL, path, "cannot open: a device, not a file");
	}
	*ret = fdopen(fd, "re");
	if (!*ret) {
		err = errno;
		close(fd);
		return conf_fail_file(ld, err, path, "cannot open: %s", strerror(err));
	}
	return 0;
}

static int apply_file(struct conf_loader *ld, const char *path, bool missing_ok)
{
	struct line_reader rd = { .ld = ld };
	int r;

	r = open_file(ld, path, missing_ok, &rd.f);
	if (r < 0 || !rd.f)
		return r;
	r = add_source(ld, path);
	if (r == 0)
		r = parse_stream(ld, &rd);
	fclose(rd.f);
	return r;
}

static bool dropin_wanted(const char *name)
{
	size_t n = strlen(name);

	return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

static int dropin_add(struct conf_loader *ld, struct dropin **arr, size_t *n, const char *dir, const char *name)
{
	struct dropin *q;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*arr)[i].name, name) == 0)
			return 0; /* an earlier directory has it */
	if (*n >= CONF_MAX_DROPINS)
		return conf_fail_file(ld, E2BIG, dir, "too many drop-in files (limit %d)", CONF_MAX_DROPINS);
	q = realloc(*arr, (*n + 1) * sizeof(*q));
	if (!q)
		return conf_fail_file(ld, ENOMEM, dir, "%s", strerror(ENOMEM));
	*arr = q;
	q[*n].name = strdup(name);
	if (!q[*n].name || asprintf(&q[*n].path, "%s/%s", dir, name) < 0) {
		free(q[*n].name);
		return conf_fail_file(ld, ENOMEM, dir, "%s", strerror(ENOMEM));
	}
	(*n)++;
	return 0;
}

static int dropin_scan_dir(struct conf_loader *ld, const char *dir, struct dropin **arr, size_t *n)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return conf_fail_file(ld, errno, dir, "cannot open directory: %s", strerror(errno));
	}
	while (r == 0 && (de = readdir(d)))
		if (dropin_wanted(de->d_name))
			r = dropin_add(ld, arr, n, dir, de->d_name);
	closedir(d);
	return r;
}

static int dropin_compare(const void *a, const void *b)
{
	return strcmp(((const struct dropin *)a)->name, ((const struct dropin *)b)->name);
}

/* A drop-in that is (a link to) /dev/null masks that name everywhere. */
static bool dropin_masked(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

static int apply_dropins(struct conf_loader *ld, const char *const *dirs)
{
	struct dropin *arr = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; r == 0 && dirs[i]; i++)
		r = dropin_scan_dir(ld, dirs[i], &arr, &n);
	if (r == 0 && n) /* qsort() may not be given NULL, even for nothing */
		qsort(arr, n, sizeof(*arr), dropin_compare);
	for (size_t i = 0; r == 0 && i < n; i++)
		if (!dropin_masked(arr[i].path))
			r = apply_file(ld, arr[i].path, false);
	for (size_t i = 0; i < n; i++) {
		free(arr[i].name);
		free(arr[i].path);
	}
	free(arr);
	return r;
}

static int loader_init(struct conf_loader *ld)
{
	int r;

	ld->conf = calloc(1, sizeof(*ld->conf));
	if (!ld->conf)
		return -ENOMEM;
	r = conf_keys_reset(ld, SECTION_DAEMON);
	if (r == 0)
		r = conf_keys_reset(ld, SECTION_CONTAINER);
	return r;
}

static int group_compare(const void *a, const void *b)
{
	const struct group *x = *(const struct group *const *)a, *y = *(const struct group *const *)b;

	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int check_container(struct conf_loader *ld)
{
	const struct container_settings *c = &ld->conf->container;

	if (c->def == CONTAINER_GROUP && !c->group)
		return fail_at(ld, ld->default_file, ld->default_line, "Default=group needs Group=");
	if (c->def != CONTAINER_GROUP && c->group)
		return fail_at(ld, ld->group_file, ld->group_line, "Group= is only used with Default=group");
	if (c->group && !conf_find_group(ld->conf, c->group))
		return fail_at(ld, ld->group_file, ld->group_line, "Group: no group named '%s' is defined",
			       c->group);
	return 0;
}

static int loader_finish(struct conf_loader *ld)
{
	struct conf *c = ld->conf;
	int r;

	r = check_container(ld);
	if (r < 0)
		return r;
	if (c->n_groups)
		qsort(c->groups, c->n_groups, sizeof(*c->groups), group_compare);
	for (size_t i = 0; i < c->n_groups; i++)
		c->groups[i]->order = (unsigned)i;
	r = rules_index_new(c, &c->index);
	if (r < 0)
		return conf_fail_file(ld, -r, c->n_sources ? c->sources[0] : "configuration",
				      "cannot build the match index: %s", strerror(-r));
	return 0;
}

static int loader_done(struct conf_loader *ld, int r, struct conf **ret, char **ret_error)
{
	if (r < 0 || ld->r < 0) {
		r = r < 0 ? r : ld->r;
		conf_free(ld->conf);
		if (ret_error)
			*ret_error = ld->error;
		else
			free(ld->error);
		return r;
	}
	*ret = ld->conf;
	return 0;
}

int conf_load(const struct conf_paths *paths, struct conf **ret, char **ret_error)
{
	struct conf_loader ld = {};
	int r;

	r = loader_init(&ld);
	if (r == 0 && paths->main_file)
		r = apply_file(&ld, paths->main_file, true);
	if (r == 0 && paths->dropin_dirs)
		r = apply_dropins(&ld, paths->dropin_dirs);
	if (r == 0)
		r = loader_finish(&ld);
	return loader_done(&ld, r, ret, ret_error);
}

int conf_load_string(const char *text, const char *name, struct conf **ret, char **ret_error)
{
	struct conf_loader ld = {};
	struct line_reader rd = { .ld = &ld, .text = text };
	int r;

	r = loader_init(&ld);
	if (r == 0)
		r = add_source(&ld, name);
	if (r == 0)
		r = parse_stream(&ld, &rd);
	if (r == 0)
		r = loader_finish(&ld);
	return loader_done(&ld, r, ret, ret_error);
}
