// SPDX-License-Identifier: GPL-2.0-or-later
/* Forced-idle counters: parsing, reading, monotonic accounting, statistics.
 * The Prometheus output lives in forceidle-metrics.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* getdents64() */
#endif
#include "forceidle.h"
#include "procinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- text parsing ------------------------------------------------------- */

struct field {
	const char *name;
	size_t name_len;
	const char *value;
	size_t value_len;
};

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next line of *p as [start, start + len); false at the end. */
static bool next_line(const char **p, const char **ret_start, size_t *ret_len)
{
	const char *s = *p, *e;

	if (!*s)
		return false;
	e = strchrnul(s, '\n');
	*ret_start = s;
	*ret_len = (size_t)(e - s);
	*p = *e ? e + 1 : e;
	return true;
}

/* "name<blanks>SEP<blanks>value<blanks>"; sep 0 means blanks alone separate
 * (cpu.stat). False for anything else: such lines are not ours to judge. */
static bool split_field(const char *line, size_t len, char sep, struct field *ret)
{
	const char *p = line, *end = line + len;

	while (p < end && is_blank(*p))
		p++;
	ret->name = p;
	while (p < end && !is_blank(*p) && *p != sep)
		p++;
	ret->name_len = (size_t)(p - ret->name);
	while (p < end && is_blank(*p))
		p++;
	if (sep) {
		if (p == end || *p != sep)
			return false;
		p++;
		while (p < end && is_blank(*p))
			p++;
	}
	while (end > p && is_blank(end[-1]))
		end--;
	ret->value = p;
	ret->value_len = (size_t)(end - p);
	return ret->name_len > 0 && ret->value_len > 0;
}

static bool field_is(const struct field *f, const char *name)
{
	return f->name_len == strlen(name) && memcmp(f->name, name, f->name_len) == 0;
}

static int parse_u64(const char *s, size_t len, uint64_t *ret)
{
	uint64_t v = 0;

	if (len == 0)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		if (__builtin_mul_overflow(v, 10, &v) ||
		    __builtin_add_overflow(v, (uint64_t)(s[i] - '0'), &v))
			return -ERANGE;
	}
	*ret = v;
	return 0;
}

int fi_parse_msns(const char *s, size_t len, int64_t *ret_ns)
{
	const char *dot;
	uint64_t ms, frac, ns;
	bool neg = len > 0 && s[0] == '-';
	int r;

	if (neg) {
		s++;
		len--;
	}
	dot = memchr(s, '.', len);
	if (!dot || len - (size_t)(dot - s) - 1 != 6)
		return -EINVAL;
	r = parse_u64(s, (size_t)(dot - s), &ms);
	if (r < 0)
		return r;
	r = parse_u64(dot + 1, 6, &frac);
	if (r < 0)
		return r;
	if (__builtin_mul_overflow(ms, UINT64_C(1000000), &ns) ||
	    __builtin_add_overflow(ns, frac, &ns) || ns > (uint64_t)INT64_MAX)
		return -ERANGE;
	*ret_ns = neg ? -(int64_t)ns : (int64_t)ns;
	return 0;
}

/* A field we keep: where it goes and whether it was seen. */
struct wanted {
	const char *name;
	uint64_t *dst;
	bool *seen;
};

static struct wanted *find_wanted(struct wanted *w, size_t n, const struct field *f)
{
	for (size_t i = 0; i < n; i++)
		if (field_is(f, w[i].name))
			return &w[i];
	return NULL;
}

int fi_parse_sched(const char *text, struct fi_task_sample *ret)
{
	struct fi_task_sample s = { .nr_threads = 1 };
	bool has_sum = false;
	struct wanted w[] = {
		{ "se.sum_exec_runtime", &s.sum_exec_ns, &has_sum },
		{ "core_forceidle_sum", &s.forceidle_ns, &s.has_forceidle },
	};
	const char *p = text, *line;
	size_t len;

	while (next_line(&p, &line, &len)) {
		struct field f;
		struct wanted *x;
		int64_t v;

		if (!split_field(line, len, ':', &f) || !(x = find_wanted(w, 2, &f)))
			continue;
		if (*x->seen || fi_parse_msns(f.value, f.value_len, &v) < 0 || v < 0)
			return -EBADMSG;
		*x->dst = (uint64_t)v;
		*x->seen = true;
	}
	if (!has_sum)
		return -EBADMSG;
	*ret = s;
	return 0;
}

int fi_parse_cpu_stat(const char *text, struct fi_cg_sample *ret)
{
	struct fi_cg_sample s = { 0 };
	struct wanted w[] = {
		{ "usage_usec", &s.usage_ns, &s.has_usage },
		{ "core_sched.force_idle_usec", &s.forceidle_ns, &s.has_forceidle },
	};
	const char *p = text, *line;
	size_t len;

	while (next_line(&p, &line, &len)) {
		struct field f;
		struct wanted *x;
		uint64_t usec;

		if (!split_field(line, len, 0, &f) || !(x = find_wanted(w, 2, &f)))
			continue;
		if (*x->seen || parse_u64(f.value, f.value_len, &usec) < 0 ||
		    __builtin_mul_overflow(usec, 1000, x->dst))
			return -EBADMSG;
		*x->seen = true;
	}
	*ret = s;
	return 0;
}

/* ---- readers ------------------------------------------------------------ */

/* The whole of a small file into buf[FI_READ_MAX + 1], NUL-terminated;
 * -EFBIG when it does not fit, which no file we read should do. */
static int read_small(int dirfd, const char *path, char *buf)
{
	size_t len = 0;
	int fd, r = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t n = read(fd, buf + len, FI_READ_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n > 0 && (len += (size_t)n) == FI_READ_MAX)
			r = -EFBIG;
		if (n <= 0 || r < 0)
			break;
	}
	close(fd);
	buf[len] = '\0';
	return r;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Adds one thread's sample to sum; a thread that vanished is skipped. */
static int add_thread(int taskfd, const char *tid, char *buf, struct fi_task_sample *sum)
{
	char rel[64];
	struct fi_task_sample t;
	int r;

	if (snprintf(rel, sizeof(rel), "%s/sched", tid) >= (int)sizeof(rel))
		return 0; /* not a thread id */
	r = read_small(taskfd, rel, buf);
	if (r == -ENOENT || r == -ESRCH)
		return 0;
	if (r < 0)
		return r;
	r = fi_parse_sched(buf, &t);
	if (r < 0)
		return r;
	if (__builtin_add_overflow(sum->sum_exec_ns, t.sum_exec_ns, &sum->sum_exec_ns) ||
	    __builtin_add_overflow(sum->forceidle_ns, t.forceidle_ns, &sum->forceidle_ns))
		return -ERANGE;
	sum->has_forceidle = sum->has_forceidle && t.has_forceidle;
	sum->nr_threads++;
	return 0;
}

/* getdents64 on a stack buffer: opendir() would allocate on every sample. */
static int sum_threads(int taskfd, struct fi_task_sample *sum)
{
	char dents[4096] __attribute__((aligned(8)));
	char buf[FI_READ_MAX + 1];

	for (;;) {
		ssize_t n = getdents64(taskfd, dents, sizeof(dents));

		if (n < 0)
			return errno == ENOENT ? -ESRCH : -errno;
		if (n == 0)
			return 0;
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(dents + off);
			int r;

			off += d->d_reclen;
			if (!all_digits(d->d_name))
				continue;
			r = add_thread(taskfd, d->d_name, buf, sum);
			if (r < 0)
				return r;
		}
	}
}

int fi_read_process(const char *proc_root, pid_t pid, struct fi_task_sample *ret)
{
	struct fi_task_sample sum = { .has_forceidle = true }, one;
	char path[PATH_MAX];
	int fd, r, n;

	if (pid <= 0)
		return -EINVAL;
	/* The leader alone: its file, no listing. Where that fails the walk
	 * says why (a tree whose one thread has another name); a process
	 * already reaped (most, at their exit event) has nothing to walk. */
	n = procinfo_threads(proc_root, pid);
	if (n == -ESRCH)
		return n;
	if (n == 1 && fi_read_thread(proc_root, pid, pid, &one) == 0) {
		if (!one.has_forceidle)
			one.forceidle_ns = 0;
		one.nr_threads = 1;
		*ret = one;
		return 0;
	}
	if (snprintf(path, sizeof(path), "%s/%d/task", proc_root, (int)pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	r = sum_threads(fd, &sum);
	close(fd);
	if (r < 0)
		return r;
	if (sum.nr_threads == 0)
		return -ESRCH;
	if (!sum.has_forceidle)
		sum.forceidle_ns = 0;
	*ret = sum;
	return 0;
}

int fi_read_thread(const char *proc_root, pid_t pid, pid_t tid, struct fi_task_sample *ret)
{
	char path[PATH_MAX], buf[FI_READ_MAX + 1];
	int r;

	if (pid <= 0 || tid <= 0)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%d/task/%d/sched", proc_root, (int)pid, (int)tid) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	r = read_small(AT_FDCWD, path, buf);
	if (r == -ENOENT || r == -ESRCH)
		return -ESRCH;
	if (r < 0)
		return r;
	return fi_parse_sched(buf, ret);
}

static bool has_dotdot(const char *path)
{
	for (const char *p = path; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.')
			return true;
		p += n;
		p += strspn(p, "/");
	}
	return false;
}

int fi_read_cgroup(const char *cgroup_root, const char *cgpath, struct fi_cg_sample *ret)
{
	char path[PATH_MAX], buf[FI_READ_MAX + 1];
	int n, r;

	/* Paths come from the kernel, but one must never leave the root. */
	if (has_dotdot(cgpath))
		return -EINVAL;
	cgpath += strspn(cgpath, "/");
	n = snprintf(path, sizeof(path), "%s/%s%scpu.stat", cgroup_root, cgpath, *cgpath ? "/" : "");
	if (n >= (int)sizeof(path))
		return -ENAMETOOLONG;
	r = read_small(AT_FDCWD, path, buf);
	if (r < 0)
		return r;
	return fi_parse_cpu_stat(buf, ret);
}

int fi_read_host(const char *cgroup_root, struct fi_cg_sample *ret)
{
	return fi_read_cgroup(cgroup_root, "/", ret);
}

int fi_share(const struct fi_cg_sample *a, const struct fi_cg_sample *b, double *ret_ratio)
{
	if (!a->has_usage || !b->has_usage || !a->has_forceidle || !b->has_forceidle)
		return -ENODATA;
	if (b->usage_ns < a->usage_ns || b->forceidle_ns < a->forceidle_ns)
		return -ERANGE;
	if (b->usage_ns == a->usage_ns)
		return -EINVAL;
	*ret_ratio = (double)(b->forceidle_ns - a->forceidle_ns) / (double)(b->usage_ns - a->usage_ns);
	return 0;
}

/* ---- accounting --------------------------------------------------------- */

/* Open addressing with linear probing and backward-shift deletion: no
 * tombstones, so a table that saw many exits is as fast as a fresh one. */
struct fi_slot {
	uint64_t id;
	uint64_t cpu_ns;       /* last sample: the baseline for the next delta */
	uint64_t forceidle_ns;
	bool used;
	bool has_forceidle;
};

#define FI_TABLE_MIN 16

struct fi_account {
	struct fi_slot *slots;
	size_t cap; /* 0 or a power of two, at most half full */
	size_t n;
	size_t max_tasks;
	struct fi_totals tasks;
	struct fi_totals cgroup;
	struct fi_cg_sample cg_prev; /* zero until the first cgroup sample */
};

static size_t hash_id(uint64_t x)
{
	/* splitmix64's finalizer: task ids keep the pid in the high bits. */
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return (size_t)x;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

struct fi_account *fi_account_new(void)
{
	struct fi_account *a = calloc(1, sizeof(*a));

	if (a)
		a->max_tasks = FI_ACCOUNT_MAX_TASKS;
	return a;
}

struct fi_account *fi_account_free(struct fi_account *a)
{
	if (a) {
		free(a->slots);
		free(a);
	}
	return NULL;
}

int fi_account_set_max_tasks(struct fi_account *a, size_t max_tasks)
{
	if (max_tasks < a->n)
		return -EBUSY;
	a->max_tasks = max_tasks;
	return 0;
}

size_t fi_account_n_tasks(const struct fi_account *a)
{
	return a->n;
}

static struct fi_slot *slot_find(const struct fi_account *a, uint64_t id)
{
	if (a->cap == 0)
		return NULL;
	for (size_t i = hash_id(id) & (a->cap - 1);; i = (i + 1) & (a->cap - 1)) {
		if (!a->slots[i].used)
			return NULL;
		if (a->slots[i].id == id)
			return &a->slots[i];
	}
}

static int table_resize(struct fi_account *a, size_t cap)
{
	struct fi_slot *old = a->slots;
	size_t old_cap = a->cap;

	a->slots = calloc(cap, sizeof(*a->slots));
	if (!a->slots) {
		a->slots = old;
		return -ENOMEM;
	}
	a->cap = cap;
	for (size_t i = 0; i < old_cap; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = hash_id(old[i].id) & (cap - 1); a->slots[j].used; j = (j + 1) & (cap - 1))
			;
		a->slots[j] = old[i];
	}
	free(old);
	return 0;
}

static int slot_insert(struct fi_account *a, uint64_t id, struct fi_slot **ret)
{
	size_t i;
	int r;

	if (a->n >= a->max_tasks)
		return -ENOSPC;
	if ((a->n + 1) * 2 > a->cap) {
		r = table_resize(a, a->cap ? a->cap * 2 : FI_TABLE_MIN);
		if (r < 0)
			return r;
	}
	for (i = hash_id(id) & (a->cap - 1); a->slots[i].used; i = (i + 1) & (a->cap - 1))
		;
	a->slots[i] = (struct fi_slot){ .id = id, .used = true };
	a->n++;
	*ret = &a->slots[i];
	return 0;
}

static void slot_remove(struct fi_account *a, struct fi_slot *s)
{
	size_t mask = a->cap - 1, hole = (size_t)(s - a->slots);

	for (size_t j = (hole + 1) & mask; a->slots[j].used; j = (j + 1) & mask) {
		size_t home = hash_id(a->slots[j].id) & mask;

		/* Entry j may fill the hole unless its home lies cyclically
		 * in (hole, j]: then the hole is not on its probe path. */
		if (((j - home) & mask) >= ((j - hole) & mask)) {
			a->slots[hole] = a->slots[j];
			hole = j;
		}
	}
	a->slots[hole].used = false;
	a->n--;
	/* Give memory back after a burst of tasks; failure just keeps it. */
	if (a->cap > FI_TABLE_MIN && a->n * 8 < a->cap)
		(void)table_resize(a, a->cap / 2);
}

/* What grew since prev; a drop is a new baseline and adds nothing. */
static void add_growth(uint64_t *total, uint64_t prev, uint64_t now)
{
	if (now > prev)
		*total = sat_add(*total, now - prev);
}

static void task_apply(struct fi_account *a, struct fi_slot *s, const struct fi_task_sample *now, bool add)
{
	if (add)
		add_growth(&a->tasks.cpu_ns, s->cpu_ns, now->sum_exec_ns);
	s->cpu_ns = now->sum_exec_ns;
	/* Schedstats switched off hides the counter; it comes back with its
	 * old value, so keep the old baseline rather than restart from 0. */
	if (!now->has_forceidle)
		return;
	if (add)
		add_growth(&a->tasks.forceidle_ns, s->has_forceidle ? s->forceidle_ns : 0,
			   now->forceidle_ns);
	a->tasks.has_forceidle = true;
	s->forceidle_ns = now->forceidle_ns;
	s->has_forceidle = true;
}

static int task_sample(struct fi_account *a, uint64_t id, const struct fi_task_sample *now, bool add)
{
	struct fi_slot *s = slot_find(a, id);
	int r;

	if (s) {
		task_apply(a, s, now, add);
		return 0;
	}
	r = slot_insert(a, id, &s);
	if (r < 0)
		return r;
	task_apply(a, s, now, add);
	return 1;
}

int fi_account_task(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *now)
{
	return task_sample(a, task_id, now, true);
}

int fi_account_task_seed(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *now)
{
	return task_sample(a, task_id, now, false);
}

int fi_account_task_exit(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *last)
{
	struct fi_slot *s = slot_find(a, task_id);

	if (!s) {
		struct fi_slot fresh = { 0 };

		/* Never sampled (too short-lived, or over the cap): all of it
		 * is new to us. */
		if (!last)
			return -ENOENT;
		task_apply(a, &fresh, last, true);
		return 0;
	}
	if (last)
		task_apply(a, s, last, true);
	slot_remove(a, s);
	return 0;
}

int fi_account_cgroup(struct fi_account *a, const struct fi_cg_sample *now)
{
	struct fi_cg_sample prev = a->cg_prev;
	bool reset = (now->has_usage && prev.has_usage && now->usage_ns < prev.usage_ns) ||
		     (now->has_forceidle && prev.has_forceidle && now->forceidle_ns < prev.forceidle_ns);

	if (reset)
		prev = (struct fi_cg_sample){ 0 };
	if (now->has_usage) {
		add_growth(&a->cgroup.cpu_ns, prev.usage_ns, now->usage_ns);
		prev.usage_ns = now->usage_ns;
		prev.has_usage = true;
	}
	if (now->has_forceidle) {
		add_growth(&a->cgroup.forceidle_ns, prev.forceidle_ns, now->forceidle_ns);
		prev.forceidle_ns = now->forceidle_ns;
		prev.has_forceidle = true;
		a->cgroup.has_forceidle = true;
	}
	a->cg_prev = prev;
	return reset ? 1 : 0;
}

void fi_account_task_totals(const struct fi_account *a, struct fi_totals *ret)
{
	*ret = a->tasks;
}

void fi_account_cgroup_totals(const struct fi_account *a, struct fi_totals *ret)
{
	*ret = a->cgroup;
}

/* ---- statistics --------------------------------------------------------- */

int fi_summarize(const double *v, size_t n, struct fi_summary *ret)
{
	double mean = 0, m2 = 0, sd;
	struct fi_summary s = { .n = n };

	if (n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		double d;

		if (!isfinite(v[i]))
			return -EINVAL;
		d = v[i] - mean;
		mean += d / (double)(i + 1);
		m2 += d * (v[i] - mean);
	}
	sd = n > 1 ? sqrt(m2 / (double)(n - 1)) : 0;
	s.mean = mean;
	s.sd = sd;
	s.sem = sd / sqrt((double)n);
	if (mean != 0) {
		s.sd_pct = 100 * sd / fabs(mean);
		s.sem_pct = 100 * s.sem / fabs(mean);
	}
	*ret = s;
	return 0;
}
