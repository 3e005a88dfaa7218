/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the daemon reads about a process from /proc, under a root that tests
 * can point at a fake tree. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCINFO_PATH_MAX 4096

struct procinfo {
	pid_t pid;
	pid_t ppid;
	pid_t tgid;           /* from /proc/PID/status Tgid:; 0 where not read (read_stat) */
	uint64_t start_time;  /* field 22 of /proc/PID/stat, clock ticks since boot */
	uid_t uid;            /* real uid, from /proc/PID/status Uid: */
	gid_t gid;            /* real gid, from /proc/PID/status Gid: */
	char comm[16];        /* from stat (the parenthesised field; may hold ') ' and spaces) */
	char exe[PROCINFO_PATH_MAX];    /* readlink of /proc/PID/exe; "" for kernel threads or when unreadable; " (deleted)" suffix stripped */
	char cgroup[PROCINFO_PATH_MAX]; /* the "0::PATH" line of /proc/PID/cgroup */
	bool cgroup_cut;      /* the kernel may have cut the path: cgroup is an ancestor of the task's */
	bool exe_too_long;    /* exe is "" because its path is longer than the kernel prints */
	int kernel_thread;    /* PF_KTHREAD set in stat flags (field 9), or ppid 2 / pid 2 */
	char state;           /* of the leader (field 3): 'Z' when it exited, even if threads run on */
};

/* Fill *ret from proc_root/PID/{stat,status,exe,cgroup}. -ESRCH when the
 * process is gone (ENOENT/ESRCH on any file), other negative errnos as met;
 * on failure *ret holds nothing to rely on. Of a process whose main thread
 * has exited while others run, status, cgroup and exe are a live thread's
 * (the exited one's show what it had when it exited). */
int procinfo_read(const char *proc_root, pid_t pid, struct procinfo *ret);
/* procinfo_read() by a caller that holds pidfd, a pidfd of pid opened
 * before the read began (or -1): the ids then come from it
 * (procinfo_pidfd_ids()) where the kernel answers, and status is not
 * read; stat, exe and (for a cgroup id not met before) the cgroup file
 * are then read by their paths, with no directory of the process open,
 * and the ioctl, asked after them, shows they were its. Where that read
 * cannot stand alone (a zombie, a kernel thread, a main thread gone, a
 * process that moved to another cgroup meanwhile) the directory is read
 * after it. */
int procinfo_read_pidfd(const char *proc_root, pid_t pid, int pidfd, struct procinfo *ret);
/* "PROC_ROOT/PID" followed by rest into buf: its length, -EINVAL for a
 * pid <= 0, -ENAMETOOLONG when it does not fit size. */
int procinfo_path(char *buf, size_t size, const char *proc_root, pid_t pid, const char *rest);
/* Only the start time (cheap; used to check a pid still names a process). */
int procinfo_start_time(const char *proc_root, pid_t pid, uint64_t *ret);
/* Only what stat holds (pid, comm, state, ppid, start_time, kernel_thread),
 * the rest empty: one file where a caller needs no ids, cgroup or exe. */
int procinfo_read_stat(const char *proc_root, pid_t pid, struct procinfo *ret);

/* What procinfo_read() reads past stat (ids, cgroup, exe) into *ret,
 * which holds what procinfo_read_stat() just read of pid: the two make one
 * procinfo_read(). */
int procinfo_read_rest(const char *proc_root, pid_t pid, struct procinfo *ret);
/* The same, with pidfd a pidfd of pid (or -1), as procinfo_read_pidfd();
 * with a pidfd, an exe in *ret is taken as read after the stat (by
 * procinfo_read_exe()), and not read again where the rest is read by
 * paths; -ESRCH where the pidfd's process has been released (the stat in
 * *ret was read after the pidfd was opened: of that process, and what pid
 * names now is another one). */
int procinfo_read_rest_pidfd(const char *proc_root, pid_t pid, int pidfd, struct procinfo *ret);
/* How many reads with a pidfd took the program, ids and cgroup by paths
 * and the pidfd, with no directory of the process open (for tests and
 * benchmarks). */
unsigned long procinfo_reads_by_paths(void);
/* The real uid and gid of the process pidfd names, by PIDFD_GET_INFO
 * (Linux 6.13): 0, -ESTALE when pidfd does not name pid's process (pid
 * must be a main thread of the caller's pid namespace), -EOPNOTSUPP when
 * the kernel has no such ioctl (asked once), another -errno as met
 * (-ESRCH: reaped). The ids are the main thread's, as status shows them,
 * also of an exited main thread whose process lives on. *ret_cgroupid
 * (where not NULL): the id of its cgroup v2, 0 where the kernel gave none. */
int procinfo_pidfd_ids(int pidfd, pid_t pid, uid_t *ret_uid, gid_t *ret_gid, uint64_t *ret_cgroupid);
/* 1 when the kernel answers PIDFD_GET_INFO, -1 when it does not (asked
 * of a pidfd of the caller's own, until the kernel has said). */
int procinfo_pidfd_ids_supported(void);
/* procinfo_pidfd_ids() asked again, for the cgroup id alone: to show a
 * read made after it was still of the pidfd's process (the kernel answers
 * only until the process is released) and in that cgroup. Not counted by
 * procinfo_pidfd_ids_taken(). */
int procinfo_pidfd_cgroupid(int pidfd, pid_t pid, uint64_t *ret);
/* How many reads took their ids from a pidfd (for tests and logs). */
unsigned long procinfo_pidfd_ids_taken(void);
/* The path of cgroup (v2) id as /proc/PID/cgroup shows it, where a read
 * with a pidfd met that id before and the cgroup2 mount showed the path is
 * its (procinfo_cgroup_learn()); NULL where not known. */
const char *procinfo_cgroup_by_id(uint64_t id);
void procinfo_cgroup_learn(uint64_t id, const char *path);
/* The cgroup2 mount that shows which path is an id's, NULL where there is
 * none of the whole hierarchy (the cgroup file is then read each time). */
const char *procinfo_cgroup_mount(void);
/* How many reads took their cgroup from its id (for tests). */
unsigned long procinfo_cgroups_by_id(void);
/* Only the exe link, into buf[size] ("" where there is none to read, also
 * of a process gone, and of one whose main thread has exited, which
 * procinfo_read() and procinfo_read_rest() read through another thread);
 * one system call. */
int procinfo_read_exe(const char *proc_root, pid_t pid, char *buf, size_t size);

typedef int (*procinfo_pid_fn)(void *userdata, pid_t pid);

/* The thread group (process) that thread tid belongs to. */
int procinfo_tgid(const char *proc_root, pid_t tid, pid_t *ret);

/* Pure parsers, fuzzed and unit-tested. Each returns -EBADMSG for text
 * that is not what the kernel writes and writes nothing then. */
/* Sets pid, comm (cut to 15 bytes), state, ppid, start_time and kernel_thread;
 * leaves the other fields alone. */
int procinfo_parse_stat(const char *text, struct procinfo *ret);
/* The real ids: the first number of the "Uid:" and "Gid:" lines. */
int procinfo_parse_status(const char *text, uid_t *ret_uid, gid_t *ret_gid);
/* The "Tgid:" line of /proc/PID/status. */
int procinfo_parse_tgid(const char *text, pid_t *ret);
/* The pids of a task's children file: decimal numbers, each followed by a
 * space; fn(pid) for each. -EBADMSG for anything else. */
int procinfo_parse_children(const char *text, procinfo_pid_fn fn, void *userdata);
/* The path of the v2 "0::" line and its length; "" and 0 when there is no
 * such line (cgroup v1 only); -ENAMETOOLONG when it does not fit size, or
 * when the kernel cut it (PATH_MAX - 1 characters) in a way that leaves no
 * ancestor to tell (a "/.." of a cgroup namespace). A cut path gives its
 * deepest ancestor the printed part holds whole, and *ret_cut (may be
 * NULL) true. */
int procinfo_parse_cgroup(const char *text, char *ret_path, size_t size, bool *ret_cut);

/* Iterate the numeric entries of proc_root: fn(pid) for each; returns the
 * count or a negative errno. */
int procinfo_for_each_pid(const char *proc_root, procinfo_pid_fn fn, void *userdata);
/* fn(child) for each child process of pid, forked by any of its threads
 * (proc_root/PID/task/TID/children); -ESRCH when pid is gone. One reaped
 * during the listing (or a thread that exits) ends it, or that thread's
 * part, with what was read and no error. */
int procinfo_for_each_child(const char *proc_root, pid_t pid, procinfo_pid_fn fn, void *userdata);
/* Time on a CPU in ns, summed over pid's threads (the first field of
 * proc_root/PID/task/TID/schedstat, CONFIG_SCHED_INFO; of PID/schedstat
 * when the leader is alone): -ESRCH when pid is gone, -ENOENT when no
 * thread's could be read (also when pid was reaped during the listing). */
int procinfo_cpu_ns(const char *proc_root, pid_t pid, uint64_t *ret);
/* Time on a CPU in ns of process pid as the kernel keeps it for the
 * process: the sum_exec_runtime of its live threads and of those that
 * have exited (its process CPU clock, clock_getcpuclockid(3); readable
 * for any process, with no file and no CONFIG_SCHED_INFO). One system
 * call; -ESRCH when there is no such process (or pid names a thread
 * other than a main one). Of the caller's pid namespace: /proc's, not
 * another tree's. */
int procinfo_process_cpu_ns(pid_t pid, uint64_t *ret);
/* The clock it reads (for tests: what clock_getcpuclockid(3) gives). */
clockid_t procinfo_process_clock(pid_t pid);
/* The threads of process pid (a zombie leader counts until its process is
 * reaped), from the link count of its task directory: the kernel makes it
 * 2 plus the threads when asked (proc_task_getattr), so one call counts
 * them where a listing takes four. -ESRCH when pid is gone. A thread
 * started after the call is not counted, as a listing's is not. Another
 * file system's count is not the kernel's: 0 on those that give a
 * directory 1 (btrfs, a merged overlayfs directory), the subdirectories on
 * others (tmpfs, ext4): a tree built for tests may say 1 with no
 * PID/schedstat, so a reader of the one file falls back to the walk. */
int procinfo_threads(const char *proc_root, pid_t pid);
/* ns of CLOCK_BOOTTIME in the unit of start_time, clock ticks of hz
 * (sysconf(_SC_CLK_TCK)), rounded down as the kernel's nsec_to_clock_t()
 * rounds: exactly floor(ns * hz / 10^9), also where hz does not divide
 * 10^9 (1024 on alpha and ia64). */
uint64_t procinfo_ticks_of_ns(uint64_t ns, uint64_t hz);
/* Has the process behind pidfd exited (a pidfd then polls ready, twice:
 * one poll can say so of a process whose other thread executes a program
 * meanwhile)? 1 if so, 0 if it lives, -errno if poll() failed. */
int procinfo_pidfd_poll(int pidfd);
/* The same, a failure counted as exited: for a caller that trusts a pid
 * only while it provably lives (an authorization). */
bool procinfo_pidfd_exited(int pidfd);
