// SPDX-License-Identifier: GPL-2.0-or-later
#include "hashmap.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	struct entry *next;
	uint64_t hash;
	uint64_t ikey;
	char *skey;
	void *value;
};

struct hashmap {
	struct entry **buckets;
	size_t n_buckets;
	size_t size;
	bool string_keys;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

struct hashmap *hashmap_new(bool string_keys)
{
	struct hashmap *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->n_buckets = 64;
	m->buckets = calloc(m->n_buckets, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return NULL;
	}
	m->string_keys = string_keys;
	return m;
}

struct hashmap *hashmap_free(struct hashmap *m)
{
	if (!m)
		return NULL;
	for (size_t i = 0; i < m->n_buckets; i++)
		for (struct entry *e = m->buckets[i], *n; e; e = n) {
			n = e->next;
			free(e->skey);
			free(e);
		}
	free(m->buckets);
	free(m);
	return NULL;
}

size_t hashmap_size(const struct hashmap *m)
{
	return m->size;
}

static void grow(struct hashmap *m)
{
	size_t n = m->n_buckets * 2;
	struct entry **b = calloc(n, sizeof(*b));

	if (!b)
		return; /* keep working with longer chains */
	for (size_t i = 0; i < m->n_buckets; i++)
		for (struct entry *e = m->buckets[i], *next; e; e = next) {
			next = e->next;
			e->next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	free(m->buckets);
	m->buckets = b;
	m->n_buckets = n;
}

static struct entry **find(const struct hashmap *m, uint64_t h, const char *skey, uint64_t ikey)
{
	struct entry **p = &m->buckets[h & (m->n_buckets - 1)];

	for (; *p; p = &(*p)->next)
		if ((*p)->hash == h && (skey ? strcmp((*p)->skey, skey) == 0 : (*p)->ikey == ikey))
			return p;
	return p;
}

static int put(struct hashmap *m, uint64_t h, const char *skey, uint64_t ikey, void *value)
{
	struct entry **p = find(m, h, skey, ikey), *e;

	if (*p) {
		(*p)->value = value;
		return 0;
	}
	e = calloc(1, sizeof(*e));
	if (!e || (skey && !(e->skey = strdup(skey)))) {
		free(e);
		return -ENOMEM;
	}
	e->hash = h;
	e->ikey = ikey;
	e->value = value;
	*p = e;
	if (++m->size > m->n_buckets)
		grow(m);
	return 0;
}

static void *get(const struct hashmap *m, uint64_t h, const char *skey, uint64_t ikey)
{
	struct entry **p = find(m, h, skey, ikey);

	return *p ? (*p)->value : NULL;
}

static void *del(struct hashmap *m, uint64_t h, const char *skey, uint64_t ikey)
{
	struct entry **p = find(m, h, skey, ikey), *e = *p;
	void *v;

	if (!e)
		return NULL;
	*p = e->next;
	v = e->value;
	free(e->skey);
	free(e);
	m->size--;
	return v;
}

int hashmap_put_str(struct hashmap *m, const char *k, void *v) { return put(m, hash_str(k), k, 0, v); }
void *hashmap_get_str(const struct hashmap *m, const char *k) { return get(m, hash_str(k), k, 0); }
void *hashmap_remove_str(struct hashmap *m, const char *k) { return del(m, hash_str(k), k, 0); }
int hashmap_put_u64(struct hashmap *m, uint64_t k, void *v) { return put(m, hash_u64(k), NULL, k, v); }
void *hashmap_get_u64(const struct hashmap *m, uint64_t k) { return get(m, hash_u64(k), NULL, k); }
void *hashmap_remove_u64(struct hashmap *m, uint64_t k) { return del(m, hash_u64(k), NULL, k); }

void hashmap_foreach(const struct hashmap *m, hashmap_fn fn, void *userdata)
{
	for (size_t i = 0; i < m->n_buckets; i++)
		for (struct entry *e = m->buckets[i]; e; e = e->next)
			fn(userdata, e->value);
}

size_t hashmap_values(const struct hashmap *m, void **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n_buckets && n < max; i++)
		for (struct entry *e = m->buckets[i]; e && n < max; e = e->next)
			out[n++] = e->value;
	return n;
}
