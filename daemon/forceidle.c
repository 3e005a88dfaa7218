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
#include <sys/stat.h>
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

void fi_threads_done(struct fi_threads *t)
{
	free(t->v);
	*t = (struct fi_threads){ 0 };
}

static int threads_push(struct fi_threads *t, const struct fi_thread_sample *x)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct fi_thread_sample *v = reallocarray(t->v, cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n++] = *x;
	return 0;
}

/* Field 22 (start time) of a stat text: the comm in field 2 may hold
 * anything, so count from the last ')'. */
static int parse_stat_start(const char *text, uint64_t *ret)
{
	const char *p = strrchr(text, ')');

	if (!p)
		return -EBADMSG;
	p++;
	for (int field = 3; field <= 22; field++) {
		size_t len;

		if (*p != ' ')
			return -EBADMSG;
		p++;
		len = strcspn(p, " \n");
		if (field == 22)
			return parse_u64(p, len, ret) < 0 ? -EBADMSG : 0;
		p += len;
	}
	return -EBADMSG;
}

/* Whether a task directory's inode number says which task it is: procfs
 * lists an entry whose inode it could not make (no memory) with inode 1,
 * its root's, which any number of tasks may share. */
static bool ino_known(uint64_t ino)
{
	return ino > 1;
}

/* FILE of the thread named NAME in taskfd into buf: 0, 1 when the thread
 * has gone, or -errno. */
static int read_thread_file(int taskfd, const char *name, const char *file, char *buf)
{
	char rel[64];
	int r;

	if (snprintf(rel, sizeof(rel), "%s/%s", name, file) >= (int)sizeof(rel))
		return -ENAMETOOLONG;
	r = read_small(taskfd, rel, buf);
	return r == -ENOENT || r == -ESRCH ? 1 : r;
}

/* One listed thread into ret; a thread that vanished is skipped. */
static int add_listed_thread(int taskfd, const struct dirent64 *d, pid_t pid, const struct fi_account *a,
			     uint64_t task_id, char *buf, struct fi_threads *ret)
{
	struct fi_thread_sample x = { .ino = ino_known(d->d_ino) ? d->d_ino : 0 };
	uint64_t tid;
	int r;

	if (parse_u64(d->d_name, strlen(d->d_name), &tid) < 0 || tid == 0 || tid > INT_MAX)
		return 0; /* not a thread id */
	x.tid = (pid_t)tid;
	x.leader = x.tid == pid;
	r = read_thread_file(taskfd, d->d_name, "sched", buf);
	if (r != 0)
		return r < 0 ? r : 0;
	r = fi_parse_sched(buf, &x.s);
	if (r < 0)
		return r;
	if (!x.leader && !fi_account_knows_thread(a, task_id, x.tid, x.ino, x.s.sum_exec_ns)) {
		r = read_thread_file(taskfd, d->d_name, "stat", buf);
		if (r != 0)
			return r < 0 ? r : 0;
		r = parse_stat_start(buf, &x.start);
		if (r < 0)
			return r;
		x.has_start = true;
	}
	return threads_push(ret, &x);
}

int fi_read_threads(const char *proc_root, pid_t pid, const struct fi_account *a, uint64_t task_id,
		    struct fi_threads *ret)
{
	char dents[4096] __attribute__((aligned(8)));
	char path[PATH_MAX], buf[FI_READ_MAX + 1];
	struct fi_thread_sample one = { .tid = pid, .leader = true };
	struct stat st;
	int fd, r = 0;

	ret->n = 0;
	ret->ino = 0;
	if (pid <= 0)
		return -EINVAL;
	if (snprintf(path, sizeof(path), "%s/%d/task", proc_root, (int)pid) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	/* The leader alone (a link count of 3: its entry, "." and ".."): its
	 * file, no listing (as fi_read_process()). */
	if (stat(path, &st) < 0) {
		if (errno == ENOENT || errno == ESRCH)
			return -ESRCH;
	} else if (S_ISDIR(st.st_mode)) {
		ret->ino = (uint64_t)st.st_ino;
		if (st.st_nlink == 3 && fi_read_thread(proc_root, pid, pid, &one.s) == 0)
			return threads_push(ret, &one);
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ESRCH : -errno;
	while (r == 0) {
		ssize_t got = getdents64(fd, dents, sizeof(dents));

		if (got < 0)
			r = errno == ENOENT ? -ESRCH : -errno;
		if (got <= 0)
			break;
		for (ssize_t off = 0; off < got && r == 0;) {
			struct dirent64 *d = (struct dirent64 *)(dents + off);

			off += d->d_reclen;
			if (all_digits(d->d_name))
				r = add_listed_thread(fd, d, pid, a, task_id, buf, ret);
		}
	}
	close(fd);
	if (r < 0) {
		ret->n = 0;
		return r;
	}
	return ret->n ? 0 : -ESRCH;
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

/* One thread's baseline: its counters at its last sample. */
struct fi_thread {
	uint64_t cpu_ns;
	uint64_t forceidle_ns;
	uint64_t ino;
	uint64_t start;
	pid_t tid;
	bool leader;
	bool has_start;
	bool has_forceidle;
};

/* Open addressing with linear probing and backward-shift deletion: no
 * tombstones, so a table that saw many exits is as fast as a fresh one.
 * A slot is a process (or a task given as one counter); its threads'
 * baselines, sorted by tid, are in one when it has at most one thread and
 * in the heap array more otherwise. */
struct fi_slot {
	uint64_t id;
	struct fi_thread one;
	struct fi_thread *more;
	uint32_t n_threads;
	uint32_t cap_threads; /* of more */
	bool used;
};

#define FI_TABLE_MIN 16

struct fi_account {
	struct fi_slot *slots;
	size_t cap; /* 0 or a power of two, at most half full */
	size_t n;
	size_t n_threads;
	size_t max_tasks;
	struct fi_thread *scratch; /* the baselines a sample builds */
	size_t scratch_cap;
	struct fi_totals tasks;
	struct fi_totals cgroup;
	struct fi_cg_sample cg_prev; /* zero until the first cgroup sample */
};

static struct fi_thread *slot_threads(struct fi_slot *s)
{
	return s->more ? s->more : &s->one;
}

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
		for (size_t i = 0; i < a->cap; i++)
			if (a->slots[i].used)
				free(a->slots[i].more);
		free(a->slots);
		free(a->scratch);
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

size_t fi_account_n_threads(const struct fi_account *a)
{
	return a->n_threads;
}

size_t fi_account_bytes(const struct fi_account *a)
{
	size_t n = a->cap * sizeof(*a->slots) + a->scratch_cap * sizeof(*a->scratch);

	for (size_t i = 0; i < a->cap; i++)
		if (a->slots[i].used)
			n += a->slots[i].cap_threads * sizeof(struct fi_thread);
	return n;
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

	a->n_threads -= s->n_threads;
	free(s->more);
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

/* One thread's growth since baseline b (when add), and b := now. */
static void thread_apply(struct fi_account *a, struct fi_thread *b, const struct fi_task_sample *now, bool add)
{
	if (add)
		add_growth(&a->tasks.cpu_ns, b->cpu_ns, now->sum_exec_ns);
	b->cpu_ns = now->sum_exec_ns;
	/* Schedstats switched off hides the counter; it comes back with its
	 * old value, so keep the old baseline rather than restart from 0. */
	if (!now->has_forceidle)
		return;
	if (add)
		add_growth(&a->tasks.forceidle_ns, b->has_forceidle ? b->forceidle_ns : 0, now->forceidle_ns);
	a->tasks.has_forceidle = true;
	b->forceidle_ns = now->forceidle_ns;
	b->has_forceidle = true;
}

static int by_tid(const void *x, const void *y)
{
	pid_t a = ((const struct fi_thread_sample *)x)->tid, b = ((const struct fi_thread_sample *)y)->tid;

	return a < b ? -1 : a > b;
}

/* Whether baseline o (of the same tid) is thread t's. The leader is the
 * process itself. Another thread's start time differs; where t's was not
 * read, the reader found the directory inode o has. (A thread that runs
 * a program takes the leader's tid and start time: it continues the
 * leader's baseline, a drop being a new baseline as ever.) */
static bool same_thread(const struct fi_thread *o, const struct fi_thread_sample *t)
{
	if (t->leader || o->leader)
		return t->leader == o->leader;
	if (t->has_start && o->has_start)
		return t->start == o->start;
	return ino_known(t->ino) && t->ino == o->ino;
}

static const struct fi_thread *find_thread(const struct fi_thread *v, size_t n, pid_t tid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].tid < tid)
			lo = mid + 1;
		else if (v[mid].tid > tid)
			hi = mid;
		else
			return &v[mid];
	}
	return NULL;
}

/* Whether thread o is still listed in t (sorted): its tid may be a new
 * thread's. */
static bool listed(const struct fi_thread_sample *t, size_t n, const struct fi_thread *o)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t[mid].tid < o->tid)
			lo = mid + 1;
		else if (t[mid].tid > o->tid)
			hi = mid;
		else
			return same_thread(o, &t[mid]);
	}
	return false;
}

/* The leader's baseline b when none of the other threads the account
 * knew (old, n_old) is listed in t (sorted) any more (a new thread with
 * one's tid is not it): then one of them may
 * have run a program, taking the leader's tid and start time with its own
 * counters, whose time up to its last sample is counted already. Nothing
 * in /proc tells it from the leader, so each counter's baseline is the
 * highest of the leader's and those gone threads' not above now: never
 * above the true growth, and a leader that merely outlived its workers
 * loses at most its own interval, as an exiting thread does. */
static void leader_after_exec(const struct fi_thread *old, size_t n_old, const struct fi_thread_sample *t,
			      size_t n, const struct fi_task_sample *now, struct fi_thread *b)
{
	for (size_t j = 0; j < n_old; j++)
		if (!old[j].leader && listed(t, n, &old[j]))
			return;
	for (size_t j = 0; j < n_old; j++) {
		const struct fi_thread *o = &old[j];

		if (o->leader || o->cpu_ns > now->sum_exec_ns ||
		    (o->has_forceidle && now->has_forceidle && o->forceidle_ns > now->forceidle_ns))
			continue;
		if (o->cpu_ns > b->cpu_ns)
			b->cpu_ns = o->cpu_ns;
		if (o->has_forceidle && now->has_forceidle && (!b->has_forceidle || o->forceidle_ns > b->forceidle_ns)) {
			b->forceidle_ns = o->forceidle_ns;
			b->has_forceidle = true;
		}
	}
}

bool fi_account_knows_thread(const struct fi_account *a, uint64_t task_id, pid_t tid, uint64_t ino,
			     uint64_t sum_exec_ns)
{
	struct fi_slot *s = a ? slot_find(a, task_id) : NULL;
	const struct fi_thread *o = s ? find_thread(slot_threads(s), s->n_threads, tid) : NULL;

	return o && ino_known(ino) && o->ino == ino && sum_exec_ns >= o->cpu_ns;
}

/* Room for n baselines in a->scratch and in s (whose current baselines
 * stay where slot_threads() finds them, moved or not): allocated before
 * anything is added, so that a failure changes nothing. */
static int reserve(struct fi_account *a, struct fi_slot *s, size_t n)
{
	if (n > UINT32_MAX)
		return -ENOMEM;
	if (n > a->scratch_cap) {
		struct fi_thread *v = reallocarray(a->scratch, n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		a->scratch = v;
		a->scratch_cap = n;
	}
	if (n > 1 && n > s->cap_threads) {
		struct fi_thread *v = reallocarray(s->more, n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (!s->more && s->n_threads)
			v[0] = s->one;
		s->more = v;
		s->cap_threads = (uint32_t)n;
	}
	return 0;
}

/* Keep the k baselines in a->scratch as s's; memory beyond 4 times what
 * they need goes back. */
static void store_threads(struct fi_account *a, struct fi_slot *s, size_t k)
{
	a->n_threads = a->n_threads - s->n_threads + k;
	s->n_threads = (uint32_t)k;
	if (k <= 1) {
		free(s->more);
		s->more = NULL;
		s->cap_threads = 0;
		if (k)
			s->one = a->scratch[0];
		return;
	}
	if (s->cap_threads > 4 * k) {
		struct fi_thread *v = reallocarray(s->more, k, sizeof(*v));

		if (v) {
			s->more = v;
			s->cap_threads = (uint32_t)k;
		}
	}
	memcpy(s->more, a->scratch, k * sizeof(*s->more));
}

/* Room kept for the next sample's baselines (FI_SCRATCH_KEEP): a sample
 * of more threads allocates its own and gives it back, which costs far
 * less than reading their files. Kept, an account would hold room for the
 * most threads a process ever had under its key, long after it is gone. */
static void scratch_trim(struct fi_account *a)
{
	if (a->scratch_cap > FI_SCRATCH_KEEP) {
		free(a->scratch);
		a->scratch = NULL;
		a->scratch_cap = 0;
	}
}

int fi_account_threads(struct fi_account *a, uint64_t task_id, struct fi_thread_sample *t, size_t n,
		       uint64_t born_since, unsigned flags)
{
	struct fi_slot *s = slot_find(a, task_id), none = { 0 };
	const struct fi_thread *old;
	bool known = s != NULL, keep = !(flags & FI_EXIT), seed = flags & FI_SEED;
	size_t k = 0;
	int r;

	if (!known) {
		if (!keep && n == 0)
			return -ENOENT;
		if (keep) {
			r = slot_insert(a, task_id, &s);
			if (r < 0)
				return r;
		} else
			s = &none;
	}
	if (keep) {
		r = reserve(a, s, n);
		if (r < 0) {
			scratch_trim(a);
			if (!known)
				slot_remove(a, s);
			return r;
		}
	}
	old = slot_threads(s);
	if (n > 1)
		qsort(t, n, sizeof(*t), by_tid);
	for (size_t i = 0; i < n; i++) {
		const struct fi_thread *o = find_thread(old, s->n_threads, t[i].tid);
		struct fi_thread b = { 0 };
		bool add;

		if (i > 0 && t[i].tid == t[i - 1].tid)
			continue; /* listed twice: once counts */
		if (o && same_thread(o, &t[i])) {
			b = *o;
			if (t[i].leader && s->n_threads > 1)
				leader_after_exec(old, s->n_threads, t, n, &t[i].s, &b);
			add = !seed;
		} else
			/* New here. In a new process every thread is as new
			 * as the process; in a known one, a thread born since
			 * the previous sample accrued all its time here, an
			 * older one (missed by that sample) may have been
			 * counted: from now. */
			add = !seed && (!known || (t[i].has_start && t[i].start >= born_since));
		b.tid = t[i].tid;
		b.leader = t[i].leader;
		if (ino_known(t[i].ino))
			b.ino = t[i].ino;
		if (t[i].has_start) {
			b.start = t[i].start;
			b.has_start = true;
		}
		thread_apply(a, &b, &t[i].s, add);
		if (keep)
			a->scratch[k++] = b;
	}
	if (keep) {
		store_threads(a, s, k);
		scratch_trim(a);
	} else if (known)
		slot_remove(a, s);
	return known ? 0 : 1;
}

/* A task as one counter: a single thread that is its own leader. */
static int task_sample(struct fi_account *a, uint64_t id, const struct fi_task_sample *now, unsigned flags)
{
	struct fi_thread_sample t = { .leader = true };

	if (now)
		t.s = *now;
	return fi_account_threads(a, id, now ? &t : NULL, now ? 1 : 0, 0, flags);
}

int fi_account_task(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *now)
{
	return task_sample(a, task_id, now, FI_WHOLE);
}

int fi_account_task_seed(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *now)
{
	return task_sample(a, task_id, now, FI_SEED);
}

int fi_account_task_exit(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *last)
{
	int r = task_sample(a, task_id, last, FI_EXIT);

	return r < 0 ? r : 0;
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
