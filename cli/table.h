/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Output tables in the util-linux manner: -o/--output picks columns, -J
 * prints smartcols JSON, -n drops the headings, -r prints raw. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct table_column {
	const char *name;
	double whint;
	int flags;     /* SCOLS_FL_* */
	int json_type; /* SCOLS_JSON_* */
	const char *help;
};

struct table_opts {
	bool json;
	bool noheadings;
	bool raw;
	const char *output; /* "A,B", or "+A,B" to add to the defaults */
};

struct table;

/* The getopt letters and long options every table command takes. */
#define TABLE_SHORTOPTS "Jo:nr"
#define TABLE_LONGOPTS \
	{ "json", no_argument, NULL, 'J' }, \
	{ "output", required_argument, NULL, 'o' }, \
	{ "noheadings", no_argument, NULL, 'n' }, \
	{ "raw", no_argument, NULL, 'r' }

/* Takes option c if it is one of TABLE_SHORTOPTS: true then. */
bool table_opt(struct table_opts *o, int c, const char *arg);

/* A table named name (the JSON array) with the columns o asks for, the
 * defaults ("A,B,C") otherwise. An unknown column is a usage error: its
 * exit code is returned after the message. */
int table_new(const char *name, const struct table_column *cols, size_t n_cols, const char *defaults,
	      const struct table_opts *o, struct table **ret);

/* Adds a row; values[i] belongs to cols[i] (NULL: empty). */
int table_add(struct table *t, const char *const *values);

/* A boolean member printed beside the rows' array in JSON output (-J):
 * {"name": value, "<table>": [...]}. One per table. */
void table_json_flag(struct table *t, const char *name, bool value);

/* Prints and frees the table; returns 0 or an exit code. */
int table_print_free(struct table *t);

/* Frees without printing; NULL is fine. Returns NULL. */
struct table *table_free(struct table *t);

/* "Available output columns:" and each column's help, for --help. */
void table_help(const struct table_column *cols, size_t n_cols);
