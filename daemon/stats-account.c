// SPDX-License-Identifier: GPL-2.0-or-later
/* One sample: per engine key, the forced-idle and CPU time its members
 * accrued since the previous sample, folded into totals that never go
 * down. A Per=cgroup key whose members all live under its cgroup reads the
 * cgroup's cpu.stat (exact, and it keeps what exited tasks accrued); any
 * other key reads its members' threads and adds each thread's growth since
 * its previous sample, so a thread that exits loses only its last
 * interval. CPU time is taken from the same per-thread counters as forced
 * idle, not from the process CPU clock (which keeps exited threads'
 * time): the two then cover the same intervals and their ratio is not
 * skewed, and it costs no call beyond the files the sample reads. */
#define _GNU_SOURCE /* asprintf() */
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "procinfo.h"
#include "stats-internal.h"

/* Per engine key object; key->stats points here. A key freed by the engine
 * and a new one at the same address are told apart by that pointer: the
 * engine allocates keys zeroed. */
struct stats_key {
	uintptr_t addr;       /* the key's address: a map key, never followed */
	struct stats_acc *acc;
	uint64_t assignments; /* of this key object, already counted */
	uint64_t sample;      /* last sample that saw the key */
};

/* A task sampled per task: which accumulator tracks it. */
struct stats_seen {
	uint64_t id;
	uint64_t sample;
	struct stats_acc *acc;
	uint64_t ino;         /* of its task directory at a reading known to be its */
};

static uint64_t task_id(const struct task *t)
{
	return ((uint64_t)t->pid << 32) ^ t->start;
}

static uint64_t growth(uint64_t now, uint64_t prev)
{
	return now > prev ? now - prev : 0;
}

static void acc_add(struct stats_acc *a, const struct fi_totals *now, const struct fi_totals *prev)
{
	a->forceidle_ns += growth(now->forceidle_ns, prev->forceidle_ns);
	a->cpu_ns += growth(now->cpu_ns, prev->cpu_ns);
}

static void acc_free(struct stats_acc *a)
{
	if (!a)
		return;
	fi_account_free(a->fa);
	free(a->id);
	free(a->group);
	free(a->key);
	free(a);
}

/* Per=process keys are named after a pid: one series per group instead,
 * which also keeps the map from filling with dead processes. So are the
 * Per=cgroup keys a process gets of its own (its cgroup path too long for
 * a key, or unreadable): every other Per=cgroup key is a path. */
static const char *acc_label(const struct key *k)
{
	return k->per == PER_PROCESS || (k->per == PER_CGROUP && k->name[0] != '/') ? "" : k->name;
}

static int acc_get(struct stats *s, const struct key *k, struct stats_acc **ret)
{
	const struct conf *c = engine_conf(s->engine);
	const char *label = acc_label(k);
	struct stats_acc *a;
	char *id;

	if (asprintf(&id, "%s/%s", k->group, label) < 0)
		return -ENOMEM;
	a = hashmap_get_str(s->accs, id);
	if (a) {
		free(id);
		*ret = a;
		return 0;
	}
	a = calloc(1, sizeof(*a));
	if (!a || !(a->fa = fi_account_new()) || !(a->group = strdup(k->group)) || !(a->key = strdup(label)) ||
	    hashmap_put_str(s->accs, id, a) < 0) {
		free(id);
		acc_free(a);
		return -ENOMEM;
	}
	a->id = id;
	if (c && c->daemon.max_tasks > FI_ACCOUNT_MAX_TASKS)
		(void)fi_account_set_max_tasks(a->fa, c->daemon.max_tasks);
	*ret = a;
	return 0;
}

static struct stats_group *group_get(struct stats *s, const char *name)
{
	struct stats_group *g = hashmap_get_str(s->groups, name);

	/* Groups removed by reloads stay; the bound keeps that finite. */
	if (g || hashmap_size(s->groups) >= 2 * CONF_MAX_GROUPS)
		return g;
	g = calloc(1, sizeof(*g));
	if (!g || !(g->name = strdup(name)) || hashmap_put_str(s->groups, name, g) < 0) {
		if (g)
			free(g->name);
		free(g);
		return NULL;
	}
	return g;
}

/* The state of key object k, created on first sight. */
static int key_state(struct stats *s, struct key *k, struct stats_key **ret)
{
	struct stats_key *ks = hashmap_get_u64(s->keys, (uintptr_t)k);
	int r;

	if (!ks || k->stats != ks) {
		free(hashmap_remove_u64(s->keys, (uintptr_t)k)); /* a freed key's */
		ks = calloc(1, sizeof(*ks));
		if (!ks)
			return -ENOMEM;
		r = acc_get(s, k, &ks->acc);
		if (r >= 0)
			r = hashmap_put_u64(s->keys, (uintptr_t)k, ks);
		if (r < 0) {
			free(ks);
			return r;
		}
		ks->addr = (uintptr_t)k;
		k->stats = ks;
	}
	ks->sample = s->n_samples;
	*ret = ks;
	return 0;
}

static void count_assignments(struct stats *s, const struct key *k, struct stats_key *ks)
{
	struct stats_group *g = group_get(s, k->group);
	uint64_t delta = growth(k->assignments, ks->assignments);

	ks->assignments = k->assignments;
	if (g)
		g->assignments += delta;
}

/* ---- per-task sampling ---- */

static struct stats_seen *seen_get(struct stats *s, uint64_t id)
{
	struct stats_seen *n = hashmap_get_u64(s->seen, id);

	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->id = id;
	if (hashmap_put_u64(s->seen, id, n) < 0) {
		free(n);
		return NULL;
	}
	return n;
}

/* The threads of t's process into s->threads, known to acc (or none).
 * The engine may still list a task whose pid went to another process, or
 * to a thread of another (whose task directory lists that whole process),
 * its exit event not taken yet: the reading is t's only if the pid has
 * t's start time after it (a pid is not reused while its holder remains);
 * -ESRCH otherwise. n (or NULL) remembers the task directory's inode
 * number at a reading found to be t's: procfs gives another process under
 * the pid another, so while it stays the start time is not read again. */
static int read_threads(struct stats *s, const struct task *t, const struct stats_acc *acc,
			struct stats_seen *n)
{
	uint64_t start;
	int r = fi_read_threads(s->proc_root, t->pid, acc ? acc->fa : NULL, task_id(t), &s->threads);

	if (r < 0)
		return r;
	if (n && n->ino && n->ino == s->threads.ino)
		return 0;
	r = procinfo_start_time(s->proc_root, t->pid, &start);
	if (r < 0 || start != t->start) {
		s->threads.n = 0;
		return r < 0 && r != -ENOENT ? r : -ESRCH;
	}
	if (n)
		n->ino = s->threads.ino;
	return 0;
}

/* last: s->threads holds the task's final reading; else nothing is added. */
static void seen_forget(struct stats *s, struct stats_seen *n, bool last)
{
	if (n->acc)
		(void)fi_account_threads(n->acc->fa, n->id, last ? s->threads.v : NULL, last ? s->threads.n : 0,
					 s->prev_sample_ticks, FI_EXIT);
	hashmap_remove_u64(s->seen, n->id);
	free(n);
}

static uint64_t boot_ticks(void)
{
	struct timespec ts;
	long hz = sysconf(_SC_CLK_TCK);

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * (uint64_t)hz + (uint64_t)ts.tv_nsec / (1000000000ULL / (uint64_t)hz);
}

/* seed_new: what a task accrued before its first sample was not accrued in
 * this key (it existed at the previous sample, or the key's cgroup counted it). */
static int sample_task(struct stats *s, struct stats_acc *a, const struct task *t, bool seed_new)
{
	struct stats_seen *n;
	uint64_t id = task_id(t);
	bool seed;
	int r;

	n = hashmap_get_u64(s->seen, id);
	/* Moved here: a knows none of its threads, so all their start times
	 * are read, for a to tell them by later as for a process new to it. */
	r = read_threads(s, t, n && n->acc == a ? a : NULL, n);
	if (r < 0)
		return r; /* gone: the sweep forgets it */
	seed = n ? n->acc != a : seed_new;
	if (n && n->acc != a) /* moved: its time so far was the old key's */
		(void)fi_account_threads(n->acc->fa, id, s->threads.v, s->threads.n, s->prev_sample_ticks,
					 FI_EXIT);
	if (!n && !(n = seen_get(s, id)))
		return -ENOMEM;
	n->ino = s->threads.ino; /* read_threads() checked the start time */
	r = fi_account_threads(a->fa, id, s->threads.v, s->threads.n, s->prev_sample_ticks,
			       seed ? FI_SEED : FI_WHOLE);
	if (r < 0) {
		seen_forget(s, n, false);
		return r;
	}
	n->acc = a;
	n->sample = s->n_samples;
	return 0;
}

/* Tasks not sampled this time exited (or left accounting): their last
 * delta was counted at the previous sample. */
static void sweep_seen(struct stats *s)
{
	size_t n = hashmap_size(s->seen);
	void **v = n ? calloc(n, sizeof(*v)) : NULL;

	if (!v)
		return;
	n = hashmap_values(s->seen, v, n);
	for (size_t i = 0; i < n; i++)
		if (((struct stats_seen *)v[i])->sample != s->n_samples)
			seen_forget(s, v[i], false);
	free(v);
}

/* What the task accrued since its last sample would be lost with it: read
 * it once more while it is a zombie (the exit event comes before the
 * parent can reap it, though not always before it does). Once reaped, its
 * pid may be another process's, or a thread's whose task directory lists
 * a whole other process: the reading counts only if the pid still has the
 * task's start time after it (a pid is not reused while its holder
 * remains). By then its other threads are gone: each thread still there
 * (the zombie leader) adds its growth, those gone lose their last
 * interval, as at a sample. A task never sampled counts whole only if
 * born since the previous sample, as in sample_key(). */
void stats_account_task_exit(struct stats *s, const struct task *t)
{
	struct stats_seen *n;
	struct stats_key *ks;
	uint64_t id = task_id(t);

	if (!s->accounting || !t->key)
		return;
	n = hashmap_get_u64(s->seen, id);
	if (read_threads(s, t, n ? n->acc : NULL, NULL) < 0)
		return;
	if (n && n->acc) {
		(void)fi_account_threads(n->acc->fa, id, s->threads.v, s->threads.n, s->prev_sample_ticks,
					 FI_WHOLE);
		return;
	}
	/* A key sampled through its cgroup has the task's time there. */
	if (!n && t->start >= s->prev_sample_ticks && key_state(s, t->key, &ks) >= 0 && !ks->acc->cg_prev)
		(void)fi_account_threads(ks->acc->fa, id, s->threads.v, s->threads.n, s->prev_sample_ticks,
					 FI_EXIT);
}

/* ---- per-cgroup sampling ---- */

static bool path_inside(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	if (!path || strncmp(path, prefix, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/' || (n > 0 && prefix[n - 1] == '/');
}

static bool members_inside(const char *cgpath, struct task *const *tasks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!path_inside(tasks[i]->cgroup, cgpath))
			return false;
	return true;
}

static int sample_cgroup(struct stats *s, struct stats_acc *a, const char *cgpath)
{
	struct fi_cg_sample now;
	struct fi_totals tot;
	int r;

	r = fi_read_cgroup(s->cgroup_root, cgpath, &now);
	if (r < 0)
		return r;
	if (!now.has_usage)
		return -ENODATA;
	r = fi_account_cgroup(a->fa, &now);
	if (r < 0)
		return r;
	fi_account_cgroup_totals(a->fa, &tot);
	/* Counted from 0 only for a key born since accounting started; after
	 * per-task sampling the cgroup's past is a baseline, not new time. */
	if (a->cg_prev || (!a->sampled && s->n_acct_samples > 1))
		acc_add(a, &tot, &a->prev_cg);
	a->prev_cg = tot;
	a->cg_prev = true;
	return 0;
}

/* Members the cgroup now covers but another key tracked per task: give
 * that key their time up to now. */
static void hand_over(struct stats *s, struct stats_acc *a, struct task *const *tasks, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stats_seen *m = hashmap_get_u64(s->seen, task_id(tasks[i]));

		if (m && m->acc != a)
			seen_forget(s, m, read_threads(s, tasks[i], m->acc, m) == 0);
	}
}

static void sample_key(struct stats *s, struct stats_acc *a, const struct key *k, struct task *const *tasks,
		       size_t n)
{
	bool after_cgroup = a->cg_prev;
	int r;

	if (k->per == PER_CGROUP && k->name[0] == '/' && members_inside(k->name, tasks, n)) {
		r = sample_cgroup(s, a, k->name);
		if (r >= 0) {
			hand_over(s, a, tasks, n);
			a->sampled = true;
			return;
		}
		log_debug("Cannot read the cgroup %s of %s (%s): sampling its tasks instead", k->name, k->id,
			  strerror(-r));
	}
	a->cg_prev = false;
	for (size_t i = 0; i < n; i++) {
		/* A task new here and born since the previous sample accrued
		 * all of its time where the daemon placed it at exec: count it
		 * from zero. One that existed then but was not sampled here
		 * (it joined the key since, or a sample missed it) counts from
		 * now: what it accrued before may be counted already, and
		 * counting it twice would overstate what isolation costs. */
		r = sample_task(s, a, tasks[i], after_cgroup || tasks[i]->start < s->prev_sample_ticks);
		if (r < 0 && r != -ESRCH && r != -ENOENT)
			log_debug("Cannot sample PID %d of %s: %s", tasks[i]->pid, k->id, strerror(-r));
	}
	a->sampled = true;
}

/* ---- the sample ---- */

static int by_key(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(struct task *const *)a)->key, y = (uintptr_t)(*(struct task *const *)b)->key;

	return x < y ? -1 : x > y;
}

/* First index in tasks (sorted by key) whose key is k, and how many. */
static size_t members_of(struct task **tasks, size_t n, const struct key *k, size_t *ret_n)
{
	size_t lo = 0, hi = n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((uintptr_t)tasks[mid]->key < (uintptr_t)k)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < n && tasks[end]->key == k; end++)
		;
	*ret_n = end - lo;
	return lo;
}

static void reset_member_counts(void *userdata, void *value)
{
	(void)userdata;
	((struct stats_acc *)value)->n_tasks = 0;
}

static void fold_tasks(void *userdata, void *value)
{
	struct stats_acc *a = value;
	struct fi_totals tot;

	(void)userdata;
	fi_account_task_totals(a->fa, &tot);
	acc_add(a, &tot, &a->prev_tasks);
	a->prev_tasks = tot;
}

static void sample_host(struct stats *s)
{
	struct fi_cg_sample now;
	double share;

	if (fi_read_host(s->cgroup_root, &now) < 0 || !now.has_usage)
		return;
	if (s->has_host && fi_share(&s->host, &now, &share) == 0)
		s->host_share = share;
	s->host = now;
	s->has_host = true;
}

/* Key states of keys the engine no longer lists: their key is freed. */
static void sweep_keys(struct stats *s)
{
	size_t n = hashmap_size(s->keys);
	void **v = n ? calloc(n, sizeof(*v)) : NULL;

	if (!v)
		return;
	n = hashmap_values(s->keys, v, n);
	for (size_t i = 0; i < n; i++) {
		struct stats_key *ks = v[i];

		if (ks->sample != s->n_samples) {
			hashmap_remove_u64(s->keys, ks->addr);
			free(ks);
		}
	}
	free(v);
}

static int by_last_live(const void *a, const void *b)
{
	uint64_t x = (*(struct stats_acc *const *)a)->last_live, y = (*(struct stats_acc *const *)b)->last_live;

	return x < y ? -1 : x > y;
}

/* Totals outlive their keys, but not without bound: past 4 * MaxKeys the
 * series unused the longest go (nothing else points to them: the sweeps
 * above left references only to accumulators in use this sample). */
static void evict(struct stats *s)
{
	const struct conf *c = engine_conf(s->engine);
	size_t bound = 4 * (size_t)(c ? c->daemon.max_keys : 4096), n = hashmap_size(s->accs), k = 0;
	void **v;

	if (n <= bound || !(v = calloc(n, sizeof(*v))))
		return;
	n = hashmap_values(s->accs, v, n);
	for (size_t i = 0; i < n; i++)
		if (((struct stats_acc *)v[i])->last_live != s->n_samples)
			v[k++] = v[i];
	qsort(v, k, sizeof(*v), by_last_live);
	for (size_t i = 0; i < k && hashmap_size(s->accs) > bound; i++) {
		hashmap_remove_str(s->accs, ((struct stats_acc *)v[i])->id);
		acc_free(v[i]);
	}
	free(v);
}

int stats_account_sample(struct stats *s, struct key *const *keys, size_t n_keys,
			 struct task *const *tasks_in, size_t n_tasks)
{
	struct task **tasks = calloc(n_tasks + 1, sizeof(*tasks));
	int ret = 0;

	if (!tasks)
		return -ENOMEM;
	if (n_tasks)
		memcpy(tasks, tasks_in, n_tasks * sizeof(*tasks));
	qsort(tasks, n_tasks, sizeof(*tasks), by_key);
	s->n_samples++;
	if (s->accounting)
		s->n_acct_samples++;
	hashmap_foreach(s->accs, reset_member_counts, NULL);
	for (size_t i = 0; i < n_keys; i++) {
		struct stats_key *ks;
		size_t m, first = members_of(tasks, n_tasks, keys[i], &m);
		int r = key_state(s, keys[i], &ks);

		if (r < 0) {
			ret = r;
			continue;
		}
		count_assignments(s, keys[i], ks);
		ks->acc->n_tasks += (unsigned)m;
		ks->acc->last_live = s->n_samples;
		if (s->accounting)
			sample_key(s, ks->acc, keys[i], tasks + first, m);
	}
	if (s->accounting) {
		sweep_seen(s);
		hashmap_foreach(s->accs, fold_tasks, NULL);
		sample_host(s);
		s->prev_sample_ticks = boot_ticks();
	}
	/* Room for a process of many threads goes with the sample that read
	 * it: kept, it would stay as long as the daemon runs. */
	if (s->threads.cap > FI_SCRATCH_KEEP)
		fi_threads_done(&s->threads);
	sweep_keys(s);
	evict(s);
	free(tasks);
	return ret;
}

/* ---- lifecycle ---- */

static void clear_cg_prev(void *userdata, void *value)
{
	(void)userdata;
	((struct stats_acc *)value)->cg_prev = false;
}

void stats_account_reset(struct stats *s)
{
	size_t n = hashmap_size(s->seen);
	void **v = calloc(n + 1, sizeof(*v));

	if (v) {
		n = hashmap_values(s->seen, v, n);
		for (size_t i = 0; i < n; i++)
			seen_forget(s, v[i], false);
		free(v);
	}
	hashmap_foreach(s->accs, clear_cg_prev, NULL);
	s->n_acct_samples = 0;
	s->acct_start_ticks = boot_ticks();
	s->prev_sample_ticks = s->acct_start_ticks;
	s->has_host = false;
	s->host_share = 0;
}

int stats_account_init(struct stats *s)
{
	s->accs = hashmap_new(true);
	s->keys = hashmap_new(false);
	s->seen = hashmap_new(false);
	s->groups = hashmap_new(true);
	return s->accs && s->keys && s->seen && s->groups ? 0 : -ENOMEM;
}

static void free_acc(void *userdata, void *value)
{
	(void)userdata;
	acc_free(value);
}

static void free_group(void *userdata, void *value)
{
	struct stats_group *g = value;

	(void)userdata;
	free(g->name);
	free(g);
}

static void free_plain(void *userdata, void *value)
{
	(void)userdata;
	free(value);
}

/* Live keys keep a stale key->stats: only this module reads it, and a new
 * instance checks it against its own map before trusting it. */
void stats_account_done(struct stats *s)
{
	if (s->accs)
		hashmap_foreach(s->accs, free_acc, NULL);
	if (s->groups)
		hashmap_foreach(s->groups, free_group, NULL);
	if (s->keys)
		hashmap_foreach(s->keys, free_plain, NULL);
	if (s->seen)
		hashmap_foreach(s->seen, free_plain, NULL);
	s->accs = hashmap_free(s->accs);
	s->groups = hashmap_free(s->groups);
	s->keys = hashmap_free(s->keys);
	s->seen = hashmap_free(s->seen);
	fi_threads_done(&s->threads);
}

static int by_name(const void *a, const void *b)
{
	/* struct stats_acc and struct stats_group both start with their name. */
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

void **stats_sorted_values(const struct hashmap *m, size_t *ret_n)
{
	size_t n = hashmap_size(m);
	void **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return NULL;
	n = hashmap_values(m, v, n);
	qsort(v, n, sizeof(*v), by_name);
	*ret_n = n;
	return v;
}
