// SPDX-License-Identifier: GPL-2.0-or-later
/* What a new process inherits. The kernel copied to a child the cookie its
 * parent had when it forked, which may be before the daemon placed the
 * parent, or before the parent moved on (an exec claimed by another group,
 * a request): the child's own cookie, read from the kernel, says which. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Does the child still run what its parent runs (no exec or uid change
 * on either side since the fork, as far as can be told)? */
static bool same_program(const struct task *p, const struct procinfo *pi)
{
	return pi->uid == p->uid && pi->gid == p->gid && p->exe && strcmp(pi->exe, p->exe) == 0;
}

/* A child forked before its parent's last request inherited what the
 * parent was then: an explicit placement it replaced. */
static bool inherit_prev(struct engine *e, struct task *t, const struct task *p)
{
	const char *slash = strchr(p->prev, '/');
	char group[MATCH_KEY_MAX];
	const struct group *g;

	snprintf(group, sizeof(group), "%.*s", slash ? (int)(slash - p->prev) : 0, p->prev);
	g = slash ? conf_find_group(e->conf, group) : NULL;
	if (!g || table_join(e, t, g, slash + 1, !g->trusted && t->cookie && t->cookie != COOKIE_UNKNOWN ? t->pid : 0) < 0)
		return false;
	if (t->key->per == PER_PROCESS && t->key->cookie == 0 && t->cookie && t->cookie != COOKIE_UNKNOWN)
		table_key_cookie(e, t->key, t->cookie);
	table_set_origin(e, t, p->prev_session ? child_origin(ORIGIN_SESSION) : ORIGIN_INHERITED);
	t->placer = p->placer;
	t->unsettled = engine_ensure(e, t, false) < 0;
	return true;
}

/* Does t run on what it inherited from p: p's key's cookie (or one not
 * known yet), or p's very program? Then it joins p's key. */
static bool follows(struct engine *e, const struct task *t, const struct task *p, const struct procinfo *pi)
{
	const struct key *k = p ? p->key : NULL;

	if (!k && p && p->want)
		return true; /* the parent's restore is pending: so is the child's */
	if (!k || p == t || (p->stale && !engine_origin_explicit(p->origin)))
		return false;
	if (k->per == PER_PROCESS && (p->origin == ORIGIN_RULE || p->origin == ORIGIN_ADOPTED))
		return false; /* a cookie per process */
	if (t->cookie == k->cookie || t->cookie == COOKIE_UNKNOWN || (k->per == PER_PROCESS && !k->cookie))
		return true;
	/* Another cookie, but the parent's program: forked before the parent
	 * was tagged, unless that cookie is an explicit placement's (forked
	 * before the parent was moved by a request). */
	k = table_key_by_cookie(e, t->cookie);
	return !(k && k->n_explicit) && same_program(p, pi);
}

/* The key whose cookie t carries, when explicitly placed processes hold (or
 * held, lately) it: t descends from one of them (a double fork whose
 * middle process went unseen, a parent cleared or gone since). */
static bool descends_from_placement(struct engine *e, struct task *t)
{
	const struct grave *gr = table_grave(e, t->cookie);
	struct key *k = table_key_carrying(e, t->cookie);

	if (k && k->n_explicit) {
		table_set_origin(e, t, ORIGIN_INHERITED);
		table_set_key(e, t, k);
	} else if (k || !gr || !gr->explicit_ || engine_buried(e, t, ORIGIN_INHERITED) < 0)
		return false;
	if (t->key->detached) /* a reload is moving its key: it moves too */
		(void)engine_evaluate(e, t, false);
	else
		t->unsettled = engine_ensure(e, t, false) < 0;
	return true;
}

/* Was t forked before p's last request? By the fork event's time (a scan
 * that meets the child first cannot tell). */
static bool forked_before_request(const struct task *p, uint64_t forked_ns)
{
	if (!p || !p->placed_ns)
		return false;
	return forked_ns && forked_ns < p->placed_ns;
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
	bool before = forked_before_request(p, forked_ns);

	if (before && p->prev && inherit_prev(e, t, p))
		return;
	if (before || !follows(e, t, p, pi)) {
		if (descends_from_placement(e, t))
			return;
		/* a cleared parent's child stays cleared, from before or since */
		if (p)
			t->cleared = before ? p->prev_cleared : p->cleared;
		(void)engine_evaluate(e, t, false);
		return;
	}
	table_set_origin(e, t, child_origin(p->origin));
	t->placer = p->placer;
	t->cleared = p->cleared;
	table_set_key(e, t, p->key);
	if (!p->key && p->want && !t->want) {
		t->want = strdup(p->want);
		t->unsettled = true;
	}
	/* A parent not yet moved off a stale key (a reload's scan meets the
	 * child first): the child moves now, as the parent will. */
	if (p->key && p->key->detached) {
		(void)engine_evaluate(e, t, false);
		return;
	}
	/* a parent whose placement failed: both are tried again */
	t->unsettled = engine_ensure(e, t, false) < 0 || p->unsettled;
}

