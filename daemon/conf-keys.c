// SPDX-License-Identifier: GPL-2.0-or-later
/* Every configuration key, once: its section, its parser, the field it sets,
 * its default and how it prints. The loader, the defaults and conf_print()
 * all walk this one table, so a new key is one line here. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "conf-ids.h"
#include "conf-internal.h"
#include "slice.h"

struct conf_key {
	enum conf_section section;
	const char *name;
	/* value "" resets to the default */
	int (*parse)(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value);
	void (*print)(FILE *f, const struct conf_key *k, const void *base);
	size_t offset;
	long long min, max, def;
};

#define FIELD(base, k, type) ((type *)((char *)(base) + (k)->offset))
#define CFIELD(base, k, type) ((const type *)((const char *)(base) + (k)->offset))

static const char *const log_levels[] = {
	[3] = "err", [4] = "warning", [5] = "notice", [6] = "info", [7] = "debug",
};
static const char *const container_defaults[] = {
	[CONTAINER_ISOLATE] = "isolate", [CONTAINER_TRUSTED] = "trusted", [CONTAINER_GROUP] = "group",
};
static const char *const per_modes[] = {
	[PER_GROUP] = "group", [PER_USER] = "user", [PER_CGROUP] = "cgroup", [PER_PROCESS] = "process",
};

const char *per_mode_to_string(enum per_mode p)
{
	return (unsigned)p < sizeof(per_modes) / sizeof(per_modes[0]) ? per_modes[p] : NULL;
}

/* Index of value in names (which may have holes), or -1. */
static int lookup(const char *const *names, size_t n, const char *value)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], value) == 0)
			return (int)i;
	return -1;
}

static int parse_number(const char *value, long long *ret)
{
	const char *p = value;
	char *end;
	long long v;

	if (*p == '-' || *p == '+')
		p++;
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	v = strtoll(value, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* A number within min..max, or (off) 0 too; "" is the default. */
static int parse_ranged_or_off(struct conf_loader *ld, const struct conf_key *k, const char *value, bool off,
			       long long *ret)
{
	long long v;

	if (!*value) {
		*ret = k->def;
		return 0;
	}
	if (parse_number(value, &v) < 0)
		return conf_fail(ld, "%s: invalid number '%s'", k->name, value);
	if (off && v == 0)
		;
	else if (v < k->min || v > k->max)
		return conf_fail(ld, off ? "%s: value '%s' out of range (0 or %lld..%lld)" : "%s: value '%s' out of range %lld..%lld",
				 k->name, value, k->min, k->max);
	*ret = v;
	return 0;
}

static int parse_ranged(struct conf_loader *ld, const struct conf_key *k, const char *value, long long *ret)
{
	return parse_ranged_or_off(ld, k, value, false, ret);
}

static int parse_uint(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	long long v = 0;
	int r = parse_ranged(ld, k, value, &v);

	if (r == 0)
		*FIELD(base, k, unsigned) = (unsigned)v;
	return r;
}

static int parse_int(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	long long v = 0;
	int r = parse_ranged(ld, k, value, &v);

	if (r == 0)
		*FIELD(base, k, int) = (int)v;
	return r;
}

static int parse_bool_value(const char *value, bool *ret)
{
	static const char *const yes[] = { "yes", "true", "1", "on" };
	static const char *const no[] = { "no", "false", "0", "off" };

	if (lookup(yes, 4, value) >= 0)
		*ret = true;
	else if (lookup(no, 4, value) >= 0)
		*ret = false;
	else
		return -EINVAL;
	return 0;
}

static int parse_bool(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	bool b = k->def;

	if (*value && parse_bool_value(value, &b) < 0)
		return conf_fail(ld, "%s: invalid boolean '%s'", k->name, value);
	*FIELD(base, k, bool) = b;
	return 0;
}

static int parse_lock(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	((struct group *)base)->lock_line = ld->line;
	return parse_bool(ld, k, base, value);
}

static int parse_container_lock(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	struct container_settings *c = base;

	c->lock_file = ld->file;
	c->lock_line = ld->line;
	return parse_bool(ld, k, base, value);
}

static int parse_trusted(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	ld->trusted_line = ld->line;
	return parse_bool(ld, k, base, value);
}

/* One of names[], stored as its index in an int-sized field. */
static int parse_enum(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value,
		      const char *const *names, size_t n, const char *expected)
{
	int v = *value ? lookup(names, n, value) : (int)k->def;

	if (v < 0)
		return conf_fail(ld, "%s: invalid value '%s' (expected %s)", k->name, value, expected);
	*FIELD(base, k, int) = v;
	return 0;
}

static int parse_log_level(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	return parse_enum(ld, k, base, value, log_levels, 8, "err|warning|notice|info|debug");
}

static int parse_container_default(struct conf_loader *ld, const struct conf_key *k, void *base,
				   const char *value)
{
	ld->default_file = ld->file;
	ld->default_line = ld->line;
	return parse_enum(ld, k, base, value, container_defaults, 3, "isolate|trusted|group");
}

static int parse_per(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	ld->per_line = ld->line;
	return parse_enum(ld, k, base, value, per_modes, 4, "group|user|cgroup|process");
}

/* A boolean spelled as two words: modes[1] is true. */
static int parse_two(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value,
		     const char *const modes[2], const char *expected)
{
	int v = *value ? lookup(modes, 2, value) : (int)k->def;

	if (v < 0)
		return conf_fail(ld, "%s: invalid value '%s' (expected %s)", k->name, value, expected);
	*FIELD(base, k, bool) = v == 1;
	return 0;
}

static int parse_fail_mode(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	static const char *const modes[] = { "closed", "open" };

	return parse_two(ld, k, base, value, modes, "open|closed");
}

static int parse_unmatched(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	static const char *const modes[] = { "keep", "clear" };

	return parse_two(ld, k, base, value, modes, "keep|clear");
}

static int set_string(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	char *s = NULL;

	if (*value && !(s = strdup(value)))
		return conf_fail(ld, "%s: %s", k->name, strerror(ENOMEM));
	free(*FIELD(base, k, char *));
	*FIELD(base, k, char *) = s;
	return 0;
}

static int parse_abs_path(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	size_t n = strlen(value);

	if (*value && value[0] != '/')
		return conf_fail(ld, "%s: path '%s' is not absolute", k->name, value);
	if (n && value[n - 1] == '/')
		return conf_fail(ld, "%s: path '%s' names a directory, not a file", k->name, value);
	return set_string(ld, k, base, value);
}

static int parse_container_group(struct conf_loader *ld, const struct conf_key *k, void *base,
				 const char *value)
{
	if (*value && !conf_group_name_valid(value))
		return conf_fail(ld, "%s: invalid group name '%s'", k->name, value);
	ld->group_file = ld->file;
	ld->group_line = ld->line;
	return set_string(ld, k, base, value);
}

static int parse_control_group(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	struct daemon_settings *d = base;
	uint32_t gid;
	int r;

	if (!*value) {
		d->has_control_gid = false;
		d->control_gid = 0;
		return 0;
	}
	r = conf_ids_group(value, &gid);
	if (r == -EINVAL)
		return conf_fail(ld, "%s: invalid gid '%s'", k->name, value);
	if (r < 0)
		return conf_fail(ld, "%s: unknown group '%s'", k->name, value);
	d->has_control_gid = true;
	d->control_gid = gid;
	return 0;
}

/* Bytes with an optional K or M suffix (powers of 1024); 0 is allowed on
 * its own: it means the kernel's default. */
static int parse_bytes(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	unsigned long long v, mult = 1;
	char *end;

	if (!*value) {
		*FIELD(base, k, unsigned) = (unsigned)k->def;
		return 0;
	}
	errno = 0;
	v = strtoull(value, &end, 10);
	if (*end == 'K' || *end == 'M')
		mult = *end++ == 'K' ? 1024 : 1024 * 1024;
	if (value[0] < '0' || value[0] > '9' || errno || *end)
		return conf_fail(ld, "%s: invalid size '%s'", k->name, value);
	if (v > (unsigned long long)k->max / mult)
		v = (unsigned long long)k->max + 1; /* out of range, without overflowing */
	else
		v *= mult;
	if (v != 0 && (v < (unsigned long long)k->min || v > (unsigned long long)k->max))
		return conf_fail(ld, "%s: value '%s' out of range (0 or %lld..%lld)", k->name, value, k->min,
				 k->max);
	*FIELD(base, k, unsigned) = (unsigned)v;
	return 0;
}

/* A number that is 0 (off) or within min..max. */
static int parse_uint_or_off(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	long long v = 0;
	int r = parse_ranged_or_off(ld, k, value, true, &v);

	if (r == 0)
		*FIELD(base, k, unsigned) = (unsigned)v;
	return r;
}

static int parse_description(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	return set_string(ld, k, base, value);
}

static int parse_match(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	return conf_words_add_match(ld, base, (enum match_kind)k->def, k->name, value);
}

static int parse_allow_users(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	(void)k;
	return conf_words_add_allow_users(ld, base, value);
}

static int parse_allow_groups(struct conf_loader *ld, const struct conf_key *k, void *base, const char *value)
{
	(void)k;
	return conf_words_add_allow_groups(ld, base, value);
}

static void print_uint(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%u\n", k->name, *CFIELD(base, k, unsigned));
}

static void print_int(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%d\n", k->name, *CFIELD(base, k, int));
}

static void print_bool(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%s\n", k->name, *CFIELD(base, k, bool) ? "yes" : "no");
}

static void print_log_level(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%s\n", k->name, log_levels[*CFIELD(base, k, int)]);
}

static void print_container_default(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%s\n", k->name, container_defaults[*CFIELD(base, k, int)]);
}

static void print_per(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%s\n", k->name, per_modes[*CFIELD(base, k, int)]);
}

static void print_fail_mode(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%s\n", k->name, *CFIELD(base, k, bool) ? "open" : "closed");
}

static void print_unmatched(FILE *f, const struct conf_key *k, const void *base)
{
	fprintf(f, "%s=%s\n", k->name, *CFIELD(base, k, bool) ? "clear" : "keep");
}

/* Unset strings print as "Key=" in [Daemon]/[Container], where every key is
 * spelled out, and not at all in groups. */
static void print_string(FILE *f, const struct conf_key *k, const void *base)
{
	const char *s = *CFIELD(base, k, char *);

	if (s || k->section != SECTION_GROUP)
		fprintf(f, "%s=%s\n", k->name, s ? s : "");
}

static void print_control_group(FILE *f, const struct conf_key *k, const void *base)
{
	const struct daemon_settings *d = base;

	if (d->has_control_gid)
		fprintf(f, "%s=%u\n", k->name, (unsigned)d->control_gid);
	else
		fprintf(f, "%s=\n", k->name);
}

static void print_match(FILE *f, const struct conf_key *k, const void *base)
{
	const struct group *g = base;
	enum match_kind kind = (enum match_kind)k->def;

	if (g->n_match_words[kind] == 0)
		return;
	fprintf(f, "%s=", k->name);
	for (size_t i = 0; i < g->n_match_words[kind]; i++)
		fprintf(f, "%s%s", i ? " " : "", g->match_words[kind][i]);
	fputc('\n', f);
}

static void print_ids(FILE *f, const char *name, const uint32_t *ids, size_t n)
{
	if (n == 0)
		return;
	fprintf(f, "%s=", name);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u", i ? " " : "", (unsigned)ids[i]);
	fputc('\n', f);
}

static void print_allow_users(FILE *f, const struct conf_key *k, const void *base)
{
	const struct group *g = base;

	print_ids(f, k->name, g->allow_uids, g->n_allow_uids);
}

static void print_allow_groups(FILE *f, const struct conf_key *k, const void *base)
{
	const struct group *g = base;

	print_ids(f, k->name, g->allow_gids, g->n_allow_gids);
}

#define D(name, parse, print, field, min, max, def) \
	{ SECTION_DAEMON, name, parse, print, offsetof(struct daemon_settings, field), min, max, def }
#define C(name, parse, print, field, def) \
	{ SECTION_CONTAINER, name, parse, print, offsetof(struct container_settings, field), 0, 0, def }
#define G(name, parse, print, field, min, max, def) \
	{ SECTION_GROUP, name, parse, print, offsetof(struct group, field), min, max, def }

/* Table order is print order. */
static const struct conf_key keys[] = {
	D("ReconcileSec", parse_uint, print_uint, reconcile_sec, 0, 86400, 30),
	D("LogLevel", parse_log_level, print_log_level, log_level, 0, 0, 6),
	D("MaxTasks", parse_uint, print_uint, max_tasks, 1, 4194304, 65536),
	D("MaxKeys", parse_uint, print_uint, max_keys, 1, 65536, 4096),
	D("ClearForeign", parse_bool, print_bool, clear_foreign, 0, 0, false),
	D("UnmatchedExec", parse_unmatched, print_unmatched, unmatched_clear, 0, 0, false),
	D("AllowSchedExt", parse_bool, print_bool, allow_sched_ext, 0, 0, false),
	D("ControlGroup", parse_control_group, print_control_group, control_gid, 0, 0, 0),
	D("MaxClients", parse_uint, print_uint, max_clients, 1, 4096, 64),
	D("MaxClientsPerUser", parse_uint, print_uint, max_clients_per_uid, 1, 4096, 8),
	D("IdleTimeoutSec", parse_uint, print_uint, idle_timeout_sec, 1, 86400, 60),
	D("ForceIdleAccounting", parse_bool, print_bool, force_idle_accounting, 0, 0, true),
	D("StatsIntervalSec", parse_uint, print_uint, stats_interval_sec, 1, 3600, 10),
	D("MetricsFile", parse_abs_path, print_string, metrics_file, 0, 0, 0),
	D("ReceiveBuffer", parse_bytes, print_uint, receive_buffer, 4096, 16 << 20, 256 << 10),
	D("TimeSliceUSec", parse_uint_or_off, print_uint, time_slice_usec, SLICE_MIN_NS / 1000, SLICE_MAX_NS / 1000,
	  SLICE_DAEMON_NS / 1000),
	D("DryRun", parse_bool, print_bool, dry_run, 0, 0, false),
	C("Default", parse_container_default, print_container_default, def, CONTAINER_ISOLATE),
	C("Group", parse_container_group, print_string, group, 0),
	C("FailMode", parse_fail_mode, print_fail_mode, fail_open, false),
	C("Lock", parse_container_lock, print_bool, lock, false),
	G("Description", parse_description, print_string, description, 0, 0, 0),
	G("MatchExe", parse_match, print_match, match_words, 0, 0, MATCH_EXE),
	G("MatchComm", parse_match, print_match, match_words, 0, 0, MATCH_COMM),
	G("MatchUser", parse_match, print_match, match_words, 0, 0, MATCH_USER),
	G("MatchGroup", parse_match, print_match, match_words, 0, 0, MATCH_GROUP),
	G("MatchCgroup", parse_match, print_match, match_words, 0, 0, MATCH_CGROUP),
	G("Per", parse_per, print_per, per, 0, 0, PER_GROUP),
	G("Trusted", parse_trusted, print_bool, trusted, 0, 0, false),
	G("Priority", parse_int, print_int, priority, -1000, 1000, 0),
	G("AllowUsers", parse_allow_users, print_allow_users, allow_uids, 0, 0, 0),
	G("AllowGroups", parse_allow_groups, print_allow_groups, allow_gids, 0, 0, 0),
	G("Lock", parse_lock, print_bool, lock, 0, 0, false),
};

const struct conf_key *conf_key_find(enum conf_section s, const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].section == s && strcmp(keys[i].name, name) == 0)
			return &keys[i];
	return NULL;
}

static void *section_base(struct conf_loader *ld, enum conf_section s)
{
	switch (s) {
	case SECTION_DAEMON: return &ld->conf->daemon;
	case SECTION_CONTAINER: return &ld->conf->container;
	case SECTION_GROUP: return ld->group;
	default: return NULL;
	}
}

int conf_key_apply(struct conf_loader *ld, const struct conf_key *k, const char *value)
{
	return k->parse(ld, k, section_base(ld, k->section), value);
}

int conf_keys_reset(struct conf_loader *ld, enum conf_section s)
{
	int r;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].section == s && (r = conf_key_apply(ld, &keys[i], "")) < 0)
			return r;
	return 0;
}

void conf_keys_print(enum conf_section s, const void *base, FILE *f)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (keys[i].section == s)
			keys[i].print(f, &keys[i], base);
}

void conf_print(const struct conf *c, FILE *f)
{
	for (size_t i = 0; i < c->n_sources; i++)
		fprintf(f, "# source: %s\n", c->sources[i]);
	fprintf(f, "[Daemon]\n");
	conf_keys_print(SECTION_DAEMON, &c->daemon, f);
	fprintf(f, "\n[Container]\n");
	conf_keys_print(SECTION_CONTAINER, &c->container, f);
	for (size_t i = 0; i < c->n_groups; i++) {
		const struct group *g = c->groups[i];

		fprintf(f, "\n[Group %s]\n# defined at %s:%u\n", g->name, g->file, g->line);
		conf_keys_print(SECTION_GROUP, g, f);
	}
}
