/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the engine's files share: the engine itself, the task table (the
 * one owner of tasks, keys and their member counts: engine-table.c) and
 * the steps of the one path (decide, ensure). Not for other modules. */
#pragma once

#include "engine.h"
#include "engine-sys.h"
#include "hashmap.h"
#include "window.h"
#include "procinfo.h"

/* A cookie the daemon could not read: never equal to a key's cookie, so
 * the next evaluation acts instead of trusting it. */
#define COOKIE_UNKNOWN ((sc_cookie)-1)

/* Keys released lately, by cookie: a task may still carry the cookie of a
 * key whose members all left (a child forked just before its parent moved
 * on), and is recognised as that key's by it. A cookie's value is the
 * address of a kernel object, reused once the object is freed: so a grave
 * keeps the key's holder, and with it the object, until it expires, and
 * a value it names can only have come from that key. */
#define ENGINE_GRAVES 256
#define ENGINE_GHOSTS 64
#define ENGINE_FORKS_UNSURE 65536
#define ENGINE_GRAVE_TICKS 10
struct grave {
	sc_cookie cookie;
	char *id; /* "group/name" */
	bool explicit_; /* it had explicitly placed members */
	struct placers placers; /* ...and who of them were bound placers */
	struct holder *holder;
	uint64_t expires; /* tick */
};

struct pending_placers {
	struct placers placers;
	char id[]; /* "group/key" */
};

struct engine {
	struct conf *conf;
	const struct engine_sys *sys;
	struct engine_sys *own_sys; /* the Linux one, when engine_new() made it */
	struct hashmap *tasks;     /* pid -> struct task */
	struct hashmap *keys;      /* "group/key" -> struct key (detached keys are not here) */
	struct hashmap *key_shares; /* uid -> how many of keys were made for it (not root) */
	struct hashmap *by_cookie; /* cookie -> struct key */
	struct hashmap *programs;  /* exe -> struct program (engine-table.c) */
	/* Forks stamped before this are read whole: a process whose program or
	 * ids changed was gone before it could be read, and any child it forked
	 * with CLONE_PARENT names its parent (its forks are all queued by then). */
	uint64_t copy_barrier_ns;
	pid_t self;
	bool smt_off;
	bool hazard;           /* sched_ext is loaded and not allowed: no new cookies */
	bool rescan;           /* SMT came back: a scan must converge what failed */
	bool resyncing;        /* the scan after lost events runs */
	bool loss_unscanned;   /* events may have been lost since the last rescan began */
	uint64_t resync_logged_ns;      /* when a rescan after a loss was last logged */
	unsigned long long resyncs_unlogged; /* rescans since */
	bool adopted;          /* the start-up scan has run */
	bool privileged;       /* a request by root or the hook, or a restore: MaxKeys in full, no share */
	bool charge_set;       /* keys made now count against charge_uid (a session's user, a */
	uid_t charge_uid;      /* restored placement's); else the task's uid, or none when privileged */
	bool cgroup_rules;     /* a group matches on cgroups or keys by them (Per=cgroup) */
	uint64_t generation;
	struct engine_counters c;
	char *state_path;      /* explicit placements kept across restarts; NULL: none */
	bool state_loaded;     /* state_path was read (or found absent) */
	bool state_dirty;      /* the file no longer says what the table does: set by engine_state_dirty() */
	void (*state_hook)(void *userdata);
	void *state_hook_userdata;
	bool state_lazy;       /* ...in what can wait for the tick: children, sticky members */
	bool state_failing;    /* the last write failed: the tick tries again, the file's time stays */
	/* The last heartbeat of the daemon before this one (the state file's
	 * modification time, in start-time ticks): a process started later
	 * started while no daemon ran. Not known: every process did. */
	uint64_t seen_until;
	bool seen_known;
	uint64_t watched_ns;   /* now_ns() up to which processes were seen: the start-up scan, then the last event */
	uint64_t touched_ns;   /* the watched_ns the state file's time says (0: a rewrite made it later) */
	engine_exit_hook exit_hook;
	void *exit_userdata;
	struct grave graves[ENGINE_GRAVES];
	unsigned next_grave;
	/* Cleared parents gone from the table before their children's fork
	 * events were taken (engine-child.c). */
	struct task ghosts[ENGINE_GHOSTS];
	unsigned next_ghost;
	/* Records the state file gave for keys not made yet (the start-up
	 * adoption makes those of rule members): "group/key" -> struct
	 * pending_placers, taken by the key of that id when it is made,
	 * dropped with the records (table_placers_expire). NULL: none. */
	struct hashmap *pending_placers;
	/* An explicit placement may be waiting for its key (a restore that
	 * failed): set by the restore, cleared by the scan that finds none
	 * (table_placers_expire). Spares the walk that looks for them. */
	bool restores_wait;
	unsigned n_ghosts;     /* slots in use: none, and forks and exits look nowhere */
	/* Children forked after the start-up walk began and before its read
	 * of their parent ended: judged again once the events queued by then
	 * are taken (engine_caught_up()). */
	uint64_t walk_start_ns;
	bool walk_settled;
	size_t n_forks_unsure, max_forks_unsure; /* at most ENGINE_FORKS_UNSURE */
	unsigned long forks_unsure_dropped;
	struct fork_unsure {
		pid_t pid, ppid;
		uint64_t start, pstart, forked_ns;
	} *forks_unsure;
	uint64_t ticks;
	struct hashmap *exposure; /* group name -> untagged CPU time (engine-exposure.c) */
	bool no_exposure;      /* a session's opener going back: not the policy's lag */
	/* The untagged window (window.h), and the event being taken (its
	 * kernel stamp; 0 outside an event). */
	struct window_hist window;
	uint64_t event_ns;
};

/* ---- engine-child.c: what a new process inherits ---- */
/* t leaves the table while fork events of its children may still be
 * queued: if it was cleared (or was before its last request), remember
 * that for them, until its exit event. */
void engine_ghost_note(struct engine *e, const struct task *t);
/* A fork child gone before it could be read: its own children inherit
 * what it inherited from p (NULL: nothing known). */
void engine_ghost_child(struct engine *e, pid_t pid, const struct task *p, uint64_t forked_ns);
/* The parent of a fork event: in the table, or a ghost; NULL if neither. */
struct task *engine_fork_parent(struct engine *e, pid_t ppid);
/* t, met by the start-up scan, no group claims and it carries cookie 0:
 * the helper of a rule's member, forked before the member was tagged, joins
 * its key. */
void engine_judge_unseen_helper(struct engine *e, struct task *t, pid_t ppid);
/* t, a child p forked at forked_ns, judged now; again by
 * engine_caught_up() where the start-up walk read p after the fork. */
void engine_note_fork_unsure(struct engine *e, const struct task *t, const struct task *p, uint64_t forked_ns);
/* pid's exit event was taken, or events were lost: forget ghosts. */
void engine_ghost_forget(struct engine *e, pid_t pid);
void engine_ghosts_clear(struct engine *e);

#define SYS(e, fn, ...) ((e)->sys->fn((e)->sys->userdata, ##__VA_ARGS__))


/* ---- engine-exposure.c: CPU time run before the group's cookie ---- */
/* t is about to get k's cookie: whether its CPU time so far is to be
 * counted, that is when the cookie the kernel last gave for it is none of
 * k's group's and t has neither carried nor been counted for k's group
 * since its exec. */
bool exposure_due(const struct engine *e, const struct task *t, const struct key *k);
/* t has k's cookie now, by the kernel's word: when due, count its CPU
 * time (schedstat, read now). */
void exposure_count(struct engine *e, struct task *t, const struct key *k, bool due);
/* t carries k's cookie: what it runs from now on in k's group is not
 * exposure, even if it leaves the cookie and is repaired, or the group
 * is re-keyed by a reload. */
void exposure_settle(struct task *t, const struct key *k);
/* t exec'd: it may be counted again. */
void exposure_forget(struct task *t);
void exposure_prune(struct engine *e);
void exposure_free(struct engine *e);

/* ---- engine-table.c: the task table; nothing else changes it ---- */
/* Insert or refresh the process pi describes, read from /proc by a read
 * begun at read_ns (engine_read); a reused pid drops the old process
 * first. *ret_changed: new, or something rules look at changed. Returns 1
 * when the task is new to the table. */
int table_upsert(struct engine *e, const struct procinfo *pi, uint64_t read_ns, struct task **ret,
		 bool *ret_changed);
/* Read pid from /proc into pi; *ret_ns is when the read began: every change
 * the kernel reported before then is in what it read. */
int engine_read(struct engine *e, pid_t pid, struct procinfo *pi, uint64_t *ret_ns);
/* engine_read() then table_upsert(): returns what table_upsert() does, or
 * -ECHILD for a kernel thread (never in the table), or what kept pid from
 * being read. A request reads and inserts apart: it authorizes between. */
int engine_examine(struct engine *e, pid_t pid, struct procinfo *pi, struct task **ret,
		   bool *ret_changed);
/* Make t a member of key (group g, name): found, or created with a holder
 * (adopting adopt_tid's cookie when given). On failure t is unchanged. */
int table_join(struct engine *e, struct task *t, const struct group *g, const char *name, pid_t adopt_tid);
/* table_join() for a placement made before a restart (placer, origin):
 * within MaxKeys whatever the shares, a new key counted as when it was
 * first made (root's and the hook's in no user's share). */
int table_join_restored(struct engine *e, struct task *t, const struct group *g, const char *name, pid_t adopt_tid,
			uid_t placer, enum origin origin);
/* Make t a member of k, a live key (NULL: none). A key whose last member
 * leaves is released there and then. */
void table_set_key(struct engine *e, struct task *t, struct key *k);
void table_drop(struct engine *e, struct task *t);
/* Has t's program run as more than one user or group (or has it no entry)?
 * A program whose file is gone counts what ran under its old name too. */
bool table_program_mixed(const struct engine *e, const struct task *t);
/* t, or a thread of it, runs its program under other ids than the table
 * has: no child of that program is copied. */
void table_program_other_ids(struct task *t);
/* A read of t at its exec or id change failed: its ids are not known, and
 * neither its children's nor, should it fork with CLONE_PARENT, its
 * siblings' are; no child is copied from it or from its program. */
void table_ids_unknown(struct task *t);
/* table_drop() of a task whose process has ended: the kernel's stand-in
 * (sys->forget) is told too. */
void table_drop_ended(struct engine *e, struct task *t);
/* The one way to change a task's origin: keys count their anchored
 * members (matched by a rule, or placed explicitly). */
void table_set_origin(struct engine *e, struct task *t, enum origin o);
/* Adds a bound placer to p, unless it is there or p holds two already. */
void table_placers_add(struct placers *p, uid_t uid, gid_t gid);
void table_placers_merge(struct placers *to, const struct placers *from);
/* t, an explicit member of k, leaves it or its placement is replaced: its
 * placer stays on k's record (k->gone), since children t forked unseen may
 * carry k's cookie yet, until the end of the scan after the next one
 * begins (every process is met by then). */
void table_placer_leaves(struct engine *e, struct key *k, const struct task *t);
/* A record the state file gave for the key of this id: merged into it, or
 * kept for it until the scan ends. Forgotten at the end of the scan that
 * restores it. */
void table_placers_restored(struct engine *e, const char *id, const struct placers *p);
/* At the end of a scan that met every process and placed what it could:
 * records older than it, and pending ones, go. */
void table_placers_expire(struct engine *e);
void table_placers_pending_free(struct engine *e);
/* A key's cookie became known (Per=process: made by CREATE on a member). */
void table_key_cookie(struct engine *e, struct key *k, sc_cookie c);
struct key *table_key_by_cookie(const struct engine *e, sc_cookie c);
/* The key released lately that had cookie c, or NULL. */
const struct grave *table_grave(const struct engine *e, sc_cookie c);
/* Let graves older than ENGINE_GRAVE_TICKS go, and their cookies. */
void table_graves_expire(struct engine *e);
/* The live key whose cookie c is, when its cookie is known to be alive
 * (a holder carries it, or a member does, by the kernel's word). */
struct key *table_key_carrying(struct engine *e, sc_cookie c);
/* Reload: keys whose group went or changed Per=/Trusted= leave the name
 * map (new keys may take their names); they live on while members hold
 * them, so no task ever points at freed memory. */
void table_detach_stale(struct engine *e);
bool table_key_stale(const struct conf *c, const struct key *k);
/* Give a Per=process key a holder carrying its cookie (taken from a member
 * that carries it), so further members can share it. */
int table_key_hold(struct engine *e, struct key *k);
/* An explicit placement's own key (Per=process) takes its holder from t,
 * its member that carries the cookie, at once rather than with a second
 * member: a child forked before t exits must find the key by the cookie
 * it carries after t is gone, even before its fork event is taken; the
 * cookie's value is trusted only while something holds it. Best effort:
 * the tick tries again while it fails (engine_retry_unsettled). Returns
 * what kept the holder from being made (0 also when none was due). */
int table_key_hold_from(struct engine *e, struct key *k, const struct task *t);
void table_free_all(struct engine *e);

void engine_match_key(const struct task *t, struct match_result *m);
void engine_process_key_name(const struct task *t, char *buf, size_t size);
void engine_key_name_for(const struct group *g, const struct task *t, char *buf, size_t size);
/* Read t again and run it through policy, as at the event whose read
 * failed (t->unread_ns; 0: none), or after a read that failed part way:
 * what engine_retry_unsettled() does for a stale task. t may be freed. */
int engine_reread(struct engine *e, struct task *t);
/* Does the child pi describes still run what its parent p runs (no exec or
 * uid change on either side since the fork, as far as can be told)? */
bool engine_same_program(const struct task *p, const struct procinfo *pi);

int engine_ensure(struct engine *e, struct task *t, bool repair);
/* t carries the cookie of a key released lately (a grave): it joins that
 * key again with origin; -ENOENT when it is no such, -ESTALE when that
 * key's group went. */
int engine_buried(struct engine *e, struct task *t, enum origin origin);
/* The group a "group/name" id names (NULL: none such, no conf, or no '/'
 * in id), and in *ret_name where the name starts (NULL: no '/'). */
const struct group *engine_group_of(const struct engine *e, const char *id, const char **ret_name);
/* engine-child.c: t is new to the table, a child of p (NULL: unknown) forked at forked_ns
 * (0: unknown): joins p's key or is judged on its own (see on_fork). */
void engine_judge_child(struct engine *e, struct task *t, struct task *p, const struct procinfo *pi,
			uint64_t forked_ns);
int engine_evaluate(struct engine *e, struct task *t, bool repair);
/* engine-scan.c: a scan that judges every process again (a reload). */
int engine_scan_all(struct engine *e);
/* Evaluate again every task whose last evaluation failed. */
void engine_retry_unsettled(struct engine *e);
void engine_note_unexamined(struct engine *e, pid_t pid, int r);

void **engine_snapshot(const struct hashmap *m, size_t *ret_n);
/* "file:line" of the section of k's group, for CORESCHED_RULE=; NULL
 * without a key. */
#define ENGINE_RULE_MAX 512
const char *engine_rule_of(const struct engine *e, const struct key *k, char *buf, size_t size);

/* engine-state.c: put the explicit placements state_path names back on
 * the tasks in the table (once per path), then rewrite the file. */
void engine_state_restore(struct engine *e);
/* The tick's write: what state_lazy held back too. */
void engine_state_flush_lazy(struct engine *e);
/* The state file no longer says what the table does: the one place that
 * marks it, and tells the loop (engine_set_state_hook). */
void engine_state_dirty(struct engine *e);
/* An unprivileged placement t outgrew (its placer may no longer act on it,
 * asked of the kernel's view now): ended, t unowned. */
bool engine_placement_outgrown(struct engine *e, struct task *t);
/* Who placed what t inherited unseen from k's explicit members, those
 * alive and gone (those of a buried key, k NULL): an unprivileged placer
 * of theirs that may act on t, else one that may not (t outgrew it); where
 * none was unprivileged, the privileged placer they share, or root
 * (engine-child.c). */
void engine_inherit_placer(struct engine *e, struct task *t, const struct key *k, const struct placers *gone);
/* t, met unseen, carries the cookie of a key that explicitly placed
 * processes hold or held (k->gone names the unprivileged placers of those
 * that left: a key a rule's members keep alive too), or of the grave of
 * one: it joins the key as their child, its placer asked. 1: joined; 0:
 * no placement's cookie (t unchanged); -1: one it outgrew (t unowned, out
 * of it, keeping its cookie) (engine-child.c). */
int engine_join_placement(struct engine *e, struct task *t);
/* The state file's modification time, as a heartbeat (see seen_until). */
void engine_state_heartbeat(struct engine *e);
