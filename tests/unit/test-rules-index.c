// SPDX-License-Identifier: GPL-2.0-or-later
/* The match index against a plain linear reference: random patterns with
 * every glob feature straight into the glob index, then random
 * configurations (literal, glob, bracket and escaped Match*= words, users,
 * groups, Priority=, Per=) through conf_load_string() and rules_match(),
 * each checked against the first group that a group-by-group fnmatch()
 * walk in Priority=-then-file order finds, and against rules_explain().
 * Fixed seeds, so a failure repeats. */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "rules-glob.h"
#include "unit.h"

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

static const char *pick(const char *const *words, size_t n)
{
	return words[rnd((uint32_t)n)];
}

#define PICK(a) pick(a, sizeof(a) / sizeof(a[0]))

static void test_literal_ends(void)
{
	static const struct {
		const char *pattern, *prefix;
		size_t suffix;
	} cases[] = {
		{ "/usr/bin/*", "/usr/bin/", 0 },    { "*.so", "", 3 },       { "/a/\\*b", "/a/*b", 1 },
		{ "a\\?b*c", "a?b", 1 },             { "x[ab]yz", "x", 2 },   { "[[:alpha:]]]z", "", 1 },
		{ "ab\\", "ab", 0 },                 { "a\\\\b", "a\\b", 1 }, { "b[", "b", 0 },
		{ "[]a]bc", "", 2 },                 { "?", "", 0 },          { "abc\\d", "abcd", 1 },
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(rules_glob_prefix(cases[i].pattern, buf) == strlen(cases[i].prefix));
		CHECK_STREQ(buf, cases[i].prefix);
		CHECK(rules_glob_suffix_len(cases[i].pattern) == cases[i].suffix);
	}
}

struct hits {
	uint8_t seen[64];
};

static void on_glob(uint32_t group, void *userdata)
{
	struct hits *h = userdata;

	h->seen[group]++;
}

/* Patterns and strings over a small alphabet with every character fnmatch()
 * treats specially: brackets that close, never close, hold classes, or
 * start with ']' or '!'; escapes everywhere, a trailing backslash. */
static void random_text(char *buf, size_t max, bool pattern)
{
	static const char *const pat[] = { "a", "b", "/", ".", "*", "?", "[ab]", "[!a]", "[]a]", "[a-c]",
					   "[[:alpha:]]", "[", "]", "\\*", "\\", "\\a", "ab", "*/", "-", "!" };
	static const char *const str[] = { "a", "b", "c", "/", ".", "*", "?", "[", "]", "\\", "ab", "-", "!", "" };
	size_t n = rnd(6), len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const char *w = pattern ? PICK(pat) : PICK(str);

		if (len + strlen(w) + 1 > max)
			break;
		memcpy(buf + len, w, strlen(w) + 1);
		len += strlen(w);
	}
}

/* 64 patterns in one index: it must report exactly what fnmatch() says. */
static void test_glob_index_random(void)
{
	char pats[64][48], s[48];
	struct glob_pattern p[64];
	unsigned cases = 0, matched = 0;

	rng = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 300; round++) {
		int flags = round & 1 ? FNM_PATHNAME : 0;
		struct glob_index *idx = NULL;

		for (uint32_t i = 0; i < 64; i++) {
			random_text(pats[i], sizeof(pats[i]), true);
			p[i] = (struct glob_pattern){ pats[i], i };
		}
		CHECK(rules_glob_index_new(p, 64, flags, &idx) == 0);
		if (!idx)
			return;
		for (int k = 0; k < 100; k++) {
			struct hits h = { { 0 } };

			random_text(s, sizeof(s), false);
			rules_glob_index_match(idx, s, strlen(s), on_glob, &h);
			for (int i = 0; i < 64; i++) {
				bool want = fnmatch(pats[i], s, flags) == 0;

				if (h.seen[i] != want)
					fprintf(stderr, "  pattern '%s' string '%s' flags %d: index %u, fnmatch %d\n",
						pats[i], s, flags, h.seen[i], want);
				CHECK(h.seen[i] == want);
				matched += want;
				cases++;
			}
		}
		rules_glob_index_free(idx);
	}
	fprintf(stderr, "  %u pattern-string pairs, %u matched\n", cases, matched);
	CHECK(matched > cases / 50);
}

/* Configurations: words, inputs and a reference. */

#define MAX_GROUPS 400
#define MAX_WORDS 3

struct ref_group {
	char name[16];
	int priority;
	enum per_mode per;
	char words[_MATCH_KIND_MAX][MAX_WORDS][48];
	size_t n_words[_MATCH_KIND_MAX];
};

struct ref_conf {
	struct ref_group g[MAX_GROUPS];
	size_t n;
	size_t order[MAX_GROUPS]; /* indexes in evaluation order */
};

static const char *const exe_parts[] = { "usr", "bin", "lib", "a", "ab", "b.so", "*", "?", "a*", "*b", "*.so", "[ab]",
					 "[!a]*", "[a-c]?", "\\*", "a\\?", "[[:alpha:]]*", "[]a]", "b[", "x\\[a]" };
static const char *const exe_input_parts[] = { "usr", "bin", "lib", "a", "ab", "b", "b.so", "a.so", "*", "?", "a?",
					       "[ab]", "b[", "x[a]", "]", "c", "ba", "" };
static const char *const comm_parts[] = { "cc", "1", "ld", ".", "*", "?", "[cl]", "[!c]", "\\*", "x", "[0-9]" };
static const char *const comm_input_parts[] = { "cc", "1", "ld", ".", "*", "?", "x", "c", "l", "9" };
static const char *const cgroup_parts[] = { "s", "u", "a.slice", "b.scope", "*", "*.slice", "[ab]*", "?", "\\*",
					    "x?y", "[!s]*", "u*" };
static const char *const cgroup_input_parts[] = { "s", "u", "a.slice", "b.scope", "*", "x", "xy", "xzy", "ab",
						  "user.slice" };

/* parts joined: with '/' before each (paths) or not (comm). */
static void join(char *buf, size_t size, const char *const *parts, size_t n_parts, size_t n, bool path)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", path ? "/" : "", pick(parts, n_parts));
	if (path && n == 0)
		snprintf(buf, size, "/");
}

#define JOIN(buf, parts, n, path) join(buf, sizeof(buf), parts, sizeof(parts) / sizeof(parts[0]), n, path)

static void random_word(enum match_kind k, char *w, size_t size)
{
	uint32_t a = rnd(22), b = a + rnd(4);

	switch (k) {
	case MATCH_EXE:
		join(w, size, exe_parts, sizeof(exe_parts) / sizeof(exe_parts[0]), 1 + rnd(3), true);
		break;
	case MATCH_COMM:
		join(w, size, comm_parts, sizeof(comm_parts) / sizeof(comm_parts[0]), 1 + rnd(3), false);
		break;
	case MATCH_CGROUP:
		join(w, size, cgroup_parts, sizeof(cgroup_parts) / sizeof(cgroup_parts[0]), 1 + rnd(3), true);
		break;
	default: /* users and groups: "root" is 0 for both */
		if (rnd(8) == 0)
			snprintf(w, size, "root");
		else if (rnd(3) == 0)
			snprintf(w, size, "%u-%u", a, b);
		else
			snprintf(w, size, "%u", a);
	}
}

static void random_group(struct ref_group *g, size_t i)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->name, sizeof(g->name), "g%u", (unsigned)i);
	g->priority = rnd(2) ? 0 : (int)rnd(5) - 2;
	for (int k = 0; k < _MATCH_KIND_MAX; k++) {
		if (rnd(3) != 0)
			continue;
		g->n_words[k] = 1 + rnd(MAX_WORDS);
		for (size_t j = 0; j < g->n_words[k]; j++)
			random_word((enum match_kind)k, g->words[k][j], sizeof(g->words[k][j]));
	}
	g->per = (enum per_mode)rnd(4);
	if (g->per == PER_CGROUP && !g->n_words[MATCH_CGROUP])
		g->per = PER_GROUP;
}

static const char *const kind_key[_MATCH_KIND_MAX] = { "MatchExe", "MatchComm", "MatchUser", "MatchGroup",
						       "MatchCgroup" };

/* The configuration text; a priority is written only when not 0, which
 * leaves some groups on the default. */
static char *conf_text(const struct ref_conf *rc)
{
	size_t size = rc->n * 1024 + 1, len = 0;
	char *t = malloc(size);

	for (size_t i = 0; t && i < rc->n; i++) {
		const struct ref_group *g = &rc->g[i];

		len += (size_t)snprintf(t + len, size - len, "[Group %s]\nPer=%s\n", g->name, per_mode_to_string(g->per));
		if (g->priority)
			len += (size_t)snprintf(t + len, size - len, "Priority=%d\n", g->priority);
		for (int k = 0; k < _MATCH_KIND_MAX; k++) {
			if (!g->n_words[k])
				continue;
			len += (size_t)snprintf(t + len, size - len, "%s=", kind_key[k]);
			for (size_t j = 0; j < g->n_words[k]; j++)
				len += (size_t)snprintf(t + len, size - len, "%s%s", j ? " " : "", g->words[k][j]);
			len += (size_t)snprintf(t + len, size - len, "\n");
		}
	}
	if (t)
		t[len] = '\0';
	return t;
}

/* Priority= descending, then file order: a stable insertion sort. */
static void ref_sort(struct ref_conf *rc)
{
	for (size_t i = 0; i < rc->n; i++) {
		size_t j = i;

		while (j > 0 && rc->g[rc->order[j - 1]].priority < rc->g[i].priority) {
			rc->order[j] = rc->order[j - 1];
			j--;
		}
		rc->order[j] = i;
	}
}

static bool ref_id(const char *w, uint32_t id)
{
	unsigned a, b;

	if (strcmp(w, "root") == 0)
		return id == 0;
	if (sscanf(w, "%u-%u", &a, &b) == 2)
		return a <= id && id <= b;
	return (unsigned)atoi(w) == id;
}

/* The shortest '/'-boundary prefix of path that a word matches, 0 if none. */
static size_t ref_cgroup(const struct ref_group *g, const char *path)
{
	char q[256];
	size_t n = path ? strlen(path) : 0;

	if (n == 0 || n >= sizeof(q) || path[0] != '/')
		return 0;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(q, path, i);
		q[i] = '\0';
		for (size_t j = 0; j < g->n_words[MATCH_CGROUP]; j++)
			if (fnmatch(g->words[MATCH_CGROUP][j], q, FNM_PATHNAME) == 0)
				return i;
	}
	return 0;
}

static bool ref_kind(const struct ref_group *g, enum match_kind k, const struct match_input *in)
{
	const char *s = k == MATCH_EXE ? in->exe : in->comm;

	if (k == MATCH_CGROUP)
		return ref_cgroup(g, in->cgroup) != 0;
	for (size_t j = 0; j < g->n_words[k]; j++) {
		if (k == MATCH_USER || k == MATCH_GROUP) {
			if (ref_id(g->words[k][j], k == MATCH_USER ? in->uid : in->gid))
				return true;
		} else if (s && fnmatch(g->words[k][j], s, 0) == 0) {
			return true;
		}
	}
	return false;
}

/* The first group in order whose every listed kind matches; its key. */
static const struct ref_group *ref_match(const struct ref_conf *rc, const struct match_input *in, char *key)
{
	for (size_t o = 0; o < rc->n; o++) {
		const struct ref_group *g = &rc->g[rc->order[o]];
		bool any = false, all = true;

		for (int k = 0; k < _MATCH_KIND_MAX; k++) {
			if (!g->n_words[k])
				continue;
			any = true;
			all = all && ref_kind(g, (enum match_kind)k, in);
		}
		if (!any || !all)
			continue;
		key[0] = '\0';
		if (g->per == PER_USER)
			sprintf(key, "%u", (unsigned)in->uid);
		else if (g->per == PER_CGROUP)
			sprintf(key, "%.*s", (int)ref_cgroup(g, in->cgroup), in->cgroup);
		return g;
	}
	return NULL;
}

static void on_explain_first(void *userdata, const struct group *g, bool matched, const char *reason)
{
	const char **first = userdata;

	(void)reason;
	if (matched && !*first)
		*first = g->name;
}

static void random_input(struct match_input *in, char *exe, char *comm, char *cg)
{
	JOIN(exe, exe_input_parts, 1 + rnd(3), true);
	JOIN(comm, comm_input_parts, 1 + rnd(3), false);
	JOIN(cg, cgroup_input_parts, rnd(5), true);
	*in = (struct match_input){ rnd(20) ? exe : NULL, rnd(20) ? comm : NULL, rnd(25), rnd(25),
				    rnd(20) ? cg : NULL };
}

/* One configuration, inputs of it; counts cases and matches. */
static void check_conf(struct ref_conf *rc, unsigned n_inputs, unsigned *cases, unsigned *hits)
{
	char *text = conf_text(rc), *error = NULL, exe[64], comm[64], cg[64], key[256];
	struct conf *c = NULL;

	if (!text || conf_load_string(text, "diff.conf", &c, &error) < 0) {
		fprintf(stderr, "  load: %s\n%s", error ? error : "out of memory", text ? text : "");
		CHECK(!"the configuration loads");
		free(text);
		free(error);
		return;
	}
	ref_sort(rc);
	for (unsigned i = 0; i < n_inputs; i++) {
		struct match_input in;
		struct match_result m;
		const struct ref_group *want;
		const char *first = NULL;
		int r;

		random_input(&in, exe, comm, cg);
		want = ref_match(rc, &in, key);
		r = rules_match(c, &in, &m);
		rules_explain(c, &in, on_explain_first, &first);
		if (r != (want != NULL) || (want && (strcmp(m.group->name, want->name) || strcmp(m.key, key))) ||
		    (want ? !first || strcmp(first, want->name) : first != NULL)) {
			fprintf(stderr, "  exe %s comm %s uid %u gid %u cgroup %s: matcher %s '%s', explain %s, "
				"reference %s '%s'\n%s", in.exe ?: "-", in.comm ?: "-", (unsigned)in.uid,
				(unsigned)in.gid, in.cgroup ?: "-", r == 1 ? m.group->name : "-", r == 1 ? m.key : "",
				first ?: "-", want ? want->name : "-", want ? key : "", text);
			CHECK(!"the matcher agrees with the reference");
			break;
		}
		(*cases)++;
		*hits += want != NULL;
	}
	conf_free(c);
	free(text);
}

static struct ref_conf rc;

static void test_random_configs(void)
{
	static const uint64_t seeds[] = { 1, 0x5eed, 20261130 };
	unsigned cases = 0, hits = 0;

	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		rng = seeds[s] * 0x2545f4914f6cdd1dull + 1;
		for (int i = 0; i < 150 && !unit_case_failed; i++) {
			rc.n = i % 10 == 9 ? 200 + rnd(MAX_GROUPS - 200) : 1 + rnd(30);
			for (size_t j = 0; j < rc.n; j++)
				random_group(&rc.g[j], j);
			check_conf(&rc, 30, &cases, &hits);
		}
	}
	fprintf(stderr, "  %u inputs against %u configurations, %u matched a group\n", cases, 450, hits);
	CHECK(cases >= 13500);
	CHECK(hits > cases / 10 && hits < cases - cases / 10); /* both outcomes exercised */
}

int main(void)
{
	RUN(test_literal_ends);
	RUN(test_glob_index_random);
	RUN(test_random_configs);
	UNIT_EXIT();
}
