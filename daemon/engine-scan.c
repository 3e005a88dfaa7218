// SPDX-License-Identifier: GPL-2.0-or-later
/* Scans of /proc: the start-up adoption (which keeps the cookies groups
 * already share, and the explicit placements a previous run recorded), the
 * periodic reconcile and the resync after lost events. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-internal.h"
#include "log.h"

#define MAX_SCAN 262144

struct thread_check {
	struct engine *e;
	sc_cookie want;
};

static int thread_differs(void *userdata, pid_t tid)
{
	struct thread_check *tc = userdata;
	sc_cookie c;

	return SYS(tc->e, cookie_get, tid, &c) == 0 && c != tc->want ? -EEXIST : 0;
}

/* Every thread of t must carry the cookie policy wants; a thread that
 * changed its own (CREATE, SHARE_FROM an untagged task) is pulled back. */
static void verify_threads(struct engine *e, struct task *t)
{
	struct thread_check tc = { e, t->key ? t->key->cookie : 0 };
	char rule[ENGINE_RULE_MAX];

	if (t->origin == ORIGIN_FOREIGN || e->smt_off || (t->key && t->key->per == PER_PROCESS && !tc.want))
		return;
	if (SYS(e, for_each_thread, t->pid, thread_differs, &tc) != -EEXIST)
		return;
	if (engine_placement_outgrown(e, t)) { /* no longer the placer's to repair */
		(void)engine_evaluate(e, t, false);
		return;
	}
	if (!t->key && t->origin == ORIGIN_NONE && !e->conf->daemon.clear_foreign) {
		if (SYS(e, cookie_get, t->pid, &t->cookie) < 0)
			t->cookie = COOKIE_UNKNOWN;
		table_set_origin(e, t, ORIGIN_FOREIGN); /* someone else tagged it: not ours to undo */
		e->c.foreign++;
		return;
	}
	log_task_rule(LOG_INFO, t->pid, t->key ? t->key->group : NULL, engine_rule_of(e, t->key, rule, sizeof(rule)),
		      "PID %d (%s) left its cookie: repairing", t->pid, t->comm);
	t->cookie = COOKIE_UNKNOWN; /* force the assignment */
	t->unsettled = engine_ensure(e, t, true) < 0;
}

struct pending {
	struct task *t;
	pid_t ppid;
	const struct group *g; /* NULL: matched nothing */
	char key[MATCH_KEY_MAX];
};

/* Ancestors examined ahead of a child, each with a higher pid than its
 * own child: every level is a wrap of the pid space, so a few do. */
#define SCAN_AHEAD_MAX 8

struct scan {
	struct engine *e;
	bool adopt, verify, all;
	unsigned depth; /* parents examined ahead of their children, nested */
	unsigned unexamined; /* live processes it could not read */
	struct pending *pending; /* adopt only */
	size_t n_pending, max_pending;
};

static int scan_one(void *userdata, pid_t pid)
{
	struct scan *s = userdata;
	struct engine *e = s->e;
	struct procinfo pi;
	struct task *t;
	bool changed;
	int r;

	if (pid == e->self)
		return 0;
	r = engine_examine(e, pid, &pi, &t, &changed);
	if (r == -ECHILD)
		return 0;
	if (r < 0) {
		/* Not examined is not gone: keep what we knew of a live task,
		 * which may be out of date (events lost): no child of it is
		 * copied from it, nor from its program's processes (a CLONE_PARENT
		 * fork of it names its parent). */
		if (r != -ESRCH && (t = engine_task(e, pid))) {
			t->generation = e->generation;
			table_ids_unknown(t);
		}
		s->unexamined += r != -ESRCH;
		engine_note_unexamined(e, pid, r);
		return 0;
	}
	t->generation = e->generation;
	/* New to the table between a fork and its event: the fork's rule,
	 * by its parent as it is now. The walk goes by pid, and a parent with
	 * a higher one (pids wrapped) not yet examined by it may have exec'd
	 * since the table's read of it: it is examined first. */
	if (r > 0 && !s->adopt) {
		struct task *p = engine_task(e, pi.ppid);

		t->met_generation = e->generation;
		if (p && p->generation != e->generation && pi.ppid != pid && s->depth < SCAN_AHEAD_MAX) {
			s->depth++;
			(void)scan_one(userdata, pi.ppid);
			s->depth--;
			p = engine_task(e, pi.ppid);
		}
		t->scan_ppid = pi.ppid;
		t->scan_unsure = e->resyncing;
		t->scan_cookie = t->cookie;
		engine_judge_child(e, t, p, &pi, 0);
		/* After a loss its fork and exec were among the lost, likely:
		 * a helper its parent ran before the parent was tagged joins
		 * the parent's key, as on the event path (sticky isolation),
		 * where the parent too is new to the table (started during
		 * the loss: what it runs now, it ran when it forked, as far as
		 * anyone can tell). A parent the table knew was judged as it
		 * forked, or the child would not be new: a job it forked
		 * before it ran a member's program, a child it forked while
		 * cleared, stay where the rules put them. */
		if (e->resyncing && !t->key && t->origin == ORIGIN_NONE && p && p->met_generation == e->generation)
			engine_judge_unseen_helper(e, t, pi.ppid);
		t->scan_followed = p && p->key && p->key == t->key;
		if (s->all) { /* a reload: judged by the new rules too */
			t->cleared = false;
			(void)engine_evaluate(e, t, false);
		}
		return 0;
	}
	if (s->adopt) {
		struct pending *p;
		struct match_input in = { t->exe, t->comm, t->uid, t->gid, t->cgroup };
		struct match_result m;

		/* What it runs, it ran when the walk had read it: a child it
		 * forks from then on, before the adoption tags it and past the
		 * walk's listing, is a helper it ran (its fork event says
		 * when). Dated at the read's end, not from its start: an exec
		 * during the read shows in what was read, and a child the old
		 * program forked before that exec is no helper of the new. */
		if (!t->since_ns) {
			t->since_ns = t->read_end_ns;
			t->since_walk = true;
		}
		/* A process forked since the subscription has its fork event
		 * still to come, and is judged again by it, as after a rescan
		 * (its parent may run a member's program by then, read before
		 * it: a helper the member forked). Which those are is not told
		 * by a start time (a clock tick): every process is marked, its
		 * events taken as though some were lost (an event older than
		 * this read may be the process's own, its fork long before). */
		t->scan_ppid = pi.ppid;
		t->scan_unsure = true;
		t->scan_adopt = true;
		t->scan_cookie = t->cookie;

		if (s->n_pending >= s->max_pending)
			return 0;
		p = &s->pending[s->n_pending++];
		p->t = t;
		p->ppid = pi.ppid;
		p->g = rules_match(e->conf, &in, &m) > 0 ? m.group : NULL;
		if (p->g) {
			engine_match_key(t, &m);
			memcpy(p->key, m.key, sizeof(p->key));
		}
		return 0;
	}
	if (s->all && t->recorded && engine_origin_explicit(t->origin))
		e->state_lazy = true; /* its key may be renamed */
	if (s->all)
		t->cleared = false; /* a reload judges cleared processes again */
	if (s->all || changed || t->unsettled || (t->key && t->key->detached) ||
	    t->cookie != (t->key ? t->key->cookie : 0))
		(void)engine_evaluate(e, t, !changed);
	else if (s->verify)
		verify_threads(e, t);
	return 0;
}

static void free_value(void *userdata, void *value)
{
	(void)userdata;
	free(value);
}

struct vote {
	sc_cookie cookie[8];
	unsigned count[8];
	pid_t tid[8];
};

/* Restored from the state file before the vote: an explicit placement,
 * or a task left alone because its group is gone. */
static bool restored(const struct task *t)
{
	return ((engine_origin_explicit(t->origin) || t->origin == ORIGIN_STICKY) && (t->key || t->want)) ||
	       t->origin == ORIGIN_FOREIGN;
}

/* On start-up, each key takes the cookie most of its tasks already share,
 * so a restart moves nobody who was placed correctly. */
static void adopt(struct engine *e, struct pending *p, size_t n)
{
	struct hashmap *votes = hashmap_new(true);
	char id[MATCH_KEY_MAX + 80];

	for (size_t i = 0; votes && i < n; i++) {
		struct vote *v;
		size_t j;

		if (!p[i].g || p[i].g->trusted || p[i].t->cookie == 0 || restored(p[i].t))
			continue;
		snprintf(id, sizeof(id), "%s/%s", p[i].g->name, p[i].key);
		v = hashmap_get_str(votes, id);
		if (!v && (!(v = calloc(1, sizeof(*v))) || hashmap_put_str(votes, id, v) < 0)) {
			free(v);
			continue;
		}
		for (j = 0; j < 8 && v->count[j] && v->cookie[j] != p[i].t->cookie; j++)
			;
		if (j < 8) {
			v->cookie[j] = p[i].t->cookie;
			v->tid[j] = p[i].t->pid;
			v->count[j]++;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct task *t = p[i].t;
		struct vote *v;
		struct key *k;
		unsigned best = 0;

		if (restored(t) || !p[i].g)
			continue;
		snprintf(id, sizeof(id), "%s/%s", p[i].g->name, p[i].key);
		v = votes ? hashmap_get_str(votes, id) : NULL;
		for (unsigned j = 1; v && j < 8; j++)
			if (v->count[j] > v->count[best])
				best = j;
		if (table_join(e, t, p[i].g, p[i].key, v ? v->tid[best] : 0) < 0) {
			/* Tried again each tick, with the cookie it carries now. */
			free(t->want);
			if (asprintf(&t->want, "%s/%s", p[i].g->name, p[i].key) < 0)
				t->want = NULL;
			table_set_origin(e, t, ORIGIN_ADOPTED);
			t->unsettled = true;
			continue;
		}
		k = t->key;
		if (k->per == PER_PROCESS && k->cookie == 0 && t->cookie != 0 && t->cookie != COOKIE_UNKNOWN)
			table_key_cookie(e, k, t->cookie);
		table_set_origin(e, t, t->cookie == k->cookie ? ORIGIN_ADOPTED : ORIGIN_RULE);
		t->unsettled = engine_ensure(e, t, false) < 0;
	}
	/* Then what no group claims: carrying one of the keys' cookies, it is
	 * a member by inheritance (a helper a member ran); started while no
	 * daemon ran, under a member, a helper that member ran before it was
	 * tagged; else foreign or none. */
	for (size_t i = 0; i < n; i++)
		if (!restored(p[i].t) && !p[i].g) {
			struct task *parent;

			(void)engine_evaluate(e, p[i].t, false);
			if (!e->seen_known || p[i].t->start > e->seen_until)
				engine_judge_unseen_helper(e, p[i].t, p[i].ppid);
			parent = engine_task(e, p[i].ppid);
			p[i].t->scan_followed = p[i].t->key && parent && parent->key == p[i].t->key;
		}
	if (votes) {
		hashmap_foreach(votes, free_value, NULL);
		hashmap_free(votes);
	}
}


/* A child forked after the start-up walk began (the walk did not list it)
 * and before the walk's read of its parent ended, which dates what the
 * parent runs (since_walk): an exec of the parent stamped before that read
 * may still be queued, and the child, forked before it, ran the parent's
 * old program; none queued, the parent ran what it runs since the walk
 * began, and the child is its helper (sticky isolation), as the event path
 * would have judged it. Which it is, the events taken once the queue has
 * been emptied tell (engine_caught_up()). */
void engine_note_fork_unsure(struct engine *e, const struct task *t, const struct task *p, uint64_t forked_ns)
{
	struct fork_unsure *f;

	if (!p || !forked_ns || !p->since_walk || e->walk_settled || forked_ns < e->walk_start_ns ||
	    forked_ns >= p->since_ns)
		return;
	if (e->n_forks_unsure == e->max_forks_unsure) {
		size_t n = e->max_forks_unsure ? 2 * e->max_forks_unsure : 64;

		f = n <= ENGINE_FORKS_UNSURE ? reallocarray(e->forks_unsure, n, sizeof(*f)) : NULL;
		if (!f) {
			e->forks_unsure_dropped++;
			return;
		}
		e->forks_unsure = f;
		e->max_forks_unsure = n;
	}
	f = &e->forks_unsure[e->n_forks_unsure++];
	*f = (struct fork_unsure){ .pid = t->pid, .ppid = p->pid, .start = t->start, .pstart = p->start,
				   .forked_ns = forked_ns };
}

static void forks_unsure_forget(struct engine *e)
{
	free(e->forks_unsure);
	e->forks_unsure = NULL;
	e->n_forks_unsure = e->max_forks_unsure = 0;
}

bool engine_awaits_empty_queue(const struct engine *e)
{
	return e->adopted && !e->walk_settled;
}

/* t, which p forked at forked_ns and which was judged on its own then,
 * judged again as at that fork; where it joins p's key, what it runs now
 * is judged as at its exec, taken before (a helper no group claims:
 * sticky). Not one a request placed or cleared, nor one that has been in
 * a key (what let it go, a reload, a clear, stands). True where it is in
 * a key after. */
static bool judge_again_at_fork(struct engine *e, struct task *t, struct task *p, uint64_t forked_ns)
{
	struct task *again;
	struct procinfo pi;
	bool changed;

	if (t->keyed || t->origin != ORIGIN_NONE || t->cleared || t->placed_ns || t->released || t->cookie != 0 ||
	    engine_examine(e, t->pid, &pi, &again, &changed) != 0 || again != t)
		return false;
	engine_judge_child(e, t, p, &pi, forked_ns);
	if (t->key)
		(void)engine_evaluate(e, t, false);
	return t->key != NULL;
}

struct helper_children {
	struct engine *e;
	struct task *parent;
	pid_t *queue; /* helpers joined, whose children are still to judge */
	size_t n, max;
};

/* A child the helper forked (its fork event says so) before it joined its
 * key carries cookie 0 from it, and was judged by a parent in no key: it
 * is judged again as at its fork, and what joins, its own children too. */
static int take_helper_child(void *userdata, pid_t pid)
{
	struct helper_children *hc = userdata;
	struct task *g = engine_task(hc->e, pid);

	if (!g || g->fork_ppid != hc->parent->pid || !g->fork_ns || g->start < hc->parent->start ||
	    !judge_again_at_fork(hc->e, g, hc->parent, g->fork_ns))
		return 0;
	if (hc->n == hc->max) {
		size_t n = hc->max ? 2 * hc->max : 16;
		pid_t *q = reallocarray(hc->queue, n, sizeof(*q));

		if (!q)
			return 0;
		hc->queue = q;
		hc->max = n;
	}
	hc->queue[hc->n++] = pid;
	return 0;
}

/* t joined its parent's key at the caught-up: the children it forked
 * meanwhile, and theirs. */
static void helper_joined(struct engine *e, struct task *t)
{
	struct helper_children hc = { .e = e, .parent = t };

	if (!e->sys->for_each_child)
		return;
	(void)SYS(e, for_each_child, t->pid, take_helper_child, &hc);
	while (hc.n > 0) {
		hc.parent = engine_task(e, hc.queue[--hc.n]);
		if (hc.parent && hc.parent->key)
			(void)SYS(e, for_each_child, hc.parent->pid, take_helper_child, &hc);
	}
	free(hc.queue);
}

void engine_caught_up(struct engine *e)
{
	if (!e->adopted || e->walk_settled)
		return;
	e->walk_settled = true;
	if (e->forks_unsure_dropped)
		log_warning("%lu processes forked during the start-up scan were judged without waiting for "
			    "their parents' events (more than %u): a helper among them may stay at cookie 0 until "
			    "it executes a program again",
			    e->forks_unsure_dropped, ENGINE_FORKS_UNSURE);
	/* Under UnmatchedExec=clear a helper returns to 0 at its exec, which
	 * was taken already: nothing to join. */
	for (size_t i = 0; i < e->n_forks_unsure && !e->conf->daemon.unmatched_clear; i++) {
		const struct fork_unsure *f = &e->forks_unsure[i];
		struct task *t = engine_task(e, f->pid), *p = engine_task(e, f->ppid);

		if (!t || t->start != f->start || !p || p->start != f->pstart)
			continue;
		/* No exec or id change of it came, stamped before the walk's
		 * read: it ran its program since the walk began. */
		if (p->since_walk) {
			p->since_ns = e->walk_start_ns;
			p->since_walk = false;
		}
		/* Again, by the parent's program as it is now dated. */
		if (judge_again_at_fork(e, t, p, f->forked_ns))
			helper_joined(e, t);
	}
	forks_unsure_forget(e);
}

/* What failed while the walk had not yet read the rest (a Per=process
 * key whose members' cookies were not yet known) gets a second try. */
void engine_retry_unsettled(struct engine *e)
{
	size_t n;
	void **v = engine_snapshot(e->tasks, &n);
	bool hold = true;

	for (size_t i = 0; i < n; i++) {
		struct task *t = v[i];

		/* An explicit placement's key whose holder could not be
		 * taken at the placement or the restore: again, until it is;
		 * after a failure (threads short), at the next tick. */
		if (hold && !t->unsettled && t->key && !t->key->holder && engine_origin_explicit(t->origin)) {
			int r = table_key_hold_from(e, t->key, t);

			hold = r >= 0 || r == -ESRCH;
		}
		if (!t->unsettled)
			continue;
		/* What the table says of it is not all one read's (the read
		 * failed part way): it is read again, not judged by that. */
		if (t->stale) {
			(void)engine_reread(e, t);
			continue;
		}
		if (t->cookie == COOKIE_UNKNOWN && SYS(e, cookie_get, t->pid, &t->cookie) < 0)
			t->cookie = COOKIE_UNKNOWN;
		(void)engine_evaluate(e, t, false);
	}
	free(v);
}

/* Tasks not seen by the last scan exited without us hearing of it. */
static void drop_unseen(struct engine *e)
{
	size_t n;
	void **v = engine_snapshot(e->tasks, &n);

	for (size_t i = 0; i < n; i++)
		if (((struct task *)v[i])->generation != e->generation) {
			engine_ghost_note(e, v[i]); /* its children's forks may be queued */
			table_drop_ended(e, v[i]);
		}
	free(v);
}

static int scan(struct engine *e, bool adopt_cookies, bool verify, bool all)
{
	struct scan s = { .e = e, .adopt = adopt_cookies, .verify = verify, .all = all };
	int r;

	e->rescan = false;
	if (e->smt_off && SYS(e, smt_active) == 1) {
		e->smt_off = false;
		log_notice("SMT is back on: reconciling");
	}
	e->generation++;
	if (adopt_cookies) {
		/* The walk lists the pids first (a readdir of /proc takes
		 * them by the page): a process forked after this is met by
		 * its fork event, not by the walk. */
		e->walk_start_ns = SYS(e, now_ns);
		s.max_pending = MAX_SCAN;
		s.pending = calloc(s.max_pending, sizeof(*s.pending));
		if (!s.pending)
			return -ENOMEM;
	}
	r = SYS(e, for_each_pid, scan_one, &s);
	if (r >= 0)
		drop_unseen(e);
	if (!adopt_cookies)
		engine_retry_unsettled(e);
	if (adopt_cookies) {
		e->watched_ns = SYS(e, now_ns); /* the walk saw what had started by now */
		engine_state_restore(e);
		adopt(e, s.pending, s.n_pending);
		e->adopted = true;
	}
	/* Every process was met and judged: who placed the members that
	 * left keys before the walk began is asked of none to come. Not so
	 * where one could not be read: it is met again by the next scan. */
	if (r >= 0 && !s.unexamined)
		table_placers_expire(e);
	free(s.pending);
	if (verify)
		e->c.reconciles++;
	return r;
}

int engine_scan(struct engine *e, bool adopt_cookies, bool verify)
{
	return scan(e, adopt_cookies, verify, false);
}

int engine_scan_all(struct engine *e)
{
	return scan(e, false, false, true);
}

/* What events lost may leave untold. */
static void mark_loss(struct engine *e)
{
	size_t n;
	void **v;

	engine_ghosts_clear(e); /* their exit events may be among the lost */
	/* A parent's exec may be among the lost: what the walk dated cannot
	 * be told from what it ran since; the children forked meanwhile stay
	 * as judged at their forks. */
	forks_unsure_forget(e);
	e->walk_settled = e->adopted;
	/* Fork events still awaited may be among the lost too. */
	v = engine_snapshot(e->tasks, &n);
	for (size_t i = 0; i < n; i++)
		((struct task *)v[i])->scan_unsure = true;
	free(v);
}

void engine_note_loss(struct engine *e)
{
	e->c.lost++;
	if (e->loss_unscanned)
		return; /* marked since the last rescan began: it is still to come */
	e->loss_unscanned = true;
	mark_loss(e);
}

#define RESYNC_LOG_NS 60000000000ull

int engine_resync(struct engine *e)
{
	uint64_t now;
	int r;

	if (!e->loss_unscanned)
		e->c.lost++; /* not noted before: this is its count */
	mark_loss(e); /* again: more may have gone missing since it was noted */
	e->loss_unscanned = false; /* a loss from now on needs a rescan of its own */
	e->c.resyncs++;
	/* Said at the first, then once a minute at most: losses that go on
	 * (a load the buffer cannot hold, numbers missing) rescan every
	 * second or more often, and status counts them. */
	now = SYS(e, now_ns);
	e->resyncs_unlogged++;
	if (!e->resync_logged_ns || now - e->resync_logged_ns >= RESYNC_LOG_NS) {
		if (e->resyncs_unlogged > 1)
			log_notice("Events were lost: rescanning every process (%llu rescans since this was last "
				   "said)",
				   e->resyncs_unlogged);
		else
			log_notice("Events were lost: rescanning every process");
		e->resync_logged_ns = now;
		e->resyncs_unlogged = 0;
	}
	e->resyncing = true;
	r = engine_scan(e, false, true);
	e->resyncing = false;
	return r;
}
