// SPDX-License-Identifier: GPL-2.0-or-later
#include "table.h"

#include <errno.h>
#include <libsmartcols.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

#define MAX_COLUMNS 32

struct table {
	struct libscols_table *tb;
	size_t map[MAX_COLUMNS]; /* output column -> index into the definitions */
	size_t n;
	const char *flag_name; /* table_json_flag() */
	bool flag_value;
};

bool table_opt(struct table_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'J': o->json = true; return true;
	case 'n': o->noheadings = true; return true;
	case 'r': o->raw = true; return true;
	case 'o': o->output = arg; return true;
	default: return false;
	}
}

/* Column names are ASCII: compared without the locale, whose case rules
 * may differ (a Turkish locale's i is not I's lower case). */
static bool same_name(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

		if (x >= 'a' && x <= 'z')
			x -= 'a' - 'A';
		if (y >= 'a' && y <= 'z')
			y -= 'a' - 'A';
		if (x != y)
			return false;
	}
	return true;
}

static int column_index(const struct table_column *cols, size_t n_cols, const char *name, size_t len)
{
	for (size_t i = 0; i < n_cols; i++)
		if (strlen(cols[i].name) == len && same_name(cols[i].name, name, len))
			return (int)i;
	return -1;
}

/* Appends the columns named in list ("A,B") to t->map. */
static int parse_columns(struct table *t, const struct table_column *cols, size_t n_cols, const char *list)
{
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		int idx = column_index(cols, n_cols, p, len);

		if (idx < 0)
			return cli_usage_error("unknown column: %.*s", (int)len, p);
		if (t->n >= MAX_COLUMNS)
			return cli_usage_error("too many columns");
		t->map[t->n++] = (size_t)idx;
		p += len;
		if (*p == ',')
			p++;
	}
	if (t->n == 0)
		return cli_usage_error("no columns given");
	return 0;
}

static int pick_columns(struct table *t, const struct table_column *cols, size_t n_cols,
			const char *defaults, const char *output)
{
	int r = 0;

	if (!output || *output == '+')
		r = parse_columns(t, cols, n_cols, defaults);
	if (r == 0 && output)
		r = parse_columns(t, cols, n_cols, output + (*output == '+'));
	return r;
}

static int add_columns(struct table *t, const struct table_column *cols)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct table_column *c = &cols[t->map[i]];
		struct libscols_column *cl = scols_table_new_column(t->tb, c->name, c->whint, c->flags);

		if (!cl)
			return -ENOMEM;
		if (c->json_type)
			scols_column_set_json_type(cl, c->json_type);
	}
	return 0;
}

/* A terminal that knows its width. A serial console says 0 columns:
 * smartcols would then assume 80 and break rows; print them whole. */
static bool sized_terminal(void)
{
	struct winsize w;
	const char *cols = getenv("COLUMNS");

	if (!isatty(STDOUT_FILENO))
		return false;
	if (cols && atoi(cols) > 0)
		return true;
	return ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0;
}

int table_new(const char *name, const struct table_column *cols, size_t n_cols, const char *defaults,
	      const struct table_opts *o, struct table **ret)
{
	struct table *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return cli_error(-ENOMEM, "cannot make a table");
	r = pick_columns(t, cols, n_cols, defaults, o->output);
	if (r) {
		free(t);
		return r;
	}
	t->tb = scols_new_table();
	if (!t->tb || add_columns(t, cols) < 0) {
		scols_unref_table(t->tb);
		free(t);
		return cli_error(-ENOMEM, "cannot make a table");
	}
	/* Not to a terminal, as lsblk: one row per line, nothing cut. */
	if (!sized_terminal())
		scols_table_set_termforce(t->tb, SCOLS_TERMFORCE_NEVER);
	scols_table_set_name(t->tb, name);
	scols_table_enable_json(t->tb, o->json);
	scols_table_enable_noheadings(t->tb, o->noheadings);
	scols_table_enable_raw(t->tb, o->raw);
	*ret = t;
	return 0;
}

int table_add(struct table *t, const char *const *values)
{
	struct libscols_line *ln = scols_table_new_line(t->tb, NULL);

	if (!ln)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++) {
		const char *v = values[t->map[i]];

		if (v && *v && scols_line_set_data(ln, i, v) < 0)
			return -ENOMEM;
	}
	return 0;
}

void table_json_flag(struct table *t, const char *name, bool value)
{
	t->flag_name = name;
	t->flag_value = value;
}

/* smartcols prints one object holding the array: the flag goes first in it. */
static int print_with_flag(struct table *t)
{
	char *data = NULL;
	int r = scols_print_table_to_string(t->tb, &data);

	if (r == 0 && data && data[0] == '{' && data[1] == '\n')
		printf("{\n   \"%s\": %s,\n%s", t->flag_name, t->flag_value ? "true" : "false", data + 2);
	else if (r == 0)
		r = -EBADMSG;
	free(data);
	return r;
}

int table_print_free(struct table *t)
{
	int r = t->flag_name && scols_table_is_json(t->tb) ? print_with_flag(t) : scols_print_table(t->tb);

	scols_unref_table(t->tb);
	free(t);
	return r < 0 ? cli_error(r, "cannot print the table") : 0;
}

struct table *table_free(struct table *t)
{
	if (t) {
		scols_unref_table(t->tb);
		free(t);
	}
	return NULL;
}

void table_help(const struct table_column *cols, size_t n_cols)
{
	printf("\nAvailable output columns:\n");
	for (size_t i = 0; i < n_cols; i++)
		printf(" %-12s %s\n", cols[i].name, cols[i].help);
}
