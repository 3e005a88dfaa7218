// SPDX-License-Identifier: GPL-2.0-or-later
/* The task table: the one place that inserts, updates and removes tasks,
 * makes and releases keys, and counts each key's members. Invariants kept
 * here and nowhere else:
 *  - a pid names at most one task; a reused pid replaces the old process
 *    only through table_drop(), which releases its key reference;
 *  - key->n_tasks is the number of tasks whose ->key is that key;
 *  - a key lives exactly as long as it has members: the last one to leave
 *    releases it (and its holder), so nothing ever points at a freed key
 *    and MaxKeys counts live keys only;
 *  - a stale key (reload) leaves the name map at once but is freed only
 *    with its last member;
 *  - a task's ->exe is its ->program's path, set and cleared with it (both
 *    NULL when no entry could be made), program->tasks counts the tasks it
 *    is the entry of, and an entry lives exactly as long as it has tasks. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-internal.h"
#include "log.h"

static void key_free(struct engine *e, struct key *k)
{
	if (!k)
		return;
	if (k->holder)
		SYS(e, holder_free, k->holder);
	free(k->id);
	free(k->group);
	free(k->name);
	free(k);
}

static void grave_clear(struct engine *e, struct grave *g)
{
	if (g->holder)
		SYS(e, holder_free, g->holder);
	free(g->id);
	*g = (struct grave){};
}

/* Only with a holder: without one, nothing keeps the cookie's value from
 * being reused by someone else's new cookie. The key's moves here; a
 * Per=process key's last member, moving on alive, still carries the cookie
 * and lends it to a new one. */
static void bury(struct engine *e, struct key *k, const struct task *last, bool last_explicit)
{
	struct grave *g = &e->graves[e->next_grave];
	char *id;

	if (!k->cookie || k->cookie == COOKIE_UNKNOWN || k->trusted)
		return;
	if (!k->holder && last && !e->hazard && SYS(e, holder_new, last->pid, &k->holder) == 0 &&
	    SYS(e, holder_cookie, k->holder) != k->cookie) {
		SYS(e, holder_free, k->holder);
		k->holder = NULL;
	}
	if (!k->holder || !(id = strdup(k->id)))
		return;
	grave_clear(e, g);
	/* Explicit: whoever carries the cookie descends from a placement. */
	*g = (struct grave){ k->cookie, id, k->n_explicit > 0 || (last_explicit && !k->ruled), k->gone, k->holder,
			     e->ticks + ENGINE_GRAVE_TICKS };
	k->holder = NULL;
	e->next_grave = (e->next_grave + 1) % ENGINE_GRAVES;
}

void table_graves_expire(struct engine *e)
{
	for (unsigned i = 0; i < ENGINE_GRAVES; i++)
		if (e->graves[i].id && e->graves[i].expires <= e->ticks)
			grave_clear(e, &e->graves[i]);
}

const struct grave *table_grave(const struct engine *e, sc_cookie c)
{
	for (unsigned i = 0; c && c != COOKIE_UNKNOWN && i < ENGINE_GRAVES; i++)
		if (e->graves[i].cookie == c)
			return &e->graves[i];
	return NULL;
}

/* How many live keys were made for uid's processes. Root's are not
 * counted; a detached key no longer is (as for MaxKeys). */
static uintptr_t key_share(const struct engine *e, uid_t uid)
{
	return (uintptr_t)hashmap_get_u64(e->key_shares, uid);
}

/* A user's share of MaxKeys: a quarter of what is not kept for root, so
 * that one user's processes (a Per=process rule, cgroups it may make, its
 * requests) cannot use up the keys the rules need for other users. */
static uintptr_t key_share_max(const struct engine *e)
{
	unsigned open = e->conf->daemon.max_keys - e->conf->daemon.max_keys / 16;

	return open / 4 ? open / 4 : 1;
}

static int key_share_add(struct engine *e, struct key *k)
{
	uintptr_t n = key_share(e, k->creator);
	int r;

	if (k->creator == 0)
		return 0;
	r = hashmap_put_u64(e->key_shares, k->creator, (void *)(n + 1));
	if (r < 0)
		return r;
	k->counted = true;
	return 0;
}

static void key_share_drop(struct engine *e, struct key *k)
{
	uintptr_t n = key_share(e, k->creator);

	if (!k->counted)
		return;
	k->counted = false;
	if (n > 1)
		(void)hashmap_put_u64(e->key_shares, k->creator, (void *)(n - 1)); /* replaces: no allocation */
	else
		hashmap_remove_u64(e->key_shares, k->creator);
}

static void key_release(struct engine *e, struct key *k, const struct task *last, bool last_explicit)
{
	bury(e, k, last, last_explicit);
	key_share_drop(e, k);
	if (!k->detached)
		hashmap_remove_str(e->keys, k->id);
	if (k->cookie && hashmap_get_u64(e->by_cookie, k->cookie) == k)
		hashmap_remove_u64(e->by_cookie, k->cookie);
	key_free(e, k);
	e->c.keys_released++;
}

void table_key_cookie(struct engine *e, struct key *k, sc_cookie c)
{
	struct key *other = table_key_by_cookie(e, c);

	if (other && other != k)
		return; /* another key's cookie: k makes its own */
	/* A value now in use again names the new key, not the buried one. */
	for (unsigned i = 0; c && i < ENGINE_GRAVES; i++)
		if (e->graves[i].cookie == c) {
			/* who placed its carriers is on the key's record */
			table_placers_merge(&k->gone, &e->graves[i].placers);
			k->gone_generation = e->generation;
			grave_clear(e, &e->graves[i]);
		}
	if (k->cookie && hashmap_get_u64(e->by_cookie, k->cookie) == k)
		hashmap_remove_u64(e->by_cookie, k->cookie);
	k->cookie = c;
	/* Out of memory only loses a look-up that scans use to recognise
	 * members by their cookie. */
	if (c && c != COOKIE_UNKNOWN)
		(void)hashmap_put_u64(e->by_cookie, c, k);
}

struct key *table_key_by_cookie(const struct engine *e, sc_cookie c)
{
	return c && c != COOKIE_UNKNOWN ? hashmap_get_u64(e->by_cookie, c) : NULL;
}

struct key *table_key_carrying(struct engine *e, sc_cookie c)
{
	struct key *k = table_key_by_cookie(e, c);
	size_t n;
	void **v;
	bool alive = false;

	if (!k || k->holder)
		return k;
	/* A Per=process key: alive while a member carries its cookie. */
	v = engine_snapshot(e->tasks, &n);
	for (size_t i = 0; !alive && i < n; i++) {
		struct task *t = v[i];
		sc_cookie tc;

		alive = t->key == k && SYS(e, cookie_get, t->pid, &tc) == 0 && tc == c;
	}
	free(v);
	return alive ? k : NULL;
}

/* Members that tie a key to the policy by themselves: a rule's match or an
 * explicit placement. A key with members but none of these (only sticky
 * ones) would not be found again after a restart: the state file records
 * such members, so the file is rewritten when a key becomes one. */
static bool anchors(enum origin o)
{
	return o == ORIGIN_RULE || o == ORIGIN_ADOPTED || engine_origin_explicit(o);
}

static void unanchor(struct engine *e, struct key *k)
{
	if (--k->n_anchored == 0 && k->n_tasks > 1)
		e->state_lazy = true;
}

void table_placers_add(struct placers *p, uid_t uid, gid_t gid)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->uid[i] == uid && p->gid[i] == gid)
			return;
	if (p->n == 2)
		return; /* several already: two distinct are kept */
	p->uid[p->n] = uid;
	p->gid[p->n] = gid;
	p->n++;
}

void table_placers_merge(struct placers *to, const struct placers *from)
{
	for (unsigned i = 0; i < from->n; i++)
		table_placers_add(to, from->uid[i], from->gid[i]);
	to->privileged |= from->privileged;
}

void table_placer_leaves(struct engine *e, struct key *k, const struct task *t)
{
	if (!engine_origin_explicit(t->origin))
		return;
	if (t->placer_bound)
		table_placers_add(&k->gone, t->placer, t->placer_gid);
	else
		k->gone.privileged = true;
	k->gone_generation = e->generation;
}

/* Stamped as older than the scan running: the one that restores it is
 * the one that meets every process it could concern. */
static void placers_take(struct engine *e, struct key *k, const struct placers *p)
{
	table_placers_merge(&k->gone, p);
	k->gone_generation = e->generation ? e->generation - 1 : 0;
}

/* Out of memory loses a record: judged without it, as after a crash. */
void table_placers_restored(struct engine *e, const char *id, const struct placers *p)
{
	struct key *k = hashmap_get_str(e->keys, id);
	struct pending_placers *q;

	if (k) {
		placers_take(e, k, p);
		return;
	}
	if (!e->pending_placers && !(e->pending_placers = hashmap_new(true)))
		return;
	q = hashmap_get_str(e->pending_placers, id);
	if (q) {
		table_placers_merge(&q->placers, p);
		return;
	}
	q = malloc(sizeof(*q) + strlen(id) + 1);
	if (!q)
		return;
	q->placers = *p;
	strcpy(q->id, id);
	if (hashmap_put_str(e->pending_placers, id, q) < 0)
		free(q);
}

static void placers_pending_for(struct engine *e, struct key *k)
{
	struct pending_placers *q = e->pending_placers ? hashmap_remove_str(e->pending_placers, k->id) : NULL;

	if (q)
		placers_take(e, k, &q->placers);
	free(q);
}

static void free_value(void *userdata, void *value)
{
	(void)userdata;
	free(value);
}

void table_placers_pending_free(struct engine *e)
{
	if (e->pending_placers)
		hashmap_foreach(e->pending_placers, free_value, NULL);
	e->pending_placers = hashmap_free(e->pending_placers);
}

/* A task whose cookie is not known (SMT off, a failed read): it was not
 * judged by what it carries. The cookies processes that outgrew a
 * placement carry go in unowned: what they fork is judged by the record
 * of that key as long as they live. wanted: the "group/key" of each
 * placement still waiting for its key to be made (a pending record of
 * that key waits with it). */
static bool unjudged(const struct engine *e, struct hashmap *unowned, struct hashmap *wanted)
{
	size_t n;
	void **v = engine_snapshot(e->tasks, &n);
	bool any = !v;

	for (size_t i = 0; !any && i < n; i++) {
		const struct task *t = v[i];

		any = t->cookie == COOKIE_UNKNOWN;
		if (!any && t->want && !t->key)
			any = hashmap_put_str(wanted, t->want, (void *)t) < 0;
		if (!any && t->unowned && t->cookie)
			any = hashmap_put_u64(unowned, t->cookie, (void *)t) < 0;
	}
	free(v);
	return any;
}

/* Pending records whose key no placement waits for any more. */
static void pending_expire(struct engine *e, const struct hashmap *wanted)
{
	size_t n;
	void **v = e->pending_placers ? engine_snapshot(e->pending_placers, &n) : NULL;

	for (size_t i = 0; v && i < n; i++) {
		struct pending_placers *q = v[i];

		if (!hashmap_get_str(wanted, q->id)) {
			hashmap_remove_str(e->pending_placers, q->id);
			free(q);
		}
	}
	free(v);
	if (e->pending_placers && !hashmap_size(e->pending_placers))
		table_placers_pending_free(e);
}

void table_placers_expire(struct engine *e)
{
	struct hashmap *unowned = hashmap_new(false), *wanted = hashmap_new(true);
	size_t n;
	void **v;

	if (!unowned || !wanted || e->smt_off || unjudged(e, unowned, wanted)) {
		hashmap_free(unowned);
		hashmap_free(wanted);
		return;
	}
	v = engine_snapshot(e->keys, &n);
	for (size_t i = 0; v && i < n; i++) {
		struct key *k = v[i];

		if ((k->gone.n || k->gone.privileged) && k->gone_generation < e->generation &&
		    !(k->cookie && hashmap_get_u64(unowned, k->cookie))) {
			k->gone = (struct placers){};
			e->state_lazy = true;
		}
	}
	free(v);
	hashmap_free(unowned);
	e->restores_wait = hashmap_size(wanted) > 0;
	pending_expire(e, wanted);
	hashmap_free(wanted);
}

static void set_key(struct engine *e, struct task *t, struct key *k, bool alive)
{
	struct key *old = t->key;

	if (old == k)
		return;
	if (k) {
		k->n_tasks++;
		k->n_anchored += anchors(t->origin);
		k->n_explicit += engine_origin_explicit(t->origin);
	}
	t->key = k;
	if (old)
		table_placer_leaves(e, old, t);
	if (old && engine_origin_explicit(t->origin))
		old->n_explicit--;
	if (old && anchors(t->origin))
		unanchor(e, old);
	if (old && --old->n_tasks == 0)
		key_release(e, old, alive ? t : NULL, engine_origin_explicit(t->origin)); /* moving on alive: it may lend the cookie */
}

void table_set_key(struct engine *e, struct task *t, struct key *k)
{
	if (k)
		t->keyed = true;
	set_key(e, t, k, true);
}

void table_set_origin(struct engine *e, struct task *t, enum origin o)
{
	struct key *k = t->key;

	if (k && !engine_origin_explicit(o))
		table_placer_leaves(e, k, t);
	if (k)
		k->n_explicit += (int)engine_origin_explicit(o) - (int)engine_origin_explicit(t->origin);
	if (k && anchors(t->origin) && !anchors(o))
		unanchor(e, k);
	else if (k && !anchors(t->origin) && anchors(o))
		k->n_anchored++;
	if (k && o == ORIGIN_STICKY && t->origin != o && k->n_anchored == 0)
		e->state_lazy = true;
	/* A child of an explicit placement, a kept member: recorded at the
	 * next tick. */
	if (o != t->origin && (o == ORIGIN_INHERITED || t->origin == ORIGIN_INHERITED || o == ORIGIN_STICKY ||
			       t->origin == ORIGIN_STICKY))
		e->state_lazy = true;
	t->origin = o;
}

static int key_new(struct engine *e, const struct group *g, const char *id, const char *name, pid_t adopt_tid,
		   uid_t creator, struct key **ret)
{
	struct key *k;
	int r;

	/* The last sixteenth of MaxKeys is kept for root's requests and the
	 * container hook: rules any user can trigger (a Per=process group)
	 * and unprivileged requests cannot lock them out. Nor can one user
	 * lock the others out: no more than its share is made for it. */
	if (hashmap_size(e->keys) >= e->conf->daemon.max_keys - (e->privileged ? 0 : e->conf->daemon.max_keys / 16))
		return -ENOSPC;
	if (!e->privileged && creator != 0 && key_share(e, creator) >= key_share_max(e))
		return -EDQUOT;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->id = strdup(id)) || !(k->group = strdup(g->name)) || !(k->name = strdup(name))) {
		key_free(e, k);
		return -ENOMEM;
	}
	k->per = g->per;
	k->trusted = g->trusted;
	k->creator = creator;
	/* Per=process keys get their cookie from CREATE on the first member,
	 * and a holder only when a second member comes (table_key_hold). */
	if (!g->trusted && g->per != PER_PROCESS) {
		r = e->hazard ? -EOPNOTSUPP : 0;
		if (r == 0 && adopt_tid > 0 && SYS(e, holder_new, adopt_tid, &k->holder) == 0 &&
		    table_key_by_cookie(e, SYS(e, holder_cookie, k->holder))) {
			/* another key's cookie: two keys never share one */
			SYS(e, holder_free, k->holder);
			k->holder = NULL;
		}
		if (r == 0 && !k->holder)
			r = SYS(e, holder_new, 0, &k->holder);
		if (r < 0) {
			key_free(e, k);
			return r;
		}
	}
	r = hashmap_put_str(e->keys, id, k);
	if (r < 0) {
		key_free(e, k);
		return r;
	}
	r = key_share_add(e, k);
	if (r < 0) {
		hashmap_remove_str(e->keys, id);
		key_free(e, k);
		return r;
	}
	if (k->holder)
		table_key_cookie(e, k, SYS(e, holder_cookie, k->holder));
	placers_pending_for(e, k);
	e->c.keys_created++;
	*ret = k;
	return 0;
}

int table_join(struct engine *e, struct task *t, const struct group *g, const char *name, pid_t adopt_tid)
{
	char id[MATCH_KEY_MAX + 80];
	struct key *k;
	int r;

	snprintf(id, sizeof(id), "%s/%s", g->name, name);
	k = hashmap_get_str(e->keys, id);
	if (!k) {
		r = key_new(e, g, id, name, adopt_tid,
			    e->charge_set ? e->charge_uid : e->privileged ? 0 : t->uid, &k);
		if (r < 0)
			return r;
	} else if (t->key != k && k->per == PER_PROCESS && !k->trusted && !k->holder && k->cookie &&
		   t->cookie != k->cookie) {
		/* Joining means being given the key's cookie, which a
		 * Per=process key lends only through a holder: made first, so
		 * that a failure leaves t in the key whose cookie it carries.
		 * No member carries it any more: t makes the key's cookie anew. */
		r = table_key_hold(e, k);
		if (r == -ESRCH)
			table_key_cookie(e, k, 0);
		else if (r < 0)
			return r;
	}
	table_set_key(e, t, k);
	return 0;
}

/* A member that carries k's cookie now, by the kernel's word: 1, 0, or
 * the error that kept the kernel from saying. */
static int has_cookie(struct engine *e, struct key *k, struct task *t)
{
	sc_cookie c;
	int r;

	if (t->key != k)
		return 0;
	r = SYS(e, cookie_get, t->pid, &c);
	return r < 0 ? r : c == k->cookie;
}

int table_key_hold_from(struct engine *e, struct key *k, const struct task *t)
{
	int r;

	if (!k || k->holder || k->trusted || k->per != PER_PROCESS || !k->cookie || k->cookie == COOKIE_UNKNOWN ||
	    t->key != k || t->cookie != k->cookie || e->hazard)
		return 0;
	r = SYS(e, holder_new, t->pid, &k->holder);
	if (r == 0 && SYS(e, holder_cookie, k->holder) != k->cookie) {
		SYS(e, holder_free, k->holder); /* it changed its cookie meanwhile */
		k->holder = NULL;
	}
	return r;
}

int table_key_hold(struct engine *e, struct key *k)
{
	size_t n;
	void **v;
	int r = -ESRCH;

	if (k->holder || k->trusted || !k->cookie)
		return 0;
	if (e->hazard)
		return -EOPNOTSUPP;
	v = engine_snapshot(e->tasks, &n);
	for (size_t i = 0; r < 0 && r != -ENOMEM && r != -ENODEV && i < n; i++) {
		int h = has_cookie(e, k, v[i]);

		if (h < 0 && h != -ESRCH)
			r = h;
		else if (h > 0)
			r = SYS(e, holder_new, ((struct task *)v[i])->pid, &k->holder);
	}
	free(v);
	if (r < 0)
		return r;
	/* The donor may have changed its cookie: the holder's is the key's. */
	table_key_cookie(e, k, SYS(e, holder_cookie, k->holder));
	return 0;
}

/* A program the table's tasks run, and whether they ran it as more than
 * one user or group while its entry lived: a process of it that forks
 * with CLONE_PARENT gives its child its own ids, while the fork event
 * names its parent, which may run the same program as another user
 * (a master and its workers, sshd and a session's, root's shell and a
 * user's). No child of such a program is copied from its parent. */
struct program {
	size_t tasks;
	uid_t uid;
	gid_t gid;
	bool mixed;
	char path[];
};

static void program_leave(struct engine *e, struct task *t)
{
	struct program *pg = t->program;

	t->program = NULL;
	t->exe = NULL;
	if (pg && --pg->tasks == 0) {
		hashmap_remove_str(e->programs, pg->path);
		free(pg);
	}
}

/* t runs exe as t->uid and t->gid, since a read or a fork: its entry
 * notes that, and becomes t's (*changed when it is another). Without
 * memory for one, t has none, which copies nothing, and no exe.
 * A read that finds both another program and other ids (ids_changed)
 * cannot tell which came first: t may have run its old program under the
 * new ids (a uid change, a CLONE_PARENT fork, then an exec, all before
 * the read), and the old program's entry notes that too. */
static int program_note(struct engine *e, struct task *t, const char *exe, bool ids_changed, bool *changed)
{
	struct program *pg = t->program;
	size_t n;

	if (pg && strcmp(pg->path, exe) != 0) {
		if (ids_changed)
			pg->mixed = true;
		program_leave(e, t);
		pg = NULL;
	}
	if (!pg) {
		*changed = true;
		pg = hashmap_get_str(e->programs, exe);
		if (!pg) {
			n = strlen(exe) + 1;
			pg = sc_fault("program") < 0 ? NULL : calloc(1, sizeof(*pg) + n);
			if (!pg)
				return -ENOMEM;
			memcpy(pg->path, exe, n);
			pg->uid = t->uid;
			pg->gid = t->gid;
			if (hashmap_put_str(e->programs, pg->path, pg) < 0) {
				free(pg);
				return -ENOMEM;
			}
		}
		pg->tasks++;
		t->program = pg;
		t->exe = pg->path;
	}
	if (pg->uid != t->uid || pg->gid != t->gid)
		pg->mixed = true;
	return 0;
}

/* The kernel names a program whose file was removed or replaced while it
 * ran "PATH (deleted)", from then on: a process read before that has
 * the entry of PATH, one read after it the other. */
#define DELETED_SUFFIX " (deleted)"

bool table_program_mixed(const struct engine *e, const struct task *t)
{
	const struct program *pg = t->program, *before;
	size_t n, k = sizeof(DELETED_SUFFIX) - 1;
	char path[PATH_MAX];

	if (!pg || pg->mixed)
		return true;
	n = strlen(pg->path);
	if (n <= k || n - k >= sizeof(path) || strcmp(pg->path + n - k, DELETED_SUFFIX) != 0)
		return false;
	memcpy(path, pg->path, n - k);
	path[n - k] = '\0';
	before = hashmap_get_str(e->programs, path);
	return before && (before->mixed || before->uid != pg->uid || before->gid != pg->gid);
}

void table_program_other_ids(struct task *t)
{
	if (t->program)
		t->program->mixed = true;
}

void table_ids_unknown(struct task *t)
{
	t->read_ns = 0;
	table_program_other_ids(t);
}

void table_drop(struct engine *e, struct task *t)
{
	if (t->recorded)
		e->state_lazy = true; /* a stale line is harmless: pid and start must match */
	hashmap_remove_u64(e->tasks, (uint64_t)t->pid);
	set_key(e, t, NULL, false);
	program_leave(e, t);
	free(t->cgroup);
	free(t->want);
	free(t->prev.id);
	free(t->exposure_group);
	free(t);
}

void table_drop_ended(struct engine *e, struct task *t)
{
	if (e->sys->forget)
		SYS(e, forget, t->pid, t->start);
	table_drop(e, t);
}

int table_join_restored(struct engine *e, struct task *t, const struct group *g, const char *name, pid_t adopt_tid,
			uid_t placer, enum origin origin)
{
	bool was_privileged = e->privileged, was_charge_set = e->charge_set;
	uid_t was_charge_uid = e->charge_uid;
	int r;

	e->privileged = e->charge_set = true;
	e->charge_uid = placer == 0 || origin == ORIGIN_HOOK ? 0 : t->uid;
	r = table_join(e, t, g, name, adopt_tid);
	e->privileged = was_privileged;
	e->charge_set = was_charge_set;
	e->charge_uid = was_charge_uid;
	return r;
}

/* The one place a task is allocated, and so the place its failure is
 * injected in tests. */
static int task_new(struct engine *e, pid_t pid, uint64_t start, struct task **ret)
{
	struct task *t;
	int r;

	if (hashmap_size(e->tasks) >= e->conf->daemon.max_tasks)
		return -ENOSPC;
	t = sc_fault("task") < 0 ? NULL : calloc(1, sizeof(struct task));
	if (!t)
		return -ENOMEM;
	t->pid = pid;
	t->start = start;
	t->cookie = COOKIE_UNKNOWN;
	t->generation = e->generation;
	r = hashmap_put_u64(e->tasks, (uint64_t)pid, t);
	if (r < 0) {
		free(t);
		return r;
	}
	*ret = t;
	return 0;
}

static int set_str(char **field, const char *value, bool *changed)
{
	char *s;

	if (*field && strcmp(*field, value) == 0)
		return 0;
	s = strdup(value);
	if (!s)
		return -ENOMEM;
	free(*field);
	*field = s;
	*changed = true;
	return 0;
}

int table_upsert(struct engine *e, const struct procinfo *pi, uint64_t read_ns, struct task **ret,
		 bool *ret_changed)
{
	struct task *t = hashmap_get_u64(e->tasks, (uint64_t)pi->pid);
	bool changed = false, ids_changed;
	int r, fresh = 0;

	if (t && t->start != pi->start_time) {
		table_drop(e, t);
		t = NULL;
	}
	if (!t) {
		r = task_new(e, pi->pid, pi->start_time, &t);
		if (r < 0)
			return r;
		changed = true;
		fresh = 1;
	}
	ids_changed = t->uid != pi->uid || t->gid != pi->gid;
	/* A rename or a cgroup move is no new program: what the start-up
	 * walk dated stands (since_walk). */
	if (ids_changed || !t->exe || strcmp(t->exe, pi->exe) != 0)
		t->since_walk = false;
	if (ids_changed || strcmp(t->comm, pi->comm) != 0)
		changed = true;
	t->uid = pi->uid;
	t->gid = pi->gid;
	t->stale = false;
	t->leader_gone = pi->state == 'Z' || pi->state == 'X';
	memcpy(t->comm, pi->comm, sizeof(t->comm));
	t->comm[sizeof(t->comm) - 1] = '\0';
	t->cgroup_cut = pi->cgroup_cut;
	if (program_note(e, t, pi->exe, ids_changed, &changed) < 0 || set_str(&t->cgroup, pi->cgroup, &changed) < 0) {
		table_ids_unknown(t); /* not all of it is this read's: the next event reads again */
		t->stale = true;      /* and so does the retry of the unsettled */
		t->unsettled = true; /* the task stays, unsettled: the caller retries */
		return -ENOMEM;
	}
	t->read_ns = read_ns;
	t->read_end_ns = SYS(e, now_ns);
	t->unread_ns = 0;
	if (changed)
		t->since_ns = 0; /* changed, and when is the event's to say */
	/* The kernel's word, not an assumption; a failed read stays unknown. */
	r = SYS(e, cookie_get, t->pid, &t->cookie);
	if (r < 0) {
		t->cookie = COOKIE_UNKNOWN;
		t->unsettled = true; /* until a read succeeds */
		if (r == -ENODEV)
			e->smt_off = true; /* the tick looks for SMT coming back */
	}
	*ret = t;
	*ret_changed = changed;
	return fresh;
}

bool table_key_stale(const struct conf *c, const struct key *k)
{
	const struct group *g = conf_find_group(c, k->group);

	return !g || g->per != k->per || g->trusted != k->trusted;
}

void table_detach_stale(struct engine *e)
{
	size_t n;
	void **v = engine_snapshot(e->keys, &n);

	for (size_t i = 0; i < n; i++) {
		struct key *k = v[i];

		if (table_key_stale(e->conf, k)) {
			hashmap_remove_str(e->keys, k->id);
			key_share_drop(e, k);
			k->detached = true;
		}
	}
	free(v);
}

void table_free_all(struct engine *e)
{
	size_t n;
	void **v = engine_snapshot(e->tasks, &n);

	/* Holders go with their keys, but the cookies stay with the tasks that
	 * carry them: a stopped daemon leaves every process where it was. */
	for (size_t i = 0; i < n; i++) {
		struct task *t = v[i];

		t->recorded = false;
		table_drop(e, t);
	}
	free(v);
	for (unsigned i = 0; i < ENGINE_GRAVES; i++)
		grave_clear(e, &e->graves[i]);
}
