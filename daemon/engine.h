/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The one-way path: every source (events, scans, the control socket, a
 * reload) updates the task table through this module; engine decides with
 * rules_match() and applies with cookie_*(). One behaviour to test. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "procmon.h"
#include "sched_core.h"

enum origin {
	ORIGIN_NONE,      /* matched nothing, cookie 0 */
	ORIGIN_RULE,      /* placed by a rule */
	ORIGIN_ASSIGN,    /* coresched assign */
	ORIGIN_RUN,       /* coresched run --group */
	ORIGIN_HOOK,      /* container runtime hook */
	ORIGIN_INHERITED, /* child of an explicitly placed process */
	ORIGIN_ADOPTED,   /* found with the right cookie at start-up */
	ORIGIN_FOREIGN,   /* matched nothing, carries someone else's cookie */
	ORIGIN_STICKY,    /* no group claims it: keeps the key it inherited */
	ORIGIN_SESSION,   /* a login session's opener (pam_coresched) */
};
const char *origin_to_string(enum origin o);
/* assign, run, hook, session, or inherited from one of those: sticky. */
bool engine_origin_explicit(enum origin o);

/* The unprivileged (bound) placers a key's explicit members had: none,
 * one, or several (two of them kept, distinct); and whether a privileged
 * one (root, the hook, a session) placed any. */
struct placers {
	uid_t uid[2];
	gid_t gid[2];
	unsigned char n; /* 0, 1, or 2 for two or more */
	bool privileged;
};

struct key {
	char *id;            /* "group/key" as used in maps */
	char *group;
	char *name;          /* "" for Per=group */
	enum per_mode per;
	bool trusted;
	struct holder *holder; /* NULL: trusted (cookie 0), or Per=process with one member */
	sc_cookie cookie;    /* 0: trusted, or Per=process before its first member */
	unsigned n_tasks;    /* members; the key is released when it drops to 0 */
	unsigned n_anchored; /* members placed by a rule or explicitly (not sticky) */
	unsigned n_explicit; /* members placed explicitly, or their children */
	struct placers gone; /* placers of explicit members that left it... */
	uint64_t gone_generation; /* ...as of this scan: forgotten after the next one ends */
	bool detached;       /* stale since a reload: released with its last member */
	bool ruled;          /* a member not placed explicitly carried its cookie */
	uid_t creator;       /* the uid of the process the key was made for */
	bool counted;        /* in its creator's share of MaxKeys (not root's; until detached) */
	uint64_t assignments;
	void *stats;         /* forced-idle accounting, owned by stats.c */
};

/* What a process's last request replaced: its children forked before the
 * request inherit that (engine-child.c). */
struct task_past {
	char *id;              /* "group/name" of the explicit placement replaced (NULL: none) */
	bool session;          /* ...a session's placement: its children are the rules' */
	bool cleared;          /* it was cleared before the request */
	uint64_t uncleared_ns; /* ...until an exec or uid change older than the request (0: none) */
	uint64_t clear_ns;     /* ...since this request (0: since it was forked) */
	sc_cookie cookie;      /* the kernel's cookie for it just before the request */
	uid_t placer;          /* ...and who had placed it then (as struct task's placer) */
	gid_t placer_gid;
	bool placer_bound;
};

struct task {
	pid_t pid;
	uint64_t start;      /* start time: pid + start names one process */
	uid_t uid;
	gid_t gid;
	char comm[16];
	/* The path this process runs: its program entry's own (engine-table.c),
	 * which counts the entry's users; both NULL until a read or fork made
	 * one, or when memory for one ran out. */
	const char *exe;
	struct program *program;
	char *cgroup;
	bool cgroup_cut;     /* the kernel cut its path: cgroup is an ancestor of its own */
	enum origin origin;
	struct key *key;
	sc_cookie cookie;    /* last read back from the kernel */
	uint64_t generation;
	uint64_t met_generation; /* the scan that met it first, new to the table (0: none) */
	bool unsettled;      /* the last evaluation failed: the next scan retries */
	bool recorded;       /* in the state file: its exit changes the file */
	bool leader_gone;    /* its main thread exited; the process lives on */
	uid_t placer;        /* explicit placements: the uid that asked (0: root) */
	gid_t placer_gid;    /* ...and its gid, where placer_bound */
	bool placer_bound;   /* ...unprivileged: the placement holds while the placer may act on it */
	bool unowned;        /* an unprivileged placement it outgrew: its cookie is not ours to infer from */
	char *want;          /* "group/name" of an explicit placement not yet applied (restore) */
	uint64_t placed_ns;  /* when a request placed or cleared it: older events do not undo that */
	bool cleared;        /* cleared by request: cookie 0 until its next exec, uid change or reload */
	struct task_past prev; /* what the last request replaced, for the children forked before it */
	bool released;       /* let go of by its key: its cookie is to be cleared, not inferred from */
	pid_t scan_ppid;     /* met by a scan before its fork event: the parent it was judged by */
	bool scan_followed;  /* ...and the scan put it in that parent's key */
	bool scan_unsure;    /* ...but events were lost since, its fork's among them maybe */
	bool scan_adopt;     /* ...the start-up walk's: its fork may be long before, its pid reused */
	bool keyed;          /* it has been in a key (table_set_key) */
	pid_t fork_ppid;     /* its fork event's parent (0: met otherwise) */
	uint64_t fork_ns;    /* ...and that event's stamp */
	sc_cookie scan_cookie; /* ...the cookie it carried when that scan read it */
	uint64_t since_ns;   /* runs its program, as its user, since this event (0: not known) */
	bool since_walk;     /* ...the start-up walk's read of it ended then: it ran it since the walk
			      * began, unless an exec or id change of it stamped before is still queued */
	uint64_t unread_ns;  /* an exec or id change whose read failed, to read again (0: none) */
	uint64_t read_ns;    /* its fields come from a /proc read begun then (0: not read) */
	uint64_t read_end_ns; /* ...and ended no later than this: nothing since is in them */
	bool stale;          /* an exec or uid change of it came too late to read: the table is out of date */
	/* A cookie it carried that was never its (copied from a parent the
	 * daemon had not corrected yet), and when the daemon took it away:
	 * its children forked before then carry it too (engine-child.c). */
	sc_cookie stray_cookie;
	uint64_t stray_ns;
	/* The group whose cookie it carried, or was counted for, since its
	 * exec: nothing more to count for it there (engine-exposure.c). */
	char *exposure_group;
	/* A placement due since this event (its kernel stamp) failed: when
	 * a retry succeeds, its window runs from then (0: none; window.h). */
	uint64_t window_ns;
};

struct engine_counters {
	uint64_t events, execs, forks, exits, lost, resyncs, reconciles;
	uint64_t assignments, repairs, errors, vanished, foreign;
	uint64_t keys_created, keys_released;
	/* Placements of processes that had run without their group's cookie
	 * since their exec, and the CPU time they ran so (engine-exposure.c). */
	uint64_t untagged_placements, untagged_cpu_ns;
};


struct engine;

struct engine_sys;
int engine_new(const char *proc_root, struct engine **ret);
/* The same over another kernel (the model test's); sys must outlive e. */
int engine_new_sys(const struct engine_sys *sys, pid_t self, struct engine **ret);
struct engine *engine_free(struct engine *e);

/* Takes ownership of c; returns the previous configuration (caller frees
 * it). Re-evaluates every task that is not explicitly placed. */
struct conf *engine_set_conf(struct engine *e, struct conf *c);
const struct conf *engine_conf(const struct engine *e);

void engine_on_event(struct engine *e, const struct procmon_event *ev);
/* Called with a placed task (it has a key) as its exit event arrives,
 * before the engine forgets it: the last moment its counters can be read.
 * NULL removes the hook. */
typedef void (*engine_exit_hook)(void *userdata, const struct task *t);
void engine_set_exit_hook(struct engine *e, engine_exit_hook fn, void *userdata);
/* Scan /proc and converge every process to policy. adopt: the first scan
 * after start, which keeps the cookies groups already share. verify: read
 * every thread's cookie back and repair drift (the periodic reconcile). */
int engine_scan(struct engine *e, bool adopt, bool verify);
/* Events were lost: rescan everything (engine_note_loss(), then the scan). */
int engine_resync(struct engine *e);
/* The events queued when the start-up walk ended have all been taken (the
 * socket was found empty since): what waited for them is judged. */
void engine_caught_up(struct engine *e);
bool engine_awaits_empty_queue(const struct engine *e);
/* Events may have been lost, and the rescan comes later (engine_resync()):
 * counted now, and until that rescan nothing the table says of a process
 * stands in for a read of its fork child. Events taken meanwhile are
 * handled as usual. */
void engine_note_loss(struct engine *e);
/* Once a second or so: notices SMT coming back on (and rescans then) and
 * a sched_ext scheduler coming or going. */
void engine_tick(struct engine *e);
/* A sched_ext scheduler is loaded and AllowSchedExt= is off: no cookies. */
bool engine_hazard(const struct engine *e);
/* The untagged windows of the placements made in answer to events. */
struct window_hist;
const struct window_hist *engine_window(const struct engine *e);

/* An explicit decision about one process (control socket, hook). */
struct engine_place {
	pid_t pid;
	int pidfd;            /* the caller's pidfd of pid, or -1: the engine opens one */
	const char *group;    /* NULL: back to cookie 0, placement forgotten */
	bool rules;           /* with group NULL: placement forgotten, the rules decide again */
	const char *key;      /* NULL: as the group's Per= names it */
	enum origin origin;
	uid_t placer;         /* recorded on the task: who placed it */
	gid_t placer_gid;     /* the placer's gid, where bound */
	/* An unprivileged caller's request: the placement binds the process
	 * (and what inherits it) only while that caller may act on it as the
	 * kernel would let it (engine_sys may_act): a setuid exec, an id
	 * change, a process made undumpable or given capabilities ends it. */
	bool bound;
	uid_t session_uid;    /* ORIGIN_SESSION: the user whose share of MaxKeys its key is */
	/* Called with the target's pidfd open, after it was read and before
	 * anything changes; current is the task as the table knew it (NULL:
	 * new to it). A task new to the table is judged as the fork child it
	 * is, and authorize() called again with that (what it inherited, an
	 * explicit placement included). The pidfd is checked alive after the action, so what
	 * authorize() read is what was acted on. 0 or a negative errno. */
	int (*authorize)(void *userdata, pid_t pid, const struct task *current);
	void *userdata;
	/* Where not NULL: set to why, when the engine refuses the request
	 * itself with -EPERM (the daemon, a kernel thread, a bound request
	 * whose placer lost the process meanwhile); left alone otherwise. */
	const char **why;
};
/* Sticky, inherited by children. Returns 0 or a negative errno (-ESRCH,
 * -ENOENT no such group, or what authorize() returned). */
int engine_place(struct engine *e, const struct engine_place *req);
/* Shorthands with no authorization, placer root. */
int engine_assign(struct engine *e, pid_t pid, const char *group, const char *key, enum origin origin);
int engine_clear(struct engine *e, pid_t pid);

/* Keep explicit placements in path across restarts (NULL: nowhere). Set
 * before the start-up scan, which restores them; set after it, the
 * placements are restored at once, onto what the scan found. */
int engine_set_state_file(struct engine *e, const char *path);
/* Rewrite the state file if placements changed since the last call: once
 * per event-loop pass, so a burst of changes costs one write. */
void engine_state_flush(struct engine *e);
/* fn(userdata) whenever the state file falls behind the table: the loop
 * then owes it an engine_state_flush() at the end of its pass (and owes
 * nothing in a pass that changed no recorded placement). */
void engine_set_state_hook(struct engine *e, void (*fn)(void *userdata), void *userdata);

const struct engine_counters *engine_counters(const struct engine *e);
/* One group's exposure: what untagged_* count, for that group. */
struct engine_exposure {
	const char *group; /* valid until the next event or reload */
	uint64_t cpu_ns;
	uint64_t placements;
};
/* Up to max groups that had any, sorted by name; returns how many. */
size_t engine_exposures(const struct engine *e, struct engine_exposure *out, size_t max);
size_t engine_n_exposures(const struct engine *e);
bool engine_smt_off(const struct engine *e);
size_t engine_n_tasks(const struct engine *e);
size_t engine_n_keys(const struct engine *e);
/* The cookie of thread tid, as the engine's kernel reports it. */
int engine_cookie_get(const struct engine *e, pid_t tid, sc_cookie *ret);
/* Look-ups for queries; pointers valid until the next engine call. */
struct task *engine_task(const struct engine *e, pid_t pid);
size_t engine_tasks(const struct engine *e, struct task **out, size_t max);
size_t engine_keys(const struct engine *e, struct key **out, size_t max);
