// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc readers and their pure parsers. A reader of several files opens
 * one directory, PROC_ROOT/PID, and reads them relative to it, so all they
 * report is about one process even if the pid is reused meanwhile (the
 * directory of a reaped process stays empty; it never turns into the new
 * one's). A reader of one file opens it by its path. */
#include "procinfo.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sched_core.h" /* sc_fault */

#define PF_KTHREAD 0x00200000u /* include/linux/sched.h; not in uapi */
#define KTHREADD_PID 2

/* Bounds on what we read: generous for each file's real size. */
#define STAT_READ_MAX 4096
#define STATUS_READ_MAX 8192
#define CGROUP_READ_MAX 16384
#define CHILDREN_READ_MAX 65536 /* some 9000 children of one thread */

#define DELETED_SUFFIX " (deleted)"

/* Reads with a pidfd that read no directory (see rest_by_paths()). */
static unsigned long reads_by_paths;

/* ---- parsing ---------------------------------------------------------------- */

/* Decimal digits [s, *end) with no sign, into a value <= max. */
static bool parse_dec(const char *s, const char **ret_end, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (p == s)
		return false;
	*ret_end = p;
	*ret = v;
	return true;
}

/* A whole space-terminated (or line-ending) decimal token. */
static bool parse_token(const char *s, uint64_t max, uint64_t *ret)
{
	const char *end;

	return parse_dec(s, &end, max, ret) && (*end == ' ' || *end == '\n' || *end == '\0');
}

/* Field n (3-based, after the comm) begins at the returned pointer. The
 * fields after the comm are separated by single spaces and hold no ')'. */
static const char *stat_field(const char *after_comm, int n)
{
	const char *p = after_comm;
	int i;

	for (i = 3; i <= n; i++) {
		if (*p != ' ')
			return NULL;
		p++;
		if (*p == ' ' || *p == '\n' || *p == '\0')
			return NULL;
		if (i == n)
			return p;
		p += strcspn(p, " \n");
	}
	return NULL;
}

int procinfo_parse_stat(const char *text, struct procinfo *ret)
{
	const char *open, *close, *f;
	uint64_t pid, ppid, flags, start;
	size_t len;

	/* "PID (COMM) S PPID ...": the comm is whatever the task named itself,
	 * parentheses and spaces included, so only the last ')' closes it. */
	if (!parse_dec(text, &open, INT_MAX, &pid) || pid == 0 || strncmp(open, " (", 2) != 0)
		return -EBADMSG;
	open += 2;
	close = strrchr(open, ')');
	if (!close)
		return -EBADMSG;
	f = stat_field(close + 1, 3);
	if (!f || (f[1] != ' ' && f[1] != '\n' && f[1] != '\0'))
		return -EBADMSG;
	f = stat_field(close + 1, 4);
	if (!f || !parse_token(f, INT_MAX, &ppid))
		return -EBADMSG;
	f = stat_field(close + 1, 9);
	if (!f || !parse_token(f, UINT32_MAX, &flags))
		return -EBADMSG;
	f = stat_field(close + 1, 22);
	if (!f || !parse_token(f, UINT64_MAX, &start))
		return -EBADMSG;

	ret->pid = (pid_t)pid;
	ret->state = stat_field(close + 1, 3)[0];
	ret->ppid = (pid_t)ppid;
	ret->start_time = start;
	/* Workqueue threads show more than TASK_COMM_LEN here; keep what fits. */
	len = (size_t)(close - open);
	if (len > sizeof(ret->comm) - 1)
		len = sizeof(ret->comm) - 1;
	memcpy(ret->comm, open, len);
	ret->comm[len] = '\0';
	ret->kernel_thread = (flags & PF_KTHREAD) || pid == KTHREADD_PID || ppid == KTHREADD_PID;
	return 0;
}

/* The first number of the line starting with key ("Uid:"), or -EBADMSG. */
static int status_first_id(const char *text, const char *key, uint64_t *ret)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (*p) {
		if (strncmp(p, key, klen) == 0) {
			p += klen;
			p += strspn(p, " \t");
			return parse_dec(p, &p, UINT32_MAX, ret) && (*p == '\t' || *p == ' ' || *p == '\n' || *p == '\0')
				       ? 0
				       : -EBADMSG;
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	return -EBADMSG;
}

int procinfo_parse_status(const char *text, uid_t *ret_uid, gid_t *ret_gid)
{
	uint64_t uid, gid;
	int r;

	r = status_first_id(text, "Uid:", &uid);
	if (r < 0)
		return r;
	r = status_first_id(text, "Gid:", &gid);
	if (r < 0)
		return r;
	*ret_uid = (uid_t)uid;
	*ret_gid = (gid_t)gid;
	return 0;
}

int procinfo_parse_tgid(const char *text, pid_t *ret)
{
	uint64_t v;
	int r = status_first_id(text, "Tgid:", &v);

	if (r < 0)
		return r;
	if (v == 0 || v > INT_MAX)
		return -EBADMSG;
	*ret = (pid_t)v;
	return 0;
}

int procinfo_parse_children(const char *text, procinfo_pid_fn fn, void *userdata)
{
	const char *p = text;
	uint64_t v;
	int r;

	while (*p) {
		if (!parse_dec(p, &p, INT_MAX, &v) || v == 0 || (*p != ' ' && *p != '\n' && *p != '\0'))
			return -EBADMSG;
		r = fn(userdata, (pid_t)v);
		if (r < 0)
			return r;
		p += strspn(p, " \n");
	}
	return 0;
}

int procinfo_parse_cgroup(const char *text, char *ret_path, size_t size, bool *ret_cut)
{
	const char *p = text, *path;
	bool cut = false;
	size_t len;

	if (!ret_path || size == 0)
		return -EINVAL;
	while (*p) {
		if (strncmp(p, "0::", 3) == 0) {
			path = p + 3;
			len = strcspn(path, "\n");
			if (len == 0 || path[0] != '/')
				return -EBADMSG;
			/* PATH_MAX - 1 characters is also what the kernel
			 * prints of any longer path, cut without a word
			 * (kernfs_path_from_node): its last name may be cut,
			 * the names before it are whole. The deepest whole
			 * one is the task's cgroup as far as it can be known:
			 * a word matching one of its ancestors (a container
			 * a user nests cgroups in) still matches. */
			if (len >= PATH_MAX - 1) {
				/* A path of a cgroup namespace's "/.." steps
				 * names no ancestor of the task's cgroup. */
				if (strncmp(path, "/..", 3) == 0)
					return -ENAMETOOLONG;
				cut = true;
				while (len > 1 && path[len - 1] != '/')
					len--;
				if (len > 1)
					len--; /* the '/' before the cut name */
			}
			if (len >= size)
				return -ENAMETOOLONG;
			memcpy(ret_path, path, len);
			ret_path[len] = '\0';
			if (ret_cut)
				*ret_cut = cut;
			return (int)(len > INT_MAX ? INT_MAX : len);
		}
		p = strchr(p, '\n');
		if (!p)
			break;
		p++;
	}
	/* No unified hierarchy: a cgroup v1-only system. */
	ret_path[0] = '\0';
	if (ret_cut)
		*ret_cut = false;
	return 0;
}

/* ---- reading ------------------------------------------------------------------ */

/* A process's file that vanished means the process did. */
static int gone(int err)
{
	return err == ENOENT || err == ESRCH ? -ESRCH : -err;
}

/* The whole of dirfd/name into buf[size] as a string; -EFBIG if it does
 * not fit (what does fit is in buf). A file of one record (stat,
 * status, cgroup: the kernel formats them whole and hands out as much as
 * is asked) is whole after a read that did not fill the space offered:
 * with one_record, no second read to meet its end. Files of many records
 * (children) come a page at a time and are read to the end. */
static int read_text_of(int dirfd, const char *name, char *buf, size_t size, bool one_record)
{
	size_t have = 0;
	ssize_t n;
	int fd, r = 0;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return gone(errno);
	for (;;) {
		n = read(fd, buf + have, size - 1 - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = gone(errno);
			break;
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have == size - 1) {
			r = -EFBIG;
			break;
		}
		if (one_record)
			break;
	}
	close(fd);
	buf[have] = '\0';
	return r;
}

/* stat, status, cgroup: one record each. */
static int read_text(int dirfd, const char *name, char *buf, size_t size)
{
	return read_text_of(dirfd, name, buf, size, true);
}

int procinfo_path(char *buf, size_t size, const char *proc_root, pid_t pid, const char *rest)
{
	char digits[16];
	size_t nroot = strlen(proc_root), ndig = 0, nrest = strlen(rest);
	unsigned v = (unsigned)pid;

	if (pid <= 0)
		return -EINVAL;
	do
		digits[ndig++] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	if (nroot + 1 + ndig + nrest >= size)
		return -ENAMETOOLONG;
	memcpy(buf, proc_root, nroot);
	buf[nroot++] = '/';
	while (ndig > 0)
		buf[nroot++] = digits[--ndig];
	memcpy(buf + nroot, rest, nrest + 1);
	return (int)(nroot + nrest);
}

static int open_pid_dir(const char *proc_root, pid_t pid)
{
	char path[PATH_MAX];
	int fd, n;

	n = procinfo_path(path, sizeof(path), proc_root, pid, "");
	if (n < 0)
		return n;
	fd = sc_fault("procinfo");
	if (fd < 0)
		return gone(-fd);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? gone(errno) : fd;
}

static pid_t name_pid(const char *name);

/* readlink of dirfd/name: "" where there is none to read (kernel threads,
 * zombies, tasks we may not inspect; and, returning 1, a program whose path
 * is longer than the kernel prints: ENAMETOOLONG, as for a cgroup). A path
 * too long for the buffer is cut. */
static int read_exe_at(int dirfd, const char *name, char *buf, size_t size)
{
	size_t slen = sizeof(DELETED_SUFFIX) - 1;
	ssize_t n;

	n = readlinkat(dirfd, name, buf, size - 1);
	if (n < 0) {
		buf[0] = '\0';
		if (errno == ENAMETOOLONG)
			return 1;
		if (errno == ENOENT || errno == EACCES)
			return 0;
		return gone(errno);
	}
	buf[n] = '\0';
	if ((size_t)n >= slen && strcmp(buf + n - slen, DELETED_SUFFIX) == 0)
		buf[n - slen] = '\0';
	return 0;
}

/* status grows with the supplementary groups (Groups:, up to 65536 of
 * them: some 8 KiB for 1200 groups) past any buffer of ours, but the
 * lines read of it (Tgid:, Uid:, Gid:) come before them. A status that
 * does not fit is read up to its last whole line: 1 when it was cut. */
static int read_status(int dirfd, char *buf, size_t size)
{
	int r = read_text(dirfd, "status", buf, STATUS_READ_MAX < size ? STATUS_READ_MAX : size);
	char *nl;

	if (r != -EFBIG)
		return r;
	nl = strrchr(buf, '\n');
	if (!nl)
		return -EFBIG;
	nl[1] = '\0';
	return 1;
}

static int read_rest(int dirfd, int pidfd, char *buf, size_t size, struct procinfo *info);

static int read_all(int dirfd, int pidfd, char *buf, size_t size, struct procinfo *info)
{
	int r;

	r = read_text(dirfd, "stat", buf, STAT_READ_MAX < size ? STAT_READ_MAX : size);
	if (r < 0)
		return r;
	r = procinfo_parse_stat(buf, info);
	if (r < 0)
		return r;
	return read_rest(dirfd, pidfd, buf, size, info);
}

/* The ids of the task whose directory dirfd is: from pidfd (its process's,
 * or -1) where the kernel answers PIDFD_GET_INFO, else from status. */
static int read_ids_at(int dirfd, int pidfd, char *buf, size_t size, struct procinfo *info, uint64_t *ret_cgroupid)
{
	int r, cut;

	*ret_cgroupid = 0;
	if (pidfd >= 0 && procinfo_pidfd_ids(pidfd, info->pid, &info->uid, &info->gid, ret_cgroupid) == 0) {
		info->tgid = info->pid; /* a pidfd names a thread group by its leader */
		return 0;
	}
	cut = read_status(dirfd, buf, size);
	if (cut < 0)
		return cut;
	r = procinfo_parse_status(buf, &info->uid, &info->gid);
	if (r < 0)
		return cut ? -EFBIG : r;
	if (procinfo_parse_tgid(buf, &info->tgid) < 0)
		info->tgid = 0; /* not known: callers look it up when they need it */
	return 0;
}

/* What a read of a cgroup file (r, into buf) says of info's cgroup: 1 a
 * whole path, which may be learnt for its id; 0 none (a path the kernel
 * would not print); or what failed. */
static int take_cgroup(int r, const char *buf, struct procinfo *info)
{
	if (r == 0)
		r = procinfo_parse_cgroup(buf, info->cgroup, sizeof(info->cgroup), &info->cgroup_cut);
	if (r == -ENAMETOOLONG) {
		info->cgroup[0] = '\0';
		return 0;
	}
	return r < 0 ? r : !info->cgroup_cut;
}

/* exe, ids and cgroup of the task whose directory dirfd is. The program
 * is read first, as rest_by_paths() reads it: a process that sets its uid
 * and then executes (su, runuser, sudo) and is read between the two shows
 * its old program with either uid, never its new program with the old
 * uid, which would make a Per=process key for it in its old user's share
 * (root's: none), kept after the next read shows it right. One that
 * executes and then sets its uid may show its old program with its new
 * uid: a key made for that old program is charged to the user it became.
 * Either way its events follow and it is read again. */
static int read_rest_at(int dirfd, int pidfd, char *buf, size_t size, struct procinfo *info)
{
	const char *known;
	uint64_t cgroupid;
	int r;

	info->cgroup_cut = false; /* not an earlier try's, through another thread */
	r = read_exe_at(dirfd, "exe", info->exe, sizeof(info->exe));
	info->exe_too_long = r == 1;
	if (r < 0)
		return r;
	r = read_ids_at(dirfd, pidfd, buf, size, info, &cgroupid);
	if (r < 0)
		return r;
	/* The cgroup the pidfd's ioctl named, met before: its path is known.
	 * Not of a zombie: its cgroup may be gone, which the file says
	 * ("(deleted)") and the id does not. */
	known = info->state != 'Z' ? procinfo_cgroup_by_id(cgroupid) : NULL;
	if (known && (size_t)snprintf(info->cgroup, sizeof(info->cgroup), "%s", known) < sizeof(info->cgroup))
		return 0;
	/* A cgroup path the kernel refuses to print (ENAMETOOLONG, when a
	 * cgroup namespace's "/.." overflows; a long path it cuts, and
	 * procinfo_parse_cgroup keeps its whole names) or too long to keep is
	 * no path at all: no MatchCgroup= word matches it (coreschedd.conf(5)),
	 * and what the other files say still counts. An unreadable process
	 * would escape every rule, and a user may nest cgroups in a delegated
	 * subtree. */
	r = take_cgroup(read_text(dirfd, "cgroup", buf, size), buf, info);
	if (r < 0)
		return r;
	if (r > 0 && cgroupid)
		procinfo_cgroup_learn(cgroupid, info->cgroup);
	return 0;
}

/* read_rest_at of a thread of the process other than its main thread,
 * which has exited (pthread_exit) or is exiting while others run: 0 when
 * one was read with its program (a thread that is exiting too has none to
 * show), -1 when the threads tried showed none (*info then holds parts of
 * their reads), -ENOENT when there was none to try (*info untouched). What an exited thread's files show is what it had when it exited:
 * its program is gone, and a uid or gid the other threads set since
 * (setresuid is per thread in the kernel), or a cgroup they moved to (a
 * move passes over exited threads), is not its own. The process would
 * escape MatchExe=, MatchUser=, MatchGroup= and MatchCgroup= through it. */
static int read_rest_live(int procfd, pid_t leader, char *buf, size_t size, struct procinfo *info)
{
	struct dirent *de;
	struct stat st;
	int fd, r = -ENOENT;
	pid_t tid;
	DIR *d;

	/* A task directory's link count is 2 plus the threads: a zombie
	 * whose every thread is gone has none to ask. */
	if (fstatat(procfd, "task", &st, 0) < 0 || st.st_nlink <= 3)
		return -ENOENT;
	fd = openat(procfd, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOENT;
	}
	while (r < 0 && (de = readdir(d))) {
		int tfd;

		tid = name_pid(de->d_name);
		if (tid <= 0 || tid == leader)
			continue;
		tfd = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (tfd < 0)
			continue;
		r = read_rest_at(tfd, -1, buf, size, info) == 0 && info->exe[0] ? 0 : -1;
		close(tfd);
	}
	closedir(d);
	return r;
}

/* What procinfo_read() reads past stat: status, cgroup, exe. A process
 * whose main thread shows no program, and is no kernel thread, has a main
 * thread that has exited or is exiting (it drops its program and leaves
 * its cgroup before its stat says Z): read a live thread then, or the
 * main thread's files again if no thread tried gives a program. */
static int read_rest(int dirfd, int pidfd, char *buf, size_t size, struct procinfo *info)
{
	int r = read_rest_at(dirfd, pidfd, buf, size, info);

	if (r == 0 && !info->exe[0] && !info->kernel_thread && !info->exe_too_long &&
	    read_rest_live(dirfd, info->pid, buf, size, info) == -1)
		r = read_rest_at(dirfd, pidfd, buf, size, info);
	return r;
}

/* Every field empty, without touching the 8 KiB of the two path buffers
 * past their first byte: the event path reads a process per event. */
static void info_clear(struct procinfo *info)
{
	info->pid = info->ppid = info->tgid = 0;
	info->start_time = 0;
	info->uid = 0;
	info->gid = 0;
	memset(info->comm, 0, sizeof(info->comm));
	info->exe[0] = info->cgroup[0] = '\0';
	info->cgroup_cut = info->exe_too_long = false;
	info->kernel_thread = 0;
	info->state = '\0';
}

/* read (read_all or read_rest) of proc_root/PID through one directory,
 * which ties every file read to one process. */
static int read_in_dir(const char *proc_root, pid_t pid, int pidfd, struct procinfo *ret,
		       int (*read)(int dirfd, int pidfd, char *buf, size_t size, struct procinfo *info))
{
	char buf[CGROUP_READ_MAX];
	int dirfd, r;

	dirfd = open_pid_dir(proc_root, pid);
	if (dirfd < 0)
		return dirfd;
	r = read(dirfd, pidfd, buf, sizeof(buf), ret);
	close(dirfd);
	return r < 0 ? r : 0;
}


/* The whole of proc_root/PID/rest, a file of one record, by its path: one
 * file needs no directory to tie it to its process. */
static int read_pid_file(const char *proc_root, pid_t pid, const char *rest, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r = procinfo_path(path, sizeof(path), proc_root, pid, rest);

	if (r < 0)
		return r;
	r = sc_fault("procinfo");
	return r < 0 ? gone(-r) : read_text(AT_FDCWD, path, buf, size);
}

/* Read and parse proc_root/PID/stat into info (only its stat fields). */
static int parse_stat_of(const char *proc_root, pid_t pid, struct procinfo *info)
{
	char buf[STAT_READ_MAX];
	int r = read_pid_file(proc_root, pid, "/stat", buf, sizeof(buf));

	return r < 0 ? r : procinfo_parse_stat(buf, info);
}

static void rest_clear(struct procinfo *info)
{
	info->exe[0] = info->cgroup[0] = '\0';
	info->cgroup_cut = info->exe_too_long = false;
}

/* The ioctl's failure r, as rest_by_paths() returns it: PIDFD_GONE where
 * the pidfd's process was released (ESRCH), else 1. */
#define PIDFD_GONE 2
static int ioctl_failed(int r)
{
	return r == -ESRCH ? PIDFD_GONE : 1;
}

/* The cgroup of a process whose cgroup id (cgroupid, from the ioctl just
 * asked) was not met before: its file, by its path, then the ioctl again,
 * which shows the file was still the process's, and in that cgroup again:
 * the id's path is learnt from it (a move there and back between the two
 * ioctls shows another cgroup's path, whose directory is not the id's,
 * and procinfo_cgroup_learn() refuses it). 1 where the ids differ (the
 * directory is read instead), PIDFD_GONE as rest_by_paths() says. What
 * the file says is taken as read_rest_at() takes it. */
static int cgroup_by_path(const char *proc_root, pid_t pid, int pidfd, uint64_t cgroupid, struct procinfo *info)
{
	char buf[CGROUP_READ_MAX];
	uint64_t again;
	int r2, r = take_cgroup(read_pid_file(proc_root, pid, "/cgroup", buf, sizeof(buf)), buf, info);

	if (r < 0)
		return r;
	r2 = procinfo_pidfd_cgroupid(pidfd, pid, &again);
	if (r2 < 0)
		return ioctl_failed(r2);
	if (again != cgroupid)
		return 1;
	if (r > 0 && cgroupid)
		procinfo_cgroup_learn(cgroupid, info->cgroup);
	return 0;
}

/* What read_rest() reads, by paths, for a caller that holds pidfd (a pidfd
 * of pid), with no directory open: the program, then the ids and the
 * cgroup's id from the pidfd, asked last. The pidfd was opened before the
 * first file was read and holds no pid of its own once its process is
 * released; the kernel answers the ioctl only while it is not: so pid
 * named that process from the first file to the last, as a directory
 * would have tied them. 1 where a read by paths does not stand alone
 * (*info then holds parts of it), and the directory is read instead: no
 * ioctl, a zombie (its cgroup may be gone: the file says so, the id does
 * not), no program to show (a kernel thread, a main thread gone while
 * others run: read_rest()'s live thread), a process that moved to another
 * cgroup while its cgroup file was read (cgroup_by_path()). PIDFD_GONE
 * where the ioctl says the pidfd's process was released: what pid names
 * now is another process, or none. */
static int rest_by_paths(const char *proc_root, pid_t pid, int pidfd, struct procinfo *info)
{
	char path[PATH_MAX];
	const char *known;
	uint64_t cgroupid;
	int r;

	if (pidfd < 0 || info->state == 'Z' || info->kernel_thread || procinfo_pidfd_ids_supported() <= 0)
		return 1;
	if (!info->exe[0]) { /* else read already, after the stat */
		r = procinfo_path(path, sizeof(path), proc_root, pid, "/exe");
		if (r < 0)
			return r;
		r = read_exe_at(AT_FDCWD, path, info->exe, sizeof(info->exe));
		if (r != 0 || !info->exe[0])
			return r < 0 ? r : 1;
	}
	r = procinfo_pidfd_ids(pidfd, pid, &info->uid, &info->gid, &cgroupid);
	if (r < 0)
		return ioctl_failed(r);
	known = procinfo_cgroup_by_id(cgroupid);
	if (known && (size_t)snprintf(info->cgroup, sizeof(info->cgroup), "%s", known) >= sizeof(info->cgroup))
		return 1;
	if (!known && (r = cgroup_by_path(proc_root, pid, pidfd, cgroupid, info)) != 0)
		return r;
	info->tgid = info->pid; /* a pidfd names a thread group by its leader */
	reads_by_paths++;
	return 0;
}

int procinfo_read_pidfd(const char *proc_root, pid_t pid, int pidfd, struct procinfo *ret)
{
	int r;

	info_clear(ret);
	/* Not where the kernel has no such ioctl: its answer ties the files
	 * read by their paths to the process (asked once, then known). */
	if (pidfd >= 0 && procinfo_pidfd_ids_supported() > 0) {
		r = parse_stat_of(proc_root, pid, ret);
		if (r == 0)
			r = rest_by_paths(proc_root, pid, pidfd, ret);
		if (r <= 0)
			return r;
		/* PIDFD_GONE too: the directory read reads whatever pid names
		 * now, whole (the pidfd may be older than the process). */
		info_clear(ret);
	}
	return read_in_dir(proc_root, pid, pidfd, ret, read_all);
}

int procinfo_read(const char *proc_root, pid_t pid, struct procinfo *ret)
{
	return procinfo_read_pidfd(proc_root, pid, -1, ret);
}

int procinfo_read_rest_pidfd(const char *proc_root, pid_t pid, int pidfd, struct procinfo *ret)
{
	int r;

	ret->cgroup[0] = '\0';
	ret->cgroup_cut = ret->exe_too_long = false;
	if (pidfd < 0)
		ret->exe[0] = '\0';
	r = rest_by_paths(proc_root, pid, pidfd, ret);
	if (r <= 0)
		return r;
	/* The stat in *ret was of the pidfd's process, now released: a
	 * directory read now would be of another process under pid. */
	if (r == PIDFD_GONE)
		return -ESRCH;
	rest_clear(ret);
	return read_in_dir(proc_root, pid, pidfd, ret, read_rest);
}

int procinfo_read_rest(const char *proc_root, pid_t pid, struct procinfo *ret)
{
	return procinfo_read_rest_pidfd(proc_root, pid, -1, ret);
}

unsigned long procinfo_reads_by_paths(void)
{
	return reads_by_paths;
}

int procinfo_read_stat(const char *proc_root, pid_t pid, struct procinfo *ret)
{
	info_clear(ret);
	return parse_stat_of(proc_root, pid, ret);
}

int procinfo_read_exe(const char *proc_root, pid_t pid, char *buf, size_t size)
{
	char path[PATH_MAX];
	int r = procinfo_path(path, sizeof(path), proc_root, pid, "/exe");

	if (r < 0)
		return r;
	r = read_exe_at(AT_FDCWD, path, buf, size);
	return r < 0 ? r : 0;
}

/* On the exit path (is the process still alive?): no zeroing or copy of
 * the whole struct, only its start time is wanted. */
int procinfo_start_time(const char *proc_root, pid_t pid, uint64_t *ret)
{
	struct procinfo info;
	int r = parse_stat_of(proc_root, pid, &info);

	if (r < 0)
		return r;
	*ret = info.start_time;
	return 0;
}

int procinfo_tgid(const char *proc_root, pid_t tid, pid_t *ret)
{
	char buf[STATUS_READ_MAX];
	int dirfd, cut, r;

	dirfd = open_pid_dir(proc_root, tid);
	if (dirfd < 0)
		return dirfd;
	cut = read_status(dirfd, buf, sizeof(buf));
	close(dirfd);
	if (cut < 0)
		return cut;
	r = procinfo_parse_tgid(buf, ret);
	return r < 0 && cut ? -EFBIG : r;
}

/* ---- listing -------------------------------------------------------------------- */

/* An all-digit directory name as a pid; 0 for anything else. */
static pid_t name_pid(const char *name)
{
	const char *end;
	uint64_t v;

	if (!parse_dec(name, &end, INT_MAX, &v) || *end != '\0')
		return 0;
	return (pid_t)v;
}

/* fn(pid) for each numeric entry of d, which it closes. */
static int for_each_pid_in(DIR *d, procinfo_pid_fn fn, void *userdata)
{
	struct dirent *de;
	int count = 0, r = 0;
	pid_t pid;

	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = errno ? -errno : 0;
			break;
		}
		pid = name_pid(de->d_name);
		if (pid <= 0)
			continue;
		r = fn(userdata, pid);
		if (r < 0)
			break;
		if (count < INT_MAX)
			count++;
	}
	closedir(d);
	return r < 0 ? r : count;
}

int procinfo_for_each_pid(const char *proc_root, procinfo_pid_fn fn, void *userdata)
{
	DIR *d = opendir(proc_root);

	return d ? for_each_pid_in(d, fn, userdata) : -errno;
}

int procinfo_threads(const char *proc_root, pid_t pid)
{
	char path[PATH_MAX];
	struct stat st;
	int r = procinfo_path(path, sizeof(path), proc_root, pid, "/task");

	if (r < 0)
		return r;
	if (stat(path, &st) < 0)
		return gone(errno);
	return S_ISDIR(st.st_mode) && st.st_nlink > 2 && st.st_nlink - 2 <= INT_MAX ? (int)(st.st_nlink - 2) : 0;
}

/* fn(tid) for each thread of pid, with *ret_dirfd (read by fn through its
 * userdata) set to the open task directory first: one open serves the
 * listing and the files read under it. */
static int for_each_task(const char *proc_root, pid_t pid, procinfo_pid_fn fn, void *userdata, int *ret_dirfd)
{
	char path[PATH_MAX];
	DIR *d;
	int r = procinfo_path(path, sizeof(path), proc_root, pid, "/task");

	if (r < 0)
		return r;
	d = opendir(path);
	if (!d)
		return gone(errno);
	*ret_dirfd = dirfd(d);
	return for_each_pid_in(d, fn, userdata);
}

struct children_walk {
	int dirfd;
	procinfo_pid_fn fn;
	void *userdata;
};

/* fn(child) for each pid in dirfd/name, a thread's children file. */
static int children_in(const struct children_walk *w, int dirfd, const char *name)
{
	char *buf = malloc(CHILDREN_READ_MAX);
	int r;

	if (!buf)
		return -ENOMEM;
	r = read_text_of(dirfd, name, buf, CHILDREN_READ_MAX, false);
	if (r == 0)
		r = procinfo_parse_children(buf, w->fn, w->userdata);
	free(buf);
	return r;
}

static int thread_children(void *userdata, pid_t tid)
{
	struct children_walk *w = userdata;
	char name[64];
	int r;

	snprintf(name, sizeof(name), "%d/children", (int)tid);
	r = children_in(w, w->dirfd, name);
	return r == -ESRCH ? 0 : r; /* ESRCH: the thread exited meanwhile */
}

int procinfo_for_each_child(const char *proc_root, pid_t pid, procinfo_pid_fn fn, void *userdata)
{
	struct children_walk w = { .fn = fn, .userdata = userdata };
	char path[PATH_MAX], rest[64];
	int r = procinfo_threads(proc_root, pid);

	if (r == 1) { /* the leader alone: its file, with no listing */
		snprintf(rest, sizeof(rest), "/task/%d/children", (int)pid);
		r = procinfo_path(path, sizeof(path), proc_root, pid, rest);
		if (r < 0)
			return r;
		r = children_in(&w, AT_FDCWD, path);
		if (r != -ESRCH)
			return r;
		/* None: the process went, or a tree that is not the kernel's
		 * (its one thread under another name): the walk tells which. */
	} else if (r < 0)
		return r;
	r = for_each_task(proc_root, pid, thread_children, &w, &w.dirfd);
	return r < 0 ? r : 0;
}

struct cpu_walk {
	int dirfd;
	uint64_t ns;
	int n;
};

static int add_thread_cpu(void *userdata, pid_t tid)
{
	struct cpu_walk *w = userdata;
	char name[32], buf[128];
	uint64_t ns;

	snprintf(name, sizeof(name), "%d/schedstat", (int)tid);
	if (read_text(w->dirfd, name, buf, sizeof(buf)) < 0 || !parse_token(buf, UINT64_MAX, &ns))
		return 0; /* the thread exited meanwhile */
	if (!__builtin_add_overflow(w->ns, ns, &w->ns))
		w->n++;
	return 0;
}

int procinfo_cpu_ns(const char *proc_root, pid_t pid, uint64_t *ret)
{
	struct cpu_walk w = { 0 };
	char path[PATH_MAX], buf[128];
	int r = procinfo_threads(proc_root, pid);

	if (r == 1) { /* the leader alone: PID/schedstat is its own */
		r = procinfo_path(path, sizeof(path), proc_root, pid, "/schedstat");
		if (r < 0)
			return r;
		if (read_text(AT_FDCWD, path, buf, sizeof(buf)) == 0 && parse_token(buf, UINT64_MAX, ret))
			return 0;
		/* None to read (no CONFIG_SCHED_INFO, a tree that is not the
		 * kernel's), or the process went: the walk tells which, as
		 * the errors above say. */
	} else if (r < 0)
		return r;
	r = for_each_task(proc_root, pid, add_thread_cpu, &w, &w.dirfd);
	if (r < 0)
		return r;
	if (w.n == 0)
		return -ENOENT;
	*ret = w.ns;
	return 0;
}

/* The clock id clock_getcpuclockid(3) makes of a pid (the kernel's
 * MAKE_PROCESS_CPUCLOCK with CPUCLOCK_SCHED), built here because glibc
 * would first try it with a clock_getres: one system call where that
 * takes two. */
#define PROCESS_CPUCLOCK_SCHED(pid) ((clockid_t)((~(unsigned)(pid) << 3) | 2u))

clockid_t procinfo_process_clock(pid_t pid)
{
	return PROCESS_CPUCLOCK_SCHED(pid);
}

int procinfo_process_cpu_ns(pid_t pid, uint64_t *ret)
{
	struct timespec ts;

	if (pid <= 0)
		return -ESRCH;
	if (clock_gettime(procinfo_process_clock(pid), &ts) < 0)
		return errno == EINVAL ? -ESRCH : -errno; /* no such process: the clock does not exist */
	*ret = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

uint64_t procinfo_ticks_of_ns(uint64_t ns, uint64_t hz)
{
	const uint64_t sec = 1000000000ull;

	return ns / sec * hz + ns % sec * hz / sec;
}

static int pidfd_poll_once(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int r;

	do
		r = poll(&p, 1, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r > 0;
}

/* A pidfd polls readable when the task under its pid has exited and is
 * not a leader waiting for its threads. While another thread executes a
 * program, the kernel gives it the leader's pid and makes it the leader,
 * the old leader a zombie by then: a poll that took the old leader from
 * the pid just before, and asks whether it leads just after, finds an
 * exited task leading no one, and says readable of a process that lives
 * on (seen about once in 10^6 polls of a process whose threads exec in a
 * loop). The poll after it takes the new leader: an exit stays readable,
 * that moment does not, unless another exec by a thread of the new leader
 * reaches the same point in between (never seen in 10^7 pairs). */
int procinfo_pidfd_poll(int pidfd)
{
	int r = pidfd_poll_once(pidfd);

	return r == 1 ? pidfd_poll_once(pidfd) : r;
}

bool procinfo_pidfd_exited(int pidfd)
{
	return procinfo_pidfd_poll(pidfd) != 0;
}
