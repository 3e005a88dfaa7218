/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A chained hash table keyed by a string or a 64-bit integer; values are
 * the caller's pointers. Grows by doubling; no iteration order guarantee. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashmap;

struct hashmap *hashmap_new(bool string_keys);
struct hashmap *hashmap_free(struct hashmap *m);
size_t hashmap_size(const struct hashmap *m);

/* String keys are copied. Replaces an existing value. 0 or -ENOMEM. */
int hashmap_put_str(struct hashmap *m, const char *key, void *value);
void *hashmap_get_str(const struct hashmap *m, const char *key);
void *hashmap_remove_str(struct hashmap *m, const char *key);

int hashmap_put_u64(struct hashmap *m, uint64_t key, void *value);
void *hashmap_get_u64(const struct hashmap *m, uint64_t key);
void *hashmap_remove_u64(struct hashmap *m, uint64_t key);

/* Calls fn for each value; fn must not add or remove entries. */
typedef void (*hashmap_fn)(void *userdata, void *value);
void hashmap_foreach(const struct hashmap *m, hashmap_fn fn, void *userdata);
/* Fill out[] with up to max values; returns how many. For callers that must
 * change the map while walking it. */
size_t hashmap_values(const struct hashmap *m, void **out, size_t max);
