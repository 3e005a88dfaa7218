// SPDX-License-Identifier: GPL-2.0-or-later
/* The /proc parsers on text in the kernel's formats, the readers on a fake
 * tree and on the live /proc, and the pid listing. */
#define _GNU_SOURCE /* gettid */
#include "procinfo.h"
#include "unit.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* Fields 5..21 and 23..52 of a real user process's stat line. */
#define STAT_MID " 1 100 9017 0 -1 %u 100 0 0 0 0 0 0 0 20 0 1 0 %s"
#define STAT_TAIL                                                                            \
	" 3133440 416 18446744073709551615 94425168023552 94425168043433 140729056669312 0 0 0" \
	" 0 0 0 0 0 0 17 1 0 0 0 0 0 94425168059440 94425168061056 94425858674688"             \
	" 140729056676490 140729056676510 140729056676510 140729056677867 0\n"

/* "PID (COMM) S PPID ..." with the given flags and start time. */
static const char *stat_line(const char *pid_comm, const char *ppid, unsigned flags, const char *start)
{
	static char buf[1024];
	char mid[256];

	snprintf(mid, sizeof(mid), STAT_MID, flags, start);
	/* STAT_MID starts with the ppid 1: swap in the one asked for. */
	snprintf(buf, sizeof(buf), "%s S %s%s%s", pid_comm, ppid, mid + 2, STAT_TAIL);
	return buf;
}

static void fresh(struct procinfo *p)
{
	memset(p, 0x5a, sizeof(*p));
	strcpy(p->comm, "untouched");
}

static void parse_stat_user_process(void)
{
	struct procinfo p;

	fresh(&p);
	CHECK(procinfo_parse_stat(stat_line("25268 (cat)", "25266", 4194304, "81921"), &p) == 0);
	CHECK(p.pid == 25268);
	CHECK(p.ppid == 25266);
	CHECK_STREQ(p.comm, "cat");
	CHECK(p.start_time == 81921);
	CHECK(p.kernel_thread == 0);
}

static void parse_stat_hostile_comms(void)
{
	struct procinfo p;

	fresh(&p);
	CHECK(procinfo_parse_stat(stat_line("77 (a) b (c)", "1", 4194560, "5"), &p) == 0);
	CHECK_STREQ(p.comm, "a) b (c");
	CHECK(p.pid == 77 && p.ppid == 1 && p.start_time == 5);

	CHECK(procinfo_parse_stat(stat_line("78 (abcdefghijklmno)", "1", 0, "6"), &p) == 0);
	CHECK_STREQ(p.comm, "abcdefghijklmno");
	CHECK(procinfo_parse_stat(stat_line("79 ()", "1", 0, "6"), &p) == 0);
	CHECK_STREQ(p.comm, "");
	CHECK(procinfo_parse_stat(stat_line("80 ( ) ) 1 2 )", "1", 0, "6"), &p) == 0);
	CHECK_STREQ(p.comm, " ) ) 1 2 ");
	CHECK(p.ppid == 1);
	/* Workqueue workers show more than TASK_COMM_LEN: cut, terminated. */
	CHECK(procinfo_parse_stat(stat_line("81 (kworker/0:1-events_power_efficient)", "2", 0x04208060, "7"), &p) == 0);
	CHECK_STREQ(p.comm, "kworker/0:1-eve");
	CHECK(p.kernel_thread == 1);
}

static void parse_stat_kernel_threads(void)
{
	struct procinfo p;

	fresh(&p);
	/* kthreadd itself, as this kernel prints it */
	CHECK(procinfo_parse_stat("2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 1 0 24 0 0 "
				  "18446744073709551615 0 0 0 0 0 0 0 2147483647 0 1 0 0 0 0 0 0 0 0 0 0 0 "
				  "0 0 0 0 0 0\n",
				  &p) == 0);
	CHECK(p.pid == 2 && p.ppid == 0 && p.start_time == 24);
	CHECK(p.kernel_thread == 1);
	/* PF_KTHREAD alone decides for a kthread not parented by kthreadd */
	CHECK(procinfo_parse_stat(stat_line("300 (irq/9-acpi)", "7", 0x00208040, "30"), &p) == 0);
	CHECK(p.kernel_thread == 1);
	CHECK(procinfo_parse_stat(stat_line("301 (sh)", "7", 0x00400100, "31"), &p) == 0);
	CHECK(p.kernel_thread == 0);
	CHECK(procinfo_parse_stat(stat_line("302 (sh)", "2", 0x00400100, "31"), &p) == 0);
	CHECK(p.kernel_thread == 1);
	/* The largest start time there can be */
	CHECK(procinfo_parse_stat(stat_line("303 (sh)", "7", 0, "18446744073709551615"), &p) == 0);
	CHECK(p.start_time == UINT64_MAX);
}

static void parse_stat_rejects(void)
{
	static const char *const bad[] = {
		"",
		"abc",
		"12",
		"12 (x",
		"12 (x)",
		"12 (x) S",
		"12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18",   /* ends at field 21 */
		"(x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", /* no pid */
		"0 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"-5 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"12(x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"12 (x) S -1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"12 (x) S 1 2 3 4 5 zz 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 9x",
		"12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 18446744073709551616",
		"12 (x) S  1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"12 (x) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
		"99999999999 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20",
	};
	struct procinfo p;
	size_t i;

	fresh(&p);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = procinfo_parse_stat(bad[i], &p);

		if (r != -EBADMSG)
			fprintf(stderr, "  accepted \"%s\": %d\n", bad[i], r);
		CHECK(r == -EBADMSG);
	}
	CHECK_STREQ(p.comm, "untouched");
	/* The minimal well-formed line is accepted. */
	CHECK(procinfo_parse_stat("12 (x) S 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20", &p) == 0);
	CHECK(p.start_time == 19 && p.ppid == 1);
}

static const char status_sample[] = "Name:\tbash\n"
				    "Umask:\t0022\n"
				    "State:\tS (sleeping)\n"
				    "Tgid:\t1234\n"
				    "Ngid:\t0\n"
				    "Pid:\t1234\n"
				    "PPid:\t1200\n"
				    "TracerPid:\t0\n"
				    "Uid:\t1000\t1001\t1002\t1003\n"
				    "Gid:\t100\t101\t102\t103\n"
				    "FDSize:\t256\n"
				    "Groups:\t24 25 100 \n"
				    "NStgid:\t1234\n";

static void parse_status_ids(void)
{
	uid_t uid = 7;
	gid_t gid = 7;

	CHECK(procinfo_parse_status(status_sample, &uid, &gid) == 0);
	CHECK(uid == 1000);
	CHECK(gid == 100);
	CHECK(procinfo_parse_status("Uid:\t4294967294\t0\t0\t0\nGid:\t0\t0\t0\t0\n", &uid, &gid) == 0);
	CHECK(uid == 4294967294u && gid == 0);
}

static void parse_status_rejects(void)
{
	static const char *const bad[] = {
		"",
		"Name:\tx\n",
		"Uid:\t1\t1\t1\t1\n",                      /* no Gid */
		"Gid:\t1\t1\t1\t1\n",                      /* no Uid */
		"Uid:\tx\t1\t1\t1\nGid:\t1\t1\t1\t1\n",    /* not a number */
		"Uid:\t-1\t1\t1\t1\nGid:\t1\t1\t1\t1\n",   /* negative */
		"Uid:\t4294967296\nGid:\t1\n",             /* too big for a uid */
		"Uid:\t12z\t1\t1\t1\nGid:\t1\t1\t1\t1\n",  /* trailing junk */
		"Uid:\nGid:\t1\n",                         /* empty */
		" Uid:\t1\nGid:\t1\n",                     /* not at the start of a line */
	};
	uid_t uid = 7;
	gid_t gid = 7;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = procinfo_parse_status(bad[i], &uid, &gid);

		if (r != -EBADMSG)
			fprintf(stderr, "  accepted \"%s\": %d\n", bad[i], r);
		CHECK(r == -EBADMSG);
	}
	CHECK(uid == 7 && gid == 7);
}

static void parse_tgid_line(void)
{
	pid_t tgid = 7;

	CHECK(procinfo_parse_tgid(status_sample, &tgid) == 0 && tgid == 1234);
	tgid = 7;
	CHECK(procinfo_parse_tgid("Name:\tx\n", &tgid) == -EBADMSG);
	CHECK(procinfo_parse_tgid("Tgid:\t0\n", &tgid) == -EBADMSG);
	CHECK(procinfo_parse_tgid("Tgid:\t4294967295\n", &tgid) == -EBADMSG);
	CHECK(procinfo_parse_tgid("Tgid:\t12x\n", &tgid) == -EBADMSG);
	CHECK(tgid == 7);
}

static void parse_cgroup_lines(void)
{
	char path[64];

	CHECK(procinfo_parse_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n", path, sizeof(path), NULL) ==
	      (int)strlen("/user.slice/user-1000.slice/session-2.scope"));
	CHECK_STREQ(path, "/user.slice/user-1000.slice/session-2.scope");
	/* hybrid: v1 hierarchies first, the unified one last */
	CHECK(procinfo_parse_cgroup("9:name=systemd:/\n4:memory:/x\n1:cpu:/\n0::/\n", path, sizeof(path), NULL) == 1);
	CHECK_STREQ(path, "/");
	/* no trailing newline; a v1 line that merely contains "0::" */
	CHECK(procinfo_parse_cgroup("10:name=0::/no\n0::/a b", path, sizeof(path), NULL) == 4);
	CHECK_STREQ(path, "/a b");
	/* v1 only: no unified line at all */
	strcpy(path, "junk");
	CHECK(procinfo_parse_cgroup("4:memory:/x\n1:cpu:/\n", path, sizeof(path), NULL) == 0);
	CHECK_STREQ(path, "");
	CHECK(procinfo_parse_cgroup("", path, sizeof(path), NULL) == 0);
	CHECK_STREQ(path, "");
}

static void parse_cgroup_rejects(void)
{
	char path[8] = "keep";

	CHECK(procinfo_parse_cgroup("0::/abcdefgh\n", path, sizeof(path), NULL) == -ENAMETOOLONG);
	CHECK(procinfo_parse_cgroup("0::/abcdefg\n", path, sizeof(path), NULL) == -ENAMETOOLONG);
	CHECK_STREQ(path, "keep");
	CHECK(procinfo_parse_cgroup("0::/abcdef\n", path, sizeof(path), NULL) == 7);
	CHECK_STREQ(path, "/abcdef");
	CHECK(procinfo_parse_cgroup("0::\n", path, sizeof(path), NULL) == -EBADMSG);
	CHECK(procinfo_parse_cgroup("0::relative\n", path, sizeof(path), NULL) == -EBADMSG);
	CHECK(procinfo_parse_cgroup("0::/\n", path, 0, NULL) == -EINVAL);
}

/* The kernel prints a cgroup path longer than PATH_MAX - 1 cut to exactly
 * that length, without an error: such a path may be no real cgroup's. */
static void parse_cgroup_cut_by_kernel(void)
{
	static char text[PATH_MAX + 8], path[PATH_MAX + 8];
	size_t n = (size_t)sprintf(text, "0::");

	for (; n < 3 + PATH_MAX - 1; n++)
		text[n] = n % 201 == 3 ? '/' : 'd';
	text[n] = '\0';
	CHECK(strlen(text) == 3 + PATH_MAX - 1);
	/* Cut: the deepest whole name before the cut one, a real ancestor. */
	bool cut = false;
	CHECK(procinfo_parse_cgroup(text, path, sizeof(path), &cut) == (int)(strrchr(text, '/') - text) - 3);
	CHECK(cut);
	CHECK(path[0] == '/' && strncmp(path, text + 3, strlen(path)) == 0);
	CHECK(text[3 + strlen(path)] == '/');
	text[n - 1] = '\n'; /* one shorter: a real path */
	CHECK(procinfo_parse_cgroup(text, path, sizeof(path), &cut) == PATH_MAX - 2);
	CHECK(!cut);
	/* One cut name under the root: the root. */
	memset(text + 4, 'x', PATH_MAX - 2);
	memcpy(text, "0::/", 4);
	text[3 + PATH_MAX - 1] = '\0';
	CHECK(procinfo_parse_cgroup(text, path, sizeof(path), &cut) == 1 && strcmp(path, "/") == 0 && cut);
	/* A cgroup namespace's "/.." steps, cut: no ancestor to tell. */
	for (size_t i = 3; i + 3 <= 3 + PATH_MAX - 1; i += 3)
		memcpy(text + i, "/..", 3);
	text[3 + PATH_MAX - 1] = '\0';
	CHECK(procinfo_parse_cgroup(text, path, sizeof(path), &cut) == -ENAMETOOLONG);
}

/* ---- a fake tree ------------------------------------------------------------ */

static char root[64];

static void put_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void put_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(mkdir(path, 0755) == 0);
}

static void put_link(const char *rel, const char *target)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	CHECK(symlink(target, path) == 0);
}

static void make_tree(void)
{
	strcpy(root, "/tmp/procinfo-test.XXXXXX");
	CHECK(mkdtemp(root) != NULL);

	put_dir("4242");
	put_file("4242/stat", stat_line("4242 (fake (x) y)", "1", 4194560, "98765"));
	put_file("4242/status", status_sample);
	put_file("4242/cgroup", "12:cpu:/\n0::/system.slice/fake.service\n");
	put_link("4242/exe", "/usr/bin/fake (deleted)");

	put_dir("17"); /* a kernel thread: no exe */
	put_file("17/stat", stat_line("17 (ksoftirqd/1)", "2", 0x04208040, "12"));
	put_file("17/status", "Name:\tksoftirqd/1\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
	put_file("17/cgroup", "0::/\n");

	put_dir("18"); /* went away halfway: status already gone */
	put_file("18/stat", stat_line("18 (going)", "1", 0, "13"));

	put_dir("19"); /* not the kernel's format */
	put_file("19/stat", "garbage\n");

	put_dir("12ab");
	put_dir("sys");
	put_link("self", "4242");
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

static void read_fake_process(void)
{
	struct procinfo p;
	uint64_t start = 0;

	memset(&p, 0x5a, sizeof(p));
	CHECK(procinfo_read(root, 4242, &p) == 0);
	CHECK(p.pid == 4242 && p.ppid == 1);
	CHECK(p.tgid == 1234); /* status's Tgid: line, whatever the pid */
	CHECK_STREQ(p.comm, "fake (x) y");
	CHECK(p.start_time == 98765);
	CHECK(p.uid == 1000 && p.gid == 100);
	CHECK_STREQ(p.exe, "/usr/bin/fake");
	CHECK_STREQ(p.cgroup, "/system.slice/fake.service");
	CHECK(p.kernel_thread == 0);
	CHECK(procinfo_start_time(root, 4242, &start) == 0);
	CHECK(start == 98765);
	/* stat alone: the same stat fields, nothing from the other files. */
	memset(&p, 0x55, sizeof(p));
	CHECK(procinfo_read_stat(root, 4242, &p) == 0);
	CHECK(p.pid == 4242 && p.ppid == 1 && p.start_time == 98765 && p.kernel_thread == 0);
	CHECK_STREQ(p.comm, "fake (x) y");
	CHECK(p.uid == 0 && p.gid == 0 && p.tgid == 0);
	CHECK_STREQ(p.exe, "");
	CHECK_STREQ(p.cgroup, "");
}

static void read_fake_kernel_thread(void)
{
	struct procinfo p;

	fresh(&p);
	CHECK(procinfo_read(root, 17, &p) == 0);
	CHECK(p.kernel_thread == 1);
	CHECK(p.tgid == 0); /* its status has no Tgid: line: not known */
	CHECK_STREQ(p.exe, "");
	CHECK_STREQ(p.comm, "ksoftirqd/1");
	CHECK_STREQ(p.cgroup, "/");
}

static void path_of_pid(void)
{
	char buf[32];

	CHECK(procinfo_path(buf, sizeof(buf), "/proc", 1, "") == 7);
	CHECK_STREQ(buf, "/proc/1");
	CHECK(procinfo_path(buf, sizeof(buf), "/proc", 4194304, "/stat") == 18);
	CHECK_STREQ(buf, "/proc/4194304/stat");
	CHECK(procinfo_path(buf, sizeof(buf), "/tmp/fake", 2147483647, "/task") == 25);
	CHECK_STREQ(buf, "/tmp/fake/2147483647/task");
	/* 18 bytes and a NUL: 19 fit, 18 do not */
	CHECK(procinfo_path(buf, 19, "/proc", 4194304, "/stat") == 18);
	CHECK(procinfo_path(buf, 18, "/proc", 4194304, "/stat") == -ENAMETOOLONG);
	CHECK(procinfo_path(buf, sizeof(buf), "/proc", 0, "") == -EINVAL);
	CHECK(procinfo_path(buf, sizeof(buf), "/proc", -5, "") == -EINVAL);
}

/* A process that sets its uid and then executes (su, runuser, sudo), read
 * between the two: its status (a FIFO here) is written at the moment it is
 * opened, with the old uid, and the program changes just then. A read must
 * show the old program with the old uid, not the new program with the old
 * uid: a Per=process key made for the latter is charged to the old user's
 * share (root's: none) and keeps that charge. */
static void *exec_on_status_open(void *arg)
{
	const char *status = "Name:\tcs-runas\nTgid:\t4343\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n";
	char fifo[256], exe[256], next[256];
	int fd;

	(void)arg;
	snprintf(fifo, sizeof(fifo), "%s/4343/status", root);
	snprintf(exe, sizeof(exe), "%s/4343/exe", root);
	snprintf(next, sizeof(next), "%s/4343/exe.next", root);
	fd = open(fifo, O_WRONLY | O_CLOEXEC); /* returns once the reader opened it */
	if (fd < 0)
		return NULL;
	if (symlink("/usr/bin/browser", next) == 0)
		(void)rename(next, exe);
	(void)!write(fd, status, strlen(status));
	close(fd);
	return NULL;
}

static void read_fake_setuid_then_exec(void)
{
	char fifo[256];
	struct procinfo p;
	pthread_t th;

	put_dir("4343");
	put_file("4343/stat", stat_line("4343 (cs-runas)", "1", 0, "777"));
	put_file("4343/cgroup", "0::/user.slice\n");
	put_link("4343/exe", "/usr/bin/cs-runas");
	snprintf(fifo, sizeof(fifo), "%s/4343/status", root);
	CHECK(mkfifo(fifo, 0600) == 0);
	CHECK(pthread_create(&th, NULL, exec_on_status_open, NULL) == 0);
	fresh(&p);
	CHECK(procinfo_read(root, 4343, &p) == 0);
	pthread_join(th, NULL);
	CHECK(p.uid == 0);
	CHECK_STREQ(p.exe, "/usr/bin/cs-runas");
	snprintf(fifo, sizeof(fifo), "rm -rf '%s/4343'", root); /* the other tests count the tree's pids */
	CHECK(system(fifo) == 0);
}

static void read_fake_failures(void)
{
	struct procinfo p;
	uint64_t start = 42;

	fresh(&p);
	CHECK(procinfo_read(root, 5555, &p) == -ESRCH);
	CHECK(procinfo_read(root, 18, &p) == -ESRCH);
	CHECK(procinfo_read(root, 19, &p) == -EBADMSG);
	CHECK(procinfo_read(root, 0, &p) == -EINVAL);
	CHECK(procinfo_start_time(root, 5555, &start) == -ESRCH);
	CHECK(procinfo_start_time(root, 18, &start) == 0);
	CHECK(start == 13);
	CHECK(procinfo_read_stat(root, 5555, &p) == -ESRCH);
	CHECK(procinfo_read_stat(root, 19, &p) == -EBADMSG);
	/* A failed read leaves nothing to rely on; a good one leaves nothing
	 * of what the struct held before, though it clears only field starts. */
	fresh(&p);
	CHECK(procinfo_read_stat(root, 18, &p) == 0); /* its stat is whole; status is what is missing */
	CHECK(p.start_time == 13);
	CHECK_STREQ(p.exe, "");
	CHECK_STREQ(p.cgroup, "");
	CHECK(p.uid == 0 && p.gid == 0);
}

/* A status of this length or more does not fit procinfo's buffer. */
#define LONG_STATUS 9000

/* status grows with the supplementary groups, past any buffer; what is
 * read of it (Tgid:, Uid:, Gid:) comes before them. A line the buffer
 * cut through is not read as whole. */
static void read_fake_long_status(void)
{
	char *text = malloc(LONG_STATUS + 4096), *p;
	struct procinfo pi;
	pid_t tgid = 0;
	char cmd[320];

	CHECK(text != NULL);
	if (!text)
		return;
	put_dir("20");
	put_file("20/stat", stat_line("20 (groupy)", "1", 0, "77"));
	put_file("20/cgroup", "0::/user.slice\n");
	p = text + sprintf(text, "Name:\tgroupy\nTgid:\t20\nUid:\t1000\t1000\t1000\t1000\n"
				 "Gid:\t100\t100\t100\t100\nGroups:\t");
	while (p - text < LONG_STATUS)
		p += sprintf(p, "%d ", 100000 + (int)(p - text));
	strcpy(p, "\nNStgid:\t20\n");
	put_file("20/status", text);
	fresh(&pi);
	CHECK(procinfo_read(root, 20, &pi) == 0);
	CHECK(pi.uid == 1000 && pi.gid == 100 && pi.tgid == 20);
	CHECK_STREQ(pi.cgroup, "/user.slice");
	CHECK(procinfo_tgid(root, 20, &tgid) == 0 && tgid == 20);

	/* The cut falls in the Uid: line: not a uid of 10. */
	memset(text, 'x', LONG_STATUS);
	memcpy(text, "Name:\t", 6);
	strcpy(text + 8192 - 1 - 8, "\nUid:\t10000\t0\t0\t0\nGid:\t1\t1\t1\t1\n");
	put_file("20/status", text);
	CHECK(procinfo_read(root, 20, &pi) == -EFBIG);
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/20'", root);
	CHECK(system(cmd) == 0);
}

/* A cgroup path longer than can be kept (or than the kernel prints: it
 * answers ENAMETOOLONG) is no path, and the rest of the process is still
 * read: exe and ids, which the other rules match on. */
static void read_fake_long_cgroup(void)
{
	char *text = malloc(6000);
	struct procinfo pi;
	char cmd[320];
	int n;

	CHECK(text != NULL);
	if (!text)
		return;
	put_dir("21");
	put_file("21/stat", stat_line("21 (deep)", "1", 0, "78"));
	put_file("21/status", "Name:\tdeep\nTgid:\t21\nUid:\t1000\t1000\t1000\t1000\nGid:\t100\t100\t100\t100\n");
	n = sprintf(text, "0::");
	while (n < 5000)
		n += sprintf(text + n, "/%s", "nested-cgroup-level");
	strcpy(text + n, "\n");
	put_file("21/cgroup", text);
	put_link("21/exe", "/usr/bin/deep");
	fresh(&pi);
	CHECK(procinfo_read(root, 21, &pi) == 0);
	CHECK(pi.uid == 1000 && pi.gid == 100);
	CHECK_STREQ(pi.exe, "/usr/bin/deep");
	CHECK_STREQ(pi.cgroup, "");
	free(text);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/21'", root);
	CHECK(system(cmd) == 0);
}

struct pid_list {
	int n, stop_after;
	pid_t pid[16];
	pid_t want;
	bool found;
};

static int collect_pid(void *userdata, pid_t pid)
{
	struct pid_list *l = userdata;

	if (l->n < 16)
		l->pid[l->n] = pid;
	l->n++;
	if (pid == l->want)
		l->found = true;
	return l->stop_after && l->n >= l->stop_after ? -EINTR : 0;
}

static bool listed(const struct pid_list *l, pid_t pid)
{
	int i;

	for (i = 0; i < l->n && i < 16; i++)
		if (l->pid[i] == pid)
			return true;
	return false;
}

static void for_each_fake_pid(void)
{
	struct pid_list l = { 0 };
	char missing[96];

	CHECK(procinfo_for_each_pid(root, collect_pid, &l) == 4);
	CHECK(l.n == 4);
	CHECK(listed(&l, 4242) && listed(&l, 17) && listed(&l, 18) && listed(&l, 19));

	memset(&l, 0, sizeof(l));
	l.stop_after = 2;
	CHECK(procinfo_for_each_pid(root, collect_pid, &l) == -EINTR);
	CHECK(l.n == 2);

	snprintf(missing, sizeof(missing), "%s/none", root);
	CHECK(procinfo_for_each_pid(missing, collect_pid, &l) == -ENOENT);
}

/* A process's CPU time and children from a tree of /proc's files, on
 * whatever file system holds it (a directory's link count there counts its
 * subdirectories, or is 1). A thread with no schedstat to read (a kernel
 * without CONFIG_SCHED_INFO) or one that does not parse is skipped as one
 * that exited: -ENOENT when none is read, -ESRCH only when the process is
 * gone. */
static void fake_cpu_and_children(void)
{
	struct pid_list l = { 0 };
	uint64_t ns = 0;

	/* One thread, its files under task/ only. */
	put_dir("4242/task");
	put_dir("4242/task/4242");
	put_file("4242/task/4242/schedstat", "1234 5 6\n");
	put_file("4242/task/4242/children", "4300 4301 ");
	CHECK(procinfo_cpu_ns(root, 4242, &ns) == 0 && ns == 1234);
	CHECK(procinfo_for_each_child(root, 4242, collect_pid, &l) == 0);
	CHECK(l.n == 2 && listed(&l, 4300) && listed(&l, 4301));
	/* Two threads: the sum, and the second thread's children. */
	put_dir("18/task");
	put_dir("18/task/18");
	put_dir("18/task/20");
	put_file("18/schedstat", "100 0 0\n");
	put_file("18/task/18/schedstat", "100 0 0\n");
	put_file("18/task/20/schedstat", "23 0 0\n");
	put_file("18/task/20/children", "4400 ");
	CHECK(procinfo_cpu_ns(root, 18, &ns) == 0 && ns == 123);
	memset(&l, 0, sizeof(l));
	CHECK(procinfo_for_each_child(root, 18, collect_pid, &l) == 0);
	CHECK(l.n == 1 && listed(&l, 4400));
	/* No schedstat at all, or one that does not parse: none read. */
	put_dir("17/task");
	put_dir("17/task/17");
	CHECK(procinfo_cpu_ns(root, 17, &ns) == -ENOENT);
	put_dir("19/task");
	put_dir("19/task/19");
	put_file("19/schedstat", "garbage\n");
	put_file("19/task/19/schedstat", "garbage\n");
	CHECK(procinfo_cpu_ns(root, 19, &ns) == -ENOENT);
	/* One thread under another name than the process's: the walk. */
	put_dir("4343");
	put_dir("4343/task");
	put_dir("4343/task/4350");
	put_file("4343/task/4350/schedstat", "77 0 0\n");
	put_file("4343/task/4350/children", "4360 ");
	CHECK(procinfo_cpu_ns(root, 4343, &ns) == 0 && ns == 77);
	memset(&l, 0, sizeof(l));
	CHECK(procinfo_for_each_child(root, 4343, collect_pid, &l) == 0);
	CHECK(l.n == 1 && listed(&l, 4360));
	/* Gone. */
	CHECK(procinfo_cpu_ns(root, 5555, &ns) == -ESRCH);
	CHECK(procinfo_for_each_child(root, 5555, collect_pid, &l) == -ESRCH);
}

/* ---- the live /proc --------------------------------------------------------- */

static bool has_unified_line(void)
{
	char buf[4096];
	FILE *f = fopen("/proc/self/cgroup", "r");
	bool found = false;

	if (!f)
		return false;
	while (fgets(buf, sizeof(buf), f))
		found |= strncmp(buf, "0::", 3) == 0;
	fclose(f);
	return found;
}

static int read_comm(char *buf, size_t size)
{
	FILE *f = fopen("/proc/self/comm", "r");
	int r = -1;

	if (!f)
		return -1;
	if (fgets(buf, (int)size, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		r = 0;
	}
	fclose(f);
	return r;
}

/* The kernel's link, read the way no tool rewrites: relative to the
 * process's directory. */
static int self_exe_raw(char *buf, size_t size)
{
	int dirfd = open("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (dirfd < 0)
		return -1;
	n = readlinkat(dirfd, "exe", buf, size - 1);
	close(dirfd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static void read_live_self(void)
{
	static struct procinfo p;
	char exe[PATH_MAX], raw[PATH_MAX], comm[32];
	ssize_t n;
	uint64_t start = 0;

	CHECK(procinfo_read("/proc", getpid(), &p) == 0);
	CHECK(p.pid == getpid());
	CHECK(p.ppid == getppid());
	CHECK(p.uid == getuid() && p.gid == getgid());
	CHECK(p.start_time > 0);
	CHECK(p.kernel_thread == 0);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	CHECK(n > 0);
	exe[n > 0 ? n : 0] = '\0';
	CHECK(self_exe_raw(raw, sizeof(raw)) == 0);
	/* valgrind answers readlink("/proc/self/exe") with the program it
	 * runs, not its own loader, which is what the kernel's link says. */
	if (strcmp(exe, raw) != 0)
		fprintf(stderr, "  (readlink of /proc/self/exe is rewritten here: %s; comparing with %s)\n",
			exe, raw);
	CHECK_STREQ(p.exe, raw);
	CHECK(access(p.exe, X_OK) == 0);
	CHECK(read_comm(comm, sizeof(comm)) == 0);
	CHECK_STREQ(p.comm, comm);
	if (has_unified_line())
		CHECK(p.cgroup[0] == '/');
	else
		CHECK_STREQ(p.cgroup, "");
	CHECK(procinfo_start_time("/proc", getpid(), &start) == 0);
	CHECK(start == p.start_time);
}

static void read_live_missing_pid(void)
{
	struct procinfo p;
	uint64_t start;
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long pid_max = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fscanf(f, "%ld", &pid_max) == 1);
	fclose(f);
	/* pids are below pid_max: this one cannot exist. */
	CHECK(procinfo_read("/proc", (pid_t)pid_max, &p) == -ESRCH);
	CHECK(procinfo_start_time("/proc", (pid_t)pid_max, &start) == -ESRCH);
}

/* The kernel's nsec_to_clock_t(): floor(ns / 10^7) at USER_HZ 100, and
 * floor(ns * 1024 / 10^9) at 1024, which dividing by 10^9 / 1024 (cut to
 * 976562) overshoots by a tick within a millisecond of boot and by 45
 * after a day. */
static void ticks_of_boot_ns(void)
{
	const uint64_t day = 86400ull * 1000000000ull;

	CHECK(procinfo_ticks_of_ns(0, 100) == 0);
	CHECK(procinfo_ticks_of_ns(9999999, 100) == 0);
	CHECK(procinfo_ticks_of_ns(10000000, 100) == 1);
	CHECK(procinfo_ticks_of_ns(day + 9999999, 100) == 8640000);
	CHECK(procinfo_ticks_of_ns(976562, 1024) == 0);
	CHECK(procinfo_ticks_of_ns(976563, 1024) == 1);
	CHECK(procinfo_ticks_of_ns(day, 1024) == 88473600);
	CHECK(procinfo_ticks_of_ns(day - 1, 1024) == 88473599);
	CHECK(procinfo_ticks_of_ns(UINT64_MAX, 100) == UINT64_MAX / 10000000);
}

static void parse_children_lists(void)
{
	struct pid_list l = { .want = 0 };

	CHECK(procinfo_parse_children("", collect_pid, &l) == 0 && l.n == 0);
	CHECK(procinfo_parse_children("12 345 6 ", collect_pid, &l) == 0);
	CHECK(l.n == 3 && l.pid[0] == 12 && l.pid[1] == 345 && l.pid[2] == 6);
	CHECK(procinfo_parse_children("7\n", collect_pid, &l) == 0 && l.n == 4 && l.pid[3] == 7);
	CHECK(procinfo_parse_children("1 x ", collect_pid, &l) == -EBADMSG);
	CHECK(procinfo_parse_children("0 ", collect_pid, &l) == -EBADMSG);
	CHECK(procinfo_parse_children("-3 ", collect_pid, &l) == -EBADMSG);
	CHECK(procinfo_parse_children("99999999999 ", collect_pid, &l) == -EBADMSG);
	l.stop_after = 1;
	l.n = 0;
	CHECK(procinfo_parse_children("1 2 ", collect_pid, &l) == -EINTR && l.n == 1);
}

static void *park(void *arg)
{
	pid_t *tid = arg;

	*tid = gettid();
	pause();
	return NULL;
}

/* A child of ours is listed, whichever thread forked it; a thread's
 * process is ours. */
static void live_children_and_tgid(void)
{
	struct pid_list l = { .want = 0 };
	volatile pid_t tid = 0;
	pthread_t th;
	pid_t child, tgid = 0;

	CHECK(pthread_create(&th, NULL, park, (void *)&tid) == 0);
	while (!tid)
		usleep(1000);
	CHECK(procinfo_tgid("/proc", tid, &tgid) == 0 && tgid == getpid());
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	l.want = child;
	CHECK(procinfo_for_each_child("/proc", getpid(), collect_pid, &l) == 0 && l.found);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	l = (struct pid_list){ .want = child };
	CHECK(procinfo_for_each_child("/proc", getpid(), collect_pid, &l) == 0 && !l.found);
	pthread_cancel(th);
	pthread_join(th, NULL);
}

struct forker {
	volatile pid_t child;
	int release; /* its read returns once the other end is closed */
};

/* Ends by returning, not by pthread_cancel() (see spin_and_wait below). */
static void *fork_and_wait(void *arg)
{
	struct forker *f = arg;
	pid_t child = fork();
	char c;

	if (child == 0) {
		pause();
		_exit(0);
	}
	f->child = child;
	(void)!read(f->release, &c, 1);
	return NULL;
}

/* A child forked by a thread other than the leader is listed too: with
 * more than one thread, every thread's children file is read. */
static void live_children_of_other_thread(void)
{
	struct forker f = { 0 };
	struct pid_list l = { 0 };
	pthread_t th;
	int fds[2];

	CHECK(pipe(fds) == 0);
	f.release = fds[0];
	CHECK(pthread_create(&th, NULL, fork_and_wait, &f) == 0);
	while (!f.child)
		usleep(1000);
	CHECK(f.child > 0);
	l.want = f.child;
	CHECK(procinfo_for_each_child("/proc", getpid(), collect_pid, &l) == 0 && l.found);
	if (f.child > 0) {
		kill(f.child, SIGKILL);
		waitpid(f.child, NULL, 0);
	}
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
}

/* CPU time of thread tid as its schedstat says. */
static uint64_t schedstat_ns(pid_t tid)
{
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)getpid(), (int)tid);
	f = fopen(path, "re");
	if (f && fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	if (f)
		fclose(f);
	return ns;
}

static void spin_ms(unsigned ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < (long)ms);
}

struct spinner {
	volatile pid_t tid;
	int release; /* its read returns once the other end is closed */
};

/* Ends by returning, not by pthread_cancel(): a frame unwound by a
 * cancellation leaves ASan's marks of spin_ms()'s scopes on the stack,
 * which the sanitizer's own thread exit then reports as a bad write. */
static void *spin_and_wait(void *arg)
{
	struct spinner *w = arg;
	char c;

	spin_ms(60);
	w->tid = gettid();
	(void)!read(w->release, &c, 1);
	return NULL;
}

/* A process's CPU time is its threads' sum: the leader's alone while it
 * is alone, and another thread's time counts once it runs. */
static void live_cpu_ns(void)
{
	struct spinner w = { 0 };
	uint64_t before, ns = 0, leader;
	pthread_t th;
	int fds[2];

	spin_ms(20);
	before = schedstat_ns(getpid());
	CHECK(procinfo_cpu_ns("/proc", getpid(), &ns) == 0);
	CHECK(ns >= before && ns < before + 10000000);
	CHECK(pipe(fds) == 0);
	w.release = fds[0];
	CHECK(pthread_create(&th, NULL, spin_and_wait, &w) == 0);
	while (!w.tid)
		usleep(1000);
	leader = schedstat_ns(getpid());
	CHECK(procinfo_cpu_ns("/proc", getpid(), &ns) == 0);
	CHECK(ns >= leader + 50000000);
	CHECK(ns >= leader + schedstat_ns(w.tid) - 1000000);
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
	CHECK(procinfo_cpu_ns("/proc", 999999999, &ns) < 0);
}

static void *spin_and_end(void *arg)
{
	(void)arg;
	spin_ms(60);
	return NULL;
}

/* The process CPU clock: clock_getcpuclockid(3)'s clock; another
 * process's time, read with no file; a thread that has exited still
 * counts (the schedstat sum over live threads loses it); a pid that names
 * no process, or a thread other than the main one, is -ESRCH. */
static void process_cpu_clock(void)
{
	uint64_t ns = 0, live = 0;
	clockid_t c;
	pthread_t th;
	pid_t child;
	int go[2], done[2];
	char b;

	CHECK(clock_getcpuclockid(getpid(), &c) == 0);
	CHECK(procinfo_process_clock(getpid()) == c);
	CHECK(pthread_create(&th, NULL, spin_and_end, NULL) == 0);
	CHECK(pthread_join(th, NULL) == 0);
	CHECK(procinfo_process_cpu_ns(getpid(), &ns) == 0);
	CHECK(procinfo_cpu_ns("/proc", getpid(), &live) == 0);
	CHECK(ns >= live + 50000000); /* the exited thread's 60 ms */
	CHECK(pipe(go) == 0 && pipe(done) == 0);
	child = fork();
	if (child == 0) {
		close(go[1]); /* its read ends when the parent closes its end */
		spin_ms(30);
		(void)!write(done[1], "x", 1);
		(void)!read(go[0], &b, 1);
		_exit(0);
	}
	CHECK(child > 0);
	CHECK(read(done[0], &b, 1) == 1);
	CHECK(procinfo_process_cpu_ns(child, &ns) == 0);
	CHECK(ns >= 25000000 && ns < 10000000000ull);
	close(go[1]);
	CHECK(waitpid(child, NULL, 0) == child);
	CHECK(procinfo_process_cpu_ns(child, &ns) == -ESRCH); /* reaped */
	close(go[0]);
	close(done[0]);
	close(done[1]);
	{
		struct spinner w = { 0 };
		int fds[2];

		CHECK(pipe(fds) == 0);
		w.release = fds[0];
		CHECK(pthread_create(&th, NULL, spin_and_wait, &w) == 0);
		while (!w.tid)
			usleep(1000);
		CHECK(procinfo_process_cpu_ns(w.tid, &ns) == -ESRCH); /* a thread, not a process */
		close(fds[1]);
		pthread_join(th, NULL);
		close(fds[0]);
	}
	CHECK(procinfo_process_cpu_ns(0, &ns) == -ESRCH);
}

/* A pidfd polls 0 while its process lives, 1 once it has exited (before
 * and after the reap); a poll that fails is an error, not an exit, where
 * procinfo_pidfd_exited() counts it as one. */
static void pidfd_poll_states(void)
{
	int go[2], fd;
	pid_t child;
	char b;

	CHECK(pipe(go) == 0);
	child = fork();
	if (child == 0) {
		close(go[1]);
		(void)!read(go[0], &b, 1);
		_exit(0);
	}
	CHECK(child > 0);
	close(go[0]);
	fd = (int)syscall(SYS_pidfd_open, child, 0);
	CHECK(fd >= 0);
	CHECK(procinfo_pidfd_poll(fd) == 0);
	CHECK(!procinfo_pidfd_exited(fd));
	close(go[1]);
	CHECK(waitid(P_PID, (id_t)child, NULL, WEXITED | WNOWAIT) == 0); /* exited, not reaped */
	CHECK(procinfo_pidfd_poll(fd) == 1);
	CHECK(waitpid(child, NULL, 0) == child);
	CHECK(procinfo_pidfd_poll(fd) == 1);
	CHECK(procinfo_pidfd_exited(fd));
	close(fd);
	CHECK(procinfo_pidfd_poll(-1) == 0); /* poll ignores a negative fd */
}

/* A process with a child of its own, both parked; the child's pid is
 * written to *ret_child once it is listed. */
static pid_t spawn_parent_of_one(pid_t *ret_child)
{
	char path[64], buf[64];
	int fds[2];
	pid_t p, q = 0;

	if (pipe(fds) < 0)
		return -1;
	p = fork();
	if (p == 0) {
		close(fds[0]);
		q = fork();
		if (q == 0) {
			pause();
			_exit(0);
		}
		(void)!write(fds[1], &q, sizeof(q));
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (p < 0 || read(fds[0], &q, sizeof(q)) != sizeof(q)) {
		close(fds[0]);
		return -1;
	}
	close(fds[0]);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)p, (int)p);
	for (int i = 0; i < 2000; i++) {
		FILE *f = fopen(path, "re");
		bool has = f && fgets(buf, sizeof(buf), f) && atoi(buf) == q;

		if (f)
			fclose(f);
		if (has)
			break;
		usleep(1000);
	}
	*ret_child = q;
	return p;
}

struct reap_walk {
	pid_t proc, child;
	int calls;
};

/* Kills and reaps the process being walked, from inside the walk. */
static int reap_walked(void *userdata, pid_t pid)
{
	struct reap_walk *w = userdata;

	w->calls++;
	if (pid == w->child) {
		kill(w->child, SIGKILL);
		kill(w->proc, SIGKILL);
		waitpid(w->proc, NULL, 0);
	}
	return 0;
}

/* A process reaped while its children are listed: the listing ends with
 * what was read (the kernel's ENOENT for the dead task directory is the
 * end of it to readdir), and the next one finds it gone. */
static void live_children_of_reaped(void)
{
	struct reap_walk w = { 0 };

	w.proc = spawn_parent_of_one(&w.child);
	CHECK(w.proc > 0);
	if (w.proc <= 0)
		return;
	CHECK(procinfo_for_each_child("/proc", w.proc, reap_walked, &w) == 0);
	CHECK(w.calls == 1);
	CHECK(procinfo_for_each_child("/proc", w.proc, reap_walked, &w) == -ESRCH);
	CHECK(w.calls == 1);
}

/* A child that has run become() and waits to be killed; -1 if it could
 * not be started or become() failed. */
static pid_t spawn_become(int (*become)(void))
{
	int fds[2];
	char c = 0;
	pid_t child;

	if (pipe(fds) < 0)
		return -1;
	child = fork();
	if (child == 0) {
		close(fds[0]);
		if (become() < 0)
			_exit(1);
		(void)!write(fds[1], "x", 1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	if (child > 0 && (read(fds[0], &c, 1) != 1 || c != 'x')) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		child = -1;
	}
	close(fds[0]);
	return child;
}

static int become_many_groups(void)
{
	static gid_t groups[2000];

	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
		groups[i] = (gid_t)(100000 + i);
	if (setgroups(sizeof(groups) / sizeof(groups[0]), groups) < 0 || setgid(4321) < 0 || setuid(1234) < 0)
		return -1;
	return 0;
}

/* A process in many supplementary groups (its status past 8 KiB) is
 * read like any other. */
static void read_live_many_groups(void)
{
	struct procinfo pi;
	pid_t child = spawn_become(become_many_groups);

	CHECK(child > 0);
	if (child <= 0)
		return;
	fresh(&pi);
	CHECK(procinfo_read("/proc", child, &pi) == 0);
	CHECK(pi.pid == child && pi.tgid == child && pi.uid == 1234 && pi.gid == 4321);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static int become_real_not_effective(void)
{
	if (setresgid(4321, 8765, 8765) < 0 || setresuid(1234, 5678, 5678) < 0)
		return -1;
	return 0;
}

/* A child whose real and effective ids differ: the ids read through its
 * pidfd are the real ones, as status gives them; a pidfd of another
 * process, or an fd that is no pidfd, is not taken for it. */
static void read_live_ids_by_pidfd(void)
{
	struct procinfo by_status, by_pidfd, other;
	int pidfd, selffd, notpidfd;
	uid_t uid = 0;
	gid_t gid = 0;
	pid_t child = spawn_become(become_real_not_effective);

	CHECK(child > 0);
	if (child <= 0)
		return;
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	selffd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	notpidfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CHECK(pidfd >= 0 && selffd >= 0 && notpidfd >= 0);
	fresh(&by_status);
	fresh(&by_pidfd);
	fresh(&other);
	CHECK(procinfo_read("/proc", child, &by_status) == 0);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_pidfd) == 0);
	CHECK(by_status.uid == 1234 && by_status.gid == 4321 && by_status.tgid == child);
	CHECK(by_pidfd.uid == 1234 && by_pidfd.gid == 4321 && by_pidfd.tgid == child);
	CHECK(strcmp(by_pidfd.exe, by_status.exe) == 0 && strcmp(by_pidfd.cgroup, by_status.cgroup) == 0 &&
	      by_pidfd.start_time == by_status.start_time && by_pidfd.ppid == getpid());
	/* Another process's pidfd, and /dev/null: status is read instead. */
	CHECK(procinfo_read_pidfd("/proc", child, selffd, &other) == 0);
	CHECK(other.uid == 1234 && other.gid == 4321);
	CHECK(procinfo_read_rest_pidfd("/proc", child, notpidfd, &other) == 0);
	CHECK(other.uid == 1234 && other.gid == 4321);
	if (procinfo_pidfd_ids_supported() > 0)
		CHECK(procinfo_pidfd_ids(pidfd, child, &uid, &gid, NULL) == 0 && uid == 1234 && gid == 4321);
	else
		printf("SKIP: unit/read_live_ids_by_pidfd/ioctl: this kernel has no PIDFD_GET_INFO (Linux 6.13); "
		       "the ids came from status\n");
	close(notpidfd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pidfd);
	close(selffd);
}

/* A child that sleeps in pause() until killed, and its pidfd in
 * *ret_pidfd (-1 where none could be opened). */
static pid_t paused_child(int *ret_pidfd)
{
	pid_t child = fork();

	if (child == 0) {
		pause();
		_exit(0);
	}
	*ret_pidfd = child > 0 ? (int)syscall(SYS_pidfd_open, child, 0) : -1;
	return child;
}

/* Waits (up to a second) for pid's stat to show state; what it showed last
 * is in *ret. */
static void wait_state(pid_t pid, char state, struct procinfo *ret)
{
	for (int i = 0; i < 200; i++) {
		fresh(ret);
		if (procinfo_read_stat("/proc", pid, ret) == 0 && ret->state == state)
			return;
		usleep(5000);
	}
}

/* Linux 6.13 and later answer PIDFD_GET_INFO: a kernel that does and a
 * check that says it does not is a broken check, not an old kernel. */
static bool kernel_has_pidfd_info(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	return uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 13));
}

/* What procinfo_pidfd_ids() answers, as any user: the ids of the process
 * the pidfd names; ESTALE for another process's pidfd; ENOTTY for an fd
 * that is no pidfd (which leaves the ioctl on); an error once reaped. */
static void pidfd_ids_answers(void)
{
	int fds[2], pidfd, selffd, supported = procinfo_pidfd_ids_supported();
	uid_t uid = 1;
	gid_t gid = 1;
	pid_t child;

	CHECK(supported == (kernel_has_pidfd_info() ? 1 : -1));
	CHECK(pipe(fds) == 0);
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	selffd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	CHECK(child > 0 && pidfd >= 0 && selffd >= 0);
	if (supported > 0) {
		CHECK(procinfo_pidfd_ids(pidfd, child, &uid, &gid, NULL) == 0 && uid == getuid() && gid == getgid());
		CHECK(procinfo_pidfd_ids(selffd, child, &uid, &gid, NULL) == -ESTALE);
		CHECK(procinfo_pidfd_ids(fds[0], child, &uid, &gid, NULL) == -ENOTTY);
		CHECK(procinfo_pidfd_ids_supported() == 1); /* a pipe did not turn it off */
	} else {
		CHECK(procinfo_pidfd_ids(pidfd, child, &uid, &gid, NULL) == -EOPNOTSUPP);
		printf("SKIP: unit/pidfd_ids_answers/ioctl: this kernel has no PIDFD_GET_INFO (Linux 6.13)\n");
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(procinfo_pidfd_ids(pidfd, child, &uid, &gid, NULL) < 0); /* reaped: no answer */
	close(fds[0]);
	close(fds[1]);
	close(pidfd);
	close(selffd);
}

/* The cgroup2 mount whose root is the hierarchy's, into dir (or false). */
static bool cgroup2_mount(char *dir, size_t size)
{
	char line[2 * PATH_MAX], mroot[PATH_MAX], mnt[PATH_MAX];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, " - cgroup2 ") && sscanf(line, "%*s %*s %*s %4095s %4095s", mroot, mnt) == 2 &&
			strcmp(mroot, "/") == 0 && (size_t)snprintf(dir, size, "%s", mnt) < size;
	if (f)
		fclose(f);
	return found;
}

static bool move_to(const char *cg, pid_t pid)
{
	char path[PATH_MAX];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	f = fopen(path, "we");
	if (!f)
		return false;
	ok = fprintf(f, "%d\n", (int)pid) > 0;
	return fclose(f) == 0 && ok;
}

/* Read with its pidfd, a process's cgroup path comes from the id the
 * kernel gives with its ids once that id was met (and the cgroup2 mount
 * showed the path is its): the same path as /proc/PID/cgroup shows, also
 * after the process moves to another cgroup and back. */
static void read_cgroup_by_id(void)
{
	char mnt[PATH_MAX / 2], a[PATH_MAX], b[PATH_MAX];
	struct procinfo by_file, by_id;
	unsigned long before, paths;
	int pidfd;
	pid_t child;

	if (procinfo_pidfd_ids_supported() <= 0) {
		printf("SKIP: unit/read_cgroup_by_id: this kernel has no PIDFD_GET_INFO (Linux 6.13)\n");
		return;
	}
	if (!cgroup2_mount(mnt, sizeof(mnt))) {
		printf("SKIP: unit/read_cgroup_by_id: no cgroup2 mount of the whole hierarchy\n");
		return;
	}
	snprintf(a, sizeof(a), "%s/test-procinfo-a-%d", mnt, (int)getpid());
	snprintf(b, sizeof(b), "%s/test-procinfo-b-%d", mnt, (int)getpid());
	if (mkdir(a, 0755) < 0 || mkdir(b, 0755) < 0) {
		printf("SKIP: unit/read_cgroup_by_id: cannot make cgroups under %s: %s\n", mnt, strerror(errno));
		rmdir(a);
		return;
	}
	child = paused_child(&pidfd);
	CHECK(child > 0 && pidfd >= 0);
	CHECK(move_to(a, child));
	for (int round = 0; round < 2; round++) {
		const char *to = round ? b : a;

		if (round)
			CHECK(move_to(b, child));
		fresh(&by_file);
		CHECK(procinfo_read("/proc", child, &by_file) == 0);
		CHECK(strcmp(by_file.cgroup, to + strlen(mnt)) == 0);
		/* the first read with the pidfd learns the id (from the file,
		 * by its path: no directory either), the second takes it */
		paths = procinfo_reads_by_paths();
		before = procinfo_cgroups_by_id();
		fresh(&by_id);
		CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_id) == 0);
		CHECK(strcmp(by_id.cgroup, by_file.cgroup) == 0);
		CHECK(procinfo_cgroups_by_id() == before && procinfo_reads_by_paths() == paths + 1);
		fresh(&by_id);
		CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_id) == 0);
		CHECK(strcmp(by_id.cgroup, by_file.cgroup) == 0 && !by_id.cgroup_cut);
		CHECK(procinfo_cgroups_by_id() == before + 1 && procinfo_reads_by_paths() == paths + 2);
	}
	/* back in a: by its id, a's path again, not b's */
	CHECK(move_to(a, child));
	before = procinfo_cgroups_by_id();
	fresh(&by_id);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_id) == 0);
	CHECK(strcmp(by_id.cgroup, a + strlen(mnt)) == 0 && procinfo_cgroups_by_id() == before + 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(pidfd);
	if (rmdir(a) < 0 || rmdir(b) < 0)
		printf("  note: %s or %s left behind: %s\n", a, b, strerror(errno));
}

static void same_read(const struct procinfo *a, const struct procinfo *b)
{
	CHECK(a->pid == b->pid && a->ppid == b->ppid && a->tgid == b->tgid && a->start_time == b->start_time);
	CHECK(a->uid == b->uid && a->gid == b->gid && a->state == b->state && a->kernel_thread == b->kernel_thread);
	CHECK_STREQ(a->comm, b->comm);
	CHECK_STREQ(a->exe, b->exe);
	CHECK_STREQ(a->cgroup, b->cgroup);
	CHECK(a->cgroup_cut == b->cgroup_cut && a->exe_too_long == b->exe_too_long);
}

/* With a pidfd, and the cgroup's id met before, a read opens no directory
 * of the process: stat and exe by their paths, the ids and the cgroup from
 * the pidfd. It says what a read through the directory says, whole or
 * after a stat read; it is not taken with a pidfd of another process, nor
 * of a zombie, and a reaped process is gone either way. */
static void read_by_paths_agrees(void)
{
	struct procinfo by_dir, by_paths;
	unsigned long before, known;
	int pidfd, selffd;
	pid_t child;

	if (procinfo_pidfd_ids_supported() <= 0) {
		printf("SKIP: unit/read_by_paths_agrees: this kernel has no PIDFD_GET_INFO (Linux 6.13)\n");
		return;
	}
	child = paused_child(&pidfd);
	selffd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	CHECK(child > 0 && pidfd >= 0 && selffd >= 0);
	wait_state(child, 'S', &by_dir); /* asleep in pause(): its state stays */
	fresh(&by_paths);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_paths) == 0); /* meets the cgroup's id */
	before = procinfo_reads_by_paths();
	known = procinfo_cgroups_by_id();
	fresh(&by_paths);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_paths) == 0);
	if (procinfo_cgroups_by_id() == known) {
		printf("SKIP: unit/read_by_paths_agrees: the cgroup's id was not learnt (no cgroup2 mount of the "
		       "whole hierarchy here)\n");
		goto out;
	}
	CHECK(procinfo_reads_by_paths() == before + 1);
	fresh(&by_dir);
	CHECK(procinfo_read("/proc", child, &by_dir) == 0);
	same_read(&by_paths, &by_dir);
	CHECK(by_paths.tgid == child && by_paths.exe[0] == '/');
	/* the rest after a stat read, as a fork's read takes it */
	fresh(&by_paths);
	CHECK(procinfo_read_stat("/proc", child, &by_paths) == 0);
	CHECK(procinfo_read_rest_pidfd("/proc", child, pidfd, &by_paths) == 0);
	CHECK(procinfo_reads_by_paths() == before + 2);
	same_read(&by_paths, &by_dir);
	/* with its program read after the stat: that read is taken, not made again */
	fresh(&by_paths);
	CHECK(procinfo_read_stat("/proc", child, &by_paths) == 0);
	CHECK(procinfo_read_exe("/proc", child, by_paths.exe, sizeof(by_paths.exe)) == 0);
	CHECK_STREQ(by_paths.exe, by_dir.exe);
	snprintf(by_paths.exe, sizeof(by_paths.exe), "/read/after/the/stat");
	CHECK(procinfo_read_rest_pidfd("/proc", child, pidfd, &by_paths) == 0);
	CHECK(procinfo_reads_by_paths() == before + 3);
	CHECK_STREQ(by_paths.exe, "/read/after/the/stat");
	CHECK(by_paths.uid == by_dir.uid && by_paths.gid == by_dir.gid);
	CHECK_STREQ(by_paths.cgroup, by_dir.cgroup);
	/* another process's pidfd ties nothing to child: through the directory */
	fresh(&by_paths);
	CHECK(procinfo_read_pidfd("/proc", child, selffd, &by_paths) == 0);
	CHECK(procinfo_reads_by_paths() == before + 3);
	same_read(&by_paths, &by_dir);
	/* a zombie: through the directory, its cgroup from its file */
	kill(child, SIGKILL);
	wait_state(child, 'Z', &by_dir);
	CHECK(by_dir.state == 'Z');
	fresh(&by_dir);
	CHECK(procinfo_read("/proc", child, &by_dir) == 0);
	fresh(&by_paths);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_paths) == 0);
	CHECK(procinfo_reads_by_paths() == before + 3);
	same_read(&by_paths, &by_dir);
	waitpid(child, NULL, 0);
	fresh(&by_paths);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_paths) == -ESRCH);
	child = 0;
out:
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	close(pidfd);
	close(selffd);
}

/* A child forked under pid (root, through ns_last_pid: the next pid
 * given is the one after it), that takes uid 65534 and sleeps; 0 where
 * another pid came (another process forked in between, a few tries). */
static pid_t child_under(pid_t pid)
{
	for (int i = 0; i < 20; i++) {
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "we");
		pid_t child;

		if (!f || fprintf(f, "%d", (int)pid - 1) < 0 || fclose(f) != 0)
			return 0;
		child = fork();
		if (child == 0) {
			if (setresuid(65534, 65534, 65534) < 0)
				_exit(1);
			pause();
			_exit(0);
		}
		if (child == pid || child < 0)
			return child < 0 ? 0 : child;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	return 0;
}

/* A fork child's stat read, then the child reaped and its pid taken by
 * another process (another uid) before the rest is read: the rest with
 * the first child's pidfd says it is gone, and mixes nothing of the
 * second into the first's stat; a whole read with that pidfd reads the
 * second whole. */
static void read_rest_after_pid_reuse(void)
{
	struct procinfo pi;
	int pidfd;
	pid_t child, other;

	if (procinfo_pidfd_ids_supported() <= 0) {
		printf("SKIP: unit/read_rest_after_pid_reuse: this kernel has no PIDFD_GET_INFO (Linux 6.13)\n");
		return;
	}
	child = paused_child(&pidfd);
	CHECK(child > 0 && pidfd >= 0);
	fresh(&pi);
	CHECK(procinfo_read_stat("/proc", child, &pi) == 0);
	CHECK(procinfo_read_exe("/proc", child, pi.exe, sizeof(pi.exe)) == 0 && pi.exe[0] == '/');
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	other = child_under(child);
	if (!other) {
		printf("SKIP: unit/read_rest_after_pid_reuse: could not fork under PID %d again\n", (int)child);
		close(pidfd);
		return;
	}
	wait_state(other, 'S', &(struct procinfo){ 0 });
	CHECK(procinfo_read_rest_pidfd("/proc", child, pidfd, &pi) == -ESRCH);
	fresh(&pi);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &pi) == 0);
	CHECK(pi.uid == 65534 && pi.pid == other);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	close(pidfd);
}

/* A zombie whose cgroup was removed: /proc/PID/cgroup says "(deleted)";
 * a read through its pidfd must say what the file says, not the removed
 * cgroup's old path from the id cache (a MatchCgroup= word for the old
 * path would match it). */
static void read_cgroup_by_id_removed(void)
{
	char mnt[PATH_MAX / 2], a[PATH_MAX];
	struct procinfo by_file, by_id;
	int pidfd;
	pid_t child;

	if (procinfo_pidfd_ids_supported() <= 0 || !cgroup2_mount(mnt, sizeof(mnt))) {
		printf("SKIP: unit/read_cgroup_by_id_removed: no PIDFD_GET_INFO or no cgroup2 mount\n");
		return;
	}
	snprintf(a, sizeof(a), "%s/test-procinfo-gone-%d", mnt, (int)getpid());
	CHECK(mkdir(a, 0755) == 0);
	child = paused_child(&pidfd);
	CHECK(pidfd >= 0 && move_to(a, child));
	fresh(&by_id);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_id) == 0); /* learns a's id */
	kill(child, SIGKILL);
	wait_state(child, 'Z', &by_file); /* a zombie, not reaped */
	CHECK(rmdir(a) == 0); /* a zombie does not keep its cgroup populated */
	fresh(&by_file);
	CHECK(procinfo_read("/proc", child, &by_file) == 0);
	fresh(&by_id);
	CHECK(procinfo_read_pidfd("/proc", child, pidfd, &by_id) == 0);
	CHECK_STREQ(by_id.cgroup, by_file.cgroup);
	waitpid(child, NULL, 0);
	close(pidfd);
}

/* A cgroup subtree bind-mounted inside the cgroup2 mount (same st_dev):
 * the inode check then accepts a path of another cgroup. A process that
 * moves from /x/z to /y/z between the ioctl (id of /x/z) and the read of
 * its cgroup file ("/y/z") calls procinfo_cgroup_learn(id(/x/z), "/y/z"),
 * done here directly; every later process in /x/z would then be shown,
 * and judged by MatchCgroup=, as in /y/z. Run in a child with a mount
 * namespace of its own. */
static void read_cgroup_learn_through_bind_mount(void)
{
	char mnt[PATH_MAX / 2], x[PATH_MAX / 2 + 64], y[PATH_MAX / 2 + 64], xz[PATH_MAX], yz[PATH_MAX], yzp[64];
	struct stat s;
	int status = 0;
	pid_t child;

	if (procinfo_pidfd_ids_supported() <= 0 || !cgroup2_mount(mnt, sizeof(mnt))) {
		printf("SKIP: unit/read_cgroup_learn_through_bind_mount: no PIDFD_GET_INFO or no cgroup2 mount\n");
		return;
	}
	snprintf(x, sizeof(x), "%s/test-procinfo-x-%d", mnt, (int)getpid());
	snprintf(y, sizeof(y), "%s/test-procinfo-y-%d", mnt, (int)getpid());
	snprintf(xz, sizeof(xz), "%s/z", x);
	snprintf(yz, sizeof(yz), "%s/z", y);
	snprintf(yzp, sizeof(yzp), "/test-procinfo-y-%d/z", (int)getpid());
	CHECK(mkdir(x, 0755) == 0 && mkdir(xz, 0755) == 0 && mkdir(y, 0755) == 0 && mkdir(yz, 0755) == 0);
	CHECK(stat(xz, &s) == 0);
	child = fork();
	if (child == 0) {
		const char *got;

		if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
		    mount(x, y, NULL, MS_BIND, NULL) < 0)
			_exit(2);
		/* as if a process moved from x/z to y/z between the ioctl and
		 * the read of its cgroup file: y/z is x/z through the bind */
		procinfo_cgroup_learn((uint64_t)s.st_ino, yzp);
		got = procinfo_cgroup_by_id((uint64_t)s.st_ino);
		_exit(got ? 1 : 0);
	}
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2)
		printf("SKIP: unit/read_cgroup_learn_through_bind_mount: no mount namespace of its own here\n");
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rmdir(xz);
	rmdir(yz);
	rmdir(x);
	rmdir(y);
}

/* A program whose path is longer than the kernel prints (readlink of
 * exe: ENAMETOOLONG) is read with its exe "" (unreadable, as one we may
 * not inspect), not as a failed read: the rest of the process (ids,
 * cgroup) is what rules on users and cgroups judge. */
static void read_live_exe_too_long(void)
{
	char base[] = "/tmp/test-procinfo-deep-XXXXXX", name[201], cmd[128];
	struct procinfo pi;
	int dirfd, fd, in, r = -1;
	pid_t child = -1;
	ssize_t n;

	CHECK(mkdtemp(base) != NULL);
	memset(name, 'd', 200);
	name[200] = '\0';
	dirfd = open(base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (int i = 0; dirfd >= 0 && i < 22; i++) { /* 22 x 201 > PATH_MAX */
		int next;

		CHECK(mkdirat(dirfd, name, 0755) == 0);
		next = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(dirfd);
		dirfd = next;
	}
	CHECK(dirfd >= 0);
	in = open("/usr/bin/sleep", O_RDONLY | O_CLOEXEC);
	fd = dirfd >= 0 ? openat(dirfd, "prog", O_WRONLY | O_CREAT | O_CLOEXEC, 0755) : -1;
	CHECK(in >= 0 && fd >= 0);
	while (in >= 0 && fd >= 0 && (n = read(in, cmd, sizeof(cmd))) > 0)
		CHECK(write(fd, cmd, (size_t)n) == n);
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	if (dirfd >= 0) {
		child = fork();
		if (child == 0) {
			/* A copy of sleep, run by its path relative to the deep
			 * directory: the kernel cannot print the whole of it. */
			if (fchdir(dirfd) == 0)
				execl("./prog", "prog", "100", (char *)NULL);
			_exit(127);
		}
	}
	for (int i = 0; child > 0 && i < 200; i++) {
		char exe[PROCINFO_PATH_MAX];

		/* Until the exec is done: the exe link of the parent's image
		 * reads; the deep one does not. */
		if (procinfo_read_exe("/proc", child, exe, sizeof(exe)) == 0 && !*exe)
			break;
		usleep(10000);
	}
	memset(&pi, 0, sizeof(pi));
	if (child > 0)
		r = procinfo_read("/proc", child, &pi);
	CHECK(r == 0);
	CHECK(pi.exe[0] == '\0' && pi.pid == child && pi.uid == getuid() && pi.cgroup[0] == '/');
	/* Said so: not a main thread gone, whose threads would be walked for
	 * a program none of them can show either. */
	CHECK(pi.exe_too_long);
	if (child > 0) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	if (dirfd >= 0)
		close(dirfd);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	CHECK(system(cmd) == 0);
}

static void for_each_live_pid(void)
{
	struct pid_list l = { .want = getpid() };
	int r = procinfo_for_each_pid("/proc", collect_pid, &l);

	CHECK(r > 0);
	CHECK(r == l.n);
	CHECK(l.found);
}

int main(void)
{
	RUN(parse_stat_user_process);
	RUN(parse_stat_hostile_comms);
	RUN(parse_stat_kernel_threads);
	RUN(parse_stat_rejects);
	RUN(parse_status_ids);
	RUN(parse_status_rejects);
	RUN(parse_tgid_line);
	RUN(parse_children_lists);
	RUN(ticks_of_boot_ns);
	RUN(parse_cgroup_lines);
	RUN(parse_cgroup_rejects);
	RUN(parse_cgroup_cut_by_kernel);
	make_tree();
	RUN(read_fake_process);
	RUN(read_fake_kernel_thread);
	RUN(path_of_pid);
	RUN(read_fake_failures);
	RUN(read_fake_setuid_then_exec);
	RUN(for_each_fake_pid);
	RUN(read_fake_long_status);
	RUN(read_fake_long_cgroup);
	RUN(fake_cpu_and_children);
	remove_tree();
	RUN(read_live_self);
	RUN(read_live_missing_pid);
	RUN(for_each_live_pid);
	RUN(live_children_and_tgid);
	RUN(live_children_of_reaped);
	RUN(live_children_of_other_thread);
	RUN(live_cpu_ns);
	RUN(process_cpu_clock);
	RUN(pidfd_poll_states);
	RUN(pidfd_ids_answers);
	RUN(read_live_exe_too_long);
	RUN(read_by_paths_agrees);
	if (geteuid() == 0) {
		RUN(read_live_many_groups);
		RUN(read_live_ids_by_pidfd);
		RUN(read_cgroup_by_id);
		RUN(read_cgroup_by_id_removed);
		RUN(read_cgroup_learn_through_bind_mount);
		RUN(read_rest_after_pid_reuse);
	} else {
		printf("SKIP: unit/read_live_many_groups: needs root to set the groups\n");
		printf("SKIP: unit/read_live_ids_by_pidfd: needs root to set the ids\n");
		printf("SKIP: unit/read_cgroup_by_id: needs root to make cgroups\n");
		printf("SKIP: unit/read_cgroup_by_id_removed: needs root to make cgroups\n");
		printf("SKIP: unit/read_cgroup_learn_through_bind_mount: needs root to make cgroups\n");
		printf("SKIP: unit/read_rest_after_pid_reuse: needs root to choose a pid\n");
	}
	UNIT_EXIT();
}
