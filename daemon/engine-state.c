// SPDX-License-Identifier: GPL-2.0-or-later
/* Explicit placements across a restart. A placed process matches no rule
 * (or another one), so the start-up adoption alone would leave it foreign
 * and its group's key would get a fresh cookie: the engine records each
 * explicitly placed process, and a new run gives it its group back with
 * the cookie it still carries. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine-internal.h"
#include "containers.h"
#include "log.h"
#include "state.h"

static void entry_from(struct state_entry *en, const struct task *t)
{
	const char *slash = t->key ? NULL : strchr(t->want, '/');

	/* The cookie only when it is the key's: a placement still pending (or
	 * a task not yet given its key's cookie) carries another one, which a
	 * restart must not take for the key's. 0: to be made afresh. */
	*en = (struct state_entry){ .pid = t->pid, .start = t->start, .origin = t->origin,
				    .cookie = t->key && t->cookie == t->key->cookie && t->cookie != COOKIE_UNKNOWN ?
						      t->cookie :
						      0,
				    .placer = engine_origin_explicit(t->origin) && t->placer_bound ? t->placer : 0,
				    .placer_gid = t->placer_gid };
	if (t->key) {
		snprintf(en->group, sizeof(en->group), "%s", t->key->group);
		snprintf(en->key, sizeof(en->key), "%s", t->key->name);
	} else if (slash) {
		snprintf(en->group, sizeof(en->group), "%.*s", (int)(slash - t->want), t->want);
		snprintf(en->key, sizeof(en->key), "%s", slash + 1);
	}
}

/* Every explicitly placed process and every child of one, and every member
 * kept in a key though no group claims it: no rule would find those again
 * after a restart. */
static size_t collect(struct task **v, size_t n, struct state_entry *out, size_t max)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		struct task *t = v[i];

		t->recorded = m < max && ((t->key && engine_origin_explicit(t->origin)) ||
					  (!t->key && t->want && strchr(t->want, '/') &&
					   (engine_origin_explicit(t->origin) || t->origin == ORIGIN_STICKY)) ||
					  (t->key && t->origin == ORIGIN_STICKY));
		if (t->recorded)
			entry_from(&out[m++], t);
	}
	return m;
}

/* The keys whose explicit members that left had placers of record: a
 * child they forked unseen may carry the key's cookie yet, and is judged
 * by them after a restart as before it. */
static bool add_placers(struct state_placers *out, const char *group, size_t group_len, const char *name,
		       const struct placers *p)
{
	if (!p->n && !p->privileged)
		return false;
	snprintf(out->group, sizeof(out->group), "%.*s", (int)group_len, group);
	snprintf(out->key, sizeof(out->key), "%s", name);
	out->placers = *p;
	return true;
}

/* The keys (those a reload is moving too) and the records still waiting
 * for their key (pending_placers). */
static size_t collect_placers(const struct engine *e, struct state_placers **ret)
{
	size_t nk, nc, np = 0, m = 0;
	void **keys = engine_snapshot(e->keys, &nk), **by_cookie = engine_snapshot(e->by_cookie, &nc);
	void **pending = e->pending_placers ? engine_snapshot(e->pending_placers, &np) : NULL;
	struct state_placers *out = keys && by_cookie && (pending || !e->pending_placers) ?
					    calloc(nk + nc + np + 1, sizeof(*out)) :
					    NULL;

	for (size_t i = 0; out && i < nk + nc && m < STATE_ENTRIES_MAX; i++) {
		const struct key *k = i < nk ? keys[i] : by_cookie[i - nk];

		if (i < nk || k->detached)
			m += add_placers(&out[m], k->group, strlen(k->group), k->name, &k->gone);
	}
	for (size_t i = 0; out && i < np && m < STATE_ENTRIES_MAX; i++) {
		const struct pending_placers *q = pending[i];
		const char *slash = strchr(q->id, '/');

		if (slash)
			m += add_placers(&out[m], q->id, (size_t)(slash - q->id), slash + 1, &q->placers);
	}
	free(keys);
	free(by_cookie);
	free(pending);
	*ret = out;
	return out ? m : 0;
}

void engine_state_dirty(struct engine *e)
{
	e->state_dirty = true;
	if (e->state_hook)
		e->state_hook(e->state_hook_userdata);
}

void engine_set_state_hook(struct engine *e, void (*fn)(void *userdata), void *userdata)
{
	e->state_hook = fn;
	e->state_hook_userdata = userdata;
}

void engine_state_flush_lazy(struct engine *e)
{
	if (e->state_lazy)
		engine_state_dirty(e);
	e->state_lazy = false;
	engine_state_flush(e);
}

/* Once a second, at a clean stop and after each rewrite of the file: its
 * modification time says until when a daemon watched (see seen_until):
 * the last event taken, for what was queued behind it was not seen. A
 * time it already says is not written again. */
void engine_state_heartbeat(struct engine *e)
{
	/* A file behind the table says nothing of what was watched since. */
	if (!e->state_path || !e->state_loaded || !e->sys->touch || e->touched_ns == e->watched_ns ||
	    e->state_failing)
		return;
	if (SYS(e, touch, e->state_path, e->watched_ns) == 0)
		e->touched_ns = e->watched_ns;
}

/* The processes that outgrew an unprivileged placement and still carry a
 * cookie: after a restart, what they carry is no key's claim on them
 * either (a placement that shares it, or the record of who placed into
 * it, says nothing of them). */
static size_t collect_unowned(struct task **v, size_t n, struct state_unowned *out, size_t max)
{
	size_t m = 0;

	for (size_t i = 0; i < n && m < max; i++)
		if (v[i]->unowned && v[i]->cookie != 0) /* or not known now */
			out[m++] = (struct state_unowned){ v[i]->pid, v[i]->start };
	return m;
}

void engine_state_flush(struct engine *e)
{
	struct state_file sf = {};
	size_t n;
	void **v;
	int r;

	if (!e->state_dirty || !e->state_path)
		return;
	e->state_dirty = false; /* a failure waits for the tick */
	v = engine_snapshot(e->tasks, &n);
	sf.entries = calloc(n + 1, sizeof(*sf.entries));
	sf.unowned = calloc(n + 1, sizeof(*sf.unowned));
	sf.n_placers = collect_placers(e, &sf.placers);
	if (!v || !sf.entries || !sf.unowned || !sf.placers) {
		r = -ENOMEM;
		goto out;
	}
	sf.n = collect((struct task **)v, n, sf.entries, STATE_ENTRIES_MAX);
	sf.n_unowned = collect_unowned((struct task **)v, n, sf.unowned, STATE_ENTRIES_MAX);
	r = state_save(e->state_path, &sf);
	if (r == 0) { /* the new file's time is now's, later than what was watched */
		if (e->state_failing)
			log_notice("Recorded the explicit placements in %s again", e->state_path);
		e->state_failing = false;
		e->touched_ns = 0;
		engine_state_heartbeat(e);
	}
out:
	/* Tried again at each tick (a full or read-only file system may
	 * recover): said once, until a write succeeds. */
	if (r < 0 && !e->state_failing)
		log_warning("Failed to record the explicit placements in %s: %s; trying again each second, a "
			    "restart meanwhile restores what the file last recorded.", e->state_path, strerror(-r));
	if (r < 0) {
		e->state_failing = true;
		e->state_lazy = true;
	}
	free(v);
	free(sf.entries);
	free(sf.placers);
	free(sf.unowned);
}

int engine_set_state_file(struct engine *e, const char *path)
{
	char *p;

	if (e->state_path && path && strcmp(e->state_path, path) == 0)
		return 0;
	p = path ? strdup(path) : NULL;
	if (path && !p)
		return -ENOMEM;
	free(e->state_path);
	e->state_path = p;
	e->state_loaded = false;
	/* Set after the start-up scan: restore now, onto what it found. */
	if (e->adopted)
		engine_state_restore(e);
	return 0;
}

/* Who placed it: the file names only unprivileged placers (a privileged
 * one's placement is written as root's), with their gid (a line of an
 * older daemon's names none: the process's own is taken, as it was when
 * they placed it). */
static void restore_placer(struct task *t, const struct state_entry *en)
{
	t->placer = en->placer;
	t->placer_bound = en->placer != 0;
	t->placer_gid = en->placer_gid != STATE_GID_UNKNOWN ? en->placer_gid : t->gid;
}

/* The key an entry names, holding the cookie its process carries now when
 * that is the one the file recorded for the key; else a fresh one. */
static int restore_key(struct engine *e, const struct group *g, const struct state_entry *en, struct task *t)
{
	bool carries = en->cookie != 0 && t->cookie == en->cookie;
	int r;

	r = table_join_restored(e, t, g, en->key, carries && !g->trusted ? t->pid : 0, en->placer, en->origin);
	if (r < 0)
		return r;
	if (t->key->per == PER_PROCESS && t->key->cookie == 0 && carries)
		table_key_cookie(e, t->key, t->cookie);
	return 0;
}

static void remember_container(const struct task *t)
{
	int r = containers_remember(t->cgroup, t->key->group, t->key->name);

	if (r < 0)
		log_warning("Failed to track container cgroup %s: %s; processes exec'd into it will be placed by "
			    "the rules, ignoring.", t->cgroup, strerror(-r));
}

/* A container's processes are found by its cgroup: a `runc exec` after a
 * restart must join the container as before. The hooked process's cgroup
 * is the container's when nothing else in it carries another cookie. */
static void restore_container(struct engine *e, const struct task *t)
{
	size_t n;
	void **v;
	bool own = t->cgroup && *t->cgroup && !t->cgroup_cut && strcmp(t->cgroup, "/") != 0;

	v = own ? engine_snapshot(e->tasks, &n) : NULL;
	for (size_t i = 0; v && own && i < n; i++) {
		const struct task *o = v[i];

		if (o->cgroup && containers_within(o->cgroup, t->cgroup) && o->cookie != t->cookie)
			own = false;
	}
	if (v && own)
		remember_container(t);
	free(v);
}

static int restore_one(struct engine *e, const struct state_entry *en, struct hashmap *by_cookie)
{
	struct task *t = engine_task(e, en->pid);
	const struct group *g;
	int r;

	if (!t || t->start != en->start)
		return 0; /* exited since the file was checked */
	/* Its cookie changed since the line was written (the deferred write
	 * of a child or a kept member, then a crash): the line is stale. */
	if (en->cookie && t->cookie != COOKIE_UNKNOWN && t->cookie != en->cookie)
		return 0;
	g = conf_find_group(e->conf, en->group);
	if (!g) {
		log_task(LOG_NOTICE, t->pid, NULL,
			 "PID %d (%s) was placed in group '%s', which no longer exists: leaving it alone",
			 t->pid, t->comm, en->group);
		if (t->cookie != 0 && t->origin != ORIGIN_FOREIGN) {
			table_set_origin(e, t, ORIGIN_FOREIGN);
			e->c.foreign++;
		}
		return 0;
	}
	r = restore_key(e, g, en, t);
	if (r < 0) {
		log_task(LOG_WARNING, t->pid, g->name, "Failed to restore PID %d (%s) to group '%s': %s, trying again later.",
			 t->pid, t->comm, g->name, strerror(-r));
		free(t->want);
		if (asprintf(&t->want, "%s/%s", en->group, en->key) < 0)
			t->want = NULL;
		table_set_origin(e, t, en->origin);
		restore_placer(t, en);
		t->unsettled = true;
		e->restores_wait = true;
		return 0;
	}
	table_set_origin(e, t, en->origin);
	restore_placer(t, en);
	/* It may have outgrown an unprivileged placement while no daemon ran. */
	if (engine_placement_outgrown(e, t)) {
		(void)engine_evaluate(e, t, false);
		return 0;
	}
	t->unsettled = engine_ensure(e, t, false) < 0;
	if (!t->unsettled)
		(void)table_key_hold_from(e, t->key, t); /* holders died with the last daemon */
	if (en->origin == ORIGIN_HOOK && !t->unsettled)
		restore_container(e, t);
	if (t->cookie != 0 && t->cookie != COOKIE_UNKNOWN && hashmap_put_u64(by_cookie, t->cookie, t->key) < 0)
		return -ENOMEM;
	return 1;
}

/* Would the rules put t under k anyway? Then adoption places it. */
static bool rules_agree(const struct engine *e, const struct task *t, const struct key *k)
{
	struct match_input in = { t->exe, t->comm, t->uid, t->gid, t->cgroup };
	struct match_result m;

	if (rules_match(e->conf, &in, &m) <= 0 || strcmp(m.group->name, k->group) != 0)
		return false;
	engine_match_key(t, &m);
	return strcmp(m.key, k->name) == 0;
}

static void restore_record(struct engine *e, const char *group, const char *name, const struct placers *p)
{
	char *id = NULL;

	if (asprintf(&id, "%s/%s", group, name) < 0)
		return;
	table_placers_restored(e, id, p);
	free(id);
}

/* Who placed the members that left a key, as the last daemon knew, and
 * who placed those that exited while no daemon ran (children they forked
 * meanwhile carry the key's cookie): onto the key of that name, now or
 * when the start-up adoption makes it (a key rule members hold). */
static void restore_placers(struct engine *e, const struct state_file *sf)
{
	for (size_t i = 0; i < sf->n_placers; i++)
		restore_record(e, sf->placers[i].group, sf->placers[i].key, &sf->placers[i].placers);
	for (size_t i = 0; i < sf->n; i++) {
		const struct state_entry *en = &sf->entries[i];
		const struct task *t = engine_task(e, en->pid);
		struct placers p = {};

		if ((t && t->start == en->start) || !engine_origin_explicit(en->origin))
			continue;
		if (!en->placer)
			p.privileged = true;
		else /* an older line's gid is not known: one acting on nothing */
			table_placers_add(&p, en->placer, en->placer_gid);
		restore_record(e, en->group, en->key, &p);
	}
}

/* A task carrying a restored placement's cookie got it from that
 * placement: a child, or a process exec'd into the same container. */
static void restore_inherited(struct engine *e, struct hashmap *by_cookie)
{
	size_t n;
	void **v = engine_snapshot(e->tasks, &n);

	for (size_t i = 0; i < n; i++) {
		struct task *t = v[i];
		struct key *k = t->cookie ? hashmap_get_u64(by_cookie, t->cookie) : NULL;
		int r;

		/* a placement of its own, or one waiting for its key */
		if (!k || t->unowned || t->key == k || (engine_origin_explicit(t->origin) && (t->key || t->want)) ||
		    rules_agree(e, t, k))
			continue;
		/* An unprivileged placement binds only what its placer may act
		 * on: not a process of it that has run a setuid program, before
		 * the last daemon stopped or since. Its placer is asked as it
		 * joins; one it outgrew is judged by the rules. */
		r = k == table_key_by_cookie(e, t->cookie) ? engine_join_placement(e, t) : 0;
		if (r < 0)
			(void)engine_evaluate(e, t, false);
		if (r != 0)
			continue;
		table_set_key(e, t, k); /* from a sticky key's members */
		table_set_origin(e, t, ORIGIN_STICKY);
	}
	free(v);
}

/* Processes that had outgrown a placement when the last daemon stopped.
 * (What they forked since carries the same cookie, and is judged by the
 * record of who placed into its key.) */
static void restore_unowned(struct engine *e, const struct state_file *sf)
{
	for (size_t i = 0; i < sf->n_unowned; i++) {
		struct task *t = engine_task(e, sf->unowned[i].pid);

		if (t && t->start == sf->unowned[i].start && !t->key)
			t->unowned = true;
	}
}

static void report_bad_lines(const struct engine *e, const struct state_file *sf)
{
	if (sf->n_bad)
		log_warning("%s:%u: malformed line, ignoring it (%u such line%s in all).", e->state_path,
			    sf->first_bad, sf->n_bad, sf->n_bad == 1 ? "" : "s");
	if (sf->n_dup)
		log_warning("%s:%u: the process (PID and start time) that line %u already lists, ignoring this line (%u such line%s in all).",
			    e->state_path, sf->first_dup, sf->first_dup_of, sf->n_dup, sf->n_dup == 1 ? "" : "s");
}

void engine_state_restore(struct engine *e)
{
	struct state_file *sf = NULL;
	struct hashmap *by_cookie;
	const char *why = NULL;
	size_t stale = 0;
	int r, restored = 0;

	if (!e->state_path || e->state_loaded)
		return;
	e->state_loaded = true;
	e->seen_known = e->sys->seen_until && SYS(e, seen_until, e->state_path, &e->seen_until) == 0;
	r = state_load(e->state_path, &sf, &why);
	if (r == -ENOENT) {
		/* The heartbeat needs the file: the tick writes it, once the
		 * runtime directory exists (it may not yet, at start-up). */
		engine_state_dirty(e);
		return;
	}
	if (r < 0) {
		/* Not trusted, its time either: the tick replaces it with a
		 * file of what is true now. */
		e->seen_known = false;
		log_warning("Failed to read %s: %s; the placements it records are not restored, the rules judge "
			    "those processes.", e->state_path, why ? why : strerror(-r));
		engine_state_dirty(e);
		return;
	}
	report_bad_lines(e, sf);
	restore_unowned(e, sf);
	by_cookie = hashmap_new(false);
	/* Lines that recorded their key's cookie first: the key adopts it
	 * from them, and a line recording none (its process carried another
	 * then) joins it, rather than making a fresh cookie that the others
	 * would be moved to. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; by_cookie && i < sf->n; i++) {
			const struct state_entry *en = &sf->entries[i];
			const struct task *t = engine_task(e, en->pid);

			if ((en->cookie == 0) != (pass == 1))
				continue;
			if (!t || t->start != en->start) {
				stale++; /* exited while no daemon ran */
				continue;
			}
			r = restore_one(e, en, by_cookie);
			restored += r > 0;
		}
	restore_placers(e, sf);
	if (by_cookie)
		restore_inherited(e, by_cookie);
	hashmap_free(by_cookie);
	if (sf->n || stale || sf->n_bad || sf->n_dup)
		log_notice("Restored %d explicit placements from %s (%zu of its processes exited)", restored,
			   e->state_path, stale);
	state_file_free(sf);
	/* What was read is what is true now, stale entries gone. */
	engine_state_dirty(e);
	engine_state_flush(e);
}
