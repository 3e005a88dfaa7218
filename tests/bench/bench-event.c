// SPDX-License-Identifier: GPL-2.0-or-later
/* bench-event [CYCLES] [GROUPS] [PROCESSES] [globs]: the daemon's event
 * path, replayed on the host from a recorded sequence, for counting
 * instructions per event under callgrind (tests/bench/callgrind.sh).
 *
 * Each cycle is what the proc connector reports for one short-lived
 * process: FORK from a tracked shell, EXEC, EXIT. Every other process runs
 * an executable that one of GROUPS groups matches; the rest match nothing.
 * The engine reads a fake /proc built here, whose entries are named by the
 * pids of real sleeping children: the engine opens a pidfd on each process
 * it examines and checks the process is still alive afterwards, so the
 * pids must be real. The kernel's core-scheduling calls are replaced by a
 * table in this file (the host kernel may lack them), so the library's
 * sched_core.o is never linked in: this file defines every function it
 * exports. Each kind of event goes through a wrapper function of its own
 * (replay_fork, replay_exec_match, replay_exec_other, replay_exit), whose
 * inclusive cost callgrind reports. Run natively, it prints ns per event. */
#define _GNU_SOURCE /* gettid */
#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-conf.h"
#include "conf.h"
#include "cookie.h"
#include "engine.h"
#include "../unit/fixture.h"
#include "procmon.h"
#include "sched_core.h"

/* ---- the kernel's cookies, faked ---------------------------------------- */

/* tid -> cookie, open addressing. No lock: holder threads call in only
 * while the main thread waits for them on a semaphore. */
#define FAKE_SLOTS 8192
static struct { pid_t tid; sc_cookie cookie; } fake[FAKE_SLOTS];
static sc_cookie fake_next = 0x1000;

static sc_cookie *fake_slot(pid_t tid)
{
	unsigned i;

	if (tid == 0)
		tid = gettid();
	i = ((unsigned)tid * 2654435761u) & (FAKE_SLOTS - 1);
	for (unsigned n = 0; n < FAKE_SLOTS; n++, i = (i + 1) & (FAKE_SLOTS - 1))
		if (fake[i].tid == tid || fake[i].tid == 0) {
			fake[i].tid = tid;
			return &fake[i].cookie;
		}
	fprintf(stderr, "bench-event: fake cookie table full\n");
	exit(2);
}

int sc_get(pid_t tid, sc_cookie *ret_cookie)
{
	*ret_cookie = *fake_slot(tid);
	return 0;
}

int sc_create(pid_t pid, enum sc_scope scope)
{
	(void)scope;
	*fake_slot(pid) = fake_next++;
	return 0;
}

int sc_share_to(pid_t pid, enum sc_scope scope)
{
	(void)scope;
	*fake_slot(pid) = *fake_slot(0);
	return 0;
}

int sc_share_from(pid_t tid)
{
	*fake_slot(0) = *fake_slot(tid);
	return 0;
}

int sc_probe(void)
{
	return 0;
}

int sc_scope_from_string(const char *s, enum sc_scope *ret_scope)
{
	(void)s;
	*ret_scope = SC_SCOPE_THREAD_GROUP;
	return 0;
}

const char *sc_scope_to_string(enum sc_scope scope)
{
	(void)scope;
	return "tgid";
}

const char *sc_strerror(int negerrno)
{
	return strerror(-negerrno);
}

int sc_fault_parse(const char *spec, const char *site, unsigned *ret_index, unsigned long *ret_count)
{
	(void)spec;
	(void)site;
	(void)ret_index;
	(void)ret_count;
	return 0;
}

#ifdef CORESCHED_FAULT_INJECTION
int sc_fault(const char *site)
{
	(void)site;
	return 0;
}
#endif

/* ---- pidfd_open where the tool lacks it ---------------------------------- */

/* valgrind 3.19 does not know pidfd_open (ENOSYS), and without a pidfd the
 * engine examines nothing. The engine calls it through syscall(), so this
 * definition comes first: everything else goes to the C library's, and
 * where pidfd_open is missing an empty eventfd stands in. It is one
 * syscall like the real one, and polls "not readable", which is what the
 * engine asks of a live process's pidfd. */
long syscall(long number, ...)
{
	static long (*real)(long, ...);
	va_list ap;
	long a[6], r;

	va_start(ap, number);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!real)
		real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	r = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (r < 0 && errno == ENOSYS && number == SYS_pidfd_open)
		r = eventfd(0, EFD_CLOEXEC);
	return r;
}

/* ---- a fake /proc named by real pids ------------------------------------- */

static char root[64], proc[128];
static char status_text[4096]; /* our own, as a realistically sized status */

/* The state letter of pid's fake stat: Z while its exit is replayed (the
 * engine looks whether a process whose leader exits has threads left). */
static void fake_state(pid_t pid, char state)
{
	char path[256], text[1024], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%d/stat", proc, pid);
	f = fopen(path, "r+");
	if (!f)
		return;
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	p = strrchr(text, ')');
	if (p && p[1] == ' ' && fseek(f, (long)(p + 2 - text), SEEK_SET) == 0)
		fputc(state, f);
	fclose(f);
}

/* A full 52-field stat line, as long as a real one. */
static void fake_process(pid_t pid, pid_t ppid, const char *comm, const char *exe, uint64_t start)
{
	char path[256], text[1024];

	snprintf(path, sizeof(path), "%s/%d", proc, pid);
	if (mkdir(path, 0755) < 0) {
		perror(path);
		exit(2);
	}
	snprintf(text, sizeof(text),
		 "%d (%s) S %d %d %d 0 -1 4194304 1210 0 0 0 0 0 0 0 20 0 1 0 %" PRIu64
		 " 8716288 875 18446744073709551615 94425168023552 94425168043433 140729056669312 0 0 0 0 0"
		 " 0 0 0 0 17 1 0 0 0 0 0 94425168059440 94425168061056 94425858674688 140729056676490"
		 " 140729056676510 140729056676510 140729056677867 0\n",
		 pid, comm, ppid, ppid, ppid, start);
	fixture_put(text, "%s/%d/stat", proc, pid);
	fixture_put(status_text, "%s/%d/status", proc, pid);
	fixture_put("0::/user.slice/user-1000.slice/session-1.scope\n", "%s/%d/cgroup", proc, pid);
	snprintf(path, sizeof(path), "%s/%d/exe", proc, pid);
	if (symlink(exe, path) < 0) {
		perror(path);
		exit(2);
	}
}

static void read_own_status(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	size_t n = f ? fread(status_text, 1, sizeof(status_text) - 1, f) : 0;

	if (f)
		fclose(f);
	if (n == 0)
		snprintf(status_text, sizeof(status_text), "Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n");
	else
		status_text[n] = '\0';
}

/* ---- the processes ------------------------------------------------------- */

static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive a failed run */
		for (;;)
			pause();
	}
	return pid;
}

static void reap(const pid_t *pids, int n)
{
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			waitpid(pids[i], NULL, 0);
}

/* Matching processes run the executable of group (i / 2 * 7919) % groups,
 * which spreads them over the whole list; the others run /usr/bin/otherN. */
static void exe_for(int i, int groups, bool globs, char *exe, size_t size, char *comm, size_t csize)
{
	int g = (i / 2 * 7919) % groups;

	if (i % 2) {
		snprintf(exe, size, "/usr/bin/other%d", i);
		snprintf(comm, csize, "other%d", i);
	} else if (globs && g % 10 == 5) {
		snprintf(exe, size, "/opt/app%d/bin/server", g);
		snprintf(comm, csize, "app%d", g);
	} else {
		snprintf(exe, size, "/usr/bin/app%d", g);
		snprintf(comm, csize, "app%d", g);
	}
}

/* ---- recording and replaying --------------------------------------------- */

struct recorded {
	struct procmon_event ev;
	bool matching; /* EXEC only: the process's executable is in a group */
};

static struct recorded *record(const pid_t *pids, int n, pid_t shell, long cycles)
{
	struct recorded *r = calloc((size_t)cycles * 3, sizeof(*r));

	if (!r)
		return NULL;
	for (long c = 0; c < cycles; c++) {
		int i = (int)(c % n);
		pid_t pid = pids[i];

		r[c * 3] = (struct recorded){ { PROCMON_FORK, pid, pid, shell, shell, 0 }, false };
		r[c * 3 + 1] = (struct recorded){ { PROCMON_EXEC, pid, pid, 0, 0, 0 }, i % 2 == 0 };
		r[c * 3 + 2] = (struct recorded){ { PROCMON_EXIT, pid, pid, 0, 0, 0 }, false };
	}
	return r;
}

/* One function per kind, kept out of line and apart (no inlining, no
 * merging of identical bodies, no tail call) so that callgrind's inclusive
 * cost of each is exactly the engine's work for that kind. */
#ifdef __clang__
#define REPLAY_FN __attribute__((noinline))
#else
#define REPLAY_FN __attribute__((noipa))
#endif
#define REPLAY(name)                                                               \
	static REPLAY_FN void name(struct engine *e, const struct procmon_event *ev) \
	{                                                                          \
		engine_on_event(e, ev);                                            \
		__asm__ volatile("" ::: "memory");                                 \
	}
REPLAY(replay_fork)
REPLAY(replay_exec_match)
REPLAY(replay_exec_other)
REPLAY(replay_exit)

static void replay(struct engine *e, const struct recorded *r, long n, pid_t shell)
{
	sc_cookie shell_cookie;

	(void)sc_get(shell, &shell_cookie);
	for (long i = 0; i < n; i++) {
		const struct procmon_event *ev = &r[i].ev;

		switch (ev->kind) {
		case PROCMON_FORK:
			*fake_slot(ev->pid) = shell_cookie; /* the kernel copies it */
			replay_fork(e, ev);
			break;
		case PROCMON_EXEC:
			if (r[i].matching)
				replay_exec_match(e, ev);
			else
				replay_exec_other(e, ev);
			break;
		default:
			fake_state(ev->tgid, 'Z');
			replay_exit(e, ev);
			fake_state(ev->tgid, 'S');
			break;
		}
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* ---- set-up and checks --------------------------------------------------- */

struct setup {
	int n;          /* short-lived processes (plus the shell) */
	pid_t *pids;    /* [0] the shell, then the n others */
	struct engine *e;
};

static void setup_processes(struct setup *s, int groups, bool globs)
{
	char exe[128], comm[16];

	s->pids[0] = sleeper();
	fake_process(s->pids[0], 1, "bash", "/usr/bin/bash", 1000);
	for (int i = 0; i < s->n; i++) {
		s->pids[i + 1] = sleeper();
		exe_for(i, groups, globs, exe, sizeof(exe), comm, sizeof(comm));
		fake_process(s->pids[i + 1], s->pids[0], comm, exe, 2000 + (uint64_t)i);
	}
}

static int setup_engine(struct setup *s, int groups, bool globs)
{
	char *text = bench_make_conf(groups, globs), *err = NULL;
	struct procmon_event shell = { PROCMON_EXEC, s->pids[0], s->pids[0], 0, 0, 0 };
	struct conf *c = NULL;
	int r;

	r = text ? conf_load_string(text, "bench", &c, &err) : -ENOMEM;
	free(text);
	if (r < 0) {
		fprintf(stderr, "bench-event: %s\n", err ? err : strerror(-r));
		free(err);
		return r;
	}
	r = cookie_init();
	if (r >= 0)
		r = engine_new(proc, &s->e);
	if (r < 0) {
		conf_free(c);
		return r;
	}
	conf_free(engine_set_conf(s->e, c));
	engine_on_event(s->e, &shell);
	return engine_task(s->e, s->pids[0]) ? 0 : -ESRCH;
}

/* Processes with an even index run a matching executable (exe_for). */
static long matching_execs(long cycles, int n)
{
	long match = 0;

	for (long i = 0; i < cycles; i++)
		match += (i % n) % 2 == 0;
	return match;
}

/* The path did what the daemon would: every matching exec assigned, and
 * nothing failed or went missing. */
static int check(const struct engine *e, long cycles, int n)
{
	const struct engine_counters *c = engine_counters(e);
	long match = matching_execs(cycles, n);
	printf("counters: events %" PRIu64 " forks %" PRIu64 " execs %" PRIu64 " exits %" PRIu64
	       " assignments %" PRIu64 " keys %zu errors %" PRIu64 " vanished %" PRIu64 "\n",
	       c->events, c->forks, c->execs, c->exits, c->assignments, engine_n_keys(e), c->errors,
	       c->vanished);
	if ((long)c->assignments != match || c->errors || c->vanished || engine_n_tasks(e) != 1) {
		fprintf(stderr, "bench-event: the replay did not take the expected path\n");
		return -1;
	}
	return 0;
}

/* How many events of each kind the replay had, for tests/bench/callgrind.sh. */
static void print_kinds(long cycles, int n)
{
	long match = matching_execs(cycles, n);
	printf("kinds: replay_fork %ld replay_exec_match %ld replay_exec_other %ld replay_exit %ld\n", cycles,
	       match, cycles - match, cycles);
}

static int run(long cycles, int groups, int n, bool globs)
{
	struct setup s = { .n = n, .pids = calloc((size_t)n + 1, sizeof(pid_t)) };
	struct recorded *r = NULL;
	int rc = -1;

	if (!s.pids)
		return -1;
	setup_processes(&s, groups, globs);
	if (setup_engine(&s, groups, globs) >= 0 && (r = record(s.pids + 1, n, s.pids[0], cycles))) {
		double start = now_ns();

		replay(s.e, r, cycles * 3, s.pids[0]);
		printf("replayed %ld events (%ld cycles of fork, exec, exit; %d processes, half matching; "
		       "%d groups%s): %.0f ns per event\n",
		       cycles * 3, cycles, n, groups, globs ? ", 10% globs" : "", (now_ns() - start) / (double)(cycles * 3));
		rc = check(s.e, cycles, n);
		print_kinds(cycles, n);
	}
	engine_free(s.e);
	cookie_finalize();
	reap(s.pids, n + 1);
	free(s.pids);
	free(r);
	return rc;
}

int main(int argc, char **argv)
{
	long cycles = argc > 1 ? atol(argv[1]) : 1000;
	int groups = argc > 2 ? atoi(argv[2]) : 100;
	int n = argc > 3 ? atoi(argv[3]) : 64;
	bool globs = argc > 4 && strcmp(argv[4], "globs") == 0;
	int rc;

	if (cycles < 1 || groups < 1 || groups > CONF_MAX_GROUPS || n < 2 || n > 2000) {
		fprintf(stderr, "usage: bench-event [CYCLES] [GROUPS 1..%d] [PROCESSES 2..2000] [globs]\n",
			CONF_MAX_GROUPS);
		return 2;
	}
	snprintf(root, sizeof(root), "/tmp/bench-event.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	if (mkdir(proc, 0755) < 0) {
		perror(proc);
		return 2;
	}
	read_own_status();
	rc = run(cycles, groups, n, globs);
	fixture_rm_rf(root);
	return rc < 0 ? 1 : 0;
}
