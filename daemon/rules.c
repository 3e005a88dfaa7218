// SPDX-License-Identifier: GPL-2.0-or-later
/* Rule matching. Every exec looks here, against thousands of groups, so the
 * load builds an index: hash tables for the exact words of each Match*=
 * kind, the globs by their literal prefix or suffix (rules-glob.c), and a
 * short list for id ranges. A lookup marks, per group, which kinds hit;
 * the first group in evaluation order whose every listed kind hit wins.
 * The conf is never written: the marks live in per-thread scratch that is
 * cleared entry by entry after use. */
#include <errno.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "rules-glob.h"

#define CGROUP_PATH_MAX 4096 /* longer paths match no MatchCgroup= */

struct slot {
	const char *key; /* NULL: the slot is empty */
	size_t len;
	uint32_t id;
	uint32_t hash;
	uint32_t group; /* index in evaluation order */
	uint32_t word;
};

/* Open addressing with linear probing; equal keys may repeat (one slot
 * per group listing the word), so a lookup walks the whole probe run. */
struct table {
	struct slot *slots;
	size_t mask;
};

struct scan {
	uint32_t first, last; /* an id range */
	uint32_t group;
	uint32_t word;
};

struct scan_list {
	struct scan *items;
	size_t n;
};

struct conf_index {
	struct table exact[_MATCH_KIND_MAX];
	struct scan_list scan[_MATCH_KIND_MAX];  /* MatchUser=, MatchGroup= ranges */
	struct glob_index *globs[_MATCH_KIND_MAX]; /* MatchExe=, MatchComm=, MatchCgroup= */
};

struct scratch {
	uint8_t *acc;      /* per group: bits of the kinds that hit */
	uint16_t *touched; /* groups with a non-zero acc */
	size_t n_touched;
};

static _Thread_local uint8_t scratch_acc[CONF_MAX_GROUPS];
static _Thread_local uint16_t scratch_touched[CONF_MAX_GROUPS];

static bool is_glob(const char *w)
{
	return strpbrk(w, "*?[\\") != NULL;
}

static bool kind_is_id(enum match_kind k)
{
	return k == MATCH_USER || k == MATCH_GROUP;
}

static uint32_t hash_str(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static uint32_t hash_id(uint32_t id)
{
	return id * 2654435761u;
}

static const struct id_range *group_ids(const struct group *g, enum match_kind k, size_t *ret_n)
{
	*ret_n = k == MATCH_USER ? g->n_match_uids : g->n_match_gids;
	return k == MATCH_USER ? g->match_uids : g->match_gids;
}

/* How many entries of kind k go to the table and to the scan list. */
static void count_kind(const struct conf *c, enum match_kind k, size_t *ret_exact, size_t *ret_scan)
{
	size_t e = 0, s = 0, n;

	for (size_t i = 0; i < c->n_groups; i++) {
		const struct group *g = c->groups[i];

		if (kind_is_id(k)) {
			const struct id_range *r = group_ids(g, k, &n);

			for (size_t j = 0; j < n; j++)
				r[j].first == r[j].last ? e++ : s++;
		} else {
			for (size_t j = 0; j < g->n_match_words[k]; j++)
				is_glob(g->match_words[k][j]) ? s++ : e++;
		}
	}
	*ret_exact = e;
	*ret_scan = s;
}

static void table_insert(struct table *t, struct slot s)
{
	size_t i = s.hash & t->mask;

	while (t->slots[i].key)
		i = (i + 1) & t->mask;
	t->slots[i] = s;
}

/* One exact word (w) or resolved id range (r) of group number group;
 * globs go to their own index (build_globs). */
static void add_entry(struct conf_index *idx, enum match_kind k, const char *w, const struct id_range *r,
		      uint32_t group, uint32_t word)
{
	struct scan_list *l = &idx->scan[k];

	if (r && r->first == r->last)
		table_insert(&idx->exact[k], (struct slot){ .key = "", .id = r->first, .hash = hash_id(r->first),
							    .group = group, .word = word });
	else if (w && !is_glob(w))
		table_insert(&idx->exact[k], (struct slot){ .key = w, .len = strlen(w),
							    .hash = hash_str(w, strlen(w)), .group = group,
							    .word = word });
	else if (r)
		l->items[l->n++] = (struct scan){ .first = r->first, .last = r->last, .group = group, .word = word };
}

static void fill_kind(struct conf_index *idx, const struct conf *c, enum match_kind k)
{
	size_t n;

	for (size_t i = 0; i < c->n_groups; i++) {
		const struct group *g = c->groups[i];

		if (kind_is_id(k)) {
			const struct id_range *r = group_ids(g, k, &n);

			for (size_t j = 0; j < n; j++)
				add_entry(idx, k, NULL, &r[j], (uint32_t)i, r[j].word);
		} else {
			for (size_t j = 0; j < g->n_match_words[k]; j++)
				add_entry(idx, k, g->match_words[k][j], NULL, (uint32_t)i, (uint32_t)j);
		}
	}
}

/* The n globs of word kind k; none leaves no index, which look-ups test
 * first. MatchCgroup= words match a path prefix component by component, as
 * explain's fnmatch() with FNM_PATHNAME does. */
static int build_globs(struct conf_index *idx, const struct conf *c, enum match_kind k, size_t n)
{
	struct glob_pattern *p;
	size_t m = 0;
	int r;

	if (n == 0)
		return 0;
	p = calloc(n, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_groups; i++)
		for (size_t j = 0; j < c->groups[i]->n_match_words[k]; j++)
			if (is_glob(c->groups[i]->match_words[k][j]))
				p[m++] = (struct glob_pattern){ c->groups[i]->match_words[k][j], (uint32_t)i };
	r = rules_glob_index_new(p, m, k == MATCH_CGROUP ? FNM_PATHNAME : 0, &idx->globs[k]);
	free(p);
	return r;
}

struct conf_index *rules_index_free(struct conf_index *idx)
{
	if (!idx)
		return NULL;
	for (int k = 0; k < _MATCH_KIND_MAX; k++) {
		free(idx->exact[k].slots);
		free(idx->scan[k].items);
		rules_glob_index_free(idx->globs[k]);
	}
	free(idx);
	return NULL;
}

int rules_index_new(const struct conf *c, struct conf_index **ret)
{
	struct conf_index *idx;
	size_t n_exact, n_scan, size;
	int r;

	if (c->n_groups > CONF_MAX_GROUPS)
		return -E2BIG;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	for (int k = 0; k < _MATCH_KIND_MAX; k++) {
		count_kind(c, (enum match_kind)k, &n_exact, &n_scan);
		for (size = 8; size < n_exact * 2; size *= 2)
			;
		idx->exact[k].slots = calloc(size, sizeof(struct slot));
		idx->exact[k].mask = size - 1;
		idx->scan[k].items = calloc(kind_is_id(k) && n_scan ? n_scan : 1, sizeof(struct scan));
		r = idx->exact[k].slots && idx->scan[k].items ? 0 : -ENOMEM;
		if (r == 0 && !kind_is_id(k))
			r = build_globs(idx, c, (enum match_kind)k, n_scan);
		if (r < 0) {
			rules_index_free(idx);
			return r;
		}
		fill_kind(idx, c, (enum match_kind)k);
	}
	*ret = idx;
	return 0;
}

static void mark(struct scratch *s, uint32_t group, enum match_kind k)
{
	if (!s->acc[group])
		s->touched[s->n_touched++] = (uint16_t)group;
	s->acc[group] |= (uint8_t)(1u << k);
}

static void lookup_str(const struct table *t, const char *key, size_t len, enum match_kind k, struct scratch *s)
{
	uint32_t h = hash_str(key, len);

	for (size_t i = h & t->mask; t->slots[i].key; i = (i + 1) & t->mask)
		if (t->slots[i].hash == h && t->slots[i].len == len && memcmp(t->slots[i].key, key, len) == 0)
			mark(s, t->slots[i].group, k);
}

static void lookup_id(const struct conf_index *idx, uint32_t id, enum match_kind k, struct scratch *s)
{
	const struct table *t = &idx->exact[k];
	uint32_t h = hash_id(id);

	for (size_t i = h & t->mask; t->slots[i].key; i = (i + 1) & t->mask)
		if (t->slots[i].id == id)
			mark(s, t->slots[i].group, k);
	for (size_t i = 0; i < idx->scan[k].n; i++)
		if (idx->scan[k].items[i].first <= id && id <= idx->scan[k].items[i].last)
			mark(s, idx->scan[k].items[i].group, k);
}

struct marker {
	struct scratch *s;
	enum match_kind k;
};

static void mark_glob(uint32_t group, void *userdata)
{
	struct marker *m = userdata;

	mark(m->s, group, m->k);
}

static void lookup_name(const struct conf_index *idx, const char *name, enum match_kind k, struct scratch *s)
{
	struct marker m = { s, k };
	size_t len;

	if (!name)
		return;
	len = strlen(name);
	lookup_str(&idx->exact[k], name, len, k, s);
	if (idx->globs[k])
		rules_glob_index_match(idx->globs[k], name, len, mark_glob, &m);
}

/* Calls fn on each '/'-boundary prefix of path, shortest first, with buf
 * holding the prefix; stops when fn returns true. Returns that length. */
static size_t each_prefix(const char *path, char *buf, bool (*fn)(const char *prefix, size_t len, void *u),
			  void *u)
{
	size_t n = path ? strlen(path) : 0;

	if (n == 0 || n >= CGROUP_PATH_MAX || path[0] != '/')
		return 0;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		buf[i] = '\0';
		if (fn(buf, i, u))
			return i;
		buf[i] = path[i];
	}
	return 0;
}

struct cgroup_walk {
	const struct conf_index *idx;
	struct scratch *s;
};

static bool cgroup_index_step(const char *prefix, size_t len, void *u)
{
	struct cgroup_walk *w = u;
	struct marker m = { w->s, MATCH_CGROUP };

	lookup_str(&w->idx->exact[MATCH_CGROUP], prefix, len, MATCH_CGROUP, w->s);
	if (w->idx->globs[MATCH_CGROUP])
		rules_glob_index_match(w->idx->globs[MATCH_CGROUP], prefix, len, mark_glob, &m);
	return false;
}

struct group_walk {
	const struct group *g;
	unsigned word;
};

static bool cgroup_group_step(const char *prefix, size_t len, void *u)
{
	struct group_walk *w = u;

	for (size_t j = 0; j < w->g->n_match_words[MATCH_CGROUP]; j++) {
		const char *word = w->g->match_words[MATCH_CGROUP][j];

		if (is_glob(word) ? fnmatch(word, prefix, FNM_PATHNAME) == 0
				  : strlen(word) == len && memcmp(word, prefix, len) == 0) {
			w->word = (unsigned)j;
			return true;
		}
	}
	return false;
}

/* The shortest prefix of path that g's MatchCgroup= matches: its length,
 * 0 if none. */
static size_t group_cgroup_match(const struct group *g, const char *path, unsigned *ret_word)
{
	struct group_walk w = { g, 0 };
	char buf[CGROUP_PATH_MAX];
	size_t n = each_prefix(path, buf, cgroup_group_step, &w);

	if (n && ret_word)
		*ret_word = w.word;
	return n;
}

static void collect(const struct conf_index *idx, const struct match_input *in, struct scratch *s)
{
	struct cgroup_walk w = { idx, s };
	char buf[CGROUP_PATH_MAX];

	lookup_name(idx, in->exe, MATCH_EXE, s);
	lookup_name(idx, in->comm, MATCH_COMM, s);
	lookup_id(idx, in->uid, MATCH_USER, s);
	lookup_id(idx, in->gid, MATCH_GROUP, s);
	each_prefix(in->cgroup, buf, cgroup_index_step, &w);
}

/* Fills the key; false when the group's cgroup words give none. A matched
 * cgroup whose path does not fit a key asks for a key of the process's own
 * (own_key): cut short, two cgroups would share one cookie, and rejecting
 * the group would leave a process the rules name untagged. */
static bool make_key(const struct group *g, const struct match_input *in, struct match_result *ret)
{
	size_t n;

	ret->key[0] = '\0';
	ret->own_key = false;
	if (g->per == PER_USER) {
		snprintf(ret->key, sizeof(ret->key), "%u", (unsigned)in->uid);
	} else if (g->per == PER_CGROUP) {
		n = group_cgroup_match(g, in->cgroup, NULL);
		if (n == 0)
			return false;
		if (n >= sizeof(ret->key)) {
			ret->own_key = true;
			return true;
		}
		memcpy(ret->key, in->cgroup, n);
		ret->key[n] = '\0';
	}
	return true;
}

/* Lowest order among the complete candidates, skipping rejected ones. */
static const struct group *pick(const struct conf *c, const struct scratch *s, unsigned after)
{
	const struct group *best = NULL;

	for (size_t i = 0; i < s->n_touched; i++) {
		const struct group *g = c->groups[s->touched[i]];

		if (s->acc[s->touched[i]] == g->match_mask && g->order >= after && (!best || g->order < best->order))
			best = g;
	}
	return best;
}

int rules_match(const struct conf *c, const struct match_input *in, struct match_result *ret)
{
	struct scratch s = { scratch_acc, scratch_touched, 0 };
	struct match_result res;
	const struct group *g;
	unsigned after = 0;

	if (!c->index || c->n_groups > CONF_MAX_GROUPS)
		return 0;
	collect(c->index, in, &s);
	while ((g = pick(c, &s, after)) && !make_key(g, in, &res))
		after = g->order + 1;
	for (size_t i = 0; i < s.n_touched; i++)
		s.acc[s.touched[i]] = 0;
	if (!g)
		return 0;
	res.group = g;
	*ret = res;
	return 1;
}

/* explain: the same decision, group by group and in words. */

static bool name_hit(const struct group *g, enum match_kind k, const char *name, unsigned *ret_word)
{
	for (size_t j = 0; name && j < g->n_match_words[k]; j++) {
		const char *w = g->match_words[k][j];

		if (is_glob(w) ? fnmatch(w, name, 0) == 0 : strcmp(w, name) == 0) {
			*ret_word = (unsigned)j;
			return true;
		}
	}
	return false;
}

static bool id_hit(const struct group *g, enum match_kind k, uint32_t id, unsigned *ret_word)
{
	size_t n;
	const struct id_range *r = group_ids(g, k, &n);

	for (size_t j = 0; j < n; j++)
		if (r[j].first <= id && id <= r[j].last) {
			*ret_word = r[j].word;
			return true;
		}
	return false;
}

static const char *const kind_keys[_MATCH_KIND_MAX] = {
	[MATCH_EXE] = "MatchExe", [MATCH_COMM] = "MatchComm", [MATCH_USER] = "MatchUser",
	[MATCH_GROUP] = "MatchGroup", [MATCH_CGROUP] = "MatchCgroup",
};

/* Whether kind k of g matches in; writes what matched (or why not) to buf. */
static bool explain_kind(const struct group *g, enum match_kind k, const struct match_input *in, char *buf,
			 size_t size)
{
	const char *key = kind_keys[k];
	unsigned word = 0;
	size_t n = 0;
	bool hit;

	switch (k) {
	case MATCH_EXE:
	case MATCH_COMM:
		hit = name_hit(g, k, k == MATCH_EXE ? in->exe : in->comm, &word);
		if (!hit)
			snprintf(buf, size, "%s: %s %s is not listed", key, k == MATCH_EXE ? "executable" : "comm",
				 (k == MATCH_EXE ? in->exe : in->comm) ?: "(unknown)");
		else
			snprintf(buf, size, "%s=%s matched %s", key, g->match_words[k][word],
				 k == MATCH_EXE ? in->exe : in->comm);
		return hit;
	case MATCH_USER:
	case MATCH_GROUP:
		hit = id_hit(g, k, k == MATCH_USER ? in->uid : in->gid, &word);
		if (!hit)
			snprintf(buf, size, "%s: %s %u is not listed", key, k == MATCH_USER ? "uid" : "gid",
				 (unsigned)(k == MATCH_USER ? in->uid : in->gid));
		else
			snprintf(buf, size, "%s=%s matched %s %u", key, g->match_words[k][word],
				 k == MATCH_USER ? "uid" : "gid", (unsigned)(k == MATCH_USER ? in->uid : in->gid));
		return hit;
	default:
		n = group_cgroup_match(g, in->cgroup, &word);
		if (!n)
			snprintf(buf, size, "%s: cgroup %s is not listed", key, in->cgroup ?: "(unknown)");
		else
			snprintf(buf, size, "%s=%s matched %.*s", key, g->match_words[k][word], (int)n, in->cgroup);
		return n != 0;
	}
}

static bool explain_group(const struct group *g, const struct match_input *in, char *reason, size_t size)
{
	char part[1024];
	size_t used = 0;

	if (!g->match_mask) {
		snprintf(reason, size, "no Match*= keys: joined only on request");
		return false;
	}
	reason[0] = '\0';
	for (int k = 0; k < _MATCH_KIND_MAX; k++) {
		if (!(g->match_mask & (1u << k)))
			continue;
		if (!explain_kind(g, (enum match_kind)k, in, part, sizeof(part))) {
			snprintf(reason, size, "%s", part);
			return false;
		}
		used += (size_t)snprintf(reason + used, used < size ? size - used : 0, "%s%s", used ? "; " : "", part);
		if (used >= size)
			used = size - 1;
	}
	return true;
}

void rules_explain(const struct conf *c, const struct match_input *in, rules_explain_fn fn, void *userdata)
{
	char reason[2048];

	for (size_t i = 0; i < c->n_groups; i++) {
		bool matched = explain_group(c->groups[i], in, reason, sizeof(reason));

		fn(userdata, c->groups[i], matched, reason);
	}
}
