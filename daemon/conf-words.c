// SPDX-License-Identifier: GPL-2.0-or-later
/* The list-valued group keys: Match*=, AllowUsers=, AllowGroups=. Words are
 * checked here so that a pattern that can never match is an error at load
 * time; user and group names become numbers here, once. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "conf-ids.h"
#include "conf-internal.h"

#define COMM_MAX 15 /* TASK_COMM_LEN - 1 */

/* Room for element n: capacity doubles at each power of two from 4. */
static void *grow(void *arr, size_t n, size_t size)
{
	if (n != 0 && (n < 4 || (n & (n - 1)) != 0))
		return arr;
	return realloc(arr, (n ? n * 2 : 4) * size);
}

/* "1000-1999": 1 with the range, 0 when s is not shaped like a range,
 * -EINVAL when it is (digits, a dash, digits) but an end is no valid id. */
static int parse_range(const char *s, uint32_t *ret_first, uint32_t *ret_last)
{
	const char *dash = strchr(s, '-');
	size_t n = dash ? (size_t)(dash - s) : 0;
	char first[11];
	uint32_t a, b;

	if (!dash || n == 0 || strspn(s, "0123456789") != n || !dash[1] ||
	    strspn(dash + 1, "0123456789") != strlen(dash + 1))
		return 0;
	if (n > 10)
		return -EINVAL;
	memcpy(first, s, n);
	first[n] = '\0';
	if (conf_ids_parse(first, &a) < 0 || conf_ids_parse(dash + 1, &b) < 0)
		return -EINVAL;
	*ret_first = a;
	*ret_last = b;
	return 1;
}

static int add_range(struct id_range **arr, size_t *n, uint32_t first, uint32_t last, unsigned word)
{
	struct id_range *q = grow(*arr, *n, sizeof(**arr));

	if (!q)
		return -ENOMEM;
	*arr = q;
	q[(*n)++] = (struct id_range){ first, last, word };
	return 0;
}

/* "@adm": the members, each as its own id so the index can hash them. */
static int add_group_members(struct group *g, const char *name, unsigned word)
{
	uint32_t *uids = NULL;
	size_t n = 0;
	int r;

	r = conf_ids_members(name, &uids, &n);
	for (size_t i = 0; r == 0 && i < n; i++)
		r = add_range(&g->match_uids, &g->n_match_uids, uids[i], uids[i], word);
	free(uids);
	return r;
}

static int user_word(struct conf_loader *ld, struct group *g, const char *key, const char *w, unsigned word)
{
	uint32_t first, last;
	int r;

	if (w[0] == '@') {
		r = add_group_members(g, w + 1, word);
		if (r == -ENOENT)
			return conf_fail(ld, "%s: unknown group '%s'", key, w + 1);
		return r < 0 ? conf_fail(ld, "%s: %s", key, strerror(-r)) : 0;
	}
	r = parse_range(w, &first, &last);
	if (r < 0)
		return conf_fail(ld, "%s: invalid range '%s'", key, w);
	if (r > 0) {
		if (first > last)
			return conf_fail(ld, "%s: range '%s' is empty", key, w);
	} else {
		r = conf_ids_user(w, &first);
		if (r == -EINVAL)
			return conf_fail(ld, "%s: invalid uid '%s'", key, w);
		if (r < 0)
			return conf_fail(ld, "%s: unknown user '%s'", key, w);
		last = first;
	}
	if (add_range(&g->match_uids, &g->n_match_uids, first, last, word) < 0)
		return conf_fail(ld, "%s: %s", key, strerror(ENOMEM));
	return 0;
}

static int group_word(struct conf_loader *ld, struct group *g, const char *key, const char *w, unsigned word)
{
	uint32_t first, last;
	int r;

	r = parse_range(w, &first, &last);
	if (r < 0)
		return conf_fail(ld, "%s: invalid range '%s'", key, w);
	if (r > 0) {
		if (first > last)
			return conf_fail(ld, "%s: range '%s' is empty", key, w);
	} else {
		r = conf_ids_group(w, &first);
		if (r == -EINVAL)
			return conf_fail(ld, "%s: invalid gid '%s'", key, w);
		if (r < 0)
			return conf_fail(ld, "%s: unknown group '%s'", key, w);
		last = first;
	}
	if (add_range(&g->match_gids, &g->n_match_gids, first, last, word) < 0)
		return conf_fail(ld, "%s: %s", key, strerror(ENOMEM));
	return 0;
}

/* The ']' that closes the bracket expression opened at p, or NULL when it
 * is never closed. As fnmatch() reads it: a ']' first in the list is a
 * member, and so is an escaped one and every ']' inside "[:class:]",
 * "[.x.]" or "[=x=]". */
static const char *bracket_end(const char *p)
{
	const char *q = p + 1, *end;

	if (*q == '!' || *q == '^')
		q++;
	if (*q == ']')
		q++;
	for (; *q && *q != ']'; q++) {
		if (q[0] == '\\' && q[1]) {
			q++;
		} else if (q[0] == '[' && (q[1] == ':' || q[1] == '.' || q[1] == '=')) {
			char close[3] = { q[1], ']', '\0' };

			end = strstr(q + 2, close);
			if (end)
				q = end + 1;
		}
	}
	return *q ? q : NULL;
}

/* Shortest string a glob can match: '*' matches nothing, the rest one
 * character each. */
static size_t glob_min_len(const char *p)
{
	size_t n = 0;

	for (; *p; p++) {
		if (*p == '*')
			continue;
		n++;
		if (*p == '\\' && p[1]) {
			p++;
		} else if (*p == '[') {
			const char *q = bracket_end(p);

			if (q) /* an unclosed '[' is a literal */
				p = q;
		}
	}
	return n;
}

static int path_word(struct conf_loader *ld, const char *key, const char *w, bool cgroup)
{
	if (w[0] != '/')
		return conf_fail(ld, "%s: '%s' cannot match: not an absolute path", key, w);
	if (!cgroup)
		return 0;
	if (strcmp(w, "/") == 0)
		return conf_fail(ld, "%s: '/' would match every process; leave %s= out instead", key, key);
	if (w[strlen(w) - 1] == '/')
		return conf_fail(ld, "%s: '%s' cannot match: trailing slash", key, w);
	if (strstr(w, "//"))
		return conf_fail(ld, "%s: '%s' cannot match: empty path component", key, w);
	return 0;
}

static int check_word(struct conf_loader *ld, struct group *g, enum match_kind kind, const char *key,
		      const char *w, unsigned word)
{
	switch (kind) {
	case MATCH_EXE:
		return path_word(ld, key, w, false);
	case MATCH_CGROUP:
		return path_word(ld, key, w, true);
	case MATCH_COMM:
		if (glob_min_len(w) > COMM_MAX)
			return conf_fail(ld, "%s: '%s' cannot match: longer than %d characters", key, w,
					 COMM_MAX);
		return 0;
	case MATCH_USER:
		return user_word(ld, g, key, w, word);
	case MATCH_GROUP:
		return group_word(ld, g, key, w, word);
	default:
		return -EINVAL;
	}
}

static size_t total_words(const struct group *g)
{
	size_t n = 0;

	for (int k = 0; k < _MATCH_KIND_MAX; k++)
		n += g->n_match_words[k];
	return n;
}

void conf_words_clear(struct group *g, enum match_kind kind)
{
	for (size_t i = 0; i < g->n_match_words[kind]; i++)
		free(g->match_words[kind][i]);
	free(g->match_words[kind]);
	g->match_words[kind] = NULL;
	g->n_match_words[kind] = 0;
	if (kind == MATCH_EXE)
		g->exe_word_lines = (free(g->exe_word_lines), NULL);
	if (kind == MATCH_USER) {
		g->match_uids = (free(g->match_uids), NULL);
		g->n_match_uids = 0;
	} else if (kind == MATCH_GROUP) {
		g->match_gids = (free(g->match_gids), NULL);
		g->n_match_gids = 0;
	}
}

int conf_words_add_match(struct conf_loader *ld, struct group *g, enum match_kind kind, const char *key,
			 const char *value)
{
	static const char sep[] = " \t";
	char *w, **words;
	size_t len;
	int r;

	if (!*value) {
		conf_words_clear(g, kind);
		return 0;
	}
	for (const char *p = value + strspn(value, sep); *p; p += len, p += strspn(p, sep)) {
		len = strcspn(p, sep);
		if (total_words(g) >= CONF_MAX_MATCH_WORDS)
			return conf_fail(ld, "%s: too many match words in [Group %s] (limit %d)", key, g->name,
					 CONF_MAX_MATCH_WORDS);
		w = strndup(p, len);
		words = grow(g->match_words[kind], g->n_match_words[kind], sizeof(char *));
		if (words)
			g->match_words[kind] = words;
		if (words && kind == MATCH_EXE) {
			unsigned *lines = grow(g->exe_word_lines, g->n_match_words[kind], sizeof(unsigned));

			if (lines)
				g->exe_word_lines = lines;
			words = lines ? words : NULL;
		}
		if (!w || !words) {
			free(w);
			return conf_fail(ld, "%s: %s", key, strerror(ENOMEM));
		}
		r = check_word(ld, g, kind, key, w, (unsigned)g->n_match_words[kind]);
		if (r < 0) {
			free(w);
			return r;
		}
		if (kind == MATCH_EXE)
			g->exe_word_lines[g->n_match_words[kind]] = ld->line;
		g->match_words[kind][g->n_match_words[kind]++] = w;
	}
	return 0;
}

static int allow_word(struct conf_loader *ld, struct group *g, const char *key, const char *w, bool users)
{
	uint32_t id;
	int r;

	r = users ? conf_ids_user(w, &id) : conf_ids_group(w, &id);
	if (r == -EINVAL)
		return conf_fail(ld, "%s: invalid %s '%s'", key, users ? "uid" : "gid", w);
	if (r < 0)
		return conf_fail(ld, "%s: unknown %s '%s'", key, users ? "user" : "group", w);
	if (users) {
		uid_t *q = grow(g->allow_uids, g->n_allow_uids, sizeof(*q));

		if (!q)
			return conf_fail(ld, "%s: %s", key, strerror(ENOMEM));
		g->allow_uids = q;
		q[g->n_allow_uids++] = id;
	} else {
		gid_t *q = grow(g->allow_gids, g->n_allow_gids, sizeof(*q));

		if (!q)
			return conf_fail(ld, "%s: %s", key, strerror(ENOMEM));
		g->allow_gids = q;
		q[g->n_allow_gids++] = id;
	}
	return 0;
}

/* AllowUsers= and AllowGroups= share one limit and one shape. */
static int add_allow(struct conf_loader *ld, struct group *g, const char *key, const char *value, bool users)
{
	static const char sep[] = " \t";
	size_t len;
	char *w;
	int r;

	for (const char *p = value + strspn(value, sep); *p; p += len, p += strspn(p, sep)) {
		len = strcspn(p, sep);
		if (g->n_allow_uids + g->n_allow_gids >= CONF_MAX_ALLOW)
			return conf_fail(ld, "%s: too many entries in [Group %s] (limit %d)", key, g->name,
					 CONF_MAX_ALLOW);
		w = strndup(p, len);
		if (!w)
			return conf_fail(ld, "%s: %s", key, strerror(ENOMEM));
		r = allow_word(ld, g, key, w, users);
		free(w);
		if (r < 0)
			return r;
	}
	return 0;
}

int conf_words_add_allow_users(struct conf_loader *ld, struct group *g, const char *value)
{
	if (!*value) {
		g->allow_uids = (free(g->allow_uids), NULL);
		g->n_allow_uids = 0;
		return 0;
	}
	return add_allow(ld, g, "AllowUsers", value, true);
}

int conf_words_add_allow_groups(struct conf_loader *ld, struct group *g, const char *value)
{
	if (!*value) {
		g->allow_gids = (free(g->allow_gids), NULL);
		g->n_allow_gids = 0;
		return 0;
	}
	return add_allow(ld, g, "AllowGroups", value, false);
}
