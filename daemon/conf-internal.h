/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between the configuration loader (conf.c), its key table
 * (conf-keys.c) and the Match*=/Allow*= word parsers (conf-words.c). Not for
 * use outside the configuration code. */
#pragma once

#include "conf.h"

enum conf_section {
	SECTION_NONE,
	SECTION_DAEMON,
	SECTION_CONTAINER,
	SECTION_GROUP,
};

/* State of one conf_load(): the conf being built and where we are. */
struct conf_loader {
	struct conf *conf;
	const char *file;      /* file being read, owned by conf->sources */
	unsigned line;
	enum conf_section section;
	struct group *group;   /* the open [Group] section */
	unsigned per_line;     /* where the open group set Per= and Trusted= */
	unsigned trusted_line;
	/* Where [Container] Default= and Group= were last set, for the checks
	 * made once every file is read. */
	const char *default_file;
	unsigned default_line;
	const char *group_file;
	unsigned group_line;
	int r;                 /* first error as a negative errno, or 0 */
	char *error;           /* its message, "file:line: message" */
};

/* Records "file:line: message" (first error wins); returns -EINVAL. */
int conf_fail(struct conf_loader *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same with a chosen errno and no line number: "file: message". */
int conf_fail_file(struct conf_loader *ld, int err, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Whether name is a valid group name: [A-Za-z0-9_.-]{1,64}. */
bool conf_group_name_valid(const char *name);

/* conf-keys.c: the key table. */
struct conf_key;
const struct conf_key *conf_key_find(enum conf_section s, const char *name);
int conf_key_apply(struct conf_loader *ld, const struct conf_key *k, const char *value);
/* Applies an empty value to every key of s: the defaults. */
int conf_keys_reset(struct conf_loader *ld, enum conf_section s);
void conf_keys_print(enum conf_section s, const void *base, FILE *f);

/* conf-words.c: Match*=, AllowUsers=, AllowGroups= values. */
int conf_words_add_match(struct conf_loader *ld, struct group *g, enum match_kind kind,
			 const char *key, const char *value);
int conf_words_add_allow_users(struct conf_loader *ld, struct group *g, const char *value);
int conf_words_add_allow_groups(struct conf_loader *ld, struct group *g, const char *value);
/* Drops the words of one kind (an empty value resets the list). */
void conf_words_clear(struct group *g, enum match_kind kind);
