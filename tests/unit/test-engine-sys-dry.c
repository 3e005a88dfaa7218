// SPDX-License-Identifier: GPL-2.0-or-later
/* The dry run's kernel over a fake real one that has processes but no
 * cookies at all (like a kernel without core scheduling): what it records,
 * what fork would have copied, pid reuse, holders; and the engine deciding
 * over it as over a kernel that applies. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "engine-internal.h"
#include "log.h"
#include "unit.h"

#define MAX_PROCS 160
/* The random test's live processes at most. */
#define RANDOM_PROCS 56

struct fproc {
	bool alive;
	pid_t pid, ppid;
	uint64_t start;
	pid_t tids[3]; /* besides the leader */
	char comm[16];
	char exe[64];
};

static struct fproc procs[MAX_PROCS];

/* A pidfd names one process, not its pid: its slot holds the pid and the
 * start time it was opened on; fds_open counts those not closed. */
#define MAX_FDS 256
static struct {
	bool used;
	pid_t pid;
	uint64_t start;
} fds[MAX_FDS];
static unsigned fds_open;

static uint64_t clock_ticks = 100;
static unsigned calls_cookie; /* the real table's cookie calls: must stay 0 */
static unsigned calls_read, calls_lookup; /* whole reads; thread_group and start_time */
static uint64_t fake_ns;

static struct fproc *proc_of(pid_t pid)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].alive && procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

static void reset(void)
{
	CHECK(fds_open == 0); /* every dry run so far closed what it opened */
	memset(procs, 0, sizeof(procs));
	/* init, and a shell under it */
	procs[0] = (struct fproc){ .alive = true, .pid = 1, .ppid = 0, .start = 1, .comm = "init", .exe = "/sbin/init" };
	procs[1] = (struct fproc){ .alive = true, .pid = 10, .ppid = 1, .start = 2, .comm = "sh", .exe = "/bin/sh" };
}

static struct fproc *spawn(pid_t pid, pid_t ppid, const char *exe)
{
	for (int i = 0; i < MAX_PROCS; i++)
		if (!procs[i].alive) {
			const char *base = strrchr(exe, '/');

			procs[i] = (struct fproc){ .alive = true, .pid = pid, .ppid = ppid, .start = ++clock_ticks };
			snprintf(procs[i].exe, sizeof(procs[i].exe), "%s", exe);
			snprintf(procs[i].comm, sizeof(procs[i].comm), "%s", base ? base + 1 : exe);
			return &procs[i];
		}
	abort();
}

/* Its children go to init, as Linux reparents them. */
static void reap(pid_t pid)
{
	struct fproc *p = proc_of(pid);

	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].alive && procs[i].ppid == pid)
			procs[i].ppid = 1;
	if (p)
		p->alive = false;
}

static int fk_read(void *u, pid_t pid, struct procinfo *ret)
{
	struct fproc *p = proc_of(pid);

	(void)u;
	if (!p)
		return -ESRCH;
	memset(ret, 0, sizeof(*ret));
	calls_read++;
	ret->pid = pid;
	ret->tgid = pid;
	ret->ppid = p->ppid;
	ret->start_time = p->start;
	snprintf(ret->comm, sizeof(ret->comm), "%s", p->comm);
	snprintf(ret->exe, sizeof(ret->exe), "%s", p->exe);
	snprintf(ret->cgroup, sizeof(ret->cgroup), "/user.slice");
	ret->state = 'S';
	return 0;
}

static int fk_start_time(void *u, pid_t pid, uint64_t *ret)
{
	struct fproc *p = proc_of(pid);

	(void)u;
	calls_lookup++;
	if (!p)
		return -ESRCH;
	*ret = p->start;
	return 0;
}

static int fk_for_each_pid(void *u, procinfo_pid_fn fn, void *ud)
{
	pid_t pids[MAX_PROCS];
	int n = 0, r;

	(void)u;
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].alive)
			pids[n++] = procs[i].pid;
	for (int i = 0; i < n; i++)
		if ((r = fn(ud, pids[i])) < 0)
			return r;
	return n;
}

static int fk_for_each_thread(void *u, pid_t pid, procinfo_pid_fn fn, void *ud)
{
	struct fproc *p = proc_of(pid);
	int r;

	(void)u;
	if (!p)
		return -ESRCH;
	if ((r = fn(ud, pid)) < 0)
		return r;
	for (int j = 0; j < 3; j++)
		if (p->tids[j] && (r = fn(ud, p->tids[j])) < 0)
			return r;
	return 0;
}

static int fk_process_alive(void *u, pid_t tgid, uint64_t start)
{
	struct fproc *p = proc_of(tgid);

	(void)u;
	return p && p->start == start;
}

static int fk_pidfd_open(void *u, pid_t pid)
{
	const struct fproc *p = proc_of(pid);

	(void)u;
	if (!p)
		return -ESRCH;
	for (int i = 0; i < MAX_FDS; i++)
		if (!fds[i].used) {
			fds[i].used = true;
			fds[i].pid = pid;
			fds[i].start = p->start;
			fds_open++;
			return 100 + i;
		}
	return -EMFILE;
}

static bool fk_pidfd_alive(void *u, int fd)
{
	const struct fproc *p;

	(void)u;
	CHECK(fd >= 100 && fd < 100 + MAX_FDS && fds[fd - 100].used);
	if (fd < 100 || fd >= 100 + MAX_FDS)
		return false;
	p = proc_of(fds[fd - 100].pid);
	return p && p->start == fds[fd - 100].start;
}

static void fk_pidfd_close(void *u, int fd)
{
	(void)u;
	CHECK(fd >= 100 && fd < 100 + MAX_FDS && fds[fd - 100].used);
	if (fd >= 100 && fd < 100 + MAX_FDS && fds[fd - 100].used) {
		fds[fd - 100].used = false;
		fds_open--;
	}
}

/* For a dry run that must look everything up: no pidfd shows a process
 * alive. */
static bool fk_pidfd_never_alive(void *u, int fd)
{
	(void)u, (void)fd;
	return false;
}

/* A kernel without core scheduling: every cookie call fails, and counts. */
static int fk_cookie_get(void *u, pid_t tid, sc_cookie *ret)
{
	(void)u, (void)tid, (void)ret;
	calls_cookie++;
	return -EINVAL;
}

static int fk_cookie_create(void *u, pid_t pid)
{
	(void)u, (void)pid;
	calls_cookie++;
	return -EINVAL;
}

static int fk_cookie_assign(void *u, const struct holder *h, pid_t pid)
{
	(void)u, (void)h, (void)pid;
	calls_cookie++;
	return -EINVAL;
}

static int fk_holder_new(void *u, pid_t adopt, struct holder **ret)
{
	(void)u, (void)adopt, (void)ret;
	calls_cookie++;
	return -EINVAL;
}

static void fk_holder_free(void *u, struct holder *h)
{
	(void)u, (void)h;
	calls_cookie++;
}

static sc_cookie fk_holder_cookie(void *u, const struct holder *h)
{
	(void)u, (void)h;
	calls_cookie++;
	return 0;
}

static int fk_smt_active(void *u)
{
	(void)u;
	return 0; /* no SMT here either */
}

static int fk_sched_ext(void *u)
{
	(void)u;
	return 0;
}

static uint64_t fk_now(void *u)
{
	(void)u;
	return ++fake_ns;
}

static int fk_thread_group(void *u, pid_t tid, pid_t *ret)
{
	(void)u;
	calls_lookup++;
	for (int i = 0; i < MAX_PROCS; i++)
		for (int j = 0; procs[i].alive && j < 3; j++)
			if (procs[i].pid == tid || procs[i].tids[j] == tid) {
				*ret = procs[i].pid;
				return 0;
			}
	return -ESRCH;
}

static int fk_for_each_child(void *u, pid_t pid, procinfo_pid_fn fn, void *ud)
{
	int r;

	(void)u;
	if (!proc_of(pid))
		return -ESRCH;
	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].alive && procs[i].ppid == pid && (r = fn(ud, procs[i].pid)) < 0)
			return r;
	return 0;
}

static const struct engine_sys real = {
	.read = fk_read, .start_time = fk_start_time, .for_each_pid = fk_for_each_pid,
	.for_each_thread = fk_for_each_thread, .process_alive = fk_process_alive,
	.pidfd_open = fk_pidfd_open, .pidfd_alive = fk_pidfd_alive, .pidfd_close = fk_pidfd_close,
	.cookie_get = fk_cookie_get, .cookie_create = fk_cookie_create, .cookie_assign = fk_cookie_assign,
	.holder_new = fk_holder_new, .holder_free = fk_holder_free, .holder_cookie = fk_holder_cookie,
	.smt_active = fk_smt_active, .sched_ext_enabled = fk_sched_ext, .now_ns = fk_now,
	.thread_group = fk_thread_group, .for_each_child = fk_for_each_child,
};

/* The same kernel with a boot clock: the ticks spawn() dates starts by. */
static int fk_boot_ticks(void *u, uint64_t *ret)
{
	(void)u;
	*ret = clock_ticks;
	return 0;
}

static struct engine_sys real_clocked;

#define D(fn, ...) (s->fn(s->userdata, ##__VA_ARGS__))

static sc_cookie get(struct engine_sys *s, pid_t tid)
{
	sc_cookie c = 0xdead;

	return D(cookie_get, tid, &c) == 0 ? c : 0xdead;
}

static struct engine_sys *setup(void)
{
	reset();
	calls_cookie = 0;
	return engine_sys_dry_new(&real);
}

/* A process with no record carries its parent's; CREATE and SHARE_TO
 * record per process, threads included; nothing reaches the real table. */
static void test_records_and_inheritance(void)
{
	struct engine_sys *s = setup();
	struct holder *h = NULL;
	sc_cookie c;

	CHECK(s != NULL);
	spawn(20, 10, "/usr/bin/web")->tids[0] = 21;
	spawn(30, 20, "/usr/bin/helper");
	CHECK(D(smt_active) == 1);
	CHECK(get(s, 20) == 0);
	CHECK(D(cookie_create, 20) == 0);
	c = get(s, 20);
	CHECK(c != 0 && c != 0xdead);
	CHECK(get(s, 21) == c);  /* a thread: its process's */
	CHECK(get(s, 30) != c);  /* forked before: kept what it had, 0 */
	CHECK(get(s, 30) == 0);
	spawn(31, 20, "/usr/bin/helper");
	spawn(40, 31, "/bin/cat");
	CHECK(get(s, 40) == c);  /* forked after: the grandparent's, through 31 */
	CHECK(D(holder_new, 0, &h) == 0);
	CHECK(D(holder_cookie, h) != 0 && D(holder_cookie, h) != c);
	CHECK(engine_sys_dry_holders(s) == 1);
	CHECK(D(cookie_assign, h, 10) == 0);
	CHECK(get(s, 10) == D(holder_cookie, h));
	CHECK(get(s, 20) == c); /* its own record stands */
	CHECK(D(cookie_assign, NULL, 20) == 0);
	CHECK(get(s, 20) == 0);
	CHECK(get(s, 40) == c); /* recorded when looked at: as it forked */
	D(holder_free, h);
	CHECK(engine_sys_dry_holders(s) == 0);
	CHECK(D(cookie_create, 99) == -ESRCH);
	CHECK(D(cookie_assign, NULL, 99) == -ESRCH);
	CHECK(D(cookie_get, 99, &c) == -ESRCH);
	CHECK(calls_cookie == 0);
	engine_sys_dry_free(s);
}

/* Children nobody looked at yet keep what they forked with when their
 * parent changes: the kernel copied the cookie at fork. */
static void test_children_keep_fork_cookie(void)
{
	struct engine_sys *s = setup();
	struct holder *a = NULL, *b = NULL;

	spawn(20, 10, "/usr/bin/web");
	CHECK(D(holder_new, 0, &a) == 0 && D(holder_new, 0, &b) == 0);
	CHECK(D(cookie_assign, a, 20) == 0);
	spawn(21, 20, "/usr/bin/web");      /* forked with a's */
	spawn(22, 21, "/usr/bin/web");      /* and its child, with a's too */
	CHECK(D(cookie_assign, b, 20) == 0); /* the parent moves on */
	spawn(23, 20, "/usr/bin/web");      /* forked with b's */
	CHECK(get(s, 21) == D(holder_cookie, a));
	CHECK(get(s, 22) == D(holder_cookie, a));
	CHECK(get(s, 23) == D(holder_cookie, b));
	/* The parent exits and its children go to init: no change for them. */
	reap(20);
	CHECK(get(s, 23) == D(holder_cookie, b));
	/* A holder adopting a process's cookie carries it. */
	{
		struct holder *c = NULL, *none = NULL;

		CHECK(D(holder_new, 22, &c) == 0 && D(holder_cookie, c) == D(holder_cookie, a));
		CHECK(D(holder_new, 98, &none) == -ESRCH && !none);
		D(holder_free, c);
	}
	D(holder_free, a);
	D(holder_free, b);
	CHECK(calls_cookie == 0);
	engine_sys_dry_free(s);
}

/* A record names a process by pid and start time: a new process under a
 * reused pid inherits from its own parent, not the old record. */
static void test_pid_reuse(void)
{
	struct engine_sys *s = setup();
	struct holder *h = NULL;

	spawn(20, 10, "/usr/bin/web");
	CHECK(D(holder_new, 0, &h) == 0);
	CHECK(D(cookie_assign, h, 20) == 0);
	CHECK(get(s, 20) == D(holder_cookie, h));
	reap(20);
	spawn(20, 10, "/bin/other"); /* the same pid, a later start */
	fake_ns += 2 * 1000 * 1000 + 1; /* pids come back long after: the cookie's read is old */
	CHECK(get(s, 20) == 0);
	/* Records of exited processes are pruned as records grow. */
	for (pid_t p = 1000; p < 1000 + 2000; p++) {
		spawn(p, 10, "/bin/true");
		CHECK(D(cookie_create, p) == 0);
		reap(p);
	}
	CHECK(engine_sys_dry_records(s) <= 1024);
	D(holder_free, h);
	engine_sys_dry_free(s);
}

/* Records grown past the prune's mark are looked at only when their
 * process was not read alive within the last second: a scan's records
 * are kept with no read of /proc; older ones of ended processes go. */
static void test_prune_spares_the_just_read(void)
{
	struct engine_sys *s;
	struct procinfo pi;
	unsigned before;

	reset();
	real_clocked = real;
	real_clocked.boot_ticks = fk_boot_ticks;
	s = engine_sys_dry_new(&real_clocked);
	CHECK(s != NULL);
	before = calls_lookup;
	for (pid_t p = 1000; p < 1000 + 1100; p++) {
		spawn(p, 10, "/bin/true");
		clock_ticks--; /* all within one tick */
		CHECK(D(read, p, &pi) == 0);
		CHECK(get(s, p) == 0);
		reap(p);
	}
	CHECK(calls_lookup == before);             /* no start time read again */
	CHECK(engine_sys_dry_records(s) > 1024);   /* nothing dropped unseen */
	clock_ticks += 200;                        /* two seconds on */
	for (pid_t p = 3000; p < 3000 + 1000; p++) {
		spawn(p, 10, "/bin/true");
		clock_ticks--;
		CHECK(D(read, p, &pi) == 0);
		CHECK(get(s, p) == 0);
		reap(p);
	}
	CHECK(calls_lookup >= before + 1100);      /* the old ones were looked at */
	CHECK(engine_sys_dry_records(s) <= 1000 + 2); /* the ended ones went (their parent and init stay) */
	engine_sys_dry_free(s);
}

/* A cookie asked for right after the process was read takes its start
 * time and parent from that read (no lookup); a while later, or of
 * another pid, it looks again, and a new process under the pid is not
 * taken for the one read. */
static void test_last_read(void)
{
	struct engine_sys *s = setup();
	struct procinfo pi;
	struct holder *h = NULL;
	unsigned before, reads;

	spawn(20, 10, "/usr/bin/web");
	CHECK(D(holder_new, 0, &h) == 0);
	CHECK(D(read, 20, &pi) == 0 && pi.tgid == 20);
	before = calls_lookup;
	CHECK(D(cookie_assign, h, 20) == 0);
	CHECK(get(s, 20) == D(holder_cookie, h));
	CHECK(calls_lookup == before); /* no lookup: the read said it all */
	get(s, 10);
	CHECK(calls_lookup > before); /* another pid: looked up */
	/* The read grows old: a new process under pid 20 is looked up. */
	CHECK(D(read, 20, &pi) == 0);
	reap(20);
	spawn(20, 10, "/bin/other");
	fake_ns += 2 * 1000 * 1000 + 1;
	before = calls_lookup;
	CHECK(get(s, 20) == 0);
	CHECK(calls_lookup > before);
	/* A failed read forgets the last one. */
	CHECK(D(read, 20, &pi) == 0);
	CHECK(D(read, 77, &pi) == -ESRCH);
	before = calls_lookup;
	CHECK(get(s, 20) == 0);
	CHECK(calls_lookup > before);
	/* A cookie set long after any read reads the process once, and the
	 * engine's read-back right after it looks nothing up again. */
	fake_ns += 2 * 1000 * 1000 + 1;
	before = calls_lookup;
	reads = calls_read;
	CHECK(D(cookie_assign, h, 20) == 0);
	CHECK(calls_read == reads + 1);
	CHECK(get(s, 20) == D(holder_cookie, h));
	CHECK(calls_lookup == before && calls_read == reads + 1);
	CHECK(calls_read >= 4 && calls_cookie == 0);
	D(holder_free, h);
	engine_sys_dry_free(s);
}

/* A parent seen alive at a tick after its child started is the child's
 * parent without reading it again (siblings of a scan, of a storm); one
 * seen no later than the child started, or a new process under its pid,
 * is read. */
static void test_parent_seen(void)
{
	struct engine_sys *s;
	struct procinfo pi;
	unsigned before;
	sc_cookie c;

	reset();
	real_clocked = real;
	real_clocked.boot_ticks = fk_boot_ticks;
	real_clocked.pidfd_alive = fk_pidfd_never_alive; /* the ticks alone */
	s = engine_sys_dry_new(&real_clocked);
	CHECK(s != NULL);
	spawn(20, 10, "/usr/bin/web");
	CHECK(D(cookie_create, 20) == 0);
	c = get(s, 20);
	spawn(30, 20, "/bin/a");
	spawn(31, 20, "/bin/b");
	clock_ticks++; /* the next look is a tick after both started */
	before = calls_read;
	CHECK(get(s, 30) == c);
	CHECK(calls_read == before + 2); /* 30 and its parent */
	before = calls_read;
	CHECK(get(s, 31) == c);
	CHECK(calls_read == before + 1); /* 31 only: 20 was seen after 31 began */
	/* Started in the tick the parent was last seen: read again. */
	spawn(32, 20, "/bin/c")->start = clock_ticks;
	before = calls_read;
	CHECK(get(s, 32) == c);
	CHECK(calls_read == before + 2);
	/* A new process under the parent's pid, and its child: the old
	 * sighting does not stand for it. */
	reap(20);
	spawn(20, 10, "/bin/other");
	spawn(33, 20, "/bin/d");
	before = calls_read;
	CHECK(get(s, 33) == 0);
	CHECK(calls_read == before + 3); /* 33, the new 20, and 10 (last seen before the new 20 began) */
	/* A process the engine read and looked at (a scan) was seen alive
	 * then: its older children are looked up without reading it again. */
	spawn(40, 10, "/bin/e");
	spawn(41, 40, "/bin/f");
	clock_ticks++;
	CHECK(D(read, 40, &pi) == 0);
	c = get(s, 40);
	before = calls_read;
	CHECK(get(s, 41) == c);
	CHECK(calls_read == before + 1); /* 41 only */
	CHECK(calls_cookie == 0);
	engine_sys_dry_free(s);
}

/* A parent looked at once is kept by a pidfd: its later children are
 * looked up without reading it again, until it ends (a new process under
 * its pid is read, and judged as itself); the fds stay bounded, and go
 * with their records. */
static void test_parent_pidfd(void)
{
	struct engine_sys *s = setup(); /* no boot clock: no sighting by ticks */
	unsigned before, held;
	sc_cookie c;

	CHECK(s != NULL);
	spawn(20, 10, "/usr/bin/web");
	CHECK(D(cookie_create, 20) == 0);
	c = get(s, 20);
	spawn(30, 20, "/bin/a");
	spawn(31, 20, "/bin/b");
	held = fds_open; /* 10's and 1's: the create looked up what 20 carried */
	before = calls_read;
	CHECK(get(s, 30) == c);
	CHECK(calls_read == before + 2); /* 30 and its parent */
	CHECK(fds_open == held + 1);     /* 20's */
	before = calls_read;
	CHECK(get(s, 31) == c);
	CHECK(calls_read == before + 1); /* 31 only: 20's pidfd shows it alive */
	/* 20 sets another cookie: its children keep what they forked with,
	 * and a child forked after it carries the new one, 20 still unread. */
	spawn(32, 20, "/bin/c");
	CHECK(get(s, 32) == c);
	CHECK(D(cookie_create, 20) == 0);
	CHECK(get(s, 20) != c);
	spawn(34, 20, "/bin/e");
	before = calls_read;
	CHECK(get(s, 34) == get(s, 20));
	CHECK(get(s, 30) == c && get(s, 31) == c && get(s, 32) == c);
	/* A new process under the parent's pid: the old one's pidfd shows it
	 * ended, so it is read, and its child carries what it carries (0). */
	reap(20);
	spawn(20, 10, "/bin/other");
	spawn(33, 20, "/bin/d");
	before = calls_read;
	CHECK(get(s, 33) == 0);
	CHECK(calls_read > before + 1); /* 33 and the new 20 at least */
	/* Many parents: no more pidfds than the bound. */
	for (int i = 0; i < 70; i++) {
		spawn(200 + i, 10, "/bin/p");
		spawn(300 + i, 200 + i, "/bin/q");
		CHECK(get(s, 300 + i) == 0);
		reap(300 + i);
	}
	CHECK(fds_open == 64);
	engine_sys_dry_free(s);
	CHECK(fds_open == 0);
}

/* A clock for a dry run that never finds its last read fresh. */
static uint64_t far_ns;

static uint64_t fk_far_now(void *u)
{
	(void)u;
	return far_ns += 3 * 1000 * 1000;
}

static unsigned rnd_state = 12345;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return (rnd_state >> 16) % n;
}

/* A live process at random, not init or the shell when mortal is set. */
static struct fproc *some_proc(bool mortal)
{
	struct fproc *v[MAX_PROCS];
	int n = 0;

	for (int i = 0; i < MAX_PROCS; i++)
		if (procs[i].alive && (!mortal || procs[i].pid > 10))
			v[n++] = &procs[i];
	return n ? v[rnd((unsigned)n)] : NULL;
}

/* Whether both dry runs give tid the same cookie (or the same error). */
static bool agree(struct engine_sys *fast, struct engine_sys *slow, pid_t tid, int step)
{
	sc_cookie cf = 0xdead, cs = 0xdead;
	int rf = fast->cookie_get(fast->userdata, tid, &cf);
	int rs = slow->cookie_get(slow->userdata, tid, &cs);

	if (rf == rs && cf == cs)
		return true;
	printf("  step %d: pid %d: %d 0x%llx with the shortcuts, %d 0x%llx without\n", step, (int)tid, rf,
	       (unsigned long long)cf, rs, (unsigned long long)cs);
	return false;
}

/* The shortcuts (the last read standing in for a lookup, a parent seen
 * alive after its child started) give every live process the cookie the
 * plain lookups give it: one dry run with a boot clock and a clock under
 * which reads stay fresh, another that looks everything up, over the same
 * forks (many in one tick), exits, reads, cookie changes and ticks. A pid
 * comes back more than the freshness window after its process went, in
 * the same tick or later, under another start time. */
static void test_shortcuts_agree(void)
{
	static struct engine_sys real_far;
	struct engine_sys *fast, *slow, *s;
	struct holder *hf[3], *hs[3];
	pid_t next = 100, dead[MAX_PROCS];
	uint64_t dead_start[MAX_PROCS];
	int ndead = 0, steps = 0, reuses = 0, compared = 0, mismatched = 0;

	reset();
	real_clocked = real;
	real_clocked.boot_ticks = fk_boot_ticks;
	real_far = real;
	real_far.now_ns = fk_far_now;
	real_far.pidfd_alive = fk_pidfd_never_alive;
	fast = engine_sys_dry_new(&real_clocked);
	slow = engine_sys_dry_new(&real_far);
	CHECK(fast && slow);
	if (!fast || !slow)
		return;
	for (int i = 0; i < 3; i++) {
		s = fast;
		CHECK(D(holder_new, 0, &hf[i]) == 0);
		s = slow;
		CHECK(D(holder_new, 0, &hs[i]) == 0);
	}
	for (steps = 0; steps < 20000; steps++) {
		unsigned op = rnd(100);
		struct fproc *p = some_proc(op >= 10 && op < 20);
		struct procinfo pi;
		int rf, rs, k;
		pid_t pid;

		if (!p)
			continue;
		pid = p->pid;
		if (op < 10) { /* a fork */
			int alive = 0;

			for (int i = 0; i < MAX_PROCS; i++)
				alive += procs[i].alive;
			if (alive >= RANDOM_PROCS)
				continue;
			/* Started in the tick now: a tick holds many forks. */
			if (ndead > 0 && rnd(3) == 0) {
				int i = rnd(2) ? ndead - 1 : (int)rnd((unsigned)ndead); /* often the last to go */

				if (dead_start[i] == clock_ticks)
					continue; /* one pid, one start: the same process */
				fake_ns += 3 * 1000 * 1000;
				reuses++;
				spawn(dead[i], pid, "/bin/x")->start = --clock_ticks;
				/* It forks at once, and its child is looked at first. */
				if (rnd(2)) {
					spawn(next, dead[i], "/bin/y")->start = --clock_ticks;
					compared++;
					mismatched += !agree(fast, slow, next++, steps);
				}
				dead[i] = dead[ndead - 1];
				dead_start[i] = dead_start[--ndead];
			} else
				spawn(next++, pid, "/bin/x")->start = --clock_ticks;
		} else if (op < 20) { /* an exit */
			if (ndead < MAX_PROCS) {
				dead[ndead] = pid;
				dead_start[ndead++] = p->start;
			}
			reap(pid);
		} else if (op < 35) { /* the engine reads it */
			s = fast;
			rf = D(read, pid, &pi);
			s = slow;
			rs = D(read, pid, &pi);
			CHECK(rf == rs);
		} else if (op < 45) { /* a thread starts */
			for (int j = 0; j < 3; j++)
				if (!p->tids[j]) {
					p->tids[j] = next++;
					break;
				}
		} else if (op < 75) { /* its cookie, or a thread's */
			compared++;
			mismatched += !agree(fast, slow, rnd(2) && p->tids[0] ? p->tids[0] : pid, steps);
		} else if (op < 85) { /* assigned a holder's cookie, or 0 */
			k = (int)rnd(4);
			s = fast;
			rf = D(cookie_assign, k < 3 ? hf[k] : NULL, pid);
			s = slow;
			rs = D(cookie_assign, k < 3 ? hs[k] : NULL, pid);
			CHECK(rf == rs);
		} else if (op < 90) { /* a cookie of its own */
			s = fast;
			rf = D(cookie_create, pid);
			s = slow;
			rs = D(cookie_create, pid);
			CHECK(rf == rs);
		} else if (op < 97) {
			clock_ticks++;
		} else {
			fake_ns += 3 * 1000 * 1000;
		}
	}
	printf("  %d steps, %d pids reused, %d cookies compared, %d differ\n", steps, reuses, compared, mismatched);
	CHECK(compared > 1000 && mismatched == 0);
	for (int i = 0; i < 3; i++) {
		s = fast;
		D(holder_free, hf[i]);
		s = slow;
		D(holder_free, hs[i]);
	}
	CHECK(calls_cookie == 0);
	engine_sys_dry_free(fast);
	engine_sys_dry_free(slow);
}

static struct conf *load(const char *text)
{
	struct conf *c = NULL;
	char *error = NULL;

	if (conf_load_string(text, "t.conf", &c, &error) < 0) {
		fprintf(stderr, "  %s\n", error ? error : "?");
		free(error);
	}
	return c;
}

/* The engine over a dry run decides as over a kernel that applies: a
 * matched process gets its group's key, its unmatched helper keeps it
 * (sticky, known only through the cookie it inherited), an unmatched
 * process has none; the real table is never asked for a cookie. */
static void test_engine_decides(void)
{
	struct engine_sys *s = setup();
	struct engine *e = NULL;
	struct procmon_event ev;
	struct task *web, *helper, *other;

	spawn(20, 10, "/usr/bin/web");
	spawn(50, 10, "/usr/bin/other");
	CHECK(engine_new_sys(s, 2, &e) == 0);
	engine_set_conf(e, load("[Daemon]\n[Group web]\nMatchExe=/usr/bin/web\n"));
	CHECK(engine_scan(e, true, false) >= 0);
	web = engine_task(e, 20);
	other = engine_task(e, 50);
	CHECK(web && web->key && strcmp(web->key->group, "web") == 0 && web->origin == ORIGIN_RULE);
	CHECK(web && web->key && web->cookie == web->key->cookie && web->cookie != 0);
	CHECK(other && !other->key && other->cookie == 0);
	/* The web server forks and the child execs a helper. */
	spawn(21, 20, "/usr/bin/web");
	ev = (struct procmon_event){ .kind = PROCMON_FORK, .pid = 21, .tgid = 21, .parent_pid = 20, .parent_tgid = 20,
				     .timestamp_ns = ++fake_ns }; /* the kernel's clock, as the engine's */
	engine_on_event(e, &ev);
	snprintf(proc_of(21)->exe, sizeof(proc_of(21)->exe), "/usr/bin/helper");
	ev = (struct procmon_event){ .kind = PROCMON_EXEC, .pid = 21, .tgid = 21, .timestamp_ns = ++fake_ns };
	engine_on_event(e, &ev);
	helper = engine_task(e, 21);
	web = engine_task(e, 20);
	CHECK(helper && helper->key && web && helper->key == web->key);
	CHECK(helper && helper->origin == ORIGIN_STICKY);
	CHECK(get(s, 21) == get(s, 20) && get(s, 21) != 0);
	/* The helper ends: its record goes with its task. */
	{
		size_t before = engine_sys_dry_records(s);

		reap(21);
		ev = (struct procmon_event){ .kind = PROCMON_EXIT, .pid = 21, .tgid = 21, .timestamp_ns = ++fake_ns };
		engine_on_event(e, &ev);
		CHECK(!engine_task(e, 21));
		CHECK(before > 0 && engine_sys_dry_records(s) == before - 1);
		/* Another process's end under that pid does not touch it. */
		spawn(21, 10, "/usr/bin/other");
		CHECK(get(s, 21) == 0);
		before = engine_sys_dry_records(s);
		s->forget(s->userdata, 21, 1);
		CHECK(engine_sys_dry_records(s) == before);
		s->forget(s->userdata, 21, proc_of(21)->start);
		CHECK(engine_sys_dry_records(s) == before - 1);
	}
	CHECK(engine_counters(e)->errors == 0);
	CHECK(calls_cookie == 0);
	engine_free(e);
	engine_sys_dry_free(s);
}

int main(void)
{
	log_set_max_level(LOG_WARNING);
	RUN(test_records_and_inheritance);
	RUN(test_children_keep_fork_cookie);
	RUN(test_pid_reuse);
	RUN(test_last_read);
	RUN(test_prune_spares_the_just_read);
	RUN(test_parent_seen);
	RUN(test_parent_pidfd);
	RUN(test_shortcuts_agree);
	RUN(test_engine_decides);
	CHECK(fds_open == 0);
	UNIT_EXIT();
}
