/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Forced-idle accounting: what core scheduling costs each policy group.
 * The kernel keeps per-task counters (/proc/PID/task/TID/sched) that vanish
 * with the task, and per-cgroup counters (cpu.stat) that live as long as the
 * cgroup. This module parses both, turns them into per-(group,key) totals
 * that never go backwards, summarizes repeated measurements and writes the
 * Prometheus textfile. The parsers, the accounting, the statistics and the
 * metrics builder make no syscalls; the readers take their root directory as
 * an argument so tests can point them at a fake tree. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* /proc/PID/sched and cpu.stat are a few KiB; anything larger is not one. */
#define FI_READ_MAX 8192

/* Room for this many threads' samples or baselines is kept between
 * samples; more is allocated for the sample that needs it, then freed. */
#define FI_SCRATCH_KEEP 256

/* Default cap on tasks one account tracks; see fi_account_set_max_tasks(). */
#define FI_ACCOUNT_MAX_TASKS 65536

/* ---- samples and parsers ------------------------------------------------ */

struct fi_task_sample {
	uint64_t sum_exec_ns;  /* se.sum_exec_runtime */
	uint64_t forceidle_ns; /* core_forceidle_sum; 0 when !has_forceidle */
	bool has_forceidle;    /* the kernel printed core_forceidle_sum */
	unsigned nr_threads;   /* threads summed: 1 from fi_parse_sched() */
};

struct fi_cg_sample {
	uint64_t usage_ns;     /* usage_usec * 1000 */
	uint64_t forceidle_ns; /* core_sched.force_idle_usec * 1000 */
	bool has_usage;
	bool has_forceidle;    /* absent before 6.0 or with schedstats off */
};

/* A "%lld.%06ld" milliseconds value as the scheduler debug files print it,
 * converted exactly (no floating point) to nanoseconds. Exactly six
 * fractional digits are required so that a change of unit in the kernel is
 * caught rather than silently mis-scaled. -EINVAL on a malformed value,
 * -ERANGE when it does not fit. */
int fi_parse_msns(const char *s, size_t len, int64_t *ret_ns);

/* The text of /proc/PID/sched or /proc/PID/task/TID/sched. Lines are
 * "name<spaces>:<spaces>value"; all but se.sum_exec_runtime and
 * core_forceidle_sum are ignored. -EBADMSG when se.sum_exec_runtime is
 * missing, either field is malformed, negative or repeated. */
int fi_parse_sched(const char *text, struct fi_task_sample *ret);

/* The text of a cgroup v2 cpu.stat ("name value" lines). A missing field
 * leaves its has_ flag unset; a malformed or repeated one is -EBADMSG. */
int fi_parse_cpu_stat(const char *text, struct fi_cg_sample *ret);

/* ---- readers ------------------------------------------------------------ */

/* Sum of PROC_ROOT/PID/task/TID/sched over the process's threads. A thread
 * that exits while we read is skipped; a process that is gone (no task
 * directory, or no thread left to read) gives -ESRCH. has_forceidle is set
 * only when every thread summed had the counter. No heap allocation. */
int fi_read_process(const char *proc_root, pid_t pid, struct fi_task_sample *ret);

/* One thread: PROC_ROOT/PID/task/TID/sched; -ESRCH when it is gone. For
 * callers that account per thread, which is exact across thread exits. */
int fi_read_thread(const char *proc_root, pid_t pid, pid_t tid, struct fi_task_sample *ret);

/* One thread of a process as fi_read_threads() lists it. A thread is told
 * from a later one with its tid by its start time (field 22 of
 * PROC_ROOT/PID/task/TID/stat, clock ticks since boot), which is read only
 * where the inode number of its task directory does not already say it is
 * the thread the account knows: procfs gives a task's directory a new
 * inode when the task is new. The leader (tid == pid) is the process
 * itself, whose identity the caller's task id carries: no start read. */
struct fi_thread_sample {
	pid_t tid;
	bool leader;           /* tid == pid */
	bool has_start;        /* start was read */
	uint64_t ino;          /* of PROC_ROOT/PID/task/TID; 0 when not listed */
	uint64_t start;
	struct fi_task_sample s;
};

/* A caller-owned buffer that fi_read_threads() grows and refills: kept
 * from one sample to the next, it allocates only when a process has more
 * threads than any before. fi_threads_done() frees it; a caller frees it
 * after a sample when its room is above FI_SCRATCH_KEEP threads. */
struct fi_threads {
	struct fi_thread_sample *v;
	size_t n, cap;
	uint64_t ino; /* of PROC_ROOT/PID/task as the read began; 0 when unknown */
};

void fi_threads_done(struct fi_threads *t);

struct fi_account;

/* The threads of process pid, each with its own counters, into *ret. a
 * and task_id name the account that tracks the process (a may be NULL):
 * a thread it knows by tid and directory inode, whose counters did not go
 * down, needs no start time; any other non-leader thread's is read, one
 * file more for that thread once. A thread that exits while we read is
 * left out. ret->ino is the inode number of the process's task directory,
 * which procfs makes anew for another process (or thread) under the pid:
 * a caller that checked the process's start time after a reading with
 * that number need not check it again while the number stays. Errors as
 * fi_read_process(), and -ENOMEM. */
int fi_read_threads(const char *proc_root, pid_t pid, const struct fi_account *a, uint64_t task_id,
		    struct fi_threads *ret);

/* CGROUP_ROOT/CGPATH/cpu.stat; cgpath is a cgroup v2 path such as
 * "/system.slice/x.service" ("/" or "" for the root). -EINVAL for a path
 * with a ".." component, -ENOENT when the cgroup is gone. */
int fi_read_cgroup(const char *cgroup_root, const char *cgpath, struct fi_cg_sample *ret);

/* Host-wide: the root cgroup's cpu.stat, which carries usage_usec and
 * core_sched.force_idle_usec for the whole machine. */
int fi_read_host(const char *cgroup_root, struct fi_cg_sample *ret);

/* Forced-idle time per CPU time between two samples of one cgroup (or of
 * the host): (b.forceidle - a.forceidle) / (b.usage - a.usage). -ENODATA
 * when a field is missing, -EINVAL when the usage did not advance, -ERANGE
 * when a counter went backwards (the cgroup was recreated). The ratio is
 * not clamped: idle siblings of one running task can exceed its own time. */
int fi_share(const struct fi_cg_sample *a, const struct fi_cg_sample *b, double *ret_ratio);

/* ---- monotonic accounting ----------------------------------------------- */

/* One account per (group,key). It sums two independent sources, reported
 * separately because a caller should pick one, not add them:
 *  - tasks: per-task counters; the delta since the task's (or thread's)
 *    previous sample is added, so the total keeps what exited tasks
 *    accrued up to their last sample;
 *  - cgroup: one cgroup's cpu.stat, itself monotonic while the cgroup lives.
 * Totals only ever grow. */
struct fi_totals {
	uint64_t forceidle_ns;
	uint64_t cpu_ns;
	bool has_forceidle; /* some sample carried a forced-idle counter */
};

struct fi_account *fi_account_new(void);
struct fi_account *fi_account_free(struct fi_account *a);

/* Tracking a task costs one table slot (and a baseline per thread given
 * with fi_account_threads()); past the cap a new task gives -ENOSPC. Lowering it below the tasks tracked now is -EBUSY. */
int fi_account_set_max_tasks(struct fi_account *a, size_t max_tasks);
size_t fi_account_n_tasks(const struct fi_account *a);

/* A sample of task task_id (tgid << 32 | start-time hash, or the same per
 * thread) as one counter. The first sample of a task adds its whole
 * counters: the daemon places a task in a group when it starts or execs,
 * so what it accrued before the first sample was, with rare exceptions,
 * accrued in the group; dropping it would make short-lived tasks
 * invisible. Use fi_account_task_seed() where that is not so (tasks found
 * at daemon start, a task moved from another group). A counter that went
 * down becomes the new baseline and adds nothing: the total never goes
 * back. A process's threads are better given one by one
 * (fi_account_threads()): a sum of them drops by an exiting thread's whole
 * lifetime, which cancels what the others gained meanwhile.
 * Returns 1 for a task seen for the first time, 0 for a known one. */
int fi_account_task(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *now);

/* How fi_account_threads() takes a process it does not track yet, and
 * whether it forgets the process afterwards. */
enum {
	FI_WHOLE = 0, /* a process new here counts whole */
	FI_SEED = 1,  /* nothing is added: the counters are baselines (a process
		       * found at daemon start, moved in, or re-based) */
	FI_EXIT = 2,  /* the process is gone or leaves the account: add its
		       * growth, then forget it (one never tracked is not kept) */
};

/* A sample of process task_id given as its threads (fi_read_threads();
 * the array is sorted here by tid). The process keeps one baseline per
 * thread, and each thread adds its own growth, so a thread that exits
 * loses only what it accrued since its last sample. A thread not in t is
 * forgotten (it exited). When no thread but the leader is left of those
 * known, the leader may be another that ran a program (it takes the
 * leader's tid): its growth is then taken from the highest baseline, its
 * own or a gone thread's, not above its counters, so that the time that
 * thread accrued is not counted twice. A thread the account has not seen in a known
 * process counts whole when it was born at or after born_since (start
 * time, clock ticks: the caller's previous sample) and from now when
 * older or of unknown age: its earlier time may be counted already. A
 * process not tracked yet counts as flags say. One slot per process as
 * fi_account_task(); the thread baselines are freed with it and are at
 * most its threads. With FI_EXIT and no threads, -ENOENT for a process not
 * tracked. Returns 1 for a new process, 0 for a known one. */
int fi_account_threads(struct fi_account *a, uint64_t task_id, struct fi_thread_sample *t, size_t n,
		       uint64_t born_since, unsigned flags);

/* Whether the account knows thread tid of process task_id by that inode
 * with counters not above sum_exec_ns (fi_read_threads() asks). */
bool fi_account_knows_thread(const struct fi_account *a, uint64_t task_id, pid_t tid, uint64_t ino,
			     uint64_t sum_exec_ns);

/* Thread baselines held, over all processes. */
size_t fi_account_n_threads(const struct fi_account *a);

/* Heap memory the account holds for tasks: its table, the baselines and
 * the room a sample builds them in. */
size_t fi_account_bytes(const struct fi_account *a);

/* Remember the task's counters as a baseline without adding them. */
int fi_account_task_seed(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *now);

/* The task is gone: add the delta to last (when the caller still has a
 * final sample; a task never seen adds all of last) and forget it. -ENOENT
 * when the task was not tracked and no last sample was given. */
int fi_account_task_exit(struct fi_account *a, uint64_t task_id, const struct fi_task_sample *last);

/* A sample of the one cgroup this account follows. The first sample adds
 * the whole counters (as for tasks); a counter that went down means the
 * cgroup was recreated, and the new values are a delta from 0. A recreated
 * cgroup whose counters already overtook the old ones is indistinguishable
 * from growth. */
int fi_account_cgroup(struct fi_account *a, const struct fi_cg_sample *now);

void fi_account_task_totals(const struct fi_account *a, struct fi_totals *ret);
void fi_account_cgroup_totals(const struct fi_account *a, struct fi_totals *ret);

/* ---- statistics --------------------------------------------------------- */

struct fi_summary {
	size_t n;
	double mean;
	double sd;      /* sample standard deviation (n - 1); 0 when n == 1 */
	double sem;     /* sd / sqrt(n) */
	double sd_pct;  /* 100 * sd / |mean|; 0 when mean == 0 */
	double sem_pct; /* 100 * sem / |mean|; 0 when mean == 0 */
};

/* Welford's one-pass algorithm: no catastrophic cancellation on values with
 * a large common offset. -EINVAL when n == 0 or a value is not finite. */
int fi_summarize(const double *v, size_t n, struct fi_summary *ret);

/* ---- Prometheus textfile ------------------------------------------------ */

/* Replace PATH with TEXT atomically for readers: a hidden temporary file
 * in the same directory (node_exporter skips dot files), written, mode
 * 0644, renamed over PATH. Not synced: it is called from the event loop.
 * On failure nothing is left behind and PATH is untouched. */
int fi_metrics_write(const char *path, const char *text);

/* Escape a label value per the exposition format (backslash, double quote
 * and newline become \\, \" and \n; a byte that is not part of valid UTF-8
 * becomes U+FFFD, since readers refuse the file over it). Works like snprintf: writes at most
 * size - 1 characters and a NUL, returns the escaped length. */
size_t fi_label_escape(const char *value, char *buf, size_t size);

/* Builds exposition text. Samples of one metric name are grouped under a
 * single "# HELP"/"# TYPE" header, as the format requires; names appear in
 * the order first added, samples in the order added. */
struct fi_metrics;

struct fi_metrics *fi_metrics_new(void);
struct fi_metrics *fi_metrics_free(struct fi_metrics *m);

/* labels: NULL, or a NULL-terminated array of name, value pairs, e.g.
 * (const char *[]){ "group", "web", "key", "1000", NULL }; values are
 * escaped here. type is "counter" or "gauge". -EINVAL for an invalid
 * metric or label name, an odd label list, an unknown type, or a name
 * added before with another type or help; -ENOMEM. */
int fi_metrics_add(struct fi_metrics *m, const char *name, const char *help, const char *type,
		   const char *const *labels, double value);

/* The text so far; owned by m and valid until the next add or free. NULL
 * only when out of memory. */
const char *fi_metrics_text(struct fi_metrics *m);
