// SPDX-License-Identifier: GPL-2.0-or-later
/* event -> task table -> policy (rules_match) -> assign (cookie_*).
 * Scans, reloads and the control socket take the same path. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine-internal.h"
#include "log.h"
#include "containers.h"

static const char *const origin_names[] = {
	[ORIGIN_NONE] = "none",         [ORIGIN_RULE] = "rule",
	[ORIGIN_ASSIGN] = "assign",     [ORIGIN_RUN] = "run",
	[ORIGIN_HOOK] = "hook",         [ORIGIN_INHERITED] = "inherited",
	[ORIGIN_ADOPTED] = "adopted",   [ORIGIN_FOREIGN] = "foreign",
	[ORIGIN_STICKY] = "sticky",     [ORIGIN_SESSION] = "session",
};

const char *origin_to_string(enum origin o)
{
	return (unsigned)o < sizeof(origin_names) / sizeof(origin_names[0]) ? origin_names[o] : "?";
}

bool engine_origin_explicit(enum origin o)
{
	return o == ORIGIN_ASSIGN || o == ORIGIN_RUN || o == ORIGIN_HOOK || o == ORIGIN_INHERITED ||
	       o == ORIGIN_SESSION;
}

/* ---- applying ---- */

static void note_failure(struct engine *e, struct task *t, int r, const char *what)
{
	if (r == -ESRCH) {
		e->c.vanished++; /* exited under us: normal */
		log_task(LOG_DEBUG, t->pid, t->key ? t->key->group : NULL, "Failed to %s for PID %d (%s): %s",
			 what, t->pid, t->comm, strerror(-r));
		return;
	}
	if (r == -ENODEV) {
		if (!e->smt_off)
			log_warning("SMT is switched off: cookies cannot be set until it is back on");
		e->smt_off = true;
		return; /* one message for all: the tick notices SMT coming back */
	}
	e->c.errors++;
	if (r == -EOPNOTSUPP && e->hazard)
		return; /* said once, loudly, when the scheduler was found */
	if (r == -EDQUOT) {
		log_task(LOG_WARNING, t->pid, t->key ? t->key->group : NULL,
			 "Failed to %s for PID %d (%s): uid %u holds its share of MaxKeys= (a quarter of those "
			 "not kept for root), ignoring.",
			 what, t->pid, t->comm, (unsigned)t->uid);
		return;
	}
	log_task(LOG_WARNING, t->pid, t->key ? t->key->group : NULL, "Failed to %s for PID %d (%s): %s, ignoring.",
		 what, t->pid, t->comm, strerror(-r));
}

/* SMT off: every cookie call fails with ENODEV. Look again before acting,
 * so that SMT coming back on is noticed by the next event. */
static bool smt_usable(struct engine *e)
{
	if (!e->smt_off)
		return true;
	if (SYS(e, smt_active) != 1)
		return false;
	e->smt_off = false;
	e->rescan = true;
	log_notice("SMT is back on: reconciling");
	return true;
}

/* The cookie t must carry to join k, made or shared as k needs. */
static int apply(struct engine *e, struct task *t, struct key *k)
{
	int r;

	if (k && !k->trusted && e->hazard)
		return -EOPNOTSUPP;
	if (k && k->per == PER_PROCESS && !k->trusted && !k->holder) {
		if (k->cookie == 0) /* the first member makes the key's cookie */
			return SYS(e, cookie_create, t->pid);
		r = table_key_hold(e, k);
		if (r < 0)
			return r;
	}
	return SYS(e, cookie_assign, k && !k->trusted ? k->holder : NULL, t->pid);
}

/* Make the kernel agree with t->key: the key's cookie, or 0 without a key
 * (unless the task is foreign). Reads the result back: what the kernel
 * says is what the table holds. Returns 1 when it acted. */
/* t carries k's cookie: its children, forked from now on, do too. Those
 * of a member the rules placed, or one given the cookie without a
 * placement, are no placement's; a member kept by the cookie it inherited
 * (sticky) is of the lineage it inherited it from. */
static void note_carrier(const struct task *t, struct key *k, bool given)
{
	if (k && !engine_origin_explicit(t->origin) && t->origin != ORIGIN_FOREIGN &&
	    (given || t->origin != ORIGIN_STICKY))
		k->ruled = true;
}

/* A cookie just given in answer to the event being taken, or by a retry
 * of a placement an event asked for and that failed then: the process
 * ran without it from that event until now. A stamp later than now (a
 * clock not the kernel's: a time namespace) dates nothing. */
static void window_note(struct engine *e, struct task *t, const struct key *k)
{
	uint64_t since = t->window_ns && (!e->event_ns || t->window_ns < e->event_ns) ? t->window_ns : e->event_ns;
	uint64_t now;

	t->window_ns = 0;
	if (!k || k->trusted || !since)
		return;
	now = SYS(e, now_ns);
	if (now >= since)
		window_add(&e->window, (now - since) / 1000);
}

/* A placement an event asked for failed: a retry's window starts there. */
static void window_pending(struct engine *e, struct task *t, const struct key *k)
{
	if (k && !k->trusted && e->event_ns && !t->window_ns)
		t->window_ns = e->event_ns;
}

const struct window_hist *engine_window(const struct engine *e)
{
	return &e->window;
}

int engine_ensure(struct engine *e, struct task *t, bool repair)
{
	struct key *k = t->key;
	bool first = k && k->per == PER_PROCESS && !k->trusted && k->cookie == 0;
	sc_cookie want = k ? k->cookie : 0;
	char rule[ENGINE_RULE_MAX];
	bool exposed;
	int r;

	if (t->origin == ORIGIN_FOREIGN)
		return 0;
	if (!first && t->cookie == want) {
		note_carrier(t, k, false);
		t->released = false;
		t->window_ns = 0; /* it carries what it must: nothing waits */
		exposure_settle(t, k); /* it runs with the group's cookie */
		return 0;
	}
	/* Never for a placer that may no longer act on it (it ran su before
	 * its fork event was read, a thread of it is new): the placement
	 * ends there, and what it carries stays. */
	if (engine_placement_outgrown(e, t))
		return 0;
	if (!smt_usable(e)) {
		window_pending(e, t, k);
		return -ENODEV;
	}
	exposed = exposure_due(e, t, k);
	r = apply(e, t, k);
	if (r < 0) {
		window_pending(e, t, k);
		note_failure(e, t, r, k ? "assign a cookie" : "clear the cookie");
		return r;
	}
	r = SYS(e, cookie_get, t->pid, &t->cookie);
	if (r < 0) {
		window_pending(e, t, k);
		t->cookie = COOKIE_UNKNOWN;
		note_failure(e, t, r, "read the cookie back");
		return r;
	}
	if (first && t->cookie != 0)
		table_key_cookie(e, k, t->cookie);
	else if (t->cookie != want) {
		e->c.errors++;
		log_task_rule(LOG_WARNING, t->pid, k ? k->group : NULL, engine_rule_of(e, k, rule, sizeof(rule)),
			      "PID %d has cookie 0x%" PRIx64 " after assignment, expected 0x%" PRIx64 ", ignoring.",
			      t->pid, t->cookie, want);
		return -EIO;
	}
	if (k)
		k->assignments++;
	window_note(e, t, k);
	note_carrier(t, k, true);
	exposure_count(e, t, k, exposed);
	t->released = false;
	e->c.assignments++;
	if (repair)
		e->c.repairs++;
	if (log_get_max_level() >= LOG_DEBUG)
		log_task_rule(LOG_DEBUG, t->pid, k ? k->group : NULL, engine_rule_of(e, k, rule, sizeof(rule)),
			      "PID %d (%s) -> %s%s%s", t->pid, t->comm, k ? k->group : "cookie 0",
			      k && *k->name ? "/" : "", k ? k->name : "");
	return 1;
}

const char *engine_rule_of(const struct engine *e, const struct key *k, char *buf, size_t size)
{
	const struct group *g = k ? conf_find_group(e->conf, k->group) : NULL;

	if (!g || !g->file)
		return NULL;
	snprintf(buf, size, "%s:%u", g->file, g->line);
	return buf;
}

void engine_process_key_name(const struct task *t, char *buf, size_t size)
{
	snprintf(buf, size, "%d:%" PRIu64, t->pid, t->start);
}

/* The key a rule's match m names for t: the match's own, or t's where the
 * group is Per=process or the matched cgroup's path does not fit a key. */
void engine_match_key(const struct task *t, struct match_result *m)
{
	if (m->group->per == PER_PROCESS || m->own_key)
		engine_process_key_name(t, m->key, sizeof(m->key));
}

void engine_key_name_for(const struct group *g, const struct task *t, char *buf, size_t size)
{
	switch (g->per) {
	case PER_USER: snprintf(buf, size, "%u", (unsigned)t->uid); break;
	case PER_CGROUP:
		/* A cgroup that could not be read (procinfo leaves it "") or
		 * that the kernel cut (an ancestor stands for it) names no key:
		 * every such process in one would share a cookie across users
		 * and containers. Nor does one whose path does not fit a key:
		 * cut short, it would name other cgroups' key too. A key of its
		 * own instead. */
		if (t->cgroup && *t->cgroup && !t->cgroup_cut && strlen(t->cgroup) < size)
			snprintf(buf, size, "%s", t->cgroup);
		else
			engine_process_key_name(t, buf, size);
		break;
	case PER_PROCESS: engine_process_key_name(t, buf, size); break;
	default: buf[0] = 0; break;
	}
}

const struct group *engine_group_of(const struct engine *e, const char *id, const char **ret_name)
{
	const char *slash = id ? strchr(id, '/') : NULL;
	char group[MATCH_KEY_MAX];

	*ret_name = slash ? slash + 1 : NULL;
	if (!slash || !e->conf)
		return NULL;
	snprintf(group, sizeof(group), "%.*s", (int)(slash - id), id);
	return conf_find_group(e->conf, group);
}

/* t carries the cookie of a key released lately: it joins that key again,
 * which takes the cookie back from it. 0, or -ENOENT when it is no such. */
int engine_buried(struct engine *e, struct task *t, enum origin origin)
{
	const struct grave *gr = table_grave(e, t->cookie);
	const char *name;
	const struct group *g = engine_group_of(e, gr ? gr->id : NULL, &name);
	int r;

	if (!name)
		return -ENOENT;
	if (!g || g->trusted)
		return -ESTALE; /* ours, of a group that went: not foreign */
	r = table_join(e, t, g, name, t->pid);
	if (r < 0)
		return r;
	if (t->key->per == PER_PROCESS && t->key->cookie == 0)
		table_key_cookie(e, t->key, t->cookie);
	table_set_origin(e, t, origin);
	return 0;
}

static int decide(struct engine *e, struct task *t);

/* No group claims t. The kernel kept its cookie across the exec, and so
 * does the policy (UnmatchedExec=keep): a member that runs a helper stays
 * isolated. A key whose group a reload removed or made trusted lets its
 * members go; one whose group changed Per= re-keys them within the group.
 * UnmatchedExec=clear lets every one go, as at an exec. */
static int unclaimed(struct engine *e, struct task *t)
{
	const struct group *g;
	struct key *k = t->key;
	char name[MATCH_KEY_MAX];
	int r;

	/* A trusted key has no cookie to keep: its unclaimed members leave. */
	if (k && k->trusted && !k->detached) {
		table_set_key(e, t, NULL);
		table_set_origin(e, t, ORIGIN_NONE);
		t->released = true;
		return 0;
	}
	/* Re-keyed where it is kept; UnmatchedExec=clear lets it go below,
	 * as at an exec. */
	if (k && k->detached && !e->conf->daemon.unmatched_clear && (g = conf_find_group(e->conf, k->group)) &&
	    !g->trusted) {
		engine_key_name_for(g, t, name, sizeof(name));
		table_set_origin(e, t, ORIGIN_STICKY);
		return table_join(e, t, g, name, 0);
	}
	if (k && !k->detached && !e->conf->daemon.unmatched_clear) {
		table_set_origin(e, t, ORIGIN_STICKY);
		return 0;
	}
	if (k || t->origin == ORIGIN_RULE || t->origin == ORIGIN_ADOPTED || t->origin == ORIGIN_STICKY) {
		/* UnmatchedExec=clear: what it forked before now (a helper run
		 * at once, its fork event still to come) carries the key's
		 * cookie, which is no member's claim on it (see
		 * inherited_stray()). */
		if (k && k->cookie && e->conf->daemon.unmatched_clear) {
			/* Not dated: a fork that began before the clear copies
			 * the cookie, and the kernel stamps its event at its
			 * end. Until it is in a key again (engine_evaluate()). */
			t->stray_cookie = k->cookie;
			t->stray_ns = UINT64_MAX;
		}
		table_set_key(e, t, NULL); /* no longer ours: back to 0 */
		table_set_origin(e, t, ORIGIN_NONE);
		t->released = true;
		return 0;
	}
	if (t->cookie == COOKIE_UNKNOWN)
		return -ENODATA; /* cannot tell foreign from none: look again */
	if (t->released)
		return 0; /* let go of, and its clearing failed: clear it again */
	/* Out of a placement it outgrew: what it carries is the kernel's
	 * leftover, no member's (the rules claim it again at an exec). */
	if (t->unowned) {
		bool foreign = t->cookie != 0 && !e->conf->daemon.clear_foreign;

		if (foreign && t->origin != ORIGIN_FOREIGN)
			e->c.foreign++;
		table_set_origin(e, t, foreign ? ORIGIN_FOREIGN : ORIGIN_NONE);
		return 0;
	}
	/* It carries the cookie of a placement, whose explicit members are
	 * there or were (a key a rule's members keep alive, a grave): their
	 * child met unseen, its placer asked. */
	if (t->cookie != 0 && !e->conf->daemon.unmatched_clear) {
		r = engine_join_placement(e, t);
		if (r > 0)
			return t->key->detached ? decide(e, t) : 0; /* moving: as its members go */
		if (r < 0)
			return unclaimed(e, t); /* outgrown: unowned now */
	}
	/* It carries one of our keys' cookies (a child whose fork we did not
	 * see, a restart, a child forked just before its parent moved on): a
	 * member by inheritance. */
	if (t->cookie != 0 && !e->conf->daemon.unmatched_clear && (k = table_key_carrying(e, t->cookie))) {
		if (k->detached) { /* a reload is moving that key: as its members go */
			g = conf_find_group(e->conf, k->group);
			if (!g || g->trusted) {
				table_set_origin(e, t, ORIGIN_NONE);
				return 0;
			}
			engine_key_name_for(g, t, name, sizeof(name));
			table_set_origin(e, t, ORIGIN_STICKY);
			return table_join(e, t, g, name, 0);
		}
		/* Another process's Per=process key that a rule made: a child
		 * seen only once it ran a helper gets a key of its own in that
		 * group, as it would have, had the daemon seen it fork first
		 * (a child of a placement on request keeps the placement's). */
		engine_process_key_name(t, name, sizeof(name));
		if (k->per == PER_PROCESS && !k->n_explicit && strcmp(k->name, name) != 0 &&
		    (g = conf_find_group(e->conf, k->group)) && !g->trusted) {
			table_set_origin(e, t, ORIGIN_STICKY);
			return table_join(e, t, g, name, 0);
		}
		table_set_key(e, t, k);
		table_set_origin(e, t, ORIGIN_STICKY);
		return 0;
	}
	if (t->cookie != 0 && !e->conf->daemon.unmatched_clear && (r = engine_buried(e, t, ORIGIN_STICKY)) != -ENOENT) {
		if (r != -ESTALE)
			return r;
		table_set_origin(e, t, ORIGIN_NONE); /* the cookie of a group that went */
		return 0;
	}
	if (t->cookie != 0 && !e->conf->daemon.clear_foreign) {
		if (t->origin != ORIGIN_FOREIGN)
			e->c.foreign++;
		table_set_origin(e, t, ORIGIN_FOREIGN);
	} else
		table_set_origin(e, t, ORIGIN_NONE);
	return 0;
}

/* An explicit placement that could not be restored at start-up: tried
 * again until its key can be made, or dropped with its group. */
static bool name_fits(const struct group *g, const char *name)
{
	switch (g->per) {
	case PER_GROUP: return !*name;
	case PER_USER: return *name && strspn(name, "0123456789") == strlen(name);
	case PER_PROCESS: return strchr(name, ':') != NULL;
	default: return *name == '/' || strchr(name, ':') != NULL; /* a process's own, for want of a cgroup */
	}
}

static int wanted(struct engine *e, struct task *t)
{
	char name[MATCH_KEY_MAX];
	const char *keyname;
	const struct group *g = engine_group_of(e, t->want, &keyname);
	int r;

	/* A kept member's key is named by its group's Per=; a name that does
	 * not fit it says the group changed Per= since: re-keyed within it. */
	if (g && t->origin == ORIGIN_STICKY && !name_fits(g, keyname)) {
		engine_key_name_for(g, t, name, sizeof(name));
		r = table_join_restored(e, t, g, name, 0, t->placer, t->origin);
	} else
		r = g ? table_join_restored(e, t, g, keyname, t->cookie != 0 && !g->trusted ? t->pid : 0, t->placer,
					    t->origin)
		      : 0;
	if (r < 0)
		return r;
	if (g && t->key->per == PER_PROCESS && t->key->cookie == 0 && t->cookie && t->cookie != COOKIE_UNKNOWN)
		table_key_cookie(e, t->key, t->cookie);
	if (!g && engine_origin_explicit(t->origin))
		table_set_origin(e, t, ORIGIN_RULE); /* its group went: the rules decide */
	free(t->want);
	t->want = NULL;
	return 0;
}

/* The group t is placed in, or waits to be restored to. */
static const struct group *placed_group(const struct engine *e, const struct task *t)
{
	const char *name;

	if (t->key)
		return e->conf ? conf_find_group(e->conf, t->key->group) : NULL;
	return engine_group_of(e, t->want, &name);
}

/* An unprivileged caller's placement binds a process only while that
 * caller may act on it as the kernel would let it: once the process runs
 * as another user, setuid or setgid, undumpable or with capabilities (a
 * setuid program its placement ran), the placement ends. The daemon then
 * enforces nothing the placer chose: the process keeps the cookie it
 * carries, as it would without the daemon, and the rules judge it as one
 * nobody placed, its cookie not taken for a member's (unowned). Asked
 * where the placement would be enforced: an exec, an id change, a
 * repair, a request. placer_lost: may placer no longer hold pid in g? */
static bool placer_lost(struct engine *e, pid_t pid, uid_t placer, gid_t placer_gid, const struct group *g)
{
	if (!e->sys->may_act || SYS(e, may_act, pid, placer, placer_gid) != -EPERM)
		return false; /* it may (or it is gone: its exit ends it) */
	/* Lock=yes: what the user locked in stays, a process that made itself
	 * undumpable too, where the kernel says it runs with no_new_privs (a
	 * lock's filter sets it), so that no setuid program it ran gained it
	 * ids or privilege. Without (an assign, a filter never set, a group
	 * locked only since), the lock holds nothing the placer may not act
	 * on. */
	return !(g && g->lock && e->sys->no_new_privs && SYS(e, no_new_privs, pid) > 0);
}

bool engine_placement_outgrown(struct engine *e, struct task *t)
{
	if (!t->placer_bound || !engine_origin_explicit(t->origin) ||
	    !placer_lost(e, t->pid, t->placer, t->placer_gid, placed_group(e, t)))
		return false;
	log_task(LOG_INFO, t->pid, NULL,
		 "PID %d (%s) is no longer a process uid %u may act on (other ids, setuid, undumpable or "
		 "privileged): the placement it asked for ends.",
		 t->pid, t->comm, (unsigned)t->placer);
	table_set_key(e, t, NULL);
	table_set_origin(e, t, ORIGIN_NONE);
	t->placer = 0;
	t->placer_bound = false;
	t->unowned = true;
	free(t->want);
	t->want = NULL;
	if (SYS(e, cookie_get, t->pid, &t->cookie) < 0)
		t->cookie = COOKIE_UNKNOWN;
	e->state_lazy = true; /* no longer a placement to restore */
	return true;
}

/* Policy: which key t belongs to. Explicit placements are sticky. */
static int decide(struct engine *e, struct task *t)
{
	struct match_input in = { t->exe, t->comm, t->uid, t->gid, t->cgroup };
	struct match_result m;
	const struct group *cg;
	const char *cg_group, *cg_key;
	int r;

	(void)engine_placement_outgrown(e, t);
	if (engine_origin_explicit(t->origin) && t->key && !t->key->detached)
		return 0;
	if (!e->conf || t->cleared)
		return 0;
	/* Exec'd into a container (a child of the runtime, not of the
	 * container's init): found by the container's cgroup. */
	if (containers_lookup(t->cgroup, &cg_group, &cg_key) > 0 && (cg = conf_find_group(e->conf, cg_group)) &&
	    table_join(e, t, cg, cg_key, 0) >= 0) {
		table_set_origin(e, t, ORIGIN_HOOK);
		return 0;
	}
	if (engine_origin_explicit(t->origin) && t->key) {
		/* Its group changed in a reload: the same name in the new key. */
		if ((cg = conf_find_group(e->conf, t->key->group)))
			return table_join(e, t, cg, t->key->name, 0);
		table_set_origin(e, t, ORIGIN_RULE);
	}
	/* A placement that could not be made at start-up comes first: what
	 * the process carried then is what it inherited. An explicit one
	 * sticks; a kept or adopted one is judged again by the rules. */
	if (!t->key && t->want) {
		bool sticks = engine_origin_explicit(t->origin);

		r = wanted(e, t);
		if (r < 0 || sticks)
			return r;
	}
	if (rules_match(e->conf, &in, &m) <= 0)
		return unclaimed(e, t);
	engine_match_key(t, &m);
	r = table_join(e, t, m.group, m.key, 0);
	if (r < 0)
		return r;
	t->unowned = false;
	if (t->origin != ORIGIN_ADOPTED || t->cookie != t->key->cookie)
		table_set_origin(e, t, ORIGIN_RULE);
	return 0;
}

/* A failure leaves t unsettled: a task whose placement failed may look
 * settled to a reconcile (no key, or a Per=process key without a cookie,
 * wants the cookie 0 it has), so the next scan evaluates it again. */
int engine_evaluate(struct engine *e, struct task *t, bool repair)
{
	int r = decide(e, t);

	if (r < 0 && r != -ENODATA) {
		/* its key could not be made: the window runs until a retry */
		if (e->event_ns && !t->window_ns)
			t->window_ns = e->event_ns;
		note_failure(e, t, r, "place the process");
	} else if (r >= 0)
		r = engine_ensure(e, t, repair);
	/* Let go of a key's cookie (unclaimed()): a child that carries it
	 * was forked before the cookie came off, however late its fork event
	 * is stamped; in a key again, it passes on that key's. */
	if (t->stray_ns == UINT64_MAX && t->key) {
		t->stray_cookie = 0;
		t->stray_ns = 0;
	}
	t->unsettled = r < 0;
	return r;
}

/* ---- the event path ---- */

/* A process that could not be examined: the next scan looks again. */
void engine_note_unexamined(struct engine *e, pid_t pid, int r)
{
	if (r == -ESRCH) {
		e->c.vanished++;
		log_task(LOG_DEBUG, pid, NULL, "PID %d exited before it could be examined", pid);
		return;
	}
	e->c.errors++;
	log_task(LOG_WARNING, pid, NULL, "Failed to examine PID %d: %s, ignoring until the next scan.", pid,
		 strerror(-r));
}

int engine_read(struct engine *e, pid_t pid, struct procinfo *pi, uint64_t *ret_ns)
{
	*ret_ns = SYS(e, now_ns);
	return SYS(e, read, pid, pi);
}

int engine_examine(struct engine *e, pid_t pid, struct procinfo *pi, struct task **ret,
		   bool *ret_changed)
{
	uint64_t read_ns;
	int r = engine_read(e, pid, pi, &read_ns);

	if (r < 0)
		return r;
	if (pi->kernel_thread)
		return -ECHILD;
	return table_upsert(e, pi, read_ns, ret, ret_changed);
}

/* Read pid afresh and run it through policy. A read happens with a pidfd
 * open: if the process is still alive afterwards, the pid named it
 * throughout (a live process cannot be replaced). A process whose last
 * read began after the event already shows what the event reports (the
 * kernel changes a process before it reports the change): it is not read
 * again, and what changed after that read has events of its own to come.
 * Without a read there is no pidfd either: one opened now would name
 * whatever holds the pid now and prove nothing of the table's process (its
 * exit, and any new process's fork, are events still to come). Returns
 * what kept pid from being examined; engine_evaluate() reports its own
 * failures. */
static int handle_process(struct engine *e, pid_t pid, bool new_program, uint64_t event_ns)
{
	struct procinfo pi;
	struct task *t = engine_task(e, pid);
	bool changed;
	int fd = -1, r = 0;

	if (pid == e->self)
		return 0;
	/* Met by a scan, its fork event still to come: the kernel reports a
	 * fork before anything the child does, so an event older than the
	 * scan's read was an earlier process's under the same pid (unless
	 * events were lost since: its fork's may be among them). */
	if (t && t->scan_ppid && !t->scan_unsure && event_ns && event_ns < t->read_ns)
		return 0;
	if (!t || t->stale || !event_ns || t->read_ns <= event_ns) {
		fd = SYS(e, pidfd_open, pid);
		if (fd < 0)
			return fd;
		r = engine_examine(e, pid, &pi, &t, &changed);
	}
	if (r >= 0) {
		/* New to the table: its fork event is still to come, so the
		 * event was an earlier process's under a reused pid (or the fork
		 * was lost, and a rescan follows). It is judged as a fork child,
		 * by what it inherited; it has not been seen to run a new
		 * program, so a clear it inherited stands. */
		if (r > 0)
			engine_judge_child(e, t, engine_task(e, pi.ppid), &pi, 0);
		if (r == 0) {
			t->since_ns = event_ns; /* what it runs now, it runs since the event */
			if (new_program) /* an exec or id change; a rename is none */
				t->since_walk = false;
		}
		if (r == 0 && new_program) {
			t->cleared = false; /* a new program or user: the rules again */
			exposure_forget(t);
		}
		(void)engine_evaluate(e, t, false);
		if (fd >= 0 && !SYS(e, pidfd_alive, fd) && (t = engine_task(e, pid))) {
			engine_ghost_note(e, t);
			table_drop_ended(e, t);
		}
	}
	if (fd >= 0)
		SYS(e, pidfd_close, fd);
	return r < 0 && r != -ECHILD ? r : 0;
}

int engine_reread(struct engine *e, struct task *t)
{
	uint64_t at = t->unread_ns;
	int r;

	/* As at the event whose read failed: a placement now ends the
	 * window it opened, and dates what the process runs. */
	e->event_ns = at;
	r = handle_process(e, t->pid, false, at);
	e->event_ns = 0;
	return r;
}

/* Does the table say what p runs (no exec or uid change of it gone
 * unread: its children's fork events, taken in order, were before it)? */
static bool program_known(const struct task *p)
{
	return p && p->exe && !p->stale;
}

/* Is the child that ev reports what the table says of its parent p? The
 * kernel copied p's ids and cgroup into it, and the table's read of them
 * ended before the fork (a read that ends after it may show what p became
 * since: a uid change, an exec); what p changed before the fork and after
 * that read has an event, taken before the fork's, that read it again,
 * and a read that failed is no longer trusted. Only for a parent in no
 * key, whose child running its program the rules judge as they judged p,
 * cookie aside (that is read anyway); only for a fork by p's main thread,
 * whose ids are the ones the table read (a thread can change its own);
 * not from a main thread gone (the table's read of it is a live thread's,
 * not necessarily the forking one's); not from a program that the table
 * has seen run as more than one user or group (a process of it that
 * forks with CLONE_PARENT names p, whose program and name its child
 * shows, and gives the child its own ids); not a fork stamped before
 * the last read that found a process gone at its exec or id change (what
 * it became is not known, nor whom it cloned); not while events lost
 * wait for their rescan (p's exec or id change may be among them).
 * The child's program is read, and must be p's. What the child changes
 * itself has an event of its own to come. A cgroup changes with no event:
 * where a rule, a key or a container looks at cgroups, the child is read
 * whole. */
static bool fork_copies(const struct engine *e, const struct task *p, const struct procmon_event *ev)
{
	return e->sys->read_stat && e->sys->read_exe && e->sys->read_rest && p && !p->key && program_known(p) &&
	       !p->leader_gone && p->cgroup && p->read_ns && p->read_end_ns <= ev->timestamp_ns &&
	       ev->parent_pid == ev->parent_tgid && !table_program_mixed(e, p) &&
	       ev->timestamp_ns >= e->copy_barrier_ns && !e->loss_unscanned && !e->cgroup_rules && containers_none();
}

/* engine_examine() for the child of a fork event, from its parent p. Where
 * p's copy describes it, only its stat (its start time, which makes the
 * pid its name, its parent, comm and state) and its exe link are read, and
 * the table dates what it says at the fork: any event of the child reads
 * it whole. */
static int fork_examine(struct engine *e, const struct procmon_event *ev, const struct task *p,
			struct procinfo *pi, struct task **ret, bool *ret_changed)
{
	const struct task *known;
	uint64_t read_ns;
	int r;

	if (!fork_copies(e, p, ev))
		return engine_examine(e, ev->tgid, pi, ret, ret_changed);
	read_ns = SYS(e, now_ns);
	r = SYS(e, read_stat, ev->tgid, pi);
	if (r < 0)
		return r;
	if (pi->kernel_thread)
		return -ECHILD;
	/* Met by a scan or a request since its fork (what they read stands,
	 * and is compared), the parent's pid names a process started after
	 * the child, the pid names another parent's child (the fork's exited,
	 * and its pid was reused, or it was reparented), or the child runs
	 * another program than the parent, or goes by another name (it
	 * exec'd or renamed itself since, or another process forked it with
	 * CLONE_PARENT, runc's way, and it runs that one's): read it whole. */
	known = engine_task(e, ev->tgid);
	if ((known && known->start == pi->start_time) || p->start > pi->start_time || pi->ppid != p->pid ||
	    strcmp(pi->comm, p->comm) != 0 || SYS(e, read_exe, ev->tgid, pi->exe, sizeof(pi->exe)) < 0 ||
	    strcmp(pi->exe, p->exe) != 0) {
		/* The rest of a whole read begun with the stat. */
		r = SYS(e, read_rest, ev->tgid, pi);
		return r < 0 ? r : table_upsert(e, pi, read_ns, ret, ret_changed);
	}
	pi->uid = p->uid;
	pi->gid = p->gid;
	snprintf(pi->cgroup, sizeof(pi->cgroup), "%s", p->cgroup);
	pi->cgroup_cut = p->cgroup_cut;
	return table_upsert(e, pi, ev->timestamp_ns, ret, ret_changed);
}

/* The kernel sends a fork event before it moves the child into its
 * cgroup: copy_process() calls proc_fork_connector() before
 * cgroup_post_fork(), and until then the child, already listed, is in the
 * root cgroup's set. A child read that soon shows "/" where its parent
 * is elsewhere: it is read again, briefly, until it shows where it went.
 * (A child cloned into the root cgroup itself shows "/" throughout.) */
#define FORK_CGROUP_REREADS 32

static void fork_cgroup_settle(struct engine *e, pid_t pid, const struct task *p, struct procinfo *pi,
			       struct task **t)
{
	bool changed;

	for (int i = 0; i < FORK_CGROUP_REREADS && p && p->cgroup && strcmp(p->cgroup, "/") != 0 && *t &&
			(*t)->cgroup && strcmp((*t)->cgroup, "/") == 0;
	     i++) {
		sched_yield();
		if (engine_examine(e, pid, pi, t, &changed) < 0)
			return;
	}
}

static int on_fork(struct engine *e, const struct procmon_event *ev)
{
	struct task *t, *parent;
	struct procinfo pi;
	bool changed, again = false, written = false;
	sc_cookie had;
	int fd, r;

	e->c.forks++;
	parent = engine_fork_parent(e, ev->parent_tgid);
	t = engine_task(e, ev->tgid);
	had = t ? t->cookie : COOKIE_UNKNOWN; /* the table's word, before this read */
	fd = SYS(e, pidfd_open, ev->tgid);
	r = fd < 0 ? fd : fork_examine(e, ev, parent, &pi, &t, &changed);
	if (r >= 0)
		fork_cgroup_settle(e, ev->tgid, parent, &pi, &t);
	if (r == -ESRCH) /* gone already: its own children's forks may follow */
		engine_ghost_child(e, ev->tgid, parent, ev->timestamp_ns);
	if (fd < 0)
		return fd;
	if (r == -ECHILD)
		goto out;
	/* A parent started after its child is another process under the
	 * parent's pid, met before its own fork event (the parent exited). */
	if (r >= 0 && parent && parent->start > t->start)
		parent = NULL;
	/* Seen first by a scan or a request: what it said then is fresher,
	 * unless no request has placed it since and the scan judged it by
	 * another parent (its own had exited: it was reparented), or made it
	 * follow its parent into a key the parent has left since (an exec
	 * taken after the scan). A parent the table no longer knows tells
	 * nothing the scan did not see (the cookie it left the child): the
	 * scan's word stands, unless the scan made it follow another. The
	 * start-up walk's word stands against another parent: the fork event
	 * taken may be an earlier process's under a reused pid (the walk
	 * marked processes forked long before as well), and an orphan met
	 * by the walk was judged as at start-up before. */
	if (r == 0 && t->scan_ppid && !t->placed_ns &&
	    (t->scan_ppid != ev->parent_tgid ? !t->scan_adopt && (parent || t->scan_followed)
					     : !t->key || (t->scan_followed && parent && parent->key != t->key))) {
		/* The kernel's cookie, just read, is neither what the scan read
		 * nor what the daemon gave the child: someone else wrote it
		 * since the scan, and the child is judged by it, as any process
		 * met unseen (a keyless one keeps it, foreign). */
		written = t->cookie != COOKIE_UNKNOWN && t->cookie != t->scan_cookie && t->cookie != had &&
			  !(t->key && t->cookie == t->key->cookie);
		table_set_key(e, t, NULL);
		table_set_origin(e, t, ORIGIN_NONE);
		r = 1;
		again = true;
	}
	if (r > 0) {
		engine_ghost_forget(e, ev->tgid);
		/* Its parent's program, since the fork; another one (it exec'd
		 * before this read), since a time its exec event will tell. A
		 * parent the table cannot describe at the fork (not known, or
		 * changed before it and gone unread) shows no exec: the fork
		 * dates the program, and an exec event, if one comes, again. */
		if (!t->scan_ppid && (engine_same_program(parent, &pi) || !program_known(parent))) {
			t->since_ns = ev->timestamp_ns;
			t->since_walk = false;
		}
		/* Judged again: by the cookie it inherited, as the scan read
		 * it, not by the one the scan gave it; then the kernel's is
		 * made to agree. */
		if (again && !written && t->scan_cookie != t->cookie) {
			t->cookie = t->scan_cookie;
			engine_judge_child(e, t, parent, &pi, ev->timestamp_ns);
			if (SYS(e, cookie_get, t->pid, &t->cookie) < 0)
				t->cookie = COOKIE_UNKNOWN;
			t->unsettled = engine_ensure(e, t, false) < 0 || t->unsettled;
		} else
			engine_judge_child(e, t, parent, &pi, ev->timestamp_ns);
	}
	if (r >= 0) {
		t->scan_ppid = 0;
		t->fork_ppid = ev->parent_tgid;
		t->fork_ns = ev->timestamp_ns;
	}
	if (r >= 0 && !SYS(e, pidfd_alive, fd)) {
		engine_ghost_note(e, t);
		table_drop_ended(e, t);
	}
out:
	SYS(e, pidfd_close, fd);
	return r < 0 && r != -ECHILD ? r : 0;
}

/* A thread created while its process was being placed may have copied the
 * old cookie (it joins the thread list after the copy). */
static void on_thread(struct engine *e, const struct procmon_event *ev)
{
	struct task *t = engine_task(e, ev->tgid);
	sc_cookie c;

	if (!t || !t->key || t->origin == ORIGIN_FOREIGN || e->smt_off)
		return;
	/* A thread pushed again is no process's placement: not a window. */
	e->event_ns = 0;
	if (SYS(e, cookie_get, ev->pid, &c) == 0 && c != t->key->cookie && t->key->cookie != 0) {
		t->cookie = COOKIE_UNKNOWN; /* push to every thread again */
		t->unsettled = engine_ensure(e, t, false) < 0;
	}
}

/* A process ends with its last thread, not with its leader: the leader
 * can exit first (or be replaced by a thread that exec'd). */
static void on_exit_(struct engine *e, const struct procmon_event *ev)
{
	struct task *t = engine_task(e, ev->tgid);
	int alive;

	if (!t || (ev->pid != ev->tgid && !t->leader_gone))
		return;
	/* Older than a read that found the main thread running: an earlier
	 * process's, under the pid (the kernel sends the event after the
	 * thread is a zombie, which a read after it shows). */
	if (!t->leader_gone && t->read_ns && ev->timestamp_ns && ev->timestamp_ns < t->read_ns)
		return;
	/* A thread that executes a program ends the old leader too: look
	 * whether the process lives on (one read of its stat). */
	alive = SYS(e, process_alive, t->pid, t->start);
	if (alive == 1) {
		t->leader_gone = true;
		return;
	}
	e->c.exits++;
	if (e->exit_hook && t->key)
		e->exit_hook(e->exit_userdata, t);
	if (alive == 0)
		table_drop_ended(e, t);
	else
		table_drop(e, t); /* not known to have ended: its stand-in record stays */
}

void engine_set_exit_hook(struct engine *e, engine_exit_hook fn, void *userdata)
{
	e->exit_hook = fn;
	e->exit_userdata = userdata;
}

/* An event older than a request that placed or cleared the process: the
 * request saw the process as it was after it, and stands. */
static bool before_request(const struct engine *e, const struct procmon_event *ev)
{
	const struct task *t = engine_task(e, ev->tgid);

	return t && ev->timestamp_ns && ev->timestamp_ns < t->placed_ns;
}

/* An exec or uid change older than the request still ended a clear from
 * before it: a child forked between the two was not cleared. One older
 * than the clear itself (an earlier process's, under a reused pid) did
 * not. */
static void unclear_before_request(struct engine *e, const struct procmon_event *ev)
{
	struct task *t = engine_task(e, ev->tgid);

	if (ev->kind != PROCMON_COMM && t->prev.cleared && !t->prev.uncleared_ns &&
	    ev->timestamp_ns > t->prev.clear_ns)
		t->prev.uncleared_ns = ev->timestamp_ns;
}

/* The exec or id change ev reports could not be read (r): what the event
 * says stands all the same, and a new program or user ends a clear. Gone
 * before the read (ESRCH): its children, whose fork events follow, must
 * not inherit what the table still says of it. Otherwise what the table
 * read is older than the change (no child is copied), and the retry
 * reads it again as of the event. */
static void change_unread(struct engine *e, const struct procmon_event *ev, int r)
{
	struct task *t = engine_task(e, ev->tgid);

	if (r == -ESRCH)
		e->copy_barrier_ns = SYS(e, now_ns);
	if (!t)
		return;
	t->cleared = false;
	t->since_walk = false; /* what it runs since is not known */
	if (r == -ESRCH) {
		t->stale = true;
		return;
	}
	table_ids_unknown(t);
	exposure_forget(t);
	t->unread_ns = ev->timestamp_ns;
}

void engine_on_event(struct engine *e, const struct procmon_event *ev)
{
	struct task *t;
	int r = 0;

	e->c.events++;
	if (ev->timestamp_ns > e->watched_ns)
		e->watched_ns = ev->timestamp_ns;
	e->event_ns = ev->timestamp_ns;
	switch (ev->kind) {
	case PROCMON_FORK:
		if (ev->pid == ev->tgid)
			r = on_fork(e, ev);
		else
			on_thread(e, ev);
		break;
	case PROCMON_EXEC:
		e->c.execs++;
		/* fall through */
	case PROCMON_UID:
	case PROCMON_GID:
	case PROCMON_COMM:
		/* A thread took ids of its own, which the process's files do not
		 * show: a CLONE_PARENT fork by it names the process's parent. */
		if (ev->pid != ev->tgid && (ev->kind == PROCMON_UID || ev->kind == PROCMON_GID) &&
		    (t = engine_task(e, ev->tgid)))
			table_program_other_ids(t);
		if (before_request(e, ev)) {
			unclear_before_request(e, ev);
			break;
		}
		r = handle_process(e, ev->tgid, ev->kind != PROCMON_COMM, ev->timestamp_ns);
		if (r < 0 && ev->kind != PROCMON_COMM)
			change_unread(e, ev, r);
		break;
	case PROCMON_EXIT:
		if (!before_request(e, ev)) /* the request saw it alive after this */
			on_exit_(e, ev);
		if (ev->pid == ev->tgid) /* its children's forks came before this */
			engine_ghost_forget(e, ev->tgid);
		break;
	}
	e->event_ns = 0;
	if (r < 0)
		engine_note_unexamined(e, ev->tgid, r);
	if (e->rescan)
		(void)engine_scan(e, false, true);
}

/* The map's values in an array of their own, for walks that change the
 * map. NULL (and *ret_n 0) when out of memory: the walk is skipped. */
void **engine_snapshot(const struct hashmap *m, size_t *ret_n)
{
	size_t n = hashmap_size(m);
	void **v = calloc(n + 1, sizeof(*v));

	*ret_n = v ? hashmap_values(m, v, n) : 0;
	return v;
}

/* ---- configuration and explicit placement ---- */

/* Two phases: stale keys leave the name map (they live while members hold
 * them), then every process is read afresh and judged by the new groups,
 * moving to new keys; a stale key goes with its last member. A task whose
 * new key cannot be made keeps the old one, cookie included, and stays
 * unsettled for the next scan. */
struct conf *engine_set_conf(struct engine *e, struct conf *c)
{
	struct conf *old = e->conf;

	e->conf = c;
	e->cgroup_rules = false;
	for (size_t i = 0; c && i < c->n_groups; i++)
		if ((c->groups[i]->match_mask & (1u << MATCH_CGROUP)) || c->groups[i]->per == PER_CGROUP)
			e->cgroup_rules = true;
	if (!old)
		return NULL;
	table_detach_stale(e);
	(void)engine_scan_all(e);
	exposure_prune(e);
	return old;
}

const struct conf *engine_conf(const struct engine *e)
{
	return e->conf;
}

/* A request the engine refuses itself, and why (for the caller's answer). */
static int refuse(const struct engine_place *req, const char *why)
{
	if (req->why)
		*req->why = why;
	return -EPERM;
}

#define OUTGROWN_WHY                                                                                           \
	"the process changed its ids, ran a setuid program, or became undumpable or privileged while the "    \
	"request was made: the kernel would no longer let this user act on it"

/* An explicit decision about one process: the key of group g named
 * req->key (or as g's Per= names it), or cookie 0 without g. The pidfd,
 * open throughout, proves that the process read is the one acted on. */
static int place(struct engine *e, const struct engine_place *req, const struct group *g)
{
	char name[MATCH_KEY_MAX], *prev_id = NULL;
	struct procinfo pi;
	struct task_past past;
	struct task *t;
	uint64_t read_ns, past_ns;
	bool changed, past_cleared;
	int fd = req->pidfd, r;

	if (req->pid == e->self)
		return refuse(req, "the daemon does not place itself");
	if (fd < 0 && (fd = SYS(e, pidfd_open, req->pid)) < 0)
		return fd;
	r = engine_read(e, req->pid, &pi, &read_ns);
	/* Alive after the read, the read was its. A caller's pidfd may be of
	 * a process that has exited (newer kernels give one even of a reaped
	 * peer), whose pid may name another by now; and a zombie is no one
	 * to place, nor to judge as someone else's (its files are root's). */
	if (r >= 0 && !SYS(e, pidfd_alive, fd))
		r = -ESRCH;
	if (r >= 0 && g && pi.kernel_thread)
		r = refuse(req, "a kernel thread is in no group");
	if (r >= 0 && req->authorize)
		r = req->authorize(req->userdata, req->pid, engine_task(e, req->pid));
	if (r >= 0)
		r = table_upsert(e, &pi, read_ns, &t, &changed);
	/* New to the table (its fork event still to come): first what it is,
	 * a fork child, so that its children forked before this request
	 * inherit that (a clear, a key), as they would have. */
	if (r > 0)
		engine_judge_child(e, t, engine_task(e, pi.ppid), &pi, 0);
	/* What it inherited (an explicit placement, its placer) is known only
	 * now: the request is authorized again against that. */
	if (r > 0 && req->authorize)
		r = req->authorize(req->userdata, req->pid, t);
	/* An unprivileged placer who may no longer act on it (it ran su since
	 * it was authorized): refused before anything changes, so that its
	 * events (the exec, the id change) end what it had, in their order
	 * with its forks. */
	if (r >= 0 && g && req->bound && placer_lost(e, req->pid, req->placer, req->placer_gid, g))
		r = refuse(req, OUTGROWN_WHY);
	if (r >= 0 && t->key && !(prev_id = strdup(t->key->id)))
		r = -ENOMEM;
	if (r >= 0 && t->key) /* this request replaces its placer */
		table_placer_leaves(e, t->key, t);
	if (r >= 0 && g) {
		if (req->key)
			snprintf(name, sizeof(name), "%s", req->key);
		else
			engine_key_name_for(g, t, name, sizeof(name));
		r = table_join(e, t, g, name, 0);
		if (r < 0) {
			t->unsettled = true;
			note_failure(e, t, r, "make the group's key");
		}
	} else if (r >= 0)
		table_set_key(e, t, NULL);
	if (r >= 0) {
		/* Root's and the hook's placements are written at the end of
		 * this pass (a container started just before a crash must be
		 * found again); an unprivileged request's wait for the tick, so
		 * that no user can make the loop write the file at will. The
		 * hook's origin needs privilege (root or ControlGroup=). */
		if ((g || t->recorded) && (e->privileged || req->origin == ORIGIN_HOOK))
			engine_state_dirty(e);
		else if (g || t->recorded)
			e->state_lazy = true;
		/* What the children forked before the last request inherit,
		 * kept until this request takes: if it fails (EPERM below),
		 * they still inherit that. */
		past = t->prev;
		past_ns = t->placed_ns;
		past_cleared = t->cleared;
		/* children forked before now inherit what it was */
		t->prev.id = engine_origin_explicit(t->origin) && prev_id ? prev_id : NULL;
		t->prev.session = t->origin == ORIGIN_SESSION;
		if (t->prev.id)
			prev_id = NULL;
		t->prev.cleared = t->cleared;
		t->prev.uncleared_ns = 0;
		t->prev.clear_ns = t->cleared ? t->placed_ns : 0; /* a clear by request began then */
		if (SYS(e, cookie_get, t->pid, &t->prev.cookie) < 0)
			t->prev.cookie = COOKIE_UNKNOWN;
		t->prev.placer = t->placer;
		t->prev.placer_bound = t->placer_bound;
		t->prev.placer_gid = t->placer_gid;
		table_set_origin(e, t, req->origin);
		t->placer = req->placer;
		t->placer_bound = req->bound;
		t->placer_gid = req->placer_gid;
		t->unowned = false;
		t->placed_ns = SYS(e, now_ns);
		t->cleared = !g && !req->rules;
		free(t->want); /* this request replaces a restore still pending */
		t->want = NULL;
		if (!g && req->rules) {
			/* What a process the daemon just met gets; the cookie
			 * it carries now is the placement's, not its own. */
			t->released = true;
			e->no_exposure = true;
			r = engine_evaluate(e, t, false);
			e->no_exposure = false;
		} else {
			if (!g)
				t->cookie = COOKIE_UNKNOWN; /* clear even what reads 0 now */
			/* It ran a setuid program since it was authorized: the
			 * placement ends as it is made (also where it carries the
			 * key's cookie already), and what it ran since is judged
			 * as its events say, none of them older than a request. */
			if (g && engine_placement_outgrown(e, t))
				r = 0;
			else
				r = engine_ensure(e, t, false);
			t->unsettled = r < 0;
			if (r >= 0 && g && !t->key) { /* the request before stands */
				free(t->prev.id);
				t->prev = past;
				past.id = NULL;
				t->placed_ns = past_ns;
				t->cleared = past_cleared;
				r = refuse(req, OUTGROWN_WHY);
			}
			if (r >= 0 && g)
				(void)table_key_hold_from(e, t->key, t);
		}
		free(past.id); /* NULL where the request before stands */
		if (r >= 0 && !SYS(e, pidfd_alive, fd))
			r = -ESRCH;
	}
	if (fd != req->pidfd)
		SYS(e, pidfd_close, fd);
	free(prev_id);
	return r < 0 ? r : 0;
}

int engine_place(struct engine *e, const struct engine_place *req)
{
	const struct group *g = NULL;
	int r;

	if (req->group && !(g = conf_find_group(e->conf, req->group)))
		return -ENOENT;
	/* Root's requests and the hook's may use the reserve and count in no
	 * user's share; a session is root's request for a user, and its key
	 * is that user's, within its share. */
	e->privileged = (req->placer == 0 || req->origin == ORIGIN_HOOK) && req->origin != ORIGIN_SESSION;
	e->charge_set = req->origin == ORIGIN_SESSION;
	e->charge_uid = req->session_uid;
	r = place(e, req, g);
	e->privileged = e->charge_set = false;
	return r;
}

int engine_assign(struct engine *e, pid_t pid, const char *group, const char *keyname, enum origin origin)
{
	struct engine_place req = { .pid = pid, .pidfd = -1, .group = group, .key = keyname, .origin = origin };

	return group ? engine_place(e, &req) : -ENOENT;
}

int engine_clear(struct engine *e, pid_t pid)
{
	struct engine_place req = { .pid = pid, .pidfd = -1, .origin = ORIGIN_NONE };

	return engine_place(e, &req);
}

/* ---- life cycle and queries ---- */

static void hazard_check(struct engine *e)
{
	bool h = SYS(e, sched_ext_enabled) == 1 && !(e->conf && e->conf->daemon.allow_sched_ext);

	if (h && !e->hazard)
		log_error("A sched_ext scheduler is loaded: core-scheduling cookies have hung SMT machines under "
			  "it, so no process gets a cookie until it is unloaded (AllowSchedExt=yes overrides)");
	else if (!h && e->hazard)
		log_notice("No sched_ext scheduler any more (or AllowSchedExt=yes): placing processes again");
	if (!h && e->hazard)
		e->rescan = true;
	e->hazard = h;
}

void engine_tick(struct engine *e)
{
	e->ticks++;
	table_graves_expire(e);
	hazard_check(e);
	(void)smt_usable(e);
	if (e->rescan)
		(void)engine_scan(e, false, true);
	else
		engine_retry_unsettled(e);
	engine_state_flush_lazy(e);
	engine_state_heartbeat(e);
}

bool engine_hazard(const struct engine *e)
{
	return e->hazard;
}

int engine_new_sys(const struct engine_sys *sys, pid_t self, struct engine **ret)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->sys = sys;
	e->tasks = hashmap_new(false);
	e->keys = hashmap_new(true);
	e->by_cookie = hashmap_new(false);
	e->programs = hashmap_new(true);
	e->key_shares = hashmap_new(false);
	e->self = self;
	if (!e->tasks || !e->keys || !e->by_cookie || !e->programs || !e->key_shares) {
		engine_free(e);
		return -ENOMEM;
	}
	hazard_check(e);
	*ret = e;
	return 0;
}

int engine_new(const char *proc_root, struct engine **ret)
{
	struct engine_sys *sys = engine_sys_linux_new(proc_root);
	int r;

	if (!sys)
		return -ENOMEM;
	r = engine_new_sys(sys, getpid(), ret);
	if (r < 0) {
		engine_sys_linux_free(sys);
		return r;
	}
	(*ret)->own_sys = sys;
	return 0;
}

struct engine *engine_free(struct engine *e)
{
	if (!e)
		return NULL;
	engine_state_flush_lazy(e);
	engine_state_heartbeat(e);
	if (e->tasks && e->keys && e->by_cookie && e->programs && e->key_shares)
		table_free_all(e);
	hashmap_free(e->key_shares);
	free(e->forks_unsure);
	hashmap_free(e->tasks);
	hashmap_free(e->programs);
	hashmap_free(e->keys);
	hashmap_free(e->by_cookie);
	exposure_free(e);
	conf_free(e->conf);
	free(e->state_path);
	table_placers_pending_free(e);
	engine_sys_linux_free(e->own_sys);
	free(e);
	return NULL;
}

const struct engine_counters *engine_counters(const struct engine *e) { return &e->c; }
bool engine_smt_off(const struct engine *e) { return e->smt_off; }
size_t engine_n_tasks(const struct engine *e) { return hashmap_size(e->tasks); }
size_t engine_n_keys(const struct engine *e) { return hashmap_size(e->keys); }

int engine_cookie_get(const struct engine *e, pid_t tid, sc_cookie *ret)
{
	return SYS(e, cookie_get, tid, ret);
}

struct task *engine_task(const struct engine *e, pid_t pid)
{
	return hashmap_get_u64(e->tasks, (uint64_t)pid);
}

size_t engine_tasks(const struct engine *e, struct task **out, size_t max)
{
	return hashmap_values(e->tasks, (void **)out, max);
}

size_t engine_keys(const struct engine *e, struct key **out, size_t max)
{
	return hashmap_values(e->keys, (void **)out, max);
}
