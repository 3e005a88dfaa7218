// SPDX-License-Identifier: GPL-2.0-or-later
/* The dry run's kernel: reads are the real kernel's, cookies live only
 * here. It keeps what Linux keeps, per process (the engine sets cookies on
 * whole thread groups only): a cookie set by CREATE or SHARE_TO, copied at
 * fork and kept across exec. A process it has no record of carries what
 * its parent carried when it forked: so before a process's cookie changes,
 * its children with no record of their own are given the old one. Records
 * name a process by pid and start time, so a reused pid starts afresh. */
#include "engine-sys.h"

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "hashmap.h"

/* How long the last read of a process (whole, or the stat read to set its
 * cookie) stands in for reading its stat and status again: the engine asks
 * for a process's cookie right after reading it or setting it, within one
 * event. */
#define LAST_READ_FRESH_NS 2000000ull

/* Deeper than any real process tree; a loop in a corrupt one ends here. */
#define MAX_ANCESTORS 256
#define PRUNE_MIN 1024
/* Parents kept open by a pidfd (see parent_alive()): the fds a dry run
 * holds for them at most. */
#define PARENT_PIDFDS_MAX 64

struct dry_record {
	pid_t pid;
	uint64_t start;
	sc_cookie cookie;
	uint64_t seen_tick; /* read alive at this boot tick or later (0: not known) */
	int pidfd;          /* of this very process, opened before a read showed its start; -1: none */
};

/* The engine's opaque struct holder, as this file makes it. */
struct dry_holder {
	sc_cookie cookie;
};

struct dry_sys {
	struct engine_sys ops;
	const struct engine_sys *real;
	struct hashmap *records; /* pid -> struct dry_record */
	sc_cookie last_cookie;   /* synthetic values: 1, 2, ... never reused */
	unsigned holders;
	size_t prune_at;         /* look for records of exited processes at this size */
	uint64_t hz;             /* boot ticks a second */
	unsigned pidfds;         /* records holding a pidfd */
	struct {                 /* the last read of a process (its leader), whole or to set its cookie */
		pid_t pid, ppid;
		uint64_t start, at_ns;
		int kernel_thread;
		uint64_t tick; /* a boot tick before the read (0: not known) */
	} last;
};

#define REAL(d, fn, ...) ((d)->real->fn((d)->real->userdata, ##__VA_ARGS__))

static struct dry_sys *dry_of(void *u)
{
	return u;
}

static void record_close(struct dry_sys *d, struct dry_record *rec)
{
	if (rec->pidfd >= 0) {
		REAL(d, pidfd_close, rec->pidfd);
		d->pidfds--;
	}
	rec->pidfd = -1;
}

/* A record out of the table, and what it holds. */
static void record_free(struct dry_sys *d, struct dry_record *rec)
{
	record_close(d, rec);
	free(rec);
}

/* ---- forwarded as they are ---- */

static int d_start_time(void *u, pid_t pid, uint64_t *ret) { return REAL(dry_of(u), start_time, pid, ret); }
static int d_for_each_pid(void *u, procinfo_pid_fn fn, void *ud) { return REAL(dry_of(u), for_each_pid, fn, ud); }
static int d_for_each_thread(void *u, pid_t pid, procinfo_pid_fn fn, void *ud)
{
	return REAL(dry_of(u), for_each_thread, pid, fn, ud);
}
static int d_process_alive(void *u, pid_t tgid, uint64_t start) { return REAL(dry_of(u), process_alive, tgid, start); }
static int d_pidfd_open(void *u, pid_t pid) { return REAL(dry_of(u), pidfd_open, pid); }
static bool d_pidfd_alive(void *u, int fd) { return REAL(dry_of(u), pidfd_alive, fd); }
static void d_pidfd_close(void *u, int fd) { REAL(dry_of(u), pidfd_close, fd); }
static int d_sched_ext_enabled(void *u) { return REAL(dry_of(u), sched_ext_enabled); }
static uint64_t d_now_ns(void *u) { return REAL(dry_of(u), now_ns); }
static int d_cpu_ns(void *u, pid_t pid, uint64_t *ret)
{
	return dry_of(u)->real->cpu_ns ? REAL(dry_of(u), cpu_ns, pid, ret) : -EOPNOTSUPP;
}
static int d_touch(void *u, const char *path, uint64_t seen_ns)
{
	return dry_of(u)->real->touch ? REAL(dry_of(u), touch, path, seen_ns) : -EOPNOTSUPP;
}
static int d_seen_until(void *u, const char *path, uint64_t *ret)
{
	return dry_of(u)->real->seen_until ? REAL(dry_of(u), seen_until, path, ret) : -EOPNOTSUPP;
}
static int d_may_act(void *u, pid_t pid, uid_t uid, gid_t gid)
{
	return dry_of(u)->real->may_act ? REAL(dry_of(u), may_act, pid, uid, gid) : -EOPNOTSUPP;
}
static int d_no_new_privs(void *u, pid_t pid)
{
	return dry_of(u)->real->no_new_privs ? REAL(dry_of(u), no_new_privs, pid) : -EOPNOTSUPP;
}
static int d_thread_group(void *u, pid_t tid, pid_t *ret) { return REAL(dry_of(u), thread_group, tid, ret); }
static int d_for_each_child(void *u, pid_t pid, procinfo_pid_fn fn, void *ud)
{
	return REAL(dry_of(u), for_each_child, pid, fn, ud);
}

/* What the dry run is for: a preview on kernels without core scheduling
 * or SMT. */
static int d_smt_active(void *u)
{
	(void)u;
	return 1;
}

/* ---- what was just read ---- */

static void note_seen(struct dry_sys *d, pid_t pid, uint64_t start, uint64_t tick);

/* The boot tick now (0 where the real kernel has no boot clock). */
static uint64_t boot_tick(struct dry_sys *d)
{
	uint64_t tick;

	return d->real->boot_ticks && REAL(d, boot_ticks, &tick) == 0 ? tick : 0;
}

/* Process pid, as pi says, was just read, alive at tick or later: what
 * the cookie calls need of it (start time, parent) need not be read again
 * from /proc, where on a real kernel they would cost one prctl; and its
 * record, if it has one, shows it alive to its children's look-ups. */
static void remember_read(struct dry_sys *d, pid_t pid, const struct procinfo *pi, uint64_t tick)
{
	d->last.pid = pid;
	d->last.ppid = pi->ppid;
	d->last.start = pi->start_time;
	d->last.kernel_thread = pi->kernel_thread;
	d->last.at_ns = REAL(d, now_ns);
	d->last.tick = tick;
	note_seen(d, pid, pi->start_time, tick);
}

/* The outcome r of a read of pid into *ret that began at tick: remembered
 * when it succeeded and was of a thread group's leader (its_leader: the
 * caller knows it is; otherwise the read's tgid says), forgotten
 * otherwise. */
static int remember_outcome(struct dry_sys *d, pid_t pid, const struct procinfo *ret, uint64_t tick, int r,
			    bool its_leader)
{
	d->last.pid = 0;
	if (r >= 0 && (its_leader || ret->tgid == pid))
		remember_read(d, pid, ret, tick);
	return r;
}

/* Forwarded, and remembered when it read a thread group's leader. */
static int d_read(void *u, pid_t pid, struct procinfo *ret)
{
	struct dry_sys *d = dry_of(u);
	uint64_t tick = boot_tick(d);

	return remember_outcome(d, pid, ret, tick, REAL(d, read, pid, ret), false);
}

static int stat_of(struct dry_sys *d, pid_t pid, struct procinfo *ret);

/* Forwarded, and remembered: the engine reads only the stat of processes
 * whose pidfd it holds, which are thread groups' leaders. */
static int d_read_stat(void *u, pid_t pid, struct procinfo *ret)
{
	struct dry_sys *d = dry_of(u);
	uint64_t tick = boot_tick(d);

	return remember_outcome(d, pid, ret, tick, stat_of(d, pid, ret), true);
}

static int d_read_exe(void *u, pid_t pid, char *buf, size_t size)
{
	struct dry_sys *d = dry_of(u);

	return d->real->read_exe ? REAL(d, read_exe, pid, buf, size) : -EOPNOTSUPP;
}

/* Forwarded, and remembered as d_read() remembers a whole read. */
static int d_read_rest(void *u, pid_t pid, struct procinfo *ret)
{
	struct dry_sys *d = dry_of(u);
	uint64_t tick = boot_tick(d);
	int r = d->real->read_rest ? REAL(d, read_rest, pid, ret) : REAL(d, read, pid, ret);

	return remember_outcome(d, pid, ret, tick, r, false);
}

/* What stat would say of process pid, from the last read when that was
 * of pid and just now. */
static bool last_read_of(struct dry_sys *d, pid_t pid, struct procinfo *ret)
{
	if (d->last.pid != pid || pid <= 0 || REAL(d, now_ns) - d->last.at_ns > LAST_READ_FRESH_NS)
		return false;
	ret->pid = pid;
	ret->tgid = pid;
	ret->ppid = d->last.ppid;
	ret->start_time = d->last.start;
	ret->kernel_thread = d->last.kernel_thread;
	return true;
}

/* ---- the records ---- */


/* Records of processes that ended unseen by the engine (events lost) go
 * when records grow. A record whose process was read alive within the
 * last second is kept without a look: a start-up's scan, which records
 * every process once, then reads none of them again here. What is kept
 * that way and has ended since goes at a later prune, so records stay
 * within the live processes and those recorded in the last second. */
static void prune(struct dry_sys *d)
{
	size_t n = hashmap_size(d->records);
	void **v = calloc(n + 1, sizeof(*v));
	uint64_t start, now = boot_tick(d);

	n = v ? hashmap_values(d->records, v, n) : 0;
	for (size_t i = 0; i < n; i++) {
		struct dry_record *rec = v[i];

		if (now && rec->seen_tick && rec->seen_tick + d->hz > now)
			continue;
		if (REAL(d, start_time, rec->pid, &start) == 0 && start == rec->start)
			continue;
		hashmap_remove_u64(d->records, (uint64_t)rec->pid);
		record_free(d, rec);
	}
	free(v);
	n = hashmap_size(d->records);
	d->prune_at = n * 2 > PRUNE_MIN ? n * 2 : PRUNE_MIN;
}

static int record(struct dry_sys *d, pid_t pid, uint64_t start, sc_cookie c)
{
	struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)pid);

	if (!rec) {
		if (hashmap_size(d->records) >= d->prune_at)
			prune(d);
		rec = calloc(1, sizeof(*rec));
		if (!rec)
			return -ENOMEM;
		rec->pidfd = -1;
		if (hashmap_put_u64(d->records, (uint64_t)pid, rec) < 0) {
			free(rec);
			return -ENOMEM;
		}
	}
	if (rec->start != start)
		record_close(d, rec); /* another process's */
	*rec = (struct dry_record){ .pid = pid, .start = start, .cookie = c,
				    .seen_tick = rec->start == start ? rec->seen_tick : 0, .pidfd = rec->pidfd };
	return 0;
}

/* The record of process pid started at start, dropping one left by an
 * earlier process under the same pid. */
static const struct dry_record *record_of(struct dry_sys *d, pid_t pid, uint64_t start)
{
	struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)pid);

	if (rec && rec->start != start) {
		hashmap_remove_u64(d->records, (uint64_t)pid);
		record_free(d, rec);
		rec = NULL;
	}
	return rec;
}

/* What stat says of pid: the start time that names a record and the
 * parent, from one file (the whole read where the table has no read_stat). */
static int stat_of(struct dry_sys *d, pid_t pid, struct procinfo *ret)
{
	return d->real->read_stat ? REAL(d, read_stat, pid, ret) : REAL(d, read, pid, ret);
}

/* The record of the process that forked a child started at child_start,
 * when it shows without a read: a process under ppid that started no later
 * than the child and was seen alive after the child's start (a later tick:
 * ticks are coarse) lived when the child was forked, and two processes
 * never hold one pid at once. */
static const struct dry_record *parent_seen(struct dry_sys *d, pid_t ppid, uint64_t child_start)
{
	const struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)ppid);

	return rec && rec->start <= child_start && rec->seen_tick > child_start ? rec : NULL;
}

/* The same, shown by the record's pidfd: a process under ppid that started
 * no later than the child and lives now lived when the child was forked.
 * The pidfd is the record's process's: it was opened before the read that
 * showed the record's start (see keep_pidfd()), so a process that held
 * the pid before has exited, and polls so. One poll where a stat read is
 * three calls: on a real kernel the cookie is one prctl, and a parent that
 * forks again and again (a shell, a server, a storm) costs its children
 * no read. (A poll that fails counts as alive, as for the engine; for one
 * fd it does not allocate, and does not fail.) */
static const struct dry_record *parent_alive(struct dry_sys *d, pid_t ppid, uint64_t child_start)
{
	const struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)ppid);

	return rec && rec->pidfd >= 0 && rec->start <= child_start && REAL(d, pidfd_alive, rec->pidfd) ? rec : NULL;
}

/* A pidfd of ppid, opened before the read of its stat that keep_pidfd()
 * hands it to: -1 where the dry run holds enough, or ppid has a record
 * that holds one already. */
static int open_parent_pidfd(struct dry_sys *d, pid_t ppid)
{
	const struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)ppid);
	int fd;

	if (d->pidfds >= PARENT_PIDFDS_MAX || (rec && rec->pidfd >= 0))
		return -1;
	fd = REAL(d, pidfd_open, ppid);
	return fd < 0 ? -1 : fd;
}

/* fd, opened before a read showed process ppid started at start, goes to
 * its record (if it has one with none), or is closed. */
static void keep_pidfd(struct dry_sys *d, pid_t ppid, uint64_t start, int fd)
{
	struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)ppid);

	if (fd < 0)
		return;
	if (rec && rec->start == start && rec->pidfd < 0 && d->pidfds < PARENT_PIDFDS_MAX) {
		rec->pidfd = fd;
		d->pidfds++;
	} else
		REAL(d, pidfd_close, fd);
}

static void note_seen(struct dry_sys *d, pid_t pid, uint64_t start, uint64_t tick)
{
	struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)pid);

	if (rec && rec->start == start && tick > rec->seen_tick)
		rec->seen_tick = tick;
}

/* The cookie process pid (as pi describes it) carries: its record, or its
 * parent's, as fork copied it. What is found through the parent is
 * recorded, so that the parent's later changes (or its exit, and a new
 * parent) do not alter it. */
static int cookie_of_known(struct dry_sys *d, pid_t pid, const struct procinfo *pi, unsigned depth, sc_cookie *ret)
{
	const struct dry_record *rec = record_of(d, pid, pi->start_time);
	struct procinfo parent;
	sc_cookie c = 0;
	uint64_t tick = 0;
	int r;

	if (rec) {
		*ret = rec->cookie;
		return 0;
	}
	/* The parent started first; one that did not is a newer process
	 * under the parent's pid, whatever it says. The tick is taken before
	 * the read: the parent lived then or later. */
	if (pi->ppid > 0 && pi->ppid != pid && depth < MAX_ANCESTORS && !pi->kernel_thread) {
		if ((rec = parent_seen(d, pi->ppid, pi->start_time)) || (rec = parent_alive(d, pi->ppid, pi->start_time))) {
			c = rec->cookie;
		} else {
			int fd = open_parent_pidfd(d, pi->ppid);

			if (!d->real->boot_ticks || REAL(d, boot_ticks, &tick) < 0)
				tick = 0;
			if (stat_of(d, pi->ppid, &parent) == 0 && parent.start_time <= pi->start_time) {
				if (cookie_of_known(d, pi->ppid, &parent, depth + 1, &c) < 0)
					c = 0;
				else {
					if (tick)
						note_seen(d, pi->ppid, parent.start_time, tick);
					keep_pidfd(d, pi->ppid, parent.start_time, fd);
					fd = -1;
				}
			}
			if (fd >= 0)
				REAL(d, pidfd_close, fd);
		}
	}
	r = record(d, pid, pi->start_time, c);
	if (r < 0)
		return r;
	if (d->last.pid == pid && d->last.start == pi->start_time)
		note_seen(d, pid, pi->start_time, d->last.tick); /* read alive then */
	*ret = c;
	return 0;
}

struct freeze {
	struct dry_sys *d;
	sc_cookie cookie;
};

static int freeze_child(void *userdata, pid_t child)
{
	struct freeze *f = userdata;
	uint64_t start;

	if (REAL(f->d, start_time, child, &start) < 0 || record_of(f->d, child, start))
		return 0;
	return record(f->d, child, start, f->cookie);
}

/* Set process pid's cookie to c, after its children with no record of
 * their own took the one they forked with. */
static int set_cookie(struct dry_sys *d, pid_t pid, sc_cookie c)
{
	struct freeze f = { .d = d };
	struct procinfo pi;
	bool read = false;
	uint64_t tick = 0;
	int r;

	if (!last_read_of(d, pid, &pi)) {
		tick = boot_tick(d);
		r = stat_of(d, pid, &pi);
		if (r < 0)
			return r;
		read = true;
	}
	r = cookie_of_known(d, pid, &pi, 0, &f.cookie);
	if (r < 0)
		return r;
	if (f.cookie != c) {
		r = REAL(d, for_each_child, pid, freeze_child, &f);
		if (r < 0 && r != -ESRCH)
			return r;
	}
	r = record(d, pid, pi.start_time, c);
	/* The engine reads the cookie back at once: from what was just read,
	 * as on a real kernel, with no second look at /proc. */
	if (r == 0 && read)
		remember_read(d, pid, &pi, tick);
	return r;
}

static int d_cookie_get(void *u, pid_t tid, sc_cookie *ret)
{
	struct dry_sys *d = dry_of(u);
	pid_t tgid;
	struct procinfo pi;
	int r;

	if (last_read_of(d, tid, &pi))
		return cookie_of_known(d, tid, &pi, 0, ret);
	r = REAL(d, thread_group, tid, &tgid);
	if (r >= 0)
		r = stat_of(d, tgid, &pi);
	return r < 0 ? r : cookie_of_known(d, tgid, &pi, 0, ret);
}

/* The engine saw process pid end: what fork would copy from it no child
 * asks for any more (its children name another parent). */
static void d_forget(void *u, pid_t pid, uint64_t start)
{
	struct dry_sys *d = dry_of(u);
	struct dry_record *rec = hashmap_get_u64(d->records, (uint64_t)pid);

	if (d->last.pid == pid)
		d->last.pid = 0;
	if (rec && rec->start == start) {
		hashmap_remove_u64(d->records, (uint64_t)pid);
		record_free(d, rec);
	}
}

static int d_cookie_create(void *u, pid_t pid)
{
	struct dry_sys *d = dry_of(u);

	return set_cookie(d, pid, ++d->last_cookie);
}

static int d_cookie_assign(void *u, const struct holder *h, pid_t pid)
{
	const struct dry_holder *dh = (const struct dry_holder *)h;

	return set_cookie(dry_of(u), pid, dh ? dh->cookie : 0);
}

static int d_holder_new(void *u, pid_t adopt_tid, struct holder **ret)
{
	struct dry_sys *d = dry_of(u);
	struct dry_holder *h;
	sc_cookie c;
	int r;

	if (adopt_tid > 0) {
		r = d_cookie_get(u, adopt_tid, &c);
		if (r < 0)
			return r;
	} else
		c = d->last_cookie + 1;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	if (adopt_tid <= 0)
		d->last_cookie = c;
	h->cookie = c;
	d->holders++;
	*ret = (struct holder *)h;
	return 0;
}

static void d_holder_free(void *u, struct holder *h)
{
	if (!h)
		return;
	dry_of(u)->holders--;
	free(h);
}

static sc_cookie d_holder_cookie(void *u, const struct holder *h)
{
	(void)u;
	return h ? ((const struct dry_holder *)h)->cookie : 0;
}

struct engine_sys *engine_sys_dry_new(const struct engine_sys *real)
{
	struct dry_sys *d;

	if (!real || !real->thread_group || !real->for_each_child)
		return NULL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->records = hashmap_new(false);
	if (!d->records) {
		free(d);
		return NULL;
	}
	d->real = real;
	d->prune_at = PRUNE_MIN;
	d->hz = sysconf(_SC_CLK_TCK) > 0 ? (uint64_t)sysconf(_SC_CLK_TCK) : 100;
	d->ops = (struct engine_sys){
		.read = d_read, .read_stat = d_read_stat, .read_exe = d_read_exe, .read_rest = d_read_rest,
		.start_time = d_start_time, .for_each_pid = d_for_each_pid,
		.for_each_thread = d_for_each_thread, .process_alive = d_process_alive,
		.pidfd_open = d_pidfd_open, .pidfd_alive = d_pidfd_alive, .pidfd_close = d_pidfd_close,
		.cookie_get = d_cookie_get, .cookie_create = d_cookie_create, .cookie_assign = d_cookie_assign,
		.holder_new = d_holder_new, .holder_free = d_holder_free, .holder_cookie = d_holder_cookie,
		.smt_active = d_smt_active, .sched_ext_enabled = d_sched_ext_enabled, .now_ns = d_now_ns,
		.cpu_ns = d_cpu_ns, .touch = d_touch, .seen_until = d_seen_until, .thread_group = d_thread_group, .for_each_child = d_for_each_child,
		.may_act = d_may_act, .no_new_privs = d_no_new_privs, .forget = d_forget, .userdata = d,
	};
	return &d->ops;
}

static void free_record(void *userdata, void *value)
{
	record_free(userdata, value);
}

struct engine_sys *engine_sys_dry_free(struct engine_sys *s)
{
	struct dry_sys *d = (struct dry_sys *)s; /* ops is the first member */

	if (!d)
		return NULL;
	hashmap_foreach(d->records, free_record, d);
	hashmap_free(d->records);
	free(d);
	return NULL;
}

unsigned engine_sys_dry_holders(const struct engine_sys *s)
{
	return s ? ((const struct dry_sys *)s)->holders : 0;
}

size_t engine_sys_dry_records(const struct engine_sys *s)
{
	return s ? hashmap_size(((const struct dry_sys *)s)->records) : 0;
}
