// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* nftw() with FTW_DEPTH */
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "engine.h"
#include "fixture.h"
#include "log.h"
#include "stats-internal.h"
#include "stats.h"
#include "unit.h"

/* Above PID_MAX_LIMIT: no real process can have these pids, so whatever
 * the engine tries on them in the kernel fails with ESRCH. */
#define PID_A 4194401
#define PID_B 4194402
#define PID_C 4194403
#define MS UINT64_C(1000000)

static char root[64], proc[128], cg[128], sysctl[128], prom[128];

/* ---- a fake /proc and /sys/fs/cgroup ---- */

static void mkdirs(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mkdirs(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	for (char *p = path + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			perror(path);
			exit(2);
		}
		*p = c;
		if (!c)
			break;
	}
}

static void rm_pid(pid_t pid)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/%d", proc, pid);
	fixture_rm_rf(dir);
}

static char *slurp(const char *path)
{
	static char buf[65536];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* A process as procinfo and the sched reader see it: one thread. */
static void fake_proc(pid_t pid, const char *comm, const char *cgroup, uint64_t start)
{
	char text[512];

	mkdirs("%s/%d/task/%d", proc, pid, pid);
	snprintf(text, sizeof(text),
		 "%d (%s) S 1 %d %d 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 %" PRIu64 " 0 0\n", pid, comm, pid,
		 pid, start);
	fixture_put(text, "%s/%d/stat", proc, pid);
	fixture_put("Name:\tx\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\n", "%s/%d/status", proc, pid);
	snprintf(text, sizeof(text), "0::%s\n", cgroup);
	fixture_put(text, "%s/%d/cgroup", proc, pid);
}

static void fake_sched(pid_t pid, uint64_t sum_ns, uint64_t forceidle_ns)
{
	char text[512];

	snprintf(text, sizeof(text),
		 "x (%d, #threads: 1)\n---\n%-45s:%14" PRIu64 ".%06" PRIu64 "\n%-45s:%14" PRIu64 ".%06" PRIu64 "\n",
		 pid, "se.sum_exec_runtime", sum_ns / MS, sum_ns % MS, "core_forceidle_sum", forceidle_ns / MS,
		 forceidle_ns % MS);
	fixture_put(text, "%s/%d/task/%d/sched", proc, pid, pid);
}

/* Another thread of pid: its sched and its stat (for its start time). */
static void fake_thread(pid_t pid, pid_t tid, uint64_t start, uint64_t sum_ns, uint64_t forceidle_ns)
{
	char text[512];

	mkdirs("%s/%d/task/%d", proc, pid, tid);
	snprintf(text, sizeof(text),
		 "%d (x) S 1 %d %d 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 %" PRIu64 " 0 0\n", tid, pid, pid, start);
	fixture_put(text, "%s/%d/task/%d/stat", proc, pid, tid);
	snprintf(text, sizeof(text),
		 "x (%d, #threads: 2)\n---\n%-45s:%14" PRIu64 ".%06" PRIu64 "\n%-45s:%14" PRIu64 ".%06" PRIu64 "\n",
		 tid, "se.sum_exec_runtime", sum_ns / MS, sum_ns % MS, "core_forceidle_sum", forceidle_ns / MS,
		 forceidle_ns % MS);
	fixture_put(text, "%s/%d/task/%d/sched", proc, pid, tid);
}

static void rm_thread(pid_t pid, pid_t tid)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/%d/task/%d", proc, pid, tid);
	fixture_rm_rf(dir);
}

/* Thread tid exited and a new thread took its tid: a new directory (made
 * before the old one goes, so it cannot get the old one's inode number). */
static void fake_thread_reused(pid_t pid, pid_t tid, uint64_t start, uint64_t sum_ns, uint64_t forceidle_ns)
{
	char from[256], to[256];

	fake_thread(pid, 999999, start, sum_ns, forceidle_ns);
	rm_thread(pid, tid);
	snprintf(from, sizeof(from), "%s/%d/task/%d", proc, pid, 999999);
	snprintf(to, sizeof(to), "%s/%d/task/%d", proc, pid, tid);
	if (rename(from, to) < 0) {
		perror(to);
		exit(2);
	}
}

static void fake_cpu_stat(const char *cgpath, uint64_t usage_us, uint64_t forceidle_us)
{
	char text[256];

	mkdirs("%s%s", cg, cgpath);
	snprintf(text, sizeof(text), "usage_usec %" PRIu64 "\nuser_usec 0\nsystem_usec 0\n"
		 "core_sched.force_idle_usec %" PRIu64 "\n", usage_us, forceidle_us);
	fixture_put(text, "%s%s/cpu.stat", cg, cgpath);
}

static void fresh_tree(void)
{
	snprintf(root, sizeof(root), "/tmp/test-stats.XXXXXX");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		exit(2);
	}
	snprintf(proc, sizeof(proc), "%s/proc", root);
	snprintf(cg, sizeof(cg), "%s/cgroup", root);
	snprintf(sysctl, sizeof(sysctl), "%s/sched_schedstats", root);
	snprintf(prom, sizeof(prom), "%s/coresched.prom", root);
	mkdirs("%s", proc);
	fake_cpu_stat("", 1000000, 100000);
	fixture_put("0\n", "%s", sysctl);
}

static struct conf *conf_text(const char *extra)
{
	char text[1024], *err = NULL;
	struct conf *c = NULL;

	snprintf(text, sizeof(text),
		 "[Daemon]\nMetricsFile=%s\n%s\n"
		 "[Group web]\nTrusted=yes\nMatchComm=web\n"
		 "[Group batch]\nPer=process\nMatchComm=batch\n"
		 "[Group svc]\nPer=cgroup\nMatchCgroup=/svc.slice\n",
		 prom, extra);
	if (conf_load_string(text, "test.conf", &c, &err) < 0) {
		fprintf(stderr, "  conf: %s\n", err ? err : "?");
		exit(2);
	}
	free(err);
	return c;
}

/* ---- reading results back ---- */

static json_object *key_json(struct stats *s, const char *group, const char *key)
{
	static json_object *last;
	json_object *keys;

	json_object_put(last);
	last = stats_to_json(s);
	if (!json_object_object_get_ex(last, "keys", &keys))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(keys); i++) {
		json_object *k = json_object_array_get_idx(keys, i), *g, *n;

		if (json_object_object_get_ex(k, "group", &g) && json_object_object_get_ex(k, "key", &n) &&
		    strcmp(json_object_get_string(g), group) == 0 && strcmp(json_object_get_string(n), key) == 0)
			return k;
	}
	return NULL;
}

static int64_t field(struct stats *s, const char *group, const char *key, const char *name)
{
	json_object *k = key_json(s, group, key), *v;

	return k && json_object_object_get_ex(k, name, &v) ? json_object_get_int64(v) : -1;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; p && (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

static json_object *top(struct stats *s, const char *name)
{
	static json_object *last;
	json_object *v = NULL;

	json_object_put(last);
	last = stats_to_json(s);
	json_object_object_get_ex(last, name, &v);
	return v;
}

/* ---- tests ---- */

/* Engine keys from a fake /proc scan: a trusted Per=group key and a
 * Per=process key need no kernel cookie, so they exist on any kernel. */
static void test_engine_keys(void)
{
	struct engine *e = NULL;
	struct stats *s = NULL;
	json_object *host, *v;
	char *text;

	fresh_tree();
	fake_proc(PID_A, "web", "/user.slice", 11);
	fake_proc(PID_B, "web", "/user.slice", 12);
	fake_proc(PID_C, "batch", "/user.slice", 13);
	fake_sched(PID_A, 100 * MS, 40 * MS);
	fake_sched(PID_B, 200 * MS, 60 * MS);
	fake_sched(PID_C, 300 * MS, 10 * MS);
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	CHECK_STREQ(slurp(sysctl), "1\n");
	CHECK(json_object_get_boolean(top(s, "schedstats")));
	CHECK(json_object_get_boolean(top(s, "accounting")));
	CHECK(json_object_get_int64(top(s, "interval_sec")) == 10);

	(void)engine_scan(e, false, false);
	CHECK(engine_n_keys(e) == 2);
	CHECK(engine_task(e, PID_A) && engine_task(e, PID_A)->key);
	CHECK(engine_task(e, PID_C) && engine_task(e, PID_C)->key);

	/* The first sample is a baseline: what ran before is no group's. */
	CHECK(stats_sample(s) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == 0);
	CHECK(field(s, "web", "", "tasks") == 2);

	fake_sched(PID_A, 110 * MS, 44 * MS);
	fake_sched(PID_B, 220 * MS, 66 * MS);
	fake_sched(PID_C, 330 * MS, 11 * MS);
	fake_cpu_stat("", 2000000, 300000);
	CHECK(stats_sample(s) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(10 * MS));
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(30 * MS));
	CHECK(field(s, "batch", "", "forced_idle_ns") == (int64_t)(1 * MS));
	CHECK(field(s, "batch", "", "cpu_ns") == (int64_t)(30 * MS));
	host = top(s, "host");
	CHECK(host && json_object_object_get_ex(host, "share", &v) && json_object_get_double(v) == 0.2);
	CHECK(host && json_object_object_get_ex(host, "forced_idle_ns", &v) &&
	      json_object_get_int64(v) == 300000000);

	/* B exits: the key keeps what B accrued. */
	rm_pid(PID_B);
	fake_sched(PID_A, 115 * MS, 46 * MS);
	(void)engine_scan(e, false, false);
	CHECK(stats_sample(s) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(12 * MS));
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(35 * MS));
	CHECK(field(s, "web", "", "tasks") == 1);

	/* A moves to batch: only what it runs from now on is batch's. */
	fake_proc(PID_A, "batch", "/user.slice", 11);
	(void)engine_scan(e, false, false);
	CHECK(engine_task(e, PID_A) && engine_task(e, PID_A)->key &&
	      strcmp(engine_task(e, PID_A)->key->group, "batch") == 0);
	CHECK(stats_sample(s) == 0);
	fake_sched(PID_A, 122 * MS, 53 * MS);
	CHECK(stats_sample(s) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(12 * MS));
	CHECK(field(s, "batch", "", "forced_idle_ns") == (int64_t)(8 * MS));
	CHECK(field(s, "batch", "", "cpu_ns") == (int64_t)(37 * MS));
	CHECK(field(s, "batch", "", "tasks") == 2);
	CHECK(field(s, "web", "", "tasks") == 0);

	text = slurp(prom);
	CHECK(text && has_line(text, "# TYPE coresched_forced_idle_seconds_total counter"));
	CHECK(text && has_line(text, "coresched_forced_idle_seconds_total{group=\"web\",key=\"\"} 0.012"));
	CHECK(text && has_line(text, "coresched_cpu_seconds_total{group=\"batch\",key=\"\"} 0.037"));
	CHECK(text && has_line(text, "coresched_group_tasks{group=\"batch\",key=\"\"} 2"));
	CHECK(text && has_line(text, "coresched_assignments_total{group=\"web\"} 0"));
	CHECK(text && has_line(text, "coresched_events_lost_total 0"));
	CHECK(text && has_line(text, "coresched_resyncs_total 0"));
	CHECK(text && has_line(text, "coresched_repairs_total 0"));
	CHECK(text && has_line(text, "coresched_host_forced_idle_seconds_total 0.3"));
	CHECK(text && has_line(text, "coresched_info{version=\"" VERSION "\"} 1"));
	CHECK(text && !strstr(text, "4194403")); /* no pid labels */
	CHECK(text && has_line(text, "coresched_dry_run 0"));
	/* A dry run's metrics say so: its assignments are a plan. */
	stats_set_dry_run(s, true);
	CHECK(stats_sample(s) == 0);
	text = slurp(prom);
	CHECK(text && has_line(text, "coresched_dry_run 1"));

	s = stats_free(s);
	CHECK_STREQ(slurp(sysctl), "0\n");
	engine_free(e);
	fixture_rm_rf(root);
}

/* Keys built by hand: a kernel without core scheduling cannot give the
 * engine a Per=cgroup key (it needs a cookie), but stats only reads them. */
static void test_cgroup_key(void)
{
	struct key k = { .id = "svc//svc.slice", .group = "svc", .name = "/svc.slice", .per = PER_CGROUP };
	struct task a = { .pid = PID_A, .start = 11, .cgroup = "/svc.slice/a.service", .key = &k };
	struct task b = { .pid = PID_B, .start = 12, .cgroup = "/svc.slice/b.service", .key = &k };
	struct key *keys[] = { &k };
	struct task *tasks[] = { &a, &b };
	struct engine *e = NULL;
	struct stats *s = NULL;

	fresh_tree();
	fake_proc(PID_A, "svc", a.cgroup, 11);
	fake_proc(PID_B, "svc", b.cgroup, 12);
	fake_sched(PID_A, 100 * MS, 10 * MS);
	fake_sched(PID_B, 100 * MS, 10 * MS);
	fake_cpu_stat("/svc.slice", 1000, 500);
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 2) == 0);
	CHECK(field(s, "svc", "/svc.slice", "cpu_ns") == 0);

	/* The cgroup's counters, not the tasks', are what count. */
	fake_sched(PID_A, 150 * MS, 30 * MS);
	fake_cpu_stat("/svc.slice", 4000, 1500);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 2) == 0);
	CHECK(field(s, "svc", "/svc.slice", "cpu_ns") == (int64_t)(3 * MS));
	CHECK(field(s, "svc", "/svc.slice", "forced_idle_ns") == (int64_t)(1 * MS));
	CHECK(field(s, "svc", "/svc.slice", "tasks") == 2);

	/* A member outside the cgroup: per-task counters, from a baseline. */
	b.cgroup = "/elsewhere";
	fake_cpu_stat("/svc.slice", 90000, 9000);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 2) == 0);
	CHECK(field(s, "svc", "/svc.slice", "cpu_ns") == (int64_t)(3 * MS));
	fake_sched(PID_A, 152 * MS, 31 * MS);
	fake_sched(PID_B, 103 * MS, 11 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 2) == 0);
	CHECK(field(s, "svc", "/svc.slice", "cpu_ns") == (int64_t)(8 * MS));
	CHECK(field(s, "svc", "/svc.slice", "forced_idle_ns") == (int64_t)(3 * MS));

	/* The key is released: its totals stay, with no members. */
	CHECK(stats_sample_keys(s, NULL, 0, NULL, 0) == 0);
	CHECK(field(s, "svc", "/svc.slice", "cpu_ns") == (int64_t)(8 * MS));
	CHECK(field(s, "svc", "/svc.slice", "tasks") == 0);

	stats_free(s);
	engine_free(e);
	fixture_rm_rf(root);
}

/* A Per=cgroup key named after its process (a cgroup path too long for a
 * key, or one that could not be read) is summed like Per=process keys:
 * no series per process, no pid in a label. */
static void test_cgroup_process_key(void)
{
	struct key k = { .id = "svc/4194401:11", .group = "svc", .name = "4194401:11", .per = PER_CGROUP };
	struct task a = { .pid = PID_A, .start = 11, .cgroup = "", .key = &k };
	struct key *keys[] = { &k };
	struct task *tasks[] = { &a };
	struct engine *e = NULL;
	struct stats *s = NULL;
	char *text;

	fresh_tree();
	fake_proc(PID_A, "svc", "/svc.slice", 11);
	fake_sched(PID_A, 100 * MS, 10 * MS);
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	fake_sched(PID_A, 130 * MS, 13 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	CHECK(field(s, "svc", "", "cpu_ns") == (int64_t)(30 * MS));
	CHECK(field(s, "svc", "", "tasks") == 1);
	text = slurp(prom);
	CHECK(text && !strstr(text, "4194401"));
	CHECK(text && has_line(text, "coresched_cpu_seconds_total{group=\"svc\",key=\"\"} 0.03"));

	stats_free(s);
	engine_free(e);
	fixture_rm_rf(root);
}

/* A new key object under the same name continues the old totals. */
static void test_key_recreated(void)
{
	struct key *k = calloc(1, sizeof(*k));
	struct task a = { .pid = PID_A, .start = 11, .cgroup = "/x" };
	struct task *tasks[] = { &a };
	struct engine *e = NULL;
	struct stats *s = NULL;

	fresh_tree();
	fake_proc(PID_A, "web", a.cgroup, 11);
	fake_sched(PID_A, 10 * MS, 1 * MS);
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	*k = (struct key){ .id = "web/", .group = "web", .name = "", .per = PER_GROUP, .assignments = 3 };
	a.key = k;
	CHECK(stats_sample_keys(s, &k, 1, tasks, 1) == 0);
	fake_sched(PID_A, 20 * MS, 2 * MS);
	CHECK(stats_sample_keys(s, &k, 1, tasks, 1) == 0);
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(10 * MS));

	free(k); /* as the engine does: released, then a new one */
	k = calloc(1, sizeof(*k));
	*k = (struct key){ .id = "web/", .group = "web", .name = "", .per = PER_GROUP, .assignments = 2 };
	a.key = k;
	fake_sched(PID_A, 25 * MS, 3 * MS);
	CHECK(stats_sample_keys(s, &k, 1, tasks, 1) == 0);
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(15 * MS));
	CHECK(has_line(slurp(prom), "coresched_assignments_total{group=\"web\"} 5"));

	stats_free(s);
	free(k);
	engine_free(e);
	fixture_rm_rf(root);
}

static uint64_t boot_ticks_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (uint64_t)ts.tv_sec * 100 + (uint64_t)ts.tv_nsec / 10000000;
}

/* A task born after accounting began counts from zero once; a sample that
 * misses it (its read failed) must not make the next one count its past
 * again. */
static void test_missed_sample_counts_once(void)
{
	struct key k = { .id = "web/", .group = "web", .name = "", .per = PER_GROUP };
	struct task a = { .pid = PID_A, .cgroup = "/x", .key = &k };
	struct key *keys[] = { &k };
	struct task *tasks[] = { &a };
	struct engine *e = NULL;
	struct stats *s = NULL;

	fresh_tree();
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	usleep(20000); /* a clock tick or two: born after accounting began */
	a.start = boot_ticks_now();
	fake_proc(PID_A, "web", a.cgroup, a.start);
	fake_sched(PID_A, 100 * MS, 40 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(40 * MS));

	rm_pid(PID_A); /* this sample cannot read it */
	usleep(20000);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	fake_proc(PID_A, "web", a.cgroup, a.start);
	fake_sched(PID_A, 150 * MS, 60 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(40 * MS));
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(100 * MS));
	fake_sched(PID_A, 160 * MS, 65 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(45 * MS));

	stats_free(s);
	engine_free(e);
	fixture_rm_rf(root);
}

/* A key sampled per process: a process that lived through accounting's
 * start, seeded, then sampled with the given threads. */
struct threaded {
	struct key k;
	struct task a;
	struct key *keys[1];
	struct task *tasks[1];
	struct engine *e;
	struct stats *s;
};

static void threaded_start(struct threaded *t)
{
	*t = (struct threaded){ .k = { .id = "web/", .group = "web", .name = "", .per = PER_GROUP } };
	t->a = (struct task){ .pid = PID_A, .cgroup = "/x", .key = &t->k, .start = 5 };
	t->keys[0] = &t->k;
	t->tasks[0] = &t->a;
	fresh_tree();
	fake_proc(PID_A, "web", t->a.cgroup, t->a.start);
	CHECK(engine_new(proc, &t->e) == 0);
	conf_free(engine_set_conf(t->e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, t->e, proc, cg, sysctl, &t->s) == 0);
}

static void threaded_sample(struct threaded *t)
{
	CHECK(stats_sample_keys(t->s, t->keys, 1, t->tasks, 1) == 0);
}

static void threaded_end(struct threaded *t)
{
	stats_free(t->s);
	engine_free(t->e);
	fixture_rm_rf(root);
}

/* A worker exits while the leader runs on: the leader's growth counts (the
 * worker's own last interval is what is lost), where a sum of the threads
 * fell by the worker's whole lifetime and cancelled it. */
static void test_thread_exit_keeps_others(void)
{
	struct threaded t;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 0);
	fake_thread(PID_A, PID_A + 10, 6, 300 * MS, 200 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == 0);
	rm_thread(PID_A, PID_A + 10);
	fake_sched(PID_A, 250 * MS, 150 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(150 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(150 * MS));
	fake_sched(PID_A, 260 * MS, 160 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(160 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(160 * MS));
	threaded_end(&t);
}

/* A thread pool: one worker exits, one is born since the previous sample
 * (whole), and one older that the previous sample missed counts from now. */
static void test_thread_born_between_samples(void)
{
	struct threaded t;
	uint64_t born;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 0);
	fake_thread(PID_A, PID_A + 10, 6, 300 * MS, 200 * MS);
	threaded_sample(&t);
	usleep(20000);
	born = boot_ticks_now();
	rm_thread(PID_A, PID_A + 10);
	fake_thread(PID_A, PID_A + 11, born, 70 * MS, 50 * MS);
	fake_thread(PID_A, PID_A + 12, 6, 900 * MS, 500 * MS);
	fake_sched(PID_A, 110 * MS, 10 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(60 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(80 * MS));
	fake_thread(PID_A, PID_A + 11, born, 75 * MS, 55 * MS);
	fake_thread(PID_A, PID_A + 12, 6, 905 * MS, 505 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(70 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(90 * MS));
	threaded_end(&t);
}

/* A worker exits and a new thread gets its tid: a new thread (counted
 * whole, being born since the sample), not the old one's growth, even
 * though its counters are above the old one's. */
static void test_thread_tid_reused(void)
{
	struct threaded t;
	uint64_t born;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 0);
	fake_thread(PID_A, PID_A + 10, 6, 150 * MS, 100 * MS);
	threaded_sample(&t);
	usleep(20000);
	born = boot_ticks_now();
	fake_thread_reused(PID_A, PID_A + 10, born, 200 * MS, 130 * MS);
	fake_sched(PID_A, 110 * MS, 10 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(140 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(210 * MS));
	/* And the new thread is then known: its growth alone. */
	fake_thread(PID_A, PID_A + 10, born, 205 * MS, 131 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(141 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(215 * MS));
	threaded_end(&t);
}

/* The main thread exits while the workers run on (its files gone): the
 * workers' growth counts. */
static void test_leader_exits_workers_run(void)
{
	struct threaded t;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 100 * MS);
	fake_thread(PID_A, PID_A + 10, 6, 50 * MS, 50 * MS);
	fake_thread(PID_A, PID_A + 11, 6, 50 * MS, 50 * MS);
	threaded_sample(&t);
	rm_thread(PID_A, PID_A);
	fake_thread(PID_A, PID_A + 10, 6, 70 * MS, 70 * MS);
	fake_thread(PID_A, PID_A + 11, 6, 80 * MS, 80 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(50 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(50 * MS));
	threaded_end(&t);
}

/* A process moved to another key is then known there by its threads'
 * start times too: a thread whose task directory later gets another inode
 * (procfs made its dentry again) is still that thread, its growth kept. */
static void test_thread_moved_then_new_inode(void)
{
	struct key k2 = { .id = "db/", .group = "db", .name = "", .per = PER_GROUP };
	struct key *keys[2];
	struct threaded t;

	threaded_start(&t);
	keys[0] = &t.k;
	keys[1] = &k2;
	fake_sched(PID_A, 100 * MS, 0);
	fake_thread(PID_A, PID_A + 10, 6, 300 * MS, 200 * MS);
	threaded_sample(&t);
	t.a.key = &k2;
	fake_thread(PID_A, PID_A + 10, 6, 310 * MS, 210 * MS);
	CHECK(stats_sample_keys(t.s, keys, 2, t.tasks, 1) == 0);
	CHECK(field(t.s, "db", "", "forced_idle_ns") == 0);
	fake_thread_reused(PID_A, PID_A + 10, 6, 360 * MS, 260 * MS);
	CHECK(stats_sample_keys(t.s, keys, 2, t.tasks, 1) == 0);
	CHECK(field(t.s, "db", "", "forced_idle_ns") == (int64_t)(50 * MS));
	CHECK(field(t.s, "db", "", "cpu_ns") == (int64_t)(50 * MS));
	threaded_end(&t);
}

/* The buffer a process's threads are read into does not keep room for
 * the most threads a process ever had once it is gone. */
static void test_threads_buffer_returned(void)
{
	struct threaded t;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 0);
	for (pid_t i = 1; i <= 600; i++)
		fake_thread(PID_A, PID_A + i, 6, 10 * MS, 1 * MS);
	threaded_sample(&t);
	CHECK(t.s->threads.cap >= 600 || t.s->threads.cap == 0);
	for (pid_t i = 1; i <= 600; i++)
		rm_thread(PID_A, PID_A + i);
	threaded_sample(&t);
	CHECK(t.s->threads.cap * sizeof(*t.s->threads.v) <= 16384);
	CHECK(field(t.s, "web", "", "cpu_ns") == 0);
	threaded_end(&t);
}

/* A process whose reading was found to be its own is read again without
 * its start time while its task directory is the same. */
static void test_sample_start_read_once(void)
{
	struct threaded t;
	char path[256];

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 40 * MS);
	threaded_sample(&t);
	snprintf(path, sizeof(path), "%s/%d/stat", proc, PID_A);
	CHECK(unlink(path) == 0);
	fake_sched(PID_A, 150 * MS, 60 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(20 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(50 * MS));
	threaded_end(&t);
}

/* The process pid is gone: its directory is moved aside rather than
 * removed, so that the next one made under the pid cannot get its inode
 * number, which procfs never gives another process while the old one's
 * dentry lives. */
static void pid_gone_keep_inode(pid_t pid, int n)
{
	char from[256], to[256];

	snprintf(from, sizeof(from), "%s/%d", proc, pid);
	snprintf(to, sizeof(to), "%s/gone-%d-%d", proc, pid, n);
	if (rename(from, to) < 0) {
		perror(to);
		exit(2);
	}
}

/* A sample can come before the exit event of a task whose pid already went
 * to another process, or to a thread of another (whose task directory
 * lists that whole process): neither's counters are the task's. */
static void test_sample_pid_reused(void)
{
	struct threaded t;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 40 * MS);
	fake_thread(PID_A, PID_A + 10, 6, 300 * MS, 200 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == 0);
	/* Another process now: a leader with more time, a young thread. */
	pid_gone_keep_inode(PID_A, 1);
	fake_proc(PID_A, "other", t.a.cgroup, t.a.start + 1000);
	fake_sched(PID_A, 9000 * MS, 5000 * MS);
	fake_thread(PID_A, PID_A + 20, boot_ticks_now() + 100, 700 * MS, 300 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == 0);
	CHECK(field(t.s, "web", "", "cpu_ns") == 0);
	/* A thread of another process: its stat is the thread's. */
	pid_gone_keep_inode(PID_A, 2);
	fake_proc(PID_A, "other", t.a.cgroup, t.a.start + 2000);
	fake_sched(PID_A, 8000 * MS, 6000 * MS);
	fake_thread(PID_A, PID_A - 5, 7, 9000 * MS, 7000 * MS);
	threaded_sample(&t);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == 0);
	CHECK(field(t.s, "web", "", "cpu_ns") == 0);
	threaded_end(&t);
}

/* At the exit event only the zombie leader is left: its growth counts. */
static void test_exit_reading_threads(void)
{
	struct threaded t;

	threaded_start(&t);
	fake_sched(PID_A, 100 * MS, 0);
	fake_thread(PID_A, PID_A + 10, 6, 300 * MS, 200 * MS);
	threaded_sample(&t);
	rm_thread(PID_A, PID_A + 10);
	fake_sched(PID_A, 130 * MS, 20 * MS);
	stats_account_task_exit(t.s, &t.a);
	rm_pid(PID_A);
	CHECK(stats_sample_keys(t.s, t.keys, 1, t.tasks, 0) == 0);
	CHECK(field(t.s, "web", "", "forced_idle_ns") == (int64_t)(20 * MS));
	CHECK(field(t.s, "web", "", "cpu_ns") == (int64_t)(30 * MS));
	threaded_end(&t);
}

/* The exit event's reading keeps what a task accrued since its last
 * sample; a task that never lived through a sample counts whole. */
static void test_exit_reading(void)
{
	struct key k = { .id = "web/", .group = "web", .name = "", .per = PER_GROUP };
	struct task a = { .pid = PID_A, .cgroup = "/x", .key = &k };
	struct task b = { .pid = PID_A + 1, .cgroup = "/x", .key = &k };
	struct key *keys[] = { &k };
	struct task *tasks[] = { &a };
	struct engine *e = NULL;
	struct stats *s = NULL;

	fresh_tree();
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	usleep(20000);
	a.start = boot_ticks_now();
	fake_proc(PID_A, "web", a.cgroup, a.start);
	fake_sched(PID_A, 100 * MS, 40 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	usleep(20000);
	fake_sched(PID_A, 130 * MS, 70 * MS); /* after the sample, before the exit */
	stats_account_task_exit(s, &a);
	rm_pid(PID_A);
	b.start = boot_ticks_now(); /* born and gone between two samples */
	fake_proc(b.pid, "web", b.cgroup, b.start);
	fake_sched(b.pid, 20 * MS, 5 * MS);
	stats_account_task_exit(s, &b);
	rm_pid(b.pid);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 0) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(75 * MS));
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(150 * MS));

	stats_free(s);
	engine_free(e);
	fixture_rm_rf(root);
}

/* The exit event can come after the parent reaped the process and its pid
 * went to another process (or thread): that one's counters are not the
 * task's, whatever they hold. */
static void test_exit_pid_reused(void)
{
	struct key k = { .id = "web/", .group = "web", .name = "", .per = PER_GROUP };
	struct task a = { .pid = PID_A, .cgroup = "/x", .key = &k };
	struct task b = { .pid = PID_B, .cgroup = "/x", .key = &k };
	struct key *keys[] = { &k };
	struct task *tasks[] = { &a };
	struct engine *e = NULL;
	struct stats *s = NULL;

	fresh_tree();
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	usleep(20000);
	a.start = boot_ticks_now();
	fake_proc(PID_A, "web", a.cgroup, a.start);
	fake_sched(PID_A, 100 * MS, 40 * MS);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 1) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(40 * MS));

	/* A sampled task: its pid now another's, with more time on it. */
	fake_proc(PID_A, "other", a.cgroup, a.start + 1000);
	fake_sched(PID_A, 9000 * MS, 5000 * MS);
	stats_account_task_exit(s, &a);
	/* One born since the sample, gone, its pid another's. */
	usleep(20000);
	b.start = boot_ticks_now();
	fake_proc(PID_B, "other", b.cgroup, b.start + 1000);
	fake_sched(PID_B, 7000 * MS, 3000 * MS);
	stats_account_task_exit(s, &b);
	CHECK(stats_sample_keys(s, keys, 1, tasks, 0) == 0);
	CHECK(field(s, "web", "", "forced_idle_ns") == (int64_t)(40 * MS));
	CHECK(field(s, "web", "", "cpu_ns") == (int64_t)(100 * MS));

	stats_free(s);
	engine_free(e);
	fixture_rm_rf(root);
}

static void test_schedstats_missing(void)
{
	struct engine *e = NULL;
	struct stats *s = NULL;
	char path[256];

	fresh_tree();
	snprintf(path, sizeof(path), "%s/no/such/file", root);
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, path, &s) == 0);
	CHECK(!json_object_get_boolean(top(s, "schedstats")));
	CHECK(json_object_get_boolean(top(s, "accounting")));
	stats_free(s);
	CHECK(access(path, F_OK) < 0);
	engine_free(e);
	fixture_rm_rf(root);
}

/* Switching accounting off in a reload gives the kernel switch back. */
static void test_reconfigure(void)
{
	struct engine *e = NULL;
	struct stats *s = NULL;
	struct conf *c;

	fresh_tree();
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("ForceIdleAccounting=no\n")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	CHECK_STREQ(slurp(sysctl), "0\n");
	CHECK(!json_object_get_boolean(top(s, "accounting")));

	c = conf_text("StatsIntervalSec=30\n");
	conf_free(engine_set_conf(e, c));
	stats_reconfigure(s, c);
	CHECK_STREQ(slurp(sysctl), "1\n");
	CHECK(json_object_get_int64(top(s, "interval_sec")) == 30);

	c = conf_text("ForceIdleAccounting=no\n");
	conf_free(engine_set_conf(e, c));
	stats_reconfigure(s, c);
	CHECK_STREQ(slurp(sysctl), "0\n");
	CHECK(!json_object_get_boolean(top(s, "schedstats")));
	fixture_put("1\n", "%s", sysctl); /* someone else's now: not ours to undo */
	stats_free(s);
	CHECK_STREQ(slurp(sysctl), "1\n");
	engine_free(e);
	fixture_rm_rf(root);
}

/* The host's forced-idle series is the kernel's counter since boot: a
 * reload that switches accounting off must not print it as 0 (a counter
 * that went down), nor may switching it on again jump back. */
static void test_host_counter_across_reload(void)
{
	struct engine *e = NULL;
	struct stats *s = NULL;
	struct conf *c;
	char *text;

	fresh_tree();
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("")));
	CHECK(stats_new_with_roots(NULL, e, proc, cg, sysctl, &s) == 0);
	CHECK(stats_sample(s) == 0);
	text = slurp(prom);
	CHECK(text && has_line(text, "coresched_host_forced_idle_seconds_total 0.1"));

	c = conf_text("ForceIdleAccounting=no\n");
	conf_free(engine_set_conf(e, c));
	stats_reconfigure(s, c);
	CHECK(stats_sample(s) == 0);
	text = slurp(prom);
	CHECK(text && !strstr(text, "coresched_host_forced_idle_seconds_total"));

	fake_cpu_stat("", 2000000, 300000);
	c = conf_text("");
	conf_free(engine_set_conf(e, c));
	stats_reconfigure(s, c);
	CHECK(stats_sample(s) == 0);
	text = slurp(prom);
	CHECK(text && has_line(text, "coresched_host_forced_idle_seconds_total 0.3"));

	stats_free(s);
	engine_free(e);
	fixture_rm_rf(root);
}

/* The timer samples on its own and writes the textfile each time. */
static void test_timer(void)
{
	struct engine *e = NULL;
	struct stats *s = NULL;
	sd_event *ev = NULL;
	int r;

	fresh_tree();
	CHECK(sd_event_new(&ev) >= 0);
	CHECK(engine_new(proc, &e) == 0);
	conf_free(engine_set_conf(e, conf_text("StatsIntervalSec=1\n")));
	CHECK(stats_new_with_roots(ev, e, proc, cg, sysctl, &s) == 0);
	CHECK(access(prom, F_OK) < 0);
	for (int i = 0; i < 2; i++) { /* the only source: two intervals */
		r = sd_event_run(ev, 5 * 1000000ULL);
		CHECK(r > 0);
		CHECK(access(prom, F_OK) == 0);
		unlink(prom);
	}
	stats_free(s);
	sd_event_unref(ev);
	engine_free(e);
	fixture_rm_rf(root);
}

int main(void)
{
	log_set_max_level(LOG_ERR); /* the fake pids make the engine warn */
	RUN(test_engine_keys);
	RUN(test_cgroup_key);
	RUN(test_cgroup_process_key);
	RUN(test_key_recreated);
	RUN(test_missed_sample_counts_once);
	RUN(test_exit_reading);
	RUN(test_exit_pid_reused);
	RUN(test_thread_exit_keeps_others);
	RUN(test_thread_born_between_samples);
	RUN(test_thread_tid_reused);
	RUN(test_leader_exits_workers_run);
	RUN(test_exit_reading_threads);
	RUN(test_sample_pid_reused);
	RUN(test_sample_start_read_once);
	RUN(test_threads_buffer_returned);
	RUN(test_thread_moved_then_new_inode);
	RUN(test_schedstats_missing);
	RUN(test_reconfigure);
	RUN(test_timer);
	RUN(test_host_counter_across_reload);
	UNIT_EXIT();
}
