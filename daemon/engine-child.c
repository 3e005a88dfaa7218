// SPDX-License-Identifier: GPL-2.0-or-later
/* What a new process inherits. The kernel copied to a child the cookie its
 * parent had when it forked, which may be before the daemon placed the
 * parent, or before the parent moved on (an exec claimed by another group,
 * a request): the child's own cookie, read from the kernel, says which. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "containers.h"
#include "engine-internal.h"

/* The origin a fork child takes from its parent. A session's opener was
 * placed for its user by the rules on users and groups: what the session
 * starts is the rules' as well, judged again at each exec as it would be
 * without the session module (a program another group claims goes there),
 * only without the wait for the exec event. */
static enum origin child_origin(enum origin o)
{
	if (o == ORIGIN_SESSION)
		return ORIGIN_RULE;
	if (engine_origin_explicit(o))
		return ORIGIN_INHERITED;
	return o == ORIGIN_ADOPTED ? ORIGIN_RULE : o;
}

bool engine_same_program(const struct task *p, const struct procinfo *pi)
{
	return p && pi->uid == p->uid && pi->gid == p->gid && p->exe && strcmp(pi->exe, p->exe) == 0;
}

/* A child forked before its parent's last request inherited what the
 * parent was then: an explicit placement it replaced. */
static bool inherit_prev(struct engine *e, struct task *t, const struct task *p)
{
	const char *name;
	const struct group *g = engine_group_of(e, p->prev.id, &name);

	if (!g || table_join(e, t, g, name, !g->trusted && t->cookie && t->cookie != COOKIE_UNKNOWN ? t->pid : 0) < 0)
		return false;
	if (t->key->per == PER_PROCESS && t->key->cookie == 0 && t->cookie && t->cookie != COOKIE_UNKNOWN)
		table_key_cookie(e, t->key, t->cookie);
	table_set_origin(e, t, p->prev.session ? child_origin(ORIGIN_SESSION) : ORIGIN_INHERITED);
	/* who placed what it inherited, not who placed its parent since */
	t->placer = p->prev.placer;
	t->placer_bound = p->prev.placer_bound;
	t->placer_gid = p->prev.placer_gid;
	if (engine_placement_outgrown(e, t))
		(void)engine_evaluate(e, t, false);
	else
		t->unsettled = engine_ensure(e, t, false) < 0;
	return true;
}

/* Who claims what in describes: 1 a rule (its group in *m), 2 a hooked
 * container's cgroup, 0 nobody. */
static int claim(const struct engine *e, const struct match_input *in, struct match_result *m)
{
	const char *g, *k;

	if (!e->conf)
		return 0;
	if (rules_match(e->conf, in, m) > 0)
		return 1;
	return in->cgroup && containers_lookup(in->cgroup, &g, &k) > 0 ? 2 : 0;
}

static bool claimed(const struct engine *e, const struct procinfo *pi)
{
	struct match_input in = { pi->exe, pi->comm, pi->uid, pi->gid, pi->cgroup };
	struct match_result m;

	return claim(e, &in, &m) > 0;
}

/* Does the child pi runs another program than p, which a group other
 * than that of p's key claims (or a container)? A CLONE_PARENT child of
 * another process runs its creator's program, and no exec event of its
 * own comes; a child that exec'd before its read would be judged again at
 * its exec event, and is judged now. One that the group of p's key claims
 * too stays with p (a session's, or a user's, shell and its commands). An
 * exe that could not be read says nothing. */
static bool claimed_elsewhere(const struct engine *e, const struct task *p, const struct procinfo *pi)
{
	struct match_input in = { pi->exe, pi->comm, pi->uid, pi->gid, pi->cgroup };
	struct match_result m;
	int r;

	if (!p || !p->key || !pi->exe[0] || engine_same_program(p, pi))
		return false;
	r = claim(e, &in, &m);
	return r == 1 ? strcmp(m.group->name, p->key->group) != 0 : r == 2;
}

/* Does t run on what it inherited from p: p's key's cookie (or one not
 * known yet), or p's very program? Then it joins p's key. */
static bool follows(struct engine *e, const struct task *t, const struct task *p, const struct procinfo *pi,
		    uint64_t forked_ns)
{
	const struct key *k = p ? p->key : NULL;

	if (!k && p && p->want)
		return true; /* the parent's restore is pending: so is the child's */
	if (!k || p == t || (p->stale && !engine_origin_explicit(p->origin)))
		return false;
	/* A cookie per process: under Per=process, and under Per=cgroup where
	 * the cgroup's path did not fit a key (a key of the process's own,
	 * named PID:START, not a path): the rules give the child its own. */
	if ((k->per == PER_PROCESS || (k->per == PER_CGROUP && k->name[0] != '/')) &&
	    (p->origin == ORIGIN_RULE || p->origin == ORIGIN_ADOPTED))
		return false;
	/* A Per=process rule's member that runs a helper now (kept in its own
	 * key): a child that runs what a group claims was forked before the
	 * helper ran, or exec'd since; either way the rules judge it. */
	if (k->per == PER_PROCESS && p->origin == ORIGIN_STICKY && claimed(e, pi))
		return false;
	/* Not below an explicit placement, which holds across both (a
	 * session opener's child: engine_judge_child()): a program another
	 * group claims is judged on its own (claimed_elsewhere()). Under
	 * Per=cgroup, a child forked into another cgroup (CLONE_INTO_CGROUP:
	 * no event tells of it) is keyed by its own. */
	if (!engine_origin_explicit(p->origin)) {
		const struct group *g;
		char name[MATCH_KEY_MAX];

		if (claimed_elsewhere(e, p, pi))
			return false;
		if (k->per == PER_CGROUP && k->name[0] == '/' && (g = conf_find_group(e->conf, k->group))) {
			engine_key_name_for(g, t, name, sizeof(name));
			if (strcmp(name, k->name) != 0)
				return false;
		}
	}
	/* A trusted key's cookie is 0, as is every unplaced process's: the
	 * same cookie says nothing of where the child comes from. */
	if ((t->cookie == k->cookie && !k->trusted) || t->cookie == COOKIE_UNKNOWN ||
	    (k->per == PER_PROCESS && !k->cookie))
		return true;
	/* Another cookie, but the parent's program: forked before the parent
	 * was tagged, unless that cookie is an explicit placement's (forked
	 * before the parent was moved by a request). */
	k = table_key_by_cookie(e, t->cookie);
	if (k && k->n_explicit)
		return false;
	if (engine_same_program(p, pi))
		return true;
	/* Another program than the parent's: the child exec'd since the fork
	 * (its exec event is still to come), or the parent did. If the parent
	 * ran what the table says since before the fork and no group claims
	 * the child's program, it is a helper the member ran: it inherited
	 * the parent's placement and keeps it (sticky isolation). A program a
	 * group claims is judged on its own, whichever exec'd. So is a process
	 * whose parent is another: the fork event's child gone, its pid
	 * reused by the time the event was read (or the child reparented). */
	return forked_ns && p->since_ns && p->since_ns < forked_ns && pi->ppid == p->pid && !claimed(e, pi);
}

/* o is a placement whose restore waits for k (named so), and it carries
 * k's cookie: what it forked before the restart carries it too. */
static bool waits_in(const struct task *o, const struct key *k)
{
	return !o->key && o->want && o->cookie == k->cookie && strcmp(o->want, k->id) == 0;
}

struct placer_vote {
	const struct key *k;
	bool waits;           /* a placement may wait for k (restores_wait) */
	struct placers bound; /* the unprivileged placers */
	uid_t placer;         /* the privileged one, while they share one */
	bool seen, mixed;
};

static void vote_placer(void *userdata, void *value)
{
	const struct task *o = value;
	struct placer_vote *v = userdata;

	if (!engine_origin_explicit(o->origin))
		return;
	/* a placement in k, or one whose restore waits for k, carrying k's
	 * cookie (the key took the cookie it had) */
	if (o->key != v->k && !(v->waits && waits_in(o, v->k)))
		return;
	if (o->placer_bound) {
		table_placers_add(&v->bound, o->placer, o->placer_gid);
		return;
	}
	if (v->seen && o->placer != v->placer)
		v->mixed = true;
	v->seen = true;
	v->placer = o->placer;
}

/* Who placed what t inherited unseen from k's explicit members, alive or
 * gone (k->gone, or a grave's record when k went too), or from a
 * placement whose restore waits for k carrying k's cookie: t may descend
 * from any of them, and which one cannot be told. An unprivileged placement
 * binds only what its placer may act on, and the daemon never holds a
 * process for a user the kernel would not let act on it. So where
 * unprivileged placers were among them:
 * - one that may act on t is t's (its placement ends once t is no longer
 *   its process), even where t may be a privileged placer's child: that
 *   user may then undo it, as the kernel lets it change t's cookie anyway;
 * - where none may, t is no process of theirs any more: one of them is
 *   t's, whose placement t then outgrew (keeping its cookie, not held in
 *   it), though t may be a privileged placer's child.
 * Otherwise the privileged placer they share, or root where they differ. */
void engine_inherit_placer(struct engine *e, struct task *t, const struct key *k, const struct placers *gone)
{
	struct placer_vote v = { .k = k, .waits = k && e->restores_wait };
	int pick = -1;

	/* the live members' placers first: two are kept */
	if (k)
		hashmap_foreach(e->tasks, vote_placer, &v);
	table_placers_merge(&v.bound, gone);
	for (unsigned i = 0; i < v.bound.n && pick < 0; i++)
		if (!e->sys->may_act || SYS(e, may_act, t->pid, v.bound.uid[i], v.bound.gid[i]) == 0)
			pick = (int)i;
	if (!v.bound.n) {
		t->placer_bound = false;
		t->placer = v.seen && !v.mixed && !v.bound.privileged ? v.placer : 0;
		t->placer_gid = 0;
		return;
	}
	if (pick < 0)
		pick = 0;
	t->placer_bound = true;
	t->placer = v.bound.uid[pick];
	t->placer_gid = v.bound.gid[pick];
}

static void find_waiting(void *userdata, void *value)
{
	const struct task *o = value;
	struct placer_vote *v = userdata;

	if (engine_origin_explicit(o->origin) && waits_in(o, v->k))
		v->seen = true;
}

/* Does an explicit placement wait for k to be made (its restore failed)?
 * Its children may carry k's cookie, inherited before the restart. */
static bool placement_waits_for(struct engine *e, const struct key *k)
{
	struct placer_vote v = { .k = k };

	if (e->restores_wait)
		hashmap_foreach(e->tasks, find_waiting, &v);
	return v.seen;
}

int engine_join_placement(struct engine *e, struct task *t)
{
	const struct grave *gr;
	struct placers gone;
	struct key *k;

	if (t->unowned || !t->cookie || t->cookie == COOKIE_UNKNOWN)
		return 0; /* below a placement its ancestor outgrew; or none */
	k = table_key_carrying(e, t->cookie);
	gr = k ? NULL : table_grave(e, t->cookie);
	if (k && (k->n_explicit || k->gone.n || placement_waits_for(e, k))) {
		engine_inherit_placer(e, t, k, &k->gone);
		table_set_origin(e, t, ORIGIN_INHERITED);
		table_set_key(e, t, k);
	} else if (gr && (gr->explicit_ || gr->placers.n)) {
		gone = gr->placers; /* the grave goes as t joins */
		if (engine_buried(e, t, ORIGIN_INHERITED) < 0)
			return 0;
		engine_inherit_placer(e, t, NULL, &gone);
	} else
		return 0;
	/* not the placer's own (it ran a setuid program unseen) */
	return engine_placement_outgrown(e, t) ? -1 : 1;
}

/* The key whose cookie t carries, when explicitly placed processes hold (or
 * held, lately) it: t descends from one of them (a double fork whose
 * middle process went unseen, a parent cleared or gone since). */
static bool descends_from_placement(struct engine *e, struct task *t)
{
	if (engine_join_placement(e, t) <= 0)
		return false;
	if (t->key->detached) /* a reload is moving its key: it moves too */
		(void)engine_evaluate(e, t, false);
	else
		t->unsettled = engine_ensure(e, t, false) < 0;
	return true;
}

/* Was t forked before p's last request? By the fork event's time; a scan
 * that meets the child before its fork event goes by the cookie the child
 * inherited: the one p had before the request, and no longer has. */
static bool forked_before_request(const struct task *p, const struct task *t, uint64_t forked_ns)
{
	if (!p || !p->placed_ns)
		return false;
	if (forked_ns)
		return forked_ns < p->placed_ns;
	return t->cookie != COOKIE_UNKNOWN && p->prev.cookie != COOKIE_UNKNOWN && t->cookie == p->prev.cookie &&
	       t->cookie != p->cookie;
}

/* Was p cleared when it forked a child (before its last request, or
 * since)? */
static bool cleared_at_fork(const struct task *p, bool before, uint64_t forked_ns)
{
	if (!before)
		return p->cleared;
	return p->prev.cleared && !(p->prev.uncleared_ns && forked_ns > p->prev.uncleared_ns);
}

/* t carried cookie c, which the daemon has just taken away as never its
 * (copied from a parent not yet corrected): its children forked until now
 * carry c as well, and c is no key's claim on them. */
static void note_stray(struct engine *e, struct task *t, sc_cookie c)
{
	if (c && c != COOKIE_UNKNOWN && t->cookie != c) {
		t->stray_cookie = c;
		t->stray_ns = SYS(e, now_ns);
	}
}

/* Does t carry the stray cookie p had when it forked t? */
static bool inherited_stray(const struct task *p, const struct task *t, uint64_t forked_ns)
{
	/* (dated UINT64_MAX: let go of by its key, UnmatchedExec=clear) */
	return p && forked_ns && p->stray_cookie && p->stray_ns && forked_ns < p->stray_ns &&
	       t->cookie == p->stray_cookie;
}

/* A child of a Per=process rule's member that already runs a helper (no
 * group claims its program, not its parent's) when the daemon reads it:
 * forked at once, it may carry cookie 0, or its parent's. Had the daemon
 * seen the fork first, the child would have had a key of its own in the
 * group and kept it across the helper's exec (UnmatchedExec=keep): it
 * gets that. False where that does not apply or the key cannot be made
 * (the child is then judged on its own). */
static bool per_process_helper(struct engine *e, struct task *t, struct task *p, const struct procinfo *pi,
			       uint64_t forked_ns)
{
	const struct key *k = p ? p->key : NULL;
	const struct group *g;
	char name[MATCH_KEY_MAX];

	if (!k || k->per != PER_PROCESS || (p->origin != ORIGIN_RULE && p->origin != ORIGIN_ADOPTED) || p == t ||
	    e->conf->daemon.unmatched_clear || !forked_ns || !p->since_ns || p->since_ns >= forked_ns ||
	    pi->ppid != p->pid || engine_same_program(p, pi) || claimed(e, pi) ||
	    !(g = conf_find_group(e->conf, k->group)) || g->trusted)
		return false;
	engine_process_key_name(t, name, sizeof(name));
	if (table_join(e, t, g, name, 0) < 0)
		return false;
	table_set_origin(e, t, ORIGIN_STICKY);
	t->unsettled = engine_ensure(e, t, false) < 0;
	return true;
}

/* The kernel copied the cookie the parent had *when it forked*, which may
 * be before the daemon placed it (a server forking workers right after its
 * exec, a shell forking before it was tagged) or before it moved to
 * another key. So the child's cookie is read, never assumed. Carrying the
 * parent's key's cookie, or running what the parent runs, it joins the
 * parent's key and gets its cookie. Otherwise the parent moved on (an exec)
 * after the fork: the child is judged on its own, by its program, its user
 * and the cookie it inherited, so that a helper forked inside one group
 * does not follow its parent out of it. */
void engine_judge_child(struct engine *e, struct task *t, struct task *p, const struct procinfo *pi,
			uint64_t forked_ns)
{
	bool before = forked_before_request(p, t, forked_ns);
	sc_cookie had = t->cookie;

	engine_note_fork_unsure(e, t, p, forked_ns);

	/* What a process that outgrew its placement carries, its children
	 * carry too: the kernel's leftover, no member's. */
	if (p && p->unowned)
		t->unowned = true;
	if (before && p->prev.id && inherit_prev(e, t, p))
		return;
	if (!before && per_process_helper(e, t, p, pi, forked_ns))
		return;
	if (before || !follows(e, t, p, pi, forked_ns)) {
		bool stray = inherited_stray(p, t, forked_ns);

		if (descends_from_placement(e, t))
			return;
		/* a cleared parent's child stays cleared, from before or since */
		if (p)
			t->cleared = cleared_at_fork(p, before, forked_ns);
		/* A cookie its parent was never to have: no member's helper by
		 * it (sticky isolation keeps what a member passed on). */
		if (stray)
			t->released = true;
		(void)engine_evaluate(e, t, false);
		if (stray)
			note_stray(e, t, had);
		return;
	}
	table_set_origin(e, t, child_origin(p->origin));
	t->placer = p->placer;
	t->placer_bound = p->placer_bound;
	t->placer_gid = p->placer_gid;
	t->cleared = p->cleared;
	table_set_key(e, t, p->key);
	/* A session opener's child is the rules', judged again at each exec
	 * (child_origin()): one that runs a program another group claims (a
	 * CLONE_PARENT child of a process the session started, with no exec
	 * event of its own) is judged now, as at an exec. */
	if (p->origin == ORIGIN_SESSION && claimed_elsewhere(e, p, pi)) {
		(void)engine_evaluate(e, t, false);
		return;
	}
	/* The parent's restore waits for its key: so does the child's, which
	 * keeps the cookie it carries meanwhile (none to put on it yet). */
	if (!p->key && p->want) {
		if (!t->want)
			t->want = strdup(p->want);
		t->unsettled = true;
		return;
	}
	/* A parent not yet moved off a stale key (a reload's scan meets the
	 * child first): the child moves now, as the parent will. */
	if (p->key && p->key->detached) {
		(void)engine_evaluate(e, t, false);
		return;
	}
	/* a parent whose placement failed: both are tried again */
	t->unsettled = engine_ensure(e, t, false) < 0 || p->unsettled;
	/* It joined its parent's key carrying another cookie: one copied
	 * before the parent was corrected, never its own. */
	if (p->key && (p->key->cookie || p->key->trusted) && had != p->key->cookie)
		note_stray(e, t, had);
}

/* Started while no daemon ran (its fork and exec unseen), t carries cookie
 * 0 and no group claims it; its parent is a rule's member in a key with a
 * cookie. It was forked before its parent was tagged and has run a helper
 * since: it joins its parent's key, as the event path would have made it
 * (sticky isolation). Not under Per=process (its own key would have been
 * made at the fork, and cannot be known now), nor below an explicit
 * placement (a child with cookie 0 was forked before the request). */
void engine_judge_unseen_helper(struct engine *e, struct task *t, pid_t ppid)
{
	const struct task *p = ppid > 0 ? engine_task(e, ppid) : NULL;
	struct key *k = p ? p->key : NULL;
	struct match_input in = { t->exe, t->comm, t->uid, t->gid, t->cgroup };
	struct match_result m;

	if (!k || !e->conf || !t->exe || e->conf->daemon.unmatched_clear || t->key || t->origin != ORIGIN_NONE ||
	    t->cleared || t->unsettled || t->cookie != 0 || k->trusted || k->detached || k->per == PER_PROCESS ||
	    !k->cookie || p->cleared || engine_origin_explicit(p->origin))
		return;
	/* What a group claims (waiting for a key, say) is that group's. */
	if (claim(e, &in, &m) > 0)
		return;
	table_set_key(e, t, k);
	table_set_origin(e, t, ORIGIN_STICKY);
	t->unsettled = engine_ensure(e, t, false) < 0;
}

/* ---- ghosts ----
 * A child's fork event comes before its parent's exit event, but the
 * parent can leave the table earlier: a scan that no longer finds it, a
 * child gone before it could be read. What the child inherits that the
 * kernel does not show is whether the parent was cleared (cookie 0 either
 * way); the rest it carries (an explicit key's cookie, kept by its grave)
 * or runs (the parent's program, judged by the rules). So only a cleared
 * parent leaves a ghost: the scalars its children are judged by, no key,
 * no strings. */

static struct task *ghost_find(struct engine *e, pid_t pid)
{
	for (unsigned i = 0; e->n_ghosts && i < ENGINE_GHOSTS; i++)
		if (e->ghosts[i].pid == pid && pid > 0)
			return &e->ghosts[i];
	return NULL;
}

static struct task *ghost_slot(struct engine *e, pid_t pid)
{
	struct task *g = ghost_find(e, pid);

	if (!g) {
		g = &e->ghosts[e->next_ghost];
		e->next_ghost = (e->next_ghost + 1) % ENGINE_GHOSTS;
		e->n_ghosts += g->pid == 0;
	}
	*g = (struct task){ .pid = pid, .origin = ORIGIN_NONE, .cookie = COOKIE_UNKNOWN };
	return g;
}

void engine_ghost_note(struct engine *e, const struct task *t)
{
	struct task *g;

	if (!t->cleared && !t->prev.cleared) {
		engine_ghost_forget(e, t->pid); /* an earlier process's, under a reused pid */
		return;
	}
	g = ghost_slot(e, t->pid);
	g->start = t->start;
	g->cookie = t->cookie;
	g->cleared = t->cleared;
	g->prev.cleared = t->prev.cleared;
	g->prev.uncleared_ns = t->prev.uncleared_ns;
	g->prev.cookie = t->prev.cookie;
	g->placed_ns = t->placed_ns;
}

void engine_ghost_child(struct engine *e, pid_t pid, const struct task *p, uint64_t forked_ns)
{
	struct task probe = { .pid = pid, .cookie = COOKIE_UNKNOWN };

	if (p && cleared_at_fork(p, forked_before_request(p, &probe, forked_ns), forked_ns))
		ghost_slot(e, pid)->cleared = true;
	else
		engine_ghost_forget(e, pid);
}

struct task *engine_fork_parent(struct engine *e, pid_t ppid)
{
	struct task *p = engine_task(e, ppid);

	return p ? p : ghost_find(e, ppid);
}

void engine_ghost_forget(struct engine *e, pid_t pid)
{
	struct task *g = ghost_find(e, pid);

	if (g) {
		*g = (struct task){ 0 };
		e->n_ghosts--;
	}
}

void engine_ghosts_clear(struct engine *e)
{
	memset(e->ghosts, 0, sizeof(e->ghosts));
	e->n_ghosts = 0;
}
