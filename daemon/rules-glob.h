/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The glob half of the match index (rules-glob.c), for rules.c only. A
 * pattern can match a string only if the string starts with the pattern's
 * literal prefix and ends with its literal suffix, so patterns are hashed
 * by the longer of the two and a look-up hashes the string's own prefixes
 * and suffixes of those lengths: only the candidates that share one are
 * handed to fnmatch(). Patterns with neither are always tried. */
#pragma once

#include <stddef.h>
#include <stdint.h>

struct glob_index;

struct glob_pattern {
	const char *pattern; /* borrowed: must outlive the index */
	uint32_t group;
};

/* An index of n patterns, matched with fnmatch(pattern, s, fnm_flags). */
int rules_glob_index_new(const struct glob_pattern *patterns, size_t n, int fnm_flags, struct glob_index **ret);
struct glob_index *rules_glob_index_free(struct glob_index *idx);

/* Calls fn(group, userdata) once for every pattern that matches s (len
 * bytes, NUL-terminated), in no particular order. */
typedef void (*rules_glob_fn)(uint32_t group, void *userdata);
void rules_glob_index_match(const struct glob_index *idx, const char *s, size_t len, rules_glob_fn fn,
			    void *userdata);

/* Exposed for the unit tests: the literal prefix of pattern, escapes
 * removed, written to buf (room for strlen(pattern) + 1); its length. And
 * the length of its literal suffix, which is the pattern's own tail. */
size_t rules_glob_prefix(const char *pattern, char *buf);
size_t rules_glob_suffix_len(const char *pattern);
