// SPDX-License-Identifier: GPL-2.0-or-later
/* The real engine table's /proc answers on live processes of this host:
 * whether a process still lives when its leader thread has exited (a
 * zombie in stat while another thread runs), when every thread has, and
 * when the start time names another process under the pid. No cookie is
 * touched, so this runs on any kernel. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine-sys.h"
#include "unit.h"

#define S(fn, ...) (s->fn(s->userdata, ##__VA_ARGS__))

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

/* The state letter of pid's stat (its leader thread), or 0. */
static char state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* The number of entries of /proc/PID/task. */
static int threads_of(pid_t pid)
{
	char path[64], line[64];
	int n = 0;
	FILE *p;

	snprintf(path, sizeof(path), "ls /proc/%d/task 2>/dev/null", pid);
	p = popen(path, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p))
		n++;
	pclose(p);
	return n;
}

/* The uid and gid the thread left running takes once its leader has
 * exited, (uid_t)-1 for none. */
static uid_t later_id = (uid_t)-1;

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* sleeper, once it has taken uid and gid later_id after its leader
 * exited. Apart from sleeper, which thread_id_read cancels: a cancelled
 * thread's unwinding leaves its frames' redzones to the sanitizer. */
static void *sleeper_with_later_ids(void *arg)
{
	while (state_of(getpid()) != 'Z')
		nap();
	/* The raw calls change this thread's ids alone: glibc's wrappers
	 * would signal every thread it knows of. */
	if (syscall(SYS_setresgid, later_id, later_id, later_id) < 0 ||
	    syscall(SYS_setresuid, later_id, later_id, later_id) < 0)
		_exit(2);
	return sleeper(arg);
}

/* A process whose leader thread exits and leaves one thread running,
 * which then takes uid and gid id unless that is (uid_t)-1. */
static pid_t spawn_leaderless_as(uid_t id)
{
	pid_t pid = fork();

	if (pid == 0) {
		pthread_t th;

		later_id = id;
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (pthread_create(&th, NULL, id == (uid_t)-1 ? sleeper : sleeper_with_later_ids, NULL) != 0)
			_exit(1);
		pthread_exit(NULL);
	}
	return pid;
}

static pid_t spawn_leaderless(void)
{
	return spawn_leaderless_as((uid_t)-1);
}

/* The Uid: of /proc/PID/status, the leader's own, or -1. */
static long leader_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %ld", &uid) == 1)
			break;
	fclose(f);
	return uid;
}

/* The leader a zombie, the thread left running changes its uid and gid:
 * the process is read with the thread's, not with what the leader had
 * when it exited (the leader's status keeps that), or a process that
 * changed user that way would escape MatchUser= and MatchGroup=. */
static void zombie_leader_ids_are_the_live_threads(void)
{
	struct engine_sys *s;
	static struct procinfo pi;
	const uid_t nobody = 65534;
	pid_t pid;
	int i;

	s = engine_sys_linux_new("/proc");
	CHECK(s != NULL);
	if (!s)
		return;
	pid = spawn_leaderless_as(nobody);
	CHECK(pid > 0);
	if (pid <= 0)
		goto out;
	for (i = 0; i < 300 && !(S(read, pid, &pi) == 0 && pi.uid == nobody); i++)
		nap();
	CHECK(state_of(pid) == 'Z' && threads_of(pid) == 2);
	CHECK(leader_uid(pid) == 0); /* what the leader's own status says */
	CHECK(S(read, pid, &pi) == 0 && pi.state == 'Z');
	CHECK(pi.uid == nobody && pi.gid == nobody && pi.tgid == pid && pi.exe[0] != '\0');
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, NULL, 0) == pid);
out:
	engine_sys_linux_free(s);
}

/* A cgroup v2 hierarchy this test may write, or NULL. */
static const char *cgroup2_root(void)
{
	static const char *const roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct statfs sf;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		if (statfs(roots[i], &sf) == 0 && sf.f_type == CGROUP2_SUPER_MAGIC && access(roots[i], W_OK) == 0)
			return roots[i];
	return NULL;
}

/* The leader a zombie, its process moved to another cgroup: the move
 * passes over the exited leader, whose cgroup file keeps the old one; the
 * process is read in the cgroup its live thread is in, or it would escape
 * MatchCgroup= (and a container's registration) that way. */
static void zombie_leader_cgroup_is_the_live_threads(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	static struct procinfo pi;
	const char *root = cgroup2_root();
	char dir[PATH_MAX], procs[PATH_MAX + 16], want[64];
	FILE *f;
	pid_t pid;
	int i;

	CHECK(s != NULL && root != NULL);
	if (!s || !root)
		goto out;
	snprintf(dir, sizeof(dir), "%s/cs-test-zombie-%d", root, (int)getpid());
	snprintf(want, sizeof(want), "/cs-test-zombie-%d", (int)getpid());
	CHECK(mkdir(dir, 0755) == 0);
	pid = spawn_leaderless();
	CHECK(pid > 0);
	if (pid <= 0)
		goto rm;
	for (i = 0; i < 300 && !(state_of(pid) == 'Z' && threads_of(pid) == 2); i++)
		nap();
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		CHECK(fclose(f) == 0);
	}
	CHECK(S(read, pid, &pi) == 0 && pi.state == 'Z');
	CHECK_STREQ(pi.cgroup, want);
	kill(pid, SIGKILL);
	CHECK(waitpid(pid, NULL, 0) == pid);
rm:
	for (i = 0; i < 100 && rmdir(dir) < 0 && errno == EBUSY; i++)
		nap();
out:
	engine_sys_linux_free(s);
}

/* The leader a zombie, another thread alive: the process lives, and runs
 * its program (read through the thread: the leader's exe is gone). Every
 * thread gone but not reaped: it does not. Reaped: it does not. Another
 * start time than the process's: another process, not this one. */
static void zombie_leader_with_a_live_thread(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	static struct procinfo pi;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	uint64_t start = 0;
	pid_t pid;
	int i, alive = -1;

	CHECK(s != NULL);
	if (!s)
		return;
	pid = spawn_leaderless();
	CHECK(pid > 0);
	if (pid <= 0)
		goto out;
	for (i = 0; i < 300 && !(state_of(pid) == 'Z' && threads_of(pid) == 2); i++)
		nap();
	CHECK(state_of(pid) == 'Z' && threads_of(pid) == 2);
	CHECK(S(start_time, pid, &start) == 0 && start > 0);
	CHECK(S(process_alive, pid, start) == 1);
	CHECK(S(process_alive, pid, start + 1) == 0); /* a reused pid */
	CHECK(S(process_alive, pid, start - 1) == 0);
	CHECK(n > 0);
	self[n > 0 ? n : 0] = '\0';
	CHECK(S(read, pid, &pi) == 0 && pi.state == 'Z' && strcmp(pi.exe, self) == 0);

	kill(pid, SIGKILL);
	for (i = 0; i < 300 && (alive = S(process_alive, pid, start)) != 0; i++)
		nap();
	CHECK(alive == 0);
	CHECK(state_of(pid) == 'Z'); /* not reaped yet: still in /proc */
	CHECK(waitpid(pid, NULL, 0) == pid);
	CHECK(S(process_alive, pid, start) == 0);
out:
	engine_sys_linux_free(s);
}

/* This program, as a process whose second thread executes this program
 * again every 2 ms: the old leader exits and the exec'd thread takes its
 * pid (de_thread), with a zombie leader in stat in between. */
#define EXEC_LOOP_ARG "--exec-from-thread"

static void *exec_again(void *arg)
{
	nanosleep(&(struct timespec){ 0, 2 * 1000 * 1000 }, NULL);
	execl("/proc/self/exe", "test-engine-sys", EXEC_LOOP_ARG, (char *)NULL);
	_exit(127);
	return arg;
}

static void exec_loop(void)
{
	pthread_t th;

	if (pthread_create(&th, NULL, exec_again, NULL) != 0)
		_exit(126);
	for (;;)
		pause();
}

/* A process whose threads exec one after another never exits, and is
 * never judged gone: not while its old leader is a zombie or marked dead,
 * nor once the exec'd thread alone holds the pid; nor does a pidfd held
 * on it poll as exited (the engine drops a process whose pidfd does). */
static void thread_exec_keeps_process_alive(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	struct timespec t0, t;
	uint64_t start = 0;
	long calls = 0, gone = 0, polled_gone = 0;
	int fd = -1;
	pid_t pid;

	CHECK(s != NULL);
	if (!s)
		return;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execl("/proc/self/exe", "test-engine-sys", EXEC_LOOP_ARG, (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	if (pid <= 0)
		goto out;
	nap();
	CHECK(S(start_time, pid, &start) == 0);
	CHECK((fd = S(pidfd_open, pid)) >= 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		gone += S(process_alive, pid, start) != 1;
		polled_gone += fd >= 0 && !S(pidfd_alive, fd);
		calls++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 1500);
	CHECK(waitpid(pid, NULL, WNOHANG) == 0); /* it still runs */
	if (gone)
		fprintf(stderr, "  judged gone %ld times in %ld calls\n", gone, calls);
	if (polled_gone)
		fprintf(stderr, "  its pidfd polled as exited %ld times in %ld polls\n", polled_gone, calls);
	CHECK(gone == 0);
	CHECK(polled_gone == 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	if (fd >= 0) {
		CHECK(!S(pidfd_alive, fd)); /* and an exit does */
		S(pidfd_close, fd);
	}
out:
	engine_sys_linux_free(s);
}

/* An ordinary running process, and this one. */
static void live_process(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	struct procinfo pi;
	uint64_t start = 0;

	CHECK(s != NULL);
	if (!s)
		return;
	CHECK(S(start_time, getpid(), &start) == 0);
	CHECK(S(process_alive, getpid(), start) == 1);
	memset(&pi, 0x5a, sizeof(pi));
	CHECK(S(read, getpid(), &pi) == 0);
	CHECK(pi.pid == getpid() && pi.tgid == getpid() && pi.start_time == start);
	CHECK(S(read_stat, getpid(), &pi) == 0);
	CHECK(pi.start_time == start && pi.state == 'R' && pi.tgid == 0 && pi.exe[0] == '\0');
	/* The stat, then its rest, is the whole read; the exe link alone is
	 * the whole read's. */
	{
		static struct procinfo whole, part;
		static char exe[PROCINFO_PATH_MAX];

		CHECK(S(read, getpid(), &whole) == 0);
		CHECK(S(read_stat, getpid(), &part) == 0 && S(read_rest, getpid(), &part) == 0);
		CHECK(part.tgid == whole.tgid && part.uid == whole.uid && part.gid == whole.gid &&
		      part.start_time == whole.start_time && part.ppid == whole.ppid);
		CHECK(whole.exe[0] && strcmp(part.exe, whole.exe) == 0 && strcmp(part.cgroup, whole.cgroup) == 0);
		CHECK(S(read_exe, getpid(), exe, sizeof(exe)) == 0 && strcmp(exe, whole.exe) == 0);
		CHECK(S(read_exe, 999999999, exe, sizeof(exe)) == 0 && exe[0] == '\0'); /* gone: none to read */
	}
	engine_sys_linux_free(s);
}

/* A read of a pid whose pidfd the engine holds (opened through the sys
 * layer) takes its ids from that pidfd, where the kernel answers; once
 * the pidfd is closed, or of another pid, it reads status; either way the
 * ids are the same. */
static void read_takes_ids_from_held_pidfd(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	static struct procinfo by_pidfd, by_status;
	unsigned long before;
	int fd;

	CHECK(s != NULL);
	if (!s)
		return;
	fd = S(pidfd_open, getpid());
	CHECK(fd >= 0);
	before = procinfo_pidfd_ids_taken();
	CHECK(S(read, getpid(), &by_pidfd) == 0);
	CHECK(S(read_rest, getpid(), &by_pidfd) == 0);
	if (procinfo_pidfd_ids_supported() > 0)
		CHECK(procinfo_pidfd_ids_taken() == before + 2);
	else
		printf("SKIP: unit/read_takes_ids_from_held_pidfd/ioctl: the kernel has no PIDFD_GET_INFO "
		       "(Linux 6.13)\n");
	S(pidfd_close, fd);
	before = procinfo_pidfd_ids_taken();
	CHECK(S(read, getpid(), &by_status) == 0);
	CHECK(procinfo_pidfd_ids_taken() == before); /* closed: its slot is free */
	CHECK(by_pidfd.uid == by_status.uid && by_pidfd.gid == by_status.gid && by_pidfd.tgid == by_status.tgid);
	/* A pidfd of another process says nothing of this one. */
	fd = S(pidfd_open, getppid());
	CHECK(fd >= 0);
	before = procinfo_pidfd_ids_taken();
	CHECK(S(read, getpid(), &by_status) == 0);
	CHECK(procinfo_pidfd_ids_taken() == before);
	S(pidfd_close, fd);
	engine_sys_linux_free(s);
}

/* A thread's own pid reads as a process whose thread group is its
 * leader's: what the dry run checks before it takes a read for the
 * process's. */
static void thread_id_read(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	struct procinfo pi;
	pthread_t th;
	pid_t tid = 0;

	CHECK(s != NULL);
	if (!s || pthread_create(&th, NULL, sleeper, NULL) != 0)
		goto out;
	for (int i = 0; i < 300 && tid == 0; i++) {
		char path[64];
		FILE *p;

		snprintf(path, sizeof(path), "ls /proc/%d/task", getpid());
		p = popen(path, "r");
		while (p && fgets(path, sizeof(path), p))
			if (atoi(path) != getpid())
				tid = atoi(path);
		if (p)
			pclose(p);
		if (!tid)
			nap();
	}
	CHECK(tid > 0);
	CHECK(S(read, tid, &pi) == 0 && pi.pid == tid && pi.tgid == getpid());
	pthread_cancel(th);
	pthread_join(th, NULL);
out:
	engine_sys_linux_free(s);
}

/* The boot clock in stat's unit: a child forked after one reading and
 * before another started between them, in ticks as stat shows them. */
static void boot_ticks_bracket_a_start(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	struct engine_sys *fake = engine_sys_linux_new("/tmp");
	uint64_t before = 0, after = 0, start = 0;
	pid_t child;

	CHECK(s != NULL && fake != NULL);
	if (!s || !fake)
		goto out;
	CHECK(fake->boot_ticks == NULL); /* another tree's starts are not on this clock */
	CHECK(s->boot_ticks && S(boot_ticks, &before) == 0);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	if (child <= 0)
		goto out;
	CHECK(S(boot_ticks, &after) == 0);
	CHECK(S(start_time, child, &start) == 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	if (before > start || start > after)
		fprintf(stderr, "  ticks %llu, start %llu, ticks %llu\n", (unsigned long long)before,
			(unsigned long long)start, (unsigned long long)after);
	CHECK(before <= start && start <= after);
out:
	engine_sys_linux_free(s);
	engine_sys_linux_free(fake);
}

/* The state file's time, set and read: never through a link planted in
 * its place, which would set the time of the file it names. */
static void touch_follows_no_link(void)
{
	struct engine_sys *s = engine_sys_linux_new("/proc");
	char dir[] = "/tmp/cs-touch-XXXXXX", file[64], link[64];
	struct timespec old[2] = { { 1000000, 0 }, { 1000000, 0 } };
	struct stat st;
	uint64_t seen = 0;
	FILE *f;

	CHECK(s != NULL && mkdtemp(dir) != NULL);
	if (!s)
		return;
	snprintf(file, sizeof(file), "%s/other", dir);
	snprintf(link, sizeof(link), "%s/coreschedd.state", dir);
	f = fopen(file, "w");
	CHECK(f != NULL);
	if (f)
		fclose(f);
	CHECK(utimensat(AT_FDCWD, file, old, 0) == 0);
	CHECK(symlink(file, link) == 0);
	(void)S(touch, link, 0);
	CHECK(stat(file, &st) == 0 && st.st_mtim.tv_sec == old[1].tv_sec);
	CHECK(S(seen_until, link, &seen) < 0);
	unlink(link);
	/* the file itself: set, and read back */
	CHECK(S(touch, file, 0) == 0);
	CHECK(stat(file, &st) == 0 && st.st_mtim.tv_sec > old[1].tv_sec);
	CHECK(S(seen_until, file, &seen) == 0);
	unlink(file);
	rmdir(dir);
	engine_sys_linux_free(s);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], EXEC_LOOP_ARG) == 0)
		exec_loop();
	RUN(live_process);
	RUN(zombie_leader_with_a_live_thread);
	if (geteuid() == 0)
		RUN(zombie_leader_ids_are_the_live_threads);
	else
		printf("SKIP: unit/zombie_leader_ids_are_the_live_threads: needs root to change a thread's ids\n");
	if (cgroup2_root())
		RUN(zombie_leader_cgroup_is_the_live_threads);
	else
		printf("SKIP: unit/zombie_leader_cgroup_is_the_live_threads: no cgroup v2 hierarchy this test may write\n");
	RUN(thread_exec_keeps_process_alive);
	RUN(thread_id_read);
	RUN(read_takes_ids_from_held_pidfd);
	RUN(boot_ticks_bracket_a_start);
	RUN(touch_follows_no_link);
	UNIT_EXIT();
}
