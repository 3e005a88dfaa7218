// SPDX-License-Identifier: GPL-2.0-or-later
/* event -> task table -> policy (rules_match) -> assign (cookie_*).
 * Scans, reloads and the control socket take the same path. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cookie.h"
#include "engine-internal.h"
#include "log.h"
#include "containers.h"

static const char *const origin_names[] = {
	[ORIGIN_NONE] = "none",         [ORIGIN_RULE] = "rule",
	[ORIGIN_ASSIGN] = "assign",     [ORIGIN_RUN] = "run",
	[ORIGIN_HOOK] = "hook",         [ORIGIN_INHERITED] = "inherited",
	[ORIGIN_ADOPTED] = "adopted",   [ORIGIN_FOREIGN] = "foreign",
};

const char *origin_to_string(enum origin o)
{
	return (unsigned)o < sizeof(origin_names) / sizeof(origin_names[0]) ? origin_names[o] : "?";
}

bool engine_origin_explicit(enum origin o)
{
	return o == ORIGIN_ASSIGN || o == ORIGIN_RUN || o == ORIGIN_HOOK || o == ORIGIN_INHERITED;
}

/* ---- keys ---- */

static void key_free(struct key *k)
{
	if (!k)
		return;
	holder_free(k->holder);
	free(k->id);
	free(k->group);
	free(k->name);
	free(k);
}

static void key_release(struct engine *e, struct key *k)
{
	hashmap_remove_str(e->keys, k->id);
	key_free(k);
	e->c.keys_released++;
}

/* The key (group, name), created on first use. A new key that is neither
 * trusted nor per-process gets a holder: adopting the cookie adopt_tid
 * carries when given (restart), else a fresh one. */
int engine_key_get(struct engine *e, const struct group *g, const char *name, pid_t adopt_tid,
		   struct key **ret)
{
	char id[MATCH_KEY_MAX + 80];
	struct key *k;
	int r;

	snprintf(id, sizeof(id), "%s/%s", g->name, name);
	k = hashmap_get_str(e->keys, id);
	if (k) {
		*ret = k;
		return 0;
	}
	if (hashmap_size(e->keys) >= e->conf->daemon.max_keys)
		return -ENOSPC;
	k = calloc(1, sizeof(*k));
	if (!k || !(k->id = strdup(id)) || !(k->group = strdup(g->name)) || !(k->name = strdup(name))) {
		key_free(k);
		return -ENOMEM;
	}
	k->per = g->per;
	k->trusted = g->trusted;
	if (!g->trusted && g->per != PER_PROCESS) {
		r = adopt_tid > 0 ? holder_new_adopt(adopt_tid, &k->holder) : -ESRCH;
		if (r < 0)
			r = holder_new(&k->holder);
		if (r < 0) {
			key_free(k);
			return r;
		}
		k->cookie = holder_cookie(k->holder);
	}
	r = hashmap_put_str(e->keys, id, k);
	if (r < 0) {
		key_free(k);
		return r;
	}
	e->c.keys_created++;
	*ret = k;
	return 0;
}

/* ---- tasks ---- */

void engine_task_set_key(struct task *t, struct key *k)
{
	if (t->key == k)
		return;
	if (t->key)
		t->key->n_tasks--;
	if (k)
		k->n_tasks++;
	t->key = k;
}

void engine_task_drop(struct engine *e, struct task *t)
{
	if (t->recorded)
		e->state_dirty = true;
	hashmap_remove_u64(e->tasks, (uint64_t)t->pid);
	engine_task_set_key(t, NULL);
	free(t->exe);
	free(t->cgroup);
	free(t);
}

/* The one place a task is allocated, and so the place its failure is
 * injected in tests. */
static struct task *task_alloc(void)
{
	return sc_fault("task") < 0 ? NULL : calloc(1, sizeof(struct task));
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

/* Insert or refresh the task that pi describes. *ret_new says whether it is
 * a process not seen before (a reused pid counts as new). */
int engine_task_upsert(struct engine *e, const struct procinfo *pi, struct task **ret, bool *ret_changed)
{
	struct task *t = hashmap_get_u64(e->tasks, (uint64_t)pi->pid);
	bool changed = false;
	int r;

	if (t && t->start != pi->start_time) {
		engine_task_drop(e, t);
		t = NULL;
	}
	if (!t) {
		if (hashmap_size(e->tasks) >= e->conf->daemon.max_tasks)
			return -ENOSPC;
		t = task_alloc();
		if (!t)
			return -ENOMEM;
		t->pid = pi->pid;
		t->start = pi->start_time;
		r = hashmap_put_u64(e->tasks, (uint64_t)t->pid, t);
		if (r < 0) {
			free(t);
			return r;
		}
		(void)cookie_get(t->pid, &t->cookie);
		changed = true;
	}
	if (t->uid != pi->uid || t->gid != pi->gid || strcmp(t->comm, pi->comm) != 0)
		changed = true;
	t->uid = pi->uid;
	t->gid = pi->gid;
	snprintf(t->comm, sizeof(t->comm), "%s", pi->comm);
	if (set_str(&t->exe, pi->exe, &changed) < 0 || set_str(&t->cgroup, pi->cgroup, &changed) < 0)
		return -ENOMEM;
	*ret = t;
	*ret_changed = changed;
	return 0;
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
	if (r == -ENODEV && !e->smt_off) {
		e->smt_off = true;
		log_warning("SMT is switched off: cookies cannot be set until it is back on");
	}
	e->c.errors++;
	log_task(LOG_WARNING, t->pid, t->key ? t->key->group : NULL, "Failed to %s for PID %d (%s): %s, ignoring.",
		 what, t->pid, t->comm, strerror(-r));
}

/* Make the kernel agree with t->key: the key's cookie, or 0 without a key
 * (unless the task is foreign). Reads the result back. */
int engine_ensure(struct engine *e, struct task *t, bool repair)
{
	struct key *k = t->key;
	bool fresh_process_cookie = k && k->per == PER_PROCESS && !k->trusted &&
				    (k->cookie == 0 || t->cookie != k->cookie);
	sc_cookie want = k ? k->cookie : 0;
	char rule[ENGINE_RULE_MAX];
	int r;

	if (t->origin == ORIGIN_FOREIGN)
		return 0;
	if (!fresh_process_cookie && t->cookie == want)
		return 0;
	if (e->smt_off)
		return -ENODEV;
	r = fresh_process_cookie ? cookie_create(t->pid) : cookie_assign(k ? k->holder : NULL, t->pid);
	if (r < 0) {
		note_failure(e, t, r, k ? "assign a cookie" : "clear the cookie");
		return r;
	}
	r = cookie_get(t->pid, &t->cookie);
	if (r < 0) {
		note_failure(e, t, r, "read the cookie back");
		return r;
	}
	if (fresh_process_cookie)
		k->cookie = t->cookie;
	else if (t->cookie != want) {
		e->c.errors++;
		log_task_rule(LOG_WARNING, t->pid, k ? k->group : NULL, engine_rule_of(e, k, rule, sizeof(rule)),
			 "PID %d has cookie 0x%" PRIx64 " after assignment, expected 0x%" PRIx64 ", ignoring.",
			 t->pid, t->cookie, want);
		return -EIO;
	}
	if (k)
		k->assignments++;
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

/* Policy: which key t belongs to. Explicit placements are sticky. */
static int decide(struct engine *e, struct task *t)
{
	struct match_input in = { t->exe, t->comm, t->uid, t->gid, t->cgroup };
	struct match_result m;
	const struct group *cg;
	const char *cg_group, *cg_key;
	struct key *k;
	int r;

	if (engine_origin_explicit(t->origin) && t->key)
		return 0;
	if (!e->conf)
		return 0;
	/* Exec'd into a container (a child of the runtime, not of the
	 * container's init): found by the container's cgroup. */
	if (containers_lookup(t->cgroup, &cg_group, &cg_key) > 0 &&
	    (cg = conf_find_group(e->conf, cg_group)) && engine_key_get(e, cg, cg_key, 0, &k) >= 0) {
		engine_task_set_key(t, k);
		t->origin = ORIGIN_HOOK;
		return 0;
	}
	if (rules_match(e->conf, &in, &m) <= 0) {
		if (t->key || t->origin == ORIGIN_RULE) {
			engine_task_set_key(t, NULL); /* no longer ours: back to 0 */
			t->origin = ORIGIN_NONE;
		} else if (t->cookie != 0 && !e->conf->daemon.clear_foreign) {
			if (t->origin != ORIGIN_FOREIGN)
				e->c.foreign++;
			t->origin = ORIGIN_FOREIGN;
		} else
			t->origin = ORIGIN_NONE;
		return 0;
	}
	if (m.group->per == PER_PROCESS)
		engine_process_key_name(t, m.key, sizeof(m.key));
	r = engine_key_get(e, m.group, m.key, 0, &k);
	if (r < 0)
		return r;
	engine_task_set_key(t, k);
	if (t->origin != ORIGIN_ADOPTED || t->cookie != k->cookie)
		t->origin = ORIGIN_RULE;
	return 0;
}

/* A failure leaves t unsettled: a task whose placement failed may look
 * settled to a reconcile (no key, or a Per=process key without a cookie,
 * wants the cookie 0 it has), so the next scan evaluates it again. */
int engine_evaluate(struct engine *e, struct task *t, bool repair)
{
	int r = decide(e, t);

	if (r < 0)
		note_failure(e, t, r, "place the process");
	else
		r = engine_ensure(e, t, repair);
	t->unsettled = r < 0;
	return r;
}

/* ---- pid safety ---- */

static int pidfd_open_(pid_t pid)
{
	int r = sc_fault("pidfd");

	if (r < 0) {
		errno = -r;
		return -1;
	}
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

static bool pidfd_alive(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

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

/* Read pid afresh and run it through policy. Everything happens with a
 * pidfd open: if the process is still alive afterwards, the pid named it
 * throughout (a live process cannot be replaced). Returns what kept pid
 * from being examined; engine_evaluate() reports its own failures. */
static int handle_process(struct engine *e, pid_t pid)
{
	struct procinfo pi;
	struct task *t;
	bool changed;
	int fd, r;

	if (pid == e->self)
		return 0;
	fd = pidfd_open_(pid);
	if (fd < 0)
		return -errno;
	r = procinfo_read(e->proc_root, pid, &pi);
	if (r >= 0 && !pi.kernel_thread) {
		r = engine_task_upsert(e, &pi, &t, &changed);
		if (r >= 0)
			(void)engine_evaluate(e, t, false);
		if (!pidfd_alive(fd) && (t = engine_task(e, pid)))
			engine_task_drop(e, t);
	}
	close(fd);
	return r;
}

static void on_fork(struct engine *e, const struct procmon_event *ev)
{
	struct task *p = engine_task(e, ev->parent_tgid), *t;
	uint64_t start;
	int r;

	e->c.forks++;
	/* The kernel copied the parent's cookie: the child inherits the
	 * parent's placement without a syscall, unless policy wants a cookie
	 * per process or the parent is unknown. */
	if (!p || (p->key && p->key->per == PER_PROCESS && !engine_origin_explicit(p->origin)) ||
	    p->origin == ORIGIN_FOREIGN || hashmap_size(e->tasks) >= e->conf->daemon.max_tasks ||
	    procinfo_start_time(e->proc_root, ev->tgid, &start) < 0) {
		r = handle_process(e, ev->tgid);
		if (r < 0)
			engine_note_unexamined(e, ev->tgid, r);
		return;
	}
	/* On failure the child is unknown but carries the parent's cookie,
	 * which is right until its exec; the next scan takes it in. */
	t = task_alloc();
	if (!t) {
		engine_note_unexamined(e, ev->tgid, -ENOMEM);
		return;
	}
	*t = (struct task){ .pid = ev->tgid, .start = start, .uid = p->uid, .gid = p->gid,
			    .origin = engine_origin_explicit(p->origin) ? ORIGIN_INHERITED : p->origin,
			    .cookie = p->cookie, .generation = e->generation };
	memcpy(t->comm, p->comm, sizeof(t->comm));
	t->exe = strdup(p->exe ? p->exe : "");
	t->cgroup = strdup(p->cgroup ? p->cgroup : "");
	if (t->origin == ORIGIN_ADOPTED)
		t->origin = ORIGIN_RULE;
	if (!t->exe || !t->cgroup || hashmap_put_u64(e->tasks, (uint64_t)t->pid, t) < 0) {
		free(t->exe);
		free(t->cgroup);
		free(t);
		engine_note_unexamined(e, ev->tgid, -ENOMEM);
		return;
	}
	engine_task_set_key(t, p->key);
}

void engine_set_exit_hook(struct engine *e, engine_exit_hook fn, void *userdata)
{
	e->exit_hook = fn;
	e->exit_userdata = userdata;
}

void engine_on_event(struct engine *e, const struct procmon_event *ev)
{
	struct task *t;
	int r = 0;

	e->c.events++;
	switch (ev->kind) {
	case PROCMON_FORK:
		if (ev->pid == ev->tgid)
			on_fork(e, ev);
		break;
	case PROCMON_EXEC:
		e->c.execs++;
		r = handle_process(e, ev->tgid);
		break;
	case PROCMON_UID:
	case PROCMON_GID:
	case PROCMON_COMM:
		r = handle_process(e, ev->tgid);
		break;
	case PROCMON_EXIT:
		if (ev->pid == ev->tgid && (t = engine_task(e, ev->tgid))) {
			e->c.exits++;
			if (e->exit_hook && t->key)
				e->exit_hook(e->exit_userdata, t);
			engine_task_drop(e, t);
		}
		break;
	}
	if (r < 0)
		engine_note_unexamined(e, ev->tgid, r);
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

/* Keys without members let their holder go; a Per=group key lives as long
 * as its group does, so the group's cookie outlives its members. */
static bool key_stale(const struct conf *c, const struct key *k)
{
	const struct group *g = conf_find_group(c, k->group);

	return !g || g->per != k->per || g->trusted != k->trusted;
}

void engine_release_keys(struct engine *e)
{
	size_t n;
	void **v = engine_snapshot(e->keys, &n);

	for (size_t i = 0; i < n; i++) {
		struct key *k = v[i];

		if (k->n_tasks == 0 && (k->per != PER_GROUP || key_stale(e->conf, k)))
			key_release(e, k);
	}
	free(v);
}

/* ---- configuration and explicit placement ---- */

/* A task whose key went stale in a reload: an explicit placement moves to
 * the new key of the same group and name; anything else is re-evaluated. */
static void rekey(struct engine *e, struct task *t, bool stale)
{
	const struct group *g = t->key ? conf_find_group(e->conf, t->key->group) : NULL;
	struct key *k;

	if (engine_origin_explicit(t->origin) && !stale)
		return;
	if (engine_origin_explicit(t->origin) && g && engine_key_get(e, g, t->key->name, 0, &k) >= 0) {
		engine_task_set_key(t, k);
		(void)engine_ensure(e, t, false);
		return;
	}
	if (engine_origin_explicit(t->origin) || stale)
		t->origin = ORIGIN_RULE;
	if (t->recorded)
		e->state_dirty = true;
	(void)engine_evaluate(e, t, false);
}

struct conf *engine_set_conf(struct engine *e, struct conf *c)
{
	struct conf *old = e->conf;
	size_t nk = 0, nt = 0;
	void **keys = NULL, **tasks = NULL;

	e->conf = c;
	if (!old || !(keys = engine_snapshot(e->keys, &nk)) || !(tasks = engine_snapshot(e->tasks, &nt)))
		goto out;
	/* Stale keys leave the map first so that no task can find them. */
	for (size_t i = 0; i < nk; i++)
		if (key_stale(c, keys[i]))
			hashmap_remove_str(e->keys, ((struct key *)keys[i])->id);
		else
			keys[i] = NULL;
	for (size_t i = 0; i < nt; i++) {
		struct task *t = tasks[i];

		rekey(e, t, t->key && key_stale(c, t->key));
	}
	for (size_t i = 0; i < nk; i++)
		if (keys[i]) {
			key_free(keys[i]);
			e->c.keys_released++;
		}
	engine_release_keys(e);
out:
	free(keys);
	free(tasks);
	return old;
}

const struct conf *engine_conf(const struct engine *e)
{
	return e->conf;
}

static void key_name_for(const struct group *g, const struct task *t, char *buf, size_t size)
{
	switch (g->per) {
	case PER_USER: snprintf(buf, size, "%u", (unsigned)t->uid); break;
	case PER_CGROUP: snprintf(buf, size, "%s", t->cgroup ? t->cgroup : ""); break;
	case PER_PROCESS: engine_process_key_name(t, buf, size); break;
	default: buf[0] = 0; break;
	}
}

/* An explicit decision about one process: the key of group g named
 * req->key (or as g's Per= names it), or cookie 0 without g. The pidfd,
 * open throughout, proves that the process read is the one acted on. */
static int place(struct engine *e, const struct engine_place *req, const struct group *g)
{
	char name[MATCH_KEY_MAX];
	struct procinfo pi;
	struct task *t;
	struct key *k = NULL;
	bool changed;
	int fd = req->pidfd, r;

	if (req->pid == e->self)
		return -EPERM;
	if (fd < 0 && (fd = pidfd_open_(req->pid)) < 0)
		return -errno;
	r = procinfo_read(e->proc_root, req->pid, &pi);
	if (r >= 0 && g && pi.kernel_thread)
		r = -EPERM;
	if (r >= 0 && req->authorize)
		r = req->authorize(req->userdata, req->pid, engine_task(e, req->pid));
	if (r >= 0)
		r = engine_task_upsert(e, &pi, &t, &changed);
	if (r >= 0 && g) {
		if (req->key)
			snprintf(name, sizeof(name), "%s", req->key);
		else
			key_name_for(g, t, name, sizeof(name));
		r = engine_key_get(e, g, name, 0, &k);
	}
	if (r >= 0) {
		if (g || t->recorded)
			e->state_dirty = true;
		engine_task_set_key(t, k);
		t->origin = req->origin;
		t->placer = req->placer;
		if (!g)
			t->cookie = (sc_cookie)-1; /* clear even what reads 0 now */
		r = engine_ensure(e, t, false);
		if (r >= 0 && !pidfd_alive(fd))
			r = -ESRCH;
	}
	if (fd != req->pidfd)
		close(fd);
	return r < 0 ? r : 0;
}

int engine_place(struct engine *e, const struct engine_place *req)
{
	const struct group *g = NULL;

	if (req->group && !(g = conf_find_group(e->conf, req->group)))
		return -ENOENT;
	return place(e, req, g);
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

int engine_new(const char *proc_root, struct engine **ret)
{
	struct engine *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->proc_root = strdup(proc_root);
	e->tasks = hashmap_new(false);
	e->keys = hashmap_new(true);
	e->self = getpid();
	if (!e->proc_root || !e->tasks || !e->keys) {
		engine_free(e);
		return -ENOMEM;
	}
	*ret = e;
	return 0;
}

static void free_task(void *userdata, void *value)
{
	struct task *t = value;

	(void)userdata;
	free(t->exe);
	free(t->cgroup);
	free(t);
}

static void free_key(void *userdata, void *value)
{
	(void)userdata;
	key_free(value);
}

/* Holders go, but the cookies stay with the tasks that carry them: a
 * stopped daemon leaves every process where it was. */
struct engine *engine_free(struct engine *e)
{
	if (!e)
		return NULL;
	engine_state_flush(e);
	if (e->tasks)
		hashmap_foreach(e->tasks, free_task, NULL);
	if (e->keys)
		hashmap_foreach(e->keys, free_key, NULL);
	hashmap_free(e->tasks);
	hashmap_free(e->keys);
	conf_free(e->conf);
	free(e->proc_root);
	free(e->state_path);
	free(e);
	return NULL;
}

const struct engine_counters *engine_counters(const struct engine *e) { return &e->c; }
bool engine_smt_off(const struct engine *e) { return e->smt_off; }
size_t engine_n_tasks(const struct engine *e) { return hashmap_size(e->tasks); }
size_t engine_n_keys(const struct engine *e) { return hashmap_size(e->keys); }

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