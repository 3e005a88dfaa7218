// SPDX-License-Identifier: GPL-2.0-or-later
/* The engine's kernel: /proc under a root, pidfds, prctl through cookie.c. */
#include "engine-sys.h"

#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "cookie.h"

/* The pidfds the engine holds open while it reads their processes (it
 * opens one, reads, checks it, closes it; a dry run keeps up to 64 of
 * its parents', which take slots in turn): a read of a pid among them
 * takes the ids from the pidfd. The newest pidfd of a pid is its slot's. */
#define OPEN_PIDFDS 4

struct linux_sys {
	struct engine_sys ops;
	bool host; /* proc_root is the host's /proc: a pidfd names its processes */
	struct {
		pid_t pid;
		int fd; /* -1: a free slot */
	} open[OPEN_PIDFDS];
	unsigned next; /* the slot the next pidfd takes when none is free */
	char proc_root[];
};

static const char *root_of(void *u)
{
	return ((struct linux_sys *)u)->proc_root;
}

/* The pidfd of pid the engine holds, or -1. Only on the host's /proc,
 * whose pids the pidfds name. The slot is checked by the kernel too: the
 * ids are taken only from a pidfd that names pid (procinfo_pidfd_ids). */
static int open_pidfd_of(void *u, pid_t pid)
{
	struct linux_sys *s = u;
	unsigned i;

	if (!s->host)
		return -1;
	for (i = 0; i < OPEN_PIDFDS; i++)
		if (s->open[i].fd >= 0 && s->open[i].pid == pid)
			return s->open[i].fd;
	return -1;
}

static void open_pidfd_note(struct linux_sys *s, pid_t pid, int fd)
{
	unsigned i;

	for (i = 0; i < OPEN_PIDFDS && s->open[i].fd >= 0 && s->open[i].pid != pid; i++)
		;
	if (i == OPEN_PIDFDS)
		i = s->next++ % OPEN_PIDFDS; /* forgotten, not closed: its holder closes it */
	s->open[i].pid = pid;
	s->open[i].fd = fd;
}

static void open_pidfd_forget(struct linux_sys *s, int fd)
{
	unsigned i;

	for (i = 0; i < OPEN_PIDFDS; i++)
		if (s->open[i].fd == fd)
			s->open[i].fd = -1;
}

static int l_read(void *u, pid_t pid, struct procinfo *ret)
{
	return procinfo_read_pidfd(root_of(u), pid, open_pidfd_of(u, pid), ret);
}

static int l_start_time(void *u, pid_t pid, uint64_t *ret)
{
	return procinfo_start_time(root_of(u), pid, ret);
}

static int l_read_stat(void *u, pid_t pid, struct procinfo *ret)
{
	return procinfo_read_stat(root_of(u), pid, ret);
}

static int l_read_exe(void *u, pid_t pid, char *buf, size_t size)
{
	return procinfo_read_exe(root_of(u), pid, buf, size);
}

static int l_read_rest(void *u, pid_t pid, struct procinfo *ret)
{
	return procinfo_read_rest_pidfd(root_of(u), pid, open_pidfd_of(u, pid), ret);
}

static int l_for_each_pid(void *u, procinfo_pid_fn fn, void *fn_userdata)
{
	return procinfo_for_each_pid(root_of(u), fn, fn_userdata);
}

static int l_for_each_thread(void *u, pid_t pid, procinfo_pid_fn fn, void *fn_userdata)
{
	char path[PROCINFO_PATH_MAX];
	int r = procinfo_path(path, sizeof(path), root_of(u), pid, "/task");

	return r < 0 ? r : procinfo_for_each_pid(path, fn, fn_userdata);
}

static int other_thread(void *userdata, pid_t tid)
{
	return tid != *(pid_t *)userdata ? -EEXIST : 0;
}

/* The state letter of tgid's leader if it is the process that started at
 * start: 0 when it is gone (or another process has the pid). */
static int leader_state(void *u, pid_t tgid, uint64_t start)
{
	struct procinfo info; /* only its stat fields are written: no 8 KiB clear */
	int r = procinfo_read_stat(root_of(u), tgid, &info);

	if (r == -ESRCH)
		return 0;
	if (r < 0)
		return r;
	return info.start_time == start ? (unsigned char)info.state : 0; /* else a new process under a reused pid */
}

/* Rereads of a leader marked dead (X) that its pid still shows: it is
 * being reaped, or it is the old leader of an exec that ends by then. */
#define DEAD_LEADER_REREADS 64

/* A process whose leader is a zombie (or marked dead), from another tree
 * than the host's /proc: another thread is counted (or listed), or an
 * exec by another thread ends meanwhile (the old leader released, the
 * exec'd thread alone under its pid), which a reread shows. */
static int lone_leader_alive(void *u, pid_t tgid, uint64_t start)
{
	int r = procinfo_threads(root_of(u), tgid); /* the zombie leader counts */

	if (r == -ESRCH)
		return 0;
	if (r > 1)
		return 1;
	if (r == 0 && l_for_each_thread(u, tgid, other_thread, &tgid) == -EEXIST)
		return 1;
	for (int i = 0; i < DEAD_LEADER_REREADS; i++) {
		r = leader_state(u, tgid, start);
		if (r != 'X')
			return r < 0 ? r : r > 0 && r != 'Z';
		sched_yield();
	}
	return 0;
}

/* The leader of a thread group can exit (or be replaced by a thread that
 * exec'd) while the process lives on: then it is a zombie in stat. On the
 * host's /proc the kernel says whether the whole group exited: a pidfd
 * polls readable once every thread has, and across an exec by another
 * thread (the old leader a zombie, then released, the exec'd thread under
 * its pid) procinfo_pidfd_poll() says unreadable, where counts and stat
 * reads race with that exec. Opened before the stat read that checks the
 * start time, so it is this process's. */
static int l_process_alive(void *u, pid_t tgid, uint64_t start)
{
	int fd = -1, r;

	/* Not the placement's pidfd: no fault injected here (see sc_fault). */
	if (((struct linux_sys *)u)->host && (fd = (int)syscall(SYS_pidfd_open, tgid, 0)) < 0 && errno == ESRCH)
		return 0;
	/* Every thread of what holds the pid has exited: this process, or
	 * one that took its pid after it ended. No stat need say which. (A
	 * poll that failed says nothing: stat is read.) */
	if (fd >= 0 && procinfo_pidfd_poll(fd) == 1) {
		close(fd);
		return 0;
	}
	r = leader_state(u, tgid, start);
	if (r == 'Z' || r == 'X') {
		int polled = fd >= 0 ? procinfo_pidfd_poll(fd) : -EBADF;

		r = polled >= 0 ? polled == 0 : lone_leader_alive(u, tgid, start);
	} else if (r > 0)
		r = 1;
	if (fd >= 0)
		close(fd);
	return r;
}

static int l_pidfd_open(void *u, pid_t pid)
{
	int r = sc_fault("pidfd");

	if (r < 0)
		return r;
	r = (int)syscall(SYS_pidfd_open, pid, 0);
	if (r < 0) {
		int err = errno;
		pid_t tgid;

		/* EINVAL: pid names no thread group. A thread's id (callers
		 * name the process instead), or a process being released, its
		 * pid still known and its task gone: that one has ended. */
		if (err == EINVAL && !(procinfo_tgid("/proc", pid, &tgid) >= 0 && tgid != pid))
			return -ESRCH;
		return -err;
	}
	open_pidfd_note(u, pid, r);
	return r;
}

/* A poll that failed counts as alive: the table keeps the process, and its
 * exit event (or a scan) drops it, where dropping a live one would leave
 * its next events to find it unknown. */
static bool l_pidfd_alive(void *u, int fd)
{
	(void)u;
	return procinfo_pidfd_poll(fd) != 1;
}

static void l_pidfd_close(void *u, int fd)
{
	open_pidfd_forget(u, fd);
	close(fd);
}

static int l_cookie_get(void *u, pid_t tid, sc_cookie *ret)
{
	(void)u;
	return cookie_get(tid, ret);
}

static int l_cookie_create(void *u, pid_t pid)
{
	(void)u;
	return cookie_create(pid);
}

static int l_cookie_assign(void *u, const struct holder *h, pid_t pid)
{
	(void)u;
	return cookie_assign(h, pid);
}

static int l_holder_new(void *u, pid_t adopt_tid, struct holder **ret)
{
	(void)u;
	return adopt_tid > 0 ? holder_new_adopt(adopt_tid, ret) : holder_new(ret);
}

static void l_holder_free(void *u, struct holder *h)
{
	(void)u;
	holder_free(h);
}

static sc_cookie l_holder_cookie(void *u, const struct holder *h)
{
	(void)u;
	return holder_cookie(h);
}

/* Time on a CPU in ns of process pid: its process CPU clock (live and
 * exited threads, one system call); of a tree that is not the kernel's
 * (tests), its live threads' schedstat. */
static int l_cpu_ns(void *u, pid_t pid, uint64_t *ret)
{
	const char *root = root_of(u);

	return strcmp(root, "/proc") == 0 ? procinfo_process_cpu_ns(pid, ret) : procinfo_cpu_ns(root, pid, ret);
}

static int read_flag(const char *path, const char *yes)
{
	char buf[32] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strncmp(buf, yes, strlen(yes)) == 0;
}

static int l_smt_active(void *u)
{
	(void)u;
	return read_flag("/sys/devices/system/cpu/smt/active", "1");
}

static int l_sched_ext_enabled(void *u)
{
	(void)u;
	return read_flag("/sys/kernel/sched_ext/state", "enabled");
}

static uint64_t l_now_ns(void *u)
{
	struct timespec ts;

	(void)u;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000LL + ts->tv_nsec;
}

/* seen_ns (CLOCK_MONOTONIC) as the file's modification time (CLOCK_REALTIME). */
static int l_touch(void *u, const char *path, uint64_t seen_ns)
{
	struct timespec real, mono, t[2];
	int64_t ns;

	(void)u;
	if (clock_gettime(CLOCK_REALTIME, &real) < 0 || clock_gettime(CLOCK_MONOTONIC, &mono) < 0)
		return -errno;
	ns = ts_ns(&real) - (seen_ns && (int64_t)seen_ns < ts_ns(&mono) ? ts_ns(&mono) - (int64_t)seen_ns : 0);
	t[0] = t[1] = (struct timespec){ ns / 1000000000LL, ns % 1000000000LL };
	/* A link planted in the file's place is not followed: the time is
	 * the state file's, no other file's. */
	return utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

/* The file's modification time, CLOCK_REALTIME, as clock ticks since boot
 * (CLOCK_BOOTTIME, the clock of /proc/PID/stat's start time). */
static int l_seen_until(void *u, const char *path, uint64_t *ret)
{
	struct timespec real, boot;
	long hz = sysconf(_SC_CLK_TCK);
	struct stat st;
	int64_t ns;

	(void)u;
	if (lstat(path, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EPERM; /* the time of what a link names says nothing */
	if (hz <= 0 || clock_gettime(CLOCK_REALTIME, &real) < 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return -EINVAL;
	ns = ts_ns(&st.st_mtim) - (ts_ns(&real) - ts_ns(&boot));
	*ret = ns <= 0 ? 0 : (uint64_t)ns / (uint64_t)(1000000000LL / hz);
	return 0;
}

static int l_boot_ticks(void *u, uint64_t *ret)
{
	struct timespec boot;
	long hz = sysconf(_SC_CLK_TCK);

	(void)u;
	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &boot) < 0)
		return -EINVAL;
	*ret = procinfo_ticks_of_ns((uint64_t)ts_ns(&boot), (uint64_t)hz);
	return 0;
}

static int l_may_act(void *u, pid_t pid, uid_t uid, gid_t gid)
{
	struct linux_sys *s = u;
	struct auth_creds cr;
	int r = auth_read_creds(s->proc_root, pid, &cr);

	return r < 0 ? r : auth_may_act_on(uid, gid, &cr);
}

static int l_no_new_privs(void *u, pid_t pid)
{
	struct linux_sys *s = u;
	struct auth_creds cr;
	int r = auth_read_creds(s->proc_root, pid, &cr);

	return r < 0 ? r : cr.no_new_privs;
}

static int l_thread_group(void *u, pid_t tid, pid_t *ret)
{
	return procinfo_tgid(root_of(u), tid, ret);
}

static int l_for_each_child(void *u, pid_t pid, procinfo_pid_fn fn, void *fn_userdata)
{
	return procinfo_for_each_child(root_of(u), pid, fn, fn_userdata);
}

struct engine_sys *engine_sys_linux_new(const char *proc_root)
{
	size_t n = strlen(proc_root) + 1;
	struct linux_sys *s = calloc(1, sizeof(*s) + n);

	if (!s)
		return NULL;
	memcpy(s->proc_root, proc_root, n);
	s->host = strcmp(proc_root, "/proc") == 0;
	for (size_t i = 0; i < OPEN_PIDFDS; i++)
		s->open[i].fd = -1;
	s->ops = (struct engine_sys){
		.read = l_read, .start_time = l_start_time, .for_each_pid = l_for_each_pid,
		.for_each_thread = l_for_each_thread, .process_alive = l_process_alive,
		.pidfd_open = l_pidfd_open, .pidfd_alive = l_pidfd_alive, .pidfd_close = l_pidfd_close,
		.cookie_get = l_cookie_get, .cookie_create = l_cookie_create, .cookie_assign = l_cookie_assign,
		.holder_new = l_holder_new, .holder_free = l_holder_free, .holder_cookie = l_holder_cookie,
		.smt_active = l_smt_active, .sched_ext_enabled = l_sched_ext_enabled, .cpu_ns = l_cpu_ns,
		.now_ns = l_now_ns, .touch = l_touch, .seen_until = l_seen_until, .thread_group = l_thread_group,
		.for_each_child = l_for_each_child, .read_stat = l_read_stat, .read_exe = l_read_exe,
		.read_rest = l_read_rest, .may_act = l_may_act, .no_new_privs = l_no_new_privs,
		.userdata = s,
		/* A fake tree's start times are not on the boot clock. */
		.boot_ticks = strcmp(proc_root, "/proc") == 0 ? l_boot_ticks : NULL,
	};
	return &s->ops;
}

struct engine_sys *engine_sys_linux_free(struct engine_sys *s)
{
	free(s); /* ops is the first member */
	return NULL;
}
