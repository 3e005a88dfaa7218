/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the engine's files share: the engine itself and the steps of its
 * one path (decide, ensure, the task table). Not for other modules. */
#pragma once

#include "engine.h"
#include "hashmap.h"
#include "procinfo.h"

struct engine {
	struct conf *conf;
	char *proc_root;
	struct hashmap *tasks; /* pid -> struct task */
	struct hashmap *keys;  /* "group/key" -> struct key */
	pid_t self;
	bool smt_off;
	bool adopted;          /* the start-up scan has run */
	uint64_t generation;
	struct engine_counters c;
	char *state_path;      /* explicit placements kept across restarts; NULL: none */
	bool state_loaded;     /* state_path was read (or found absent) */
	bool state_dirty;      /* the file no longer says what the table does */
	engine_exit_hook exit_hook;
	void *exit_userdata;
};

/* assign, run, hook, or inherited from one of those: sticky. */
bool engine_origin_explicit(enum origin o);

int engine_key_get(struct engine *e, const struct group *g, const char *name, pid_t adopt_tid,
		   struct key **ret);
void engine_task_set_key(struct task *t, struct key *k);
void engine_task_drop(struct engine *e, struct task *t);
int engine_task_upsert(struct engine *e, const struct procinfo *pi, struct task **ret, bool *ret_changed);
void engine_process_key_name(const struct task *t, char *buf, size_t size);

int engine_ensure(struct engine *e, struct task *t, bool repair);
int engine_evaluate(struct engine *e, struct task *t, bool repair);
void engine_note_unexamined(struct engine *e, pid_t pid, int r);

void **engine_snapshot(const struct hashmap *m, size_t *ret_n);
/* "file:line" of the section of k's group, for CORESCHED_RULE=; NULL
 * without a key. */
#define ENGINE_RULE_MAX 512
const char *engine_rule_of(const struct engine *e, const struct key *k, char *buf, size_t size);
void engine_release_keys(struct engine *e);

/* engine-state.c: put the explicit placements state_path names back on
 * the tasks in the table (once per path), then rewrite the file. */
void engine_state_restore(struct engine *e);
