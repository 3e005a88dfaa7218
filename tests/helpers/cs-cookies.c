// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-cookies [-t] [-x]: the kernel's word on every live process, read with
 * prctl(PR_SCHED_CORE_GET) here and now, independent of coresched and its
 * library, so that a test judging the daemon does not trust the daemon's
 * own code. One line per process (with -t per thread):
 *
 *     PID TID COOKIE EXE COMM             (default)
 *     PID TID COOKIE PPID UID EXE COMM    (-x: parent and real uid too)
 *
 * COOKIE is 0x... in hex, or !ERRNO-NAME when the read failed (ENODEV with
 * SMT off); EXE is "-" when unreadable (kernel threads). COMM comes last as
 * it may hold spaces. Zombies, and tasks that exit during the walk, are
 * left out: they are not live processes. */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Our own numbers, from the kernel's uapi, on purpose not the project's. */
#define RACE_PR_SCHED_CORE 62
#define RACE_PR_SCHED_CORE_GET 0
#define RACE_PIDTYPE_PID 0

static int extended;

static int is_number(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Reads a small /proc file into buf with the trailing newline cut. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/* PPid: and the real uid from /proc/PID/status; -ESRCH for a zombie. */
static int read_status(const char *pid, long *ret_ppid, long *ret_uid)
{
	char path[300], line[256];
	long ppid = -1, uid = -1;
	int zombie = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "State:", 6) == 0) {
			char state = line[6 + strspn(line + 6, " \t")];

			zombie = state == 'Z' || state == 'X';
		} else if (strncmp(line, "PPid:", 5) == 0)
			ppid = strtol(line + 5, NULL, 10);
		else if (strncmp(line, "Uid:", 4) == 0)
			uid = strtol(line + 4, NULL, 10);
	}
	fclose(f);
	if (zombie || ppid < 0 || uid < 0)
		return -ESRCH;
	*ret_ppid = ppid;
	*ret_uid = uid;
	return 0;
}

static int print_task(const char *pid, const char *tid)
{
	unsigned long long cookie = 0; /* the kernel writes a u64 */
	char path[600], exe[4096], comm[64], value[64];
	long ppid = 0, uid = 0;
	ssize_t n;

	if (prctl(RACE_PR_SCHED_CORE, RACE_PR_SCHED_CORE_GET, atoi(tid), RACE_PIDTYPE_PID,
		  (unsigned long)&cookie) < 0) {
		if (errno == ESRCH)
			return 0;
		snprintf(value, sizeof(value), "!%s", strerrorname_np(errno) ?: "EUNKNOWN");
	} else {
		snprintf(value, sizeof(value), "0x%llx", cookie);
	}
	snprintf(path, sizeof(path), "/proc/%s/task/%s/comm", pid, tid);
	if (read_line(path, comm, sizeof(comm)) < 0)
		return 0; /* gone */
	snprintf(path, sizeof(path), "/proc/%s/exe", pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0)
		strcpy(exe, "-");
	else
		exe[n] = '\0';
	if (read_status(pid, &ppid, &uid) < 0)
		return 0;
	if (extended)
		printf("%s %s %s %ld %ld %s %s\n", pid, tid, value, ppid, uid, exe, comm);
	else
		printf("%s %s %s %s %s\n", pid, tid, value, exe, comm);
	return 1;
}

static void print_threads(const char *pid)
{
	char path[300];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/task", pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)))
		if (is_number(de->d_name))
			print_task(pid, de->d_name);
	closedir(d);
}

int main(int argc, char **argv)
{
	struct dirent *de;
	int threads = 0, opt;
	DIR *proc;

	while ((opt = getopt(argc, argv, "tx")) != -1) {
		switch (opt) {
		case 't':
			threads = 1;
			break;
		case 'x':
			extended = 1;
			break;
		default:
			fprintf(stderr, "usage: cs-cookies [-t] [-x]\n");
			return 2;
		}
	}
	proc = opendir("/proc");
	if (!proc) {
		perror("cs-cookies: /proc");
		return 1;
	}
	while ((de = readdir(proc))) {
		if (!is_number(de->d_name))
			continue;
		if (threads)
			print_threads(de->d_name);
		else
			print_task(de->d_name, de->d_name);
	}
	closedir(proc);
	return fflush(stdout) == 0 ? 0 : 1;
}
