/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The explicit placements kept across a restart of the daemon: one line
 * per placed process, "PID START ORIGIN GROUP KEY [COOKIE [PLACER]]" (PLACER
 * is UID:GID, or UID as an older daemon wrote it), and
 * one per key whose explicit members that left it had placers of record,
 * "placers GROUP KEY PRIVILEGED [UID:GID [UID:GID]]" (PRIVILEGED 1 where a
 * privileged placer placed one of them), and one per process that outgrew
 * an unprivileged placement, "unowned PID START" (its cookie is no key's
 * to claim). The file format and its I/O only; the engine decides what
 * goes in and what comes back. */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine.h"

#define STATE_GROUP_MAX 65       /* conf.c allows 64 characters */
#define STATE_LINE_MAX (3 * MATCH_KEY_MAX + 256)
#define STATE_ENTRIES_MAX 65536
#define STATE_GID_UNKNOWN ((gid_t)-1)

struct state_entry {
	pid_t pid;
	uint64_t start;          /* pid + start name one process */
	enum origin origin;      /* assign, run, hook, inherited or sticky */
	char group[STATE_GROUP_MAX];
	char key[MATCH_KEY_MAX]; /* "" for Per=group */
	uint64_t cookie;         /* what it carried when written; 0: not known */
	uid_t placer;            /* who placed it (0: root) */
	gid_t placer_gid;        /* with which gid; STATE_GID_UNKNOWN: an older line's */
};

/* Who placed a key's explicit members that have left it: children they
 * forked unseen may carry its cookie yet. */
struct state_placers {
	char group[STATE_GROUP_MAX];
	char key[MATCH_KEY_MAX];
	struct placers placers;
};

struct state_unowned {
	pid_t pid;
	uint64_t start;
};

struct state_file {
	struct state_entry *entries;
	size_t n;
	struct state_placers *placers;
	size_t n_placers;
	struct state_unowned *unowned;
	size_t n_unowned;
	unsigned n_bad;          /* malformed lines, skipped */
	unsigned first_bad;      /* the first one's line number, 0: none */
	unsigned n_dup;          /* entries an earlier line has (PID and start), skipped */
	unsigned first_dup;      /* the first one's line number, 0: none */
	unsigned first_dup_of;   /* the earlier line it repeats */
};

/* One line, newline included, into buf: its length, -EINVAL for an entry
 * that cannot be written back, -ENAMETOOLONG when buf is too small. */
int state_format(const struct state_entry *en, char *buf, size_t size);
/* One line (a trailing newline allowed): 0, or -EBADMSG writing nothing. */
int state_parse(const char *line, struct state_entry *ret);
/* The same for a key's "placers" line. */
int state_format_placers(const struct state_placers *p, char *buf, size_t size);
int state_parse_placers(const char *line, struct state_placers *ret);

/* Replace path with the lines of sf (n_bad and first_bad aside): written
 * beside it, then renamed over it, so a reader finds the old file or the
 * new one, never half of one. */
int state_save(const char *path, const struct state_file *sf);
/* The well-formed entries of path (-ENOENT when it does not exist, -ELOOP
 * when it is a symbolic link, -EPERM when it is not a regular file owned by
 * root or the effective uid, or is group or world writable; a FIFO is
 * refused at once, not waited on); the malformed lines are counted in the
 * result, for the caller to report. On failure, *why (when why is not NULL)
 * says what is wrong with the file, for the caller to report. */
int state_load(const char *path, struct state_file **ret, const char **why);
struct state_file *state_file_free(struct state_file *f);
/* Drop the entries whose pid no longer names the process that started at
 * their start time under proc_root; returns how many went. */
size_t state_prune(struct state_file *f, const char *proc_root);
