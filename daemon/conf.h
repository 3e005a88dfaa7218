/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coreschedd's configuration: the parsed, validated, immutable policy.
 * Reload builds a new struct conf and swaps one pointer; nothing edits a
 * live one. Pure logic: no syscalls beyond reading the files (and
 * getpwnam/getgrnam at load time), so tests and fuzzers call it directly. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Everything a configuration controls is bounded; going over is an error. */
#define CONF_MAX_GROUPS 4096
#define CONF_MAX_MATCH_WORDS 4096 /* per group, all Match*= keys together */
#define CONF_MAX_ALLOW 4096       /* per group, AllowUsers= plus AllowGroups= */
#define CONF_MAX_DROPINS 4096
#define CONF_LINE_MAX 1024        /* characters, not counting the newline */

enum per_mode {
	PER_GROUP,   /* one cookie for everything that matches: key "" */
	PER_USER,    /* one cookie per uid: key "<uid>" */
	PER_CGROUP,  /* one cookie per matched cgroup prefix: key "/a/b" */
	PER_PROCESS, /* one cookie per process: key filled by the daemon */
};

enum match_kind {
	MATCH_EXE,
	MATCH_COMM,
	MATCH_USER,
	MATCH_GROUP,
	MATCH_CGROUP,
	_MATCH_KIND_MAX,
};

enum container_default {
	CONTAINER_ISOLATE, /* one cookie per container (per pod when known) */
	CONTAINER_TRUSTED, /* cookie 0 */
	CONTAINER_GROUP,   /* join [Container] Group= */
};

/* One MatchUser=/MatchGroup= id or range, resolved at load time ("@adm"
 * becomes one entry per member); word indexes match_words[] for explain. */
struct id_range {
	uint32_t first, last; /* inclusive */
	unsigned word;
};

struct group {
	char *name;
	char *description;
	char *file;          /* where the section starts */
	unsigned line;
	unsigned order;      /* position in evaluation order, 0 first */
	int priority;        /* higher first; ties by file order */
	bool trusted;        /* members get cookie 0 */
	bool lock;           /* launched members may not change their cookie */
	unsigned lock_line;  /* ...the line of Lock= (0: not given) */
	enum per_mode per;
	unsigned match_mask; /* bit (1 << match_kind) for each Match*= given */
	/* The Match*= values as written, for printing and explain. */
	char **match_words[_MATCH_KIND_MAX];
	size_t n_match_words[_MATCH_KIND_MAX];
	unsigned *exe_word_lines; /* the line of each MatchExe= word, for the load's warnings */
	struct id_range *match_uids; /* MatchUser= resolved */
	size_t n_match_uids;
	struct id_range *match_gids; /* MatchGroup= resolved */
	size_t n_match_gids;
	uid_t *allow_uids;
	size_t n_allow_uids;
	gid_t *allow_gids;
	size_t n_allow_gids;
};

struct daemon_settings {
	unsigned reconcile_sec;      /* ReconcileSec=, default 30; 0 = off */
	int log_level;               /* LogLevel= err|warning|notice|info|debug as syslog levels */
	unsigned max_tasks;          /* MaxTasks=, default 65536 */
	unsigned max_keys;           /* MaxKeys=, default 4096: live cookies */
	bool clear_foreign;          /* ClearForeign=, default no */
	bool unmatched_clear;        /* UnmatchedExec=keep|clear, default keep */
	bool allow_sched_ext;        /* AllowSchedExt=, default no */
	bool has_control_gid;
	gid_t control_gid;           /* ControlGroup= name or gid */
	unsigned max_clients;        /* MaxClients=, default 64 */
	unsigned max_clients_per_uid;/* MaxClientsPerUser=, default 8 */
	unsigned idle_timeout_sec;   /* IdleTimeoutSec=, default 60: control clients */
	bool force_idle_accounting;  /* ForceIdleAccounting=, default yes */
	unsigned stats_interval_sec; /* StatsIntervalSec=, default 10 */
	char *metrics_file;          /* MetricsFile=, default none */
	unsigned receive_buffer;     /* ReceiveBuffer= bytes, 0 = kernel default (tests) */
	unsigned time_slice_usec;    /* TimeSliceUSec=, 0 = the kernel's; default 100 (slice.h) */
	bool dry_run;                /* DryRun=, default no: decide and record, apply nothing */
};

struct container_settings {
	enum container_default def;  /* Default=isolate|trusted|group, default isolate */
	char *group;                 /* Group=, required when Default=group */
	bool fail_open;              /* FailMode=open|closed, default closed */
	bool lock;                   /* Lock=, default no */
	const char *lock_file;       /* ...where Lock= was last set (in sources), for the warning */
	unsigned lock_line;
};

struct conf_index; /* private to rules.c: hash tables built at load time */

struct conf {
	struct daemon_settings daemon;
	struct container_settings container;
	struct group **groups; /* sorted in evaluation order */
	size_t n_groups;
	char **sources;        /* files read, in the order applied */
	size_t n_sources;
	struct conf_index *index;
};

/* Where to look. main_file may be missing (defaults apply); each of
 * dropin_dirs is searched for *.conf with systemd precedence: the first
 * directory listed wins for a file name (so list /etc, /run, /usr/lib), a
 * symlink to /dev/null masks, and all surviving files are applied in
 * lexical order of their names. */
struct conf_paths {
	const char *main_file;
	const char *const *dropin_dirs; /* NULL-terminated */
};

/* Parse and validate everything. On failure returns a negative errno and
 * sets *ret_error to a malloc'd "file:line: message" (or "file: message");
 * nothing is returned half-built. */
int conf_load(const struct conf_paths *paths, struct conf **ret, char **ret_error);
/* The installed configuration (SYSCONFDIR/coresched/coreschedd.conf and
 * the rules.d directories under /etc, /run and VENDORDIR), or with dir
 * DIR/coreschedd.conf and DIR/rules.d only. */
int conf_load_dir(const char *dir, struct conf **ret, char **ret_error);
/* The same from one in-memory text, named `name` in messages (fuzzing). */
int conf_load_string(const char *text, const char *name, struct conf **ret, char **ret_error);
struct conf *conf_free(struct conf *c);
/* Normalized form: "# source: FILE" lines, then [Daemon], [Container], and
 * each group in evaluation order with every key spelled out. */
void conf_print(const struct conf *c, FILE *f);
const struct group *conf_find_group(const struct conf *c, const char *name);
/* What loads but cannot do all it says, one message at a time
 * ("file:line: ..." where a place is known). */
typedef void (*conf_warning_fn)(void *userdata, const char *message);
void conf_warnings(const struct conf *c, conf_warning_fn fn, void *userdata);
const char *per_mode_to_string(enum per_mode p);

/* The match index (rules.c): conf_load builds it once the groups are in
 * evaluation order; it points into the groups, so free it first. */
int rules_index_new(const struct conf *c, struct conf_index **ret);
struct conf_index *rules_index_free(struct conf_index *idx);

/* What the matcher looks at; gathered by the daemon from /proc. */
struct match_input {
	const char *exe;    /* resolved executable path, may be NULL */
	const char *comm;
	uid_t uid;          /* real uid */
	gid_t gid;          /* real gid */
	const char *cgroup; /* cgroup v2 path, e.g. "/system.slice/x.service" */
};

#define MATCH_KEY_MAX 512
struct match_result {
	const struct group *group;
	char key[MATCH_KEY_MAX]; /* "" for PER_GROUP and PER_PROCESS */
	/* Per=cgroup, but the matched cgroup's path does not fit a key: the
	 * process gets a key of its own (named as a Per=process one), never
	 * one cut short and shared with other cgroups. key is "". */
	bool own_key;
};

/* First group in evaluation order whose every Match*= kind matches.
 * Returns 1 and fills *ret on a match, 0 when nothing matches. */
int rules_match(const struct conf *c, const struct match_input *in, struct match_result *ret);

/* For `explain`: calls fn once per group in evaluation order with whether it
 * matched and a one-line reason ("MatchExe=/usr/bin/c? matched /usr/bin/cc",
 * "MatchUser=alice: uid 1000 is not listed"). */
typedef void (*rules_explain_fn)(void *userdata, const struct group *g, bool matched, const char *reason);
void rules_explain(const struct conf *c, const struct match_input *in, rules_explain_fn fn, void *userdata);
