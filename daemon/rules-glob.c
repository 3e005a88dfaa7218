// SPDX-License-Identifier: GPL-2.0-or-later
/* Glob patterns indexed by their literal prefix or suffix (rules-glob.h).
 * The filters only ever rule a pattern out; whether it matches is always
 * fnmatch()'s word, so the index cannot change what matches. */
#include <errno.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rules-glob.h"

#define FNV_OFFSET 2166136261u
#define FNV_PRIME 16777619u

enum anchor {
	ANCHOR_PREFIX,
	ANCHOR_SUFFIX,
	ANCHOR_NONE, /* neither: tried on every look-up */
};

struct item {
	const char *pattern;
	const char *prefix; /* escapes removed, in idx->strings */
	const char *suffix; /* the tail of pattern */
	uint32_t prefix_len, suffix_len;
	uint32_t group;
	enum anchor anchor;
};

/* One distinct prefix (or suffix): items [first, first + n) share it. */
struct slot {
	const char *key; /* NULL: the slot is empty */
	uint32_t len, hash;
	uint32_t first, n;
};

struct anchor_table {
	struct slot *slots;
	size_t mask;
	uint32_t *lengths; /* the distinct key lengths, ascending */
	size_t n_lengths;
};

struct glob_index {
	struct item *items; /* prefix-anchored, suffix-anchored, then the rest */
	size_t n_items;
	size_t rest;        /* index of the first ANCHOR_NONE item */
	struct anchor_table by[2];
	char *strings;
	int flags;
};

/* Up to the first wildcard or bracket. A '[' that is never closed is a
 * literal to fnmatch(), but stopping there only makes the prefix shorter. */
size_t rules_glob_prefix(const char *p, char *buf)
{
	size_t n = 0;

	for (; *p && *p != '*' && *p != '?' && *p != '['; p++) {
		if (*p == '\\') {
			if (!p[1])
				break; /* a trailing backslash: fnmatch() matches nothing */
			p++;
		}
		buf[n++] = *p;
	}
	buf[n] = '\0';
	return n;
}

/* The characters after the last of "*?[]\": each is a literal outside any
 * bracket expression (the last one closed at that ']', or an unclosed
 * '[' is itself a literal), even right after an escaping backslash. */
size_t rules_glob_suffix_len(const char *p)
{
	size_t n = strlen(p), i = n;

	while (i > 0 && !strchr("*?[]\\", p[i - 1]))
		i--;
	return n - i;
}

static const char *item_key(const struct item *it, uint32_t *ret_len)
{
	*ret_len = it->anchor == ANCHOR_PREFIX ? it->prefix_len : it->suffix_len;
	return it->anchor == ANCHOR_PREFIX ? it->prefix : it->suffix;
}

/* By anchor, then key length, then key: equal keys end up adjacent and
 * the lengths ascending. */
static int item_compare(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	uint32_t lx, ly;
	const char *kx = item_key(x, &lx), *ky = item_key(y, &ly);

	if (x->anchor != y->anchor)
		return x->anchor < y->anchor ? -1 : 1;
	if (x->anchor == ANCHOR_NONE || lx != ly)
		return (lx > ly) - (lx < ly);
	return memcmp(kx, ky, lx);
}

/* FNV-1a of key, backwards for suffixes so that a look-up can extend the
 * hash one character at a time from the end of the string. */
static uint32_t key_hash(const char *key, uint32_t len, enum anchor a)
{
	uint32_t h = FNV_OFFSET;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)key[a == ANCHOR_PREFIX ? i : len - 1 - i]) * FNV_PRIME;
	return h;
}

static void table_insert(struct anchor_table *t, struct slot s)
{
	size_t i = s.hash & t->mask;

	while (t->slots[i].key)
		i = (i + 1) & t->mask;
	t->slots[i] = s;
}

/* The table of anchor a over the sorted items [from, to). */
static int table_build(struct glob_index *idx, enum anchor a, size_t from, size_t to)
{
	struct anchor_table *t = &idx->by[a];
	size_t size = 8, j, k;
	uint32_t len, len_k;

	while (size < (to - from) * 2)
		size *= 2;
	t->slots = calloc(size, sizeof(*t->slots));
	t->lengths = calloc(to - from ? to - from : 1, sizeof(*t->lengths));
	if (!t->slots || !t->lengths)
		return -ENOMEM;
	t->mask = size - 1;
	for (j = from; j < to; j = k) {
		const char *key = item_key(&idx->items[j], &len);

		for (k = j + 1; k < to; k++) {
			const char *other = item_key(&idx->items[k], &len_k);

			if (len_k != len || memcmp(other, key, len) != 0)
				break;
		}
		table_insert(t, (struct slot){ .key = key, .len = len, .hash = key_hash(key, len, a),
					       .first = (uint32_t)j, .n = (uint32_t)(k - j) });
		if (!t->n_lengths || t->lengths[t->n_lengths - 1] != len)
			t->lengths[t->n_lengths++] = len;
	}
	return 0;
}

static void item_init(struct item *it, const struct glob_pattern *p, char *buf)
{
	size_t n = strlen(p->pattern);

	it->pattern = p->pattern;
	it->group = p->group;
	it->prefix = buf;
	it->prefix_len = (uint32_t)rules_glob_prefix(p->pattern, buf);
	it->suffix_len = (uint32_t)rules_glob_suffix_len(p->pattern);
	it->suffix = p->pattern + n - it->suffix_len;
	if (it->prefix_len == 0 && it->suffix_len == 0)
		it->anchor = ANCHOR_NONE;
	else
		it->anchor = it->prefix_len >= it->suffix_len ? ANCHOR_PREFIX : ANCHOR_SUFFIX;
}

struct glob_index *rules_glob_index_free(struct glob_index *idx)
{
	if (!idx)
		return NULL;
	for (int a = 0; a < 2; a++) {
		free(idx->by[a].slots);
		free(idx->by[a].lengths);
	}
	free(idx->items);
	free(idx->strings);
	free(idx);
	return NULL;
}

int rules_glob_index_new(const struct glob_pattern *patterns, size_t n, int fnm_flags, struct glob_index **ret)
{
	struct glob_index *idx;
	size_t total = 1, off = 0, ends[2];
	int r;

	/* The filters know how fnmatch() reads a pattern with these flags only. */
	if ((fnm_flags & ~FNM_PATHNAME) || n > UINT32_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		total += strlen(patterns[i].pattern) + 1;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return -ENOMEM;
	idx->flags = fnm_flags;
	idx->n_items = n;
	idx->items = calloc(n ? n : 1, sizeof(*idx->items));
	idx->strings = malloc(total);
	if (!idx->items || !idx->strings) {
		rules_glob_index_free(idx);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		item_init(&idx->items[i], &patterns[i], idx->strings + off);
		off += idx->items[i].prefix_len + 1;
	}
	if (n)
		qsort(idx->items, n, sizeof(*idx->items), item_compare);
	for (int a = 0; a < 2; a++) {
		ends[a] = a ? ends[0] : 0;
		while (ends[a] < n && idx->items[ends[a]].anchor == (enum anchor)a)
			ends[a]++;
	}
	idx->rest = ends[1];
	r = table_build(idx, ANCHOR_PREFIX, 0, ends[0]);
	if (r == 0)
		r = table_build(idx, ANCHOR_SUFFIX, ends[0], ends[1]);
	if (r < 0) {
		rules_glob_index_free(idx);
		return r;
	}
	*ret = idx;
	return 0;
}

struct lookup {
	const struct glob_index *idx;
	const char *s;
	size_t len;
	rules_glob_fn fn;
	void *userdata;
};

/* Both literal ends are checked before fnmatch(): an item found by its
 * prefix may still differ in its suffix, and the rest in either. */
static void try_items(const struct lookup *l, size_t first, size_t n)
{
	for (size_t i = first; i < first + n; i++) {
		const struct item *it = &l->idx->items[i];

		if (it->prefix_len > l->len || memcmp(l->s, it->prefix, it->prefix_len) != 0)
			continue;
		if (it->suffix_len > l->len || memcmp(l->s + l->len - it->suffix_len, it->suffix, it->suffix_len) != 0)
			continue;
		if (fnmatch(it->pattern, l->s, l->idx->flags) == 0)
			l->fn(it->group, l->userdata);
	}
}

static void probe(const struct lookup *l, const struct anchor_table *t, uint32_t h, const char *key, uint32_t len)
{
	for (size_t i = h & t->mask; t->slots[i].key; i = (i + 1) & t->mask) {
		const struct slot *s = &t->slots[i];

		if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0) {
			try_items(l, s->first, s->n);
			return; /* keys are distinct */
		}
	}
}

void rules_glob_index_match(const struct glob_index *idx, const char *s, size_t len, rules_glob_fn fn,
			    void *userdata)
{
	const struct lookup l = { idx, s, len, fn, userdata };

	for (int a = 0; a < 2; a++) {
		const struct anchor_table *t = &idx->by[a];
		uint32_t h = FNV_OFFSET;
		size_t pos = 0;

		for (size_t i = 0; i < t->n_lengths && t->lengths[i] <= len; i++) {
			uint32_t n = t->lengths[i];

			for (; pos < n; pos++)
				h = (h ^ (uint8_t)s[a == ANCHOR_PREFIX ? pos : len - 1 - pos]) * FNV_PRIME;
			probe(&l, t, h, a == ANCHOR_PREFIX ? s : s + len - n, n);
		}
	}
	try_items(&l, idx->rest, idx->n_items - idx->rest);
}
