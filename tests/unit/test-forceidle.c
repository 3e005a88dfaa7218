// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* nftw() with FTW_DEPTH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"
#include "forceidle.h"
#include "unit.h"

/* /proc/PID/sched of a CPU-bound task on 6.12 with CONFIG_SCHED_DEBUG,
 * CONFIG_SCHEDSTATS and kernel.sched_schedstats=1, in the kernel's own
 * column layout ("%-45s:%21Ld" and "%-45s:%14Ld.%06ld"). */
static const char sched_sample[] =
	"stress-ng-cpu (1234, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :          5431.228312\n"
	"se.vruntime                                  :          1180.482931\n"
	"se.sum_exec_runtime                          :          1181.954335\n"
	"se.nr_migrations                             :                    0\n"
	"sum_sleep_runtime                            :             0.000000\n"
	"sum_block_runtime                            :             0.000000\n"
	"wait_start                                   :          5429.118207\n"
	"sleep_start                                  :             0.000000\n"
	"block_start                                  :             0.000000\n"
	"sleep_max                                    :             0.000000\n"
	"block_max                                    :             0.000000\n"
	"exec_max                                     :             4.000811\n"
	"slice_max                                    :             0.000000\n"
	"wait_max                                     :             4.012003\n"
	"wait_sum                                     :          1812.345678\n"
	"wait_count                                   :                  302\n"
	"iowait_sum                                   :             0.000000\n"
	"iowait_count                                 :                    0\n"
	"nr_migrations_cold                           :                    0\n"
	"nr_forced_migrations                         :                    0\n"
	"nr_wakeups                                   :                    0\n"
	"avg_atom                                     :             3.913756\n"
	"avg_per_cpu                                  :          1181.954335\n"
	"core_forceidle_sum                           :          1203.311201\n"
	"nr_switches                                  :                  302\n"
	"nr_voluntary_switches                        :                    0\n"
	"nr_involuntary_switches                      :                  302\n"
	"se.load.weight                               :              1048576\n"
	"se.avg.load_avg                              :                 1023\n"
	"se.avg.util_avg                              :                 1023\n"
	"se.avg.last_update_time                      :           5431228312\n"
	"policy                                       :                    0\n"
	"prio                                         :                  120\n"
	"clock-delta                                  :                   40\n";

/* cgroup v2 cpu.stat on 6.12 with schedstats on. */
static const char cpu_stat_sample[] =
	"usage_usec 2463112\n"
	"user_usec 2400001\n"
	"system_usec 63111\n"
	"core_sched.force_idle_usec 2460777\n"
	"nr_periods 0\n"
	"nr_throttled 0\n"
	"throttled_usec 0\n"
	"nr_bursts 0\n"
	"burst_usec 0\n";

/* ---- helpers ------------------------------------------------------------ */

static char *tmpdir_new(void)
{
	char *d = strdup("/tmp/test-forceidle.XXXXXX");

	if (!d || !mkdtemp(d)) {
		perror("mkdtemp");
		exit(2);
	}
	return d;
}

static void mkdirf(const char *fmt, const char *root, const char *rest)
{
	char p[4096];

	snprintf(p, sizeof(p), fmt, root, rest);
	if (mkdir(p, 0755) < 0 && errno != EEXIST) {
		perror(p);
		exit(2);
	}
}

/* A thread's sched file in the kernel's format; forceidle_ns < 0 omits the
 * line, as with schedstats off. */
static void write_sched(const char *root, const char *rel, uint64_t sum_ns, int64_t forceidle_ns)
{
	char path[4096], text[1024];
	int n;

	n = snprintf(text, sizeof(text), "t (1, #threads: 3)\n---\n%-45s:%14" PRIu64 ".%06" PRIu64 "\n",
		     "se.sum_exec_runtime", sum_ns / 1000000, sum_ns % 1000000);
	if (forceidle_ns >= 0)
		snprintf(text + n, sizeof(text) - (size_t)n, "%-45s:%14" PRId64 ".%06" PRId64 "\n",
			 "core_forceidle_sum", forceidle_ns / 1000000, forceidle_ns % 1000000);
	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fixture_put(text, "%s", path);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static bool near(double a, double b, double eps)
{
	return fabs(a - b) <= eps;
}

/* ---- parsers ------------------------------------------------------------ */

static void parse_sched_full_sample(void)
{
	struct fi_task_sample s = { 0 };

	CHECK(fi_parse_sched(sched_sample, &s) == 0);
	CHECK(s.sum_exec_ns == UINT64_C(1181954335));
	CHECK(s.forceidle_ns == UINT64_C(1203311201));
	CHECK(s.has_forceidle);
	CHECK(s.nr_threads == 1);
}

static void msns_conversion_is_exact(void)
{
	int64_t v = 0;

	CHECK(fi_parse_msns("1203.311201", 11, &v) == 0 && v == INT64_C(1203311201));
	CHECK(fi_parse_msns("0.000001", 8, &v) == 0 && v == 1);
	CHECK(fi_parse_msns("0.000000", 8, &v) == 0 && v == 0);
	CHECK(fi_parse_msns("-1.500000", 9, &v) == 0 && v == -1500000);
	/* Not representable as a double: 2^53 + 1 ns. */
	CHECK(fi_parse_msns("9007199254.740993", 17, &v) == 0 && v == INT64_C(9007199254740993));
	CHECK(fi_parse_msns("9223372036854.775807", 20, &v) == 0 && v == INT64_MAX);
	CHECK(fi_parse_msns("9223372036854.775808", 20, &v) == -ERANGE);
	CHECK(fi_parse_msns("99999999999999999999.000000", 27, &v) == -ERANGE);
	/* Only the length given counts: the rest of the line is not read. */
	CHECK(fi_parse_msns("1.000002xyz", 8, &v) == 0 && v == 1000002);
	v = 42;
	CHECK(fi_parse_msns("1.5", 3, &v) == -EINVAL);
	CHECK(fi_parse_msns("1.512345", 3, &v) == -EINVAL);
	CHECK(fi_parse_msns("1.5000000", 9, &v) == -EINVAL);
	CHECK(fi_parse_msns("12", 2, &v) == -EINVAL);
	CHECK(fi_parse_msns(".000001", 7, &v) == -EINVAL);
	CHECK(fi_parse_msns("a.000001", 8, &v) == -EINVAL);
	CHECK(fi_parse_msns("1.00000x", 8, &v) == -EINVAL);
	CHECK(fi_parse_msns("+1.000000", 9, &v) == -EINVAL);
	CHECK(fi_parse_msns("", 0, &v) == -EINVAL);
	CHECK(fi_parse_msns("-", 1, &v) == -EINVAL);
	CHECK(v == 42);
}

static void parse_sched_without_forceidle(void)
{
	char text[sizeof(sched_sample)];
	char *line;
	struct fi_task_sample s = { .forceidle_ns = 99, .has_forceidle = true };

	/* Schedstats off: the kernel prints no core_forceidle_sum line. */
	memcpy(text, sched_sample, sizeof(text));
	line = strstr(text, "core_forceidle_sum");
	memmove(line, strchr(line, '\n') + 1, strlen(strchr(line, '\n') + 1) + 1);
	CHECK(fi_parse_sched(text, &s) == 0);
	CHECK(!s.has_forceidle);
	CHECK(s.forceidle_ns == 0);
	CHECK(s.sum_exec_ns == UINT64_C(1181954335));
}

static void parse_sched_rejects_bad_input(void)
{
	struct fi_task_sample s = { .sum_exec_ns = 7 };

	CHECK(fi_parse_sched("", &s) == -EBADMSG);
	CHECK(fi_parse_sched("core_forceidle_sum : 1.000000\n", &s) == -EBADMSG);
	CHECK(fi_parse_sched("se.sum_exec_runtime : -1.000000\n", &s) == -EBADMSG);
	CHECK(fi_parse_sched("se.sum_exec_runtime : 1181.95\n", &s) == -EBADMSG);
	CHECK(fi_parse_sched("se.sum_exec_runtime : 1.000000\nse.sum_exec_runtime : 2.000000\n", &s) ==
	      -EBADMSG);
	CHECK(fi_parse_sched("se.sum_exec_runtime : 1.000000\ncore_forceidle_sum : x\n", &s) == -EBADMSG);
	/* ret_* is written only on success. */
	CHECK(s.sum_exec_ns == 7);
	/* Other fields may be negative or odd; they are not ours to judge, and
	 * a name that only starts like ours is another field. No final newline. */
	CHECK(fi_parse_sched("se.vlag : -2.500000\nse.sum_exec_runtime_x : junk\n"
			     "  se.sum_exec_runtime\t:\t3.000004  \r\nnot a field line",
			     &s) == 0);
	CHECK(s.sum_exec_ns == 3000004 && !s.has_forceidle);
}

static void parse_cpu_stat_fields(void)
{
	struct fi_cg_sample c = { 0 };

	CHECK(fi_parse_cpu_stat(cpu_stat_sample, &c) == 0);
	CHECK(c.has_usage && c.usage_ns == UINT64_C(2463112000));
	CHECK(c.has_forceidle && c.forceidle_ns == UINT64_C(2460777000));

	/* Before 6.0, or with schedstats off, the field is absent. */
	CHECK(fi_parse_cpu_stat("usage_usec 10\nuser_usec 5", &c) == 0);
	CHECK(c.has_usage && c.usage_ns == 10000 && !c.has_forceidle && c.forceidle_ns == 0);
	CHECK(fi_parse_cpu_stat("", &c) == 0);
	CHECK(!c.has_usage && !c.has_forceidle);

	c.usage_ns = 5;
	CHECK(fi_parse_cpu_stat("usage_usec -1\n", &c) == -EBADMSG);
	CHECK(fi_parse_cpu_stat("usage_usec 12a\n", &c) == -EBADMSG);
	CHECK(fi_parse_cpu_stat("usage_usec 18446744073709552\n", &c) == -EBADMSG);
	CHECK(fi_parse_cpu_stat("usage_usec 1\nusage_usec 2\n", &c) == -EBADMSG);
	CHECK(c.usage_ns == 5);
}

/* ---- readers ------------------------------------------------------------ */

/* root/42: threads 42 and 43, and 44 which exited between the directory
 * listing and the read (its directory is there, its sched file is not). */
static char *fake_proc_new(void)
{
	char *root = tmpdir_new();

	mkdirf("%s/42%s", root, "");
	mkdirf("%s/42/task%s", root, "");
	mkdirf("%s/42/task/%s", root, "42");
	mkdirf("%s/42/task/%s", root, "43");
	mkdirf("%s/42/task/%s", root, "44");
	mkdirf("%s/42/task/%s", root, "not-a-tid");
	write_sched(root, "42/task/42/sched", UINT64_C(1181954335), INT64_C(1203311201));
	write_sched(root, "42/task/43/sched", UINT64_C(2000000001), INT64_C(5));
	return root;
}

static void read_process_fake_tree(void)
{
	char *root = fake_proc_new();
	struct fi_task_sample s = { 0 };

	CHECK(fi_read_process(root, 42, &s) == 0);
	CHECK(s.nr_threads == 2);
	CHECK(s.sum_exec_ns == UINT64_C(1181954335) + UINT64_C(2000000001));
	CHECK(s.forceidle_ns == UINT64_C(1203311206));
	CHECK(s.has_forceidle);

	CHECK(fi_read_thread(root, 42, 43, &s) == 0);
	CHECK(s.sum_exec_ns == UINT64_C(2000000001) && s.forceidle_ns == 5);
	CHECK(fi_read_thread(root, 42, 44, &s) == -ESRCH);
	CHECK(fi_read_thread(root, 7, 7, &s) == -ESRCH);

	/* One thread under another name than the process's: the walk. */
	mkdirf("%s/60%s", root, "");
	mkdirf("%s/60/task%s", root, "");
	mkdirf("%s/60/task/%s", root, "61");
	write_sched(root, "60/task/61/sched", 5000, 7);
	CHECK(fi_read_process(root, 60, &s) == 0);
	CHECK(s.nr_threads == 1 && s.sum_exec_ns == 5000 && s.forceidle_ns == 7);

	/* A thread without the counter makes the sum's counter unknown. */
	write_sched(root, "42/task/44/sched", 1000, -1);
	CHECK(fi_read_process(root, 42, &s) == 0);
	CHECK(s.nr_threads == 3 && !s.has_forceidle && s.forceidle_ns == 0);
	CHECK(s.sum_exec_ns == UINT64_C(1181954335) + UINT64_C(2000000001) + 1000);
	fixture_rm_rf(root);
	free(root);
}

static void read_process_gone_or_broken(void)
{
	char *root = fake_proc_new();
	char path[4096];
	struct fi_task_sample s = { .sum_exec_ns = 9 };

	CHECK(fi_read_process(root, 7, &s) == -ESRCH);
	CHECK(fi_read_process(root, 0, &s) == -EINVAL);
	/* Every thread gone while we read: the process is gone. */
	mkdirf("%s/%s", root, "50");
	mkdirf("%s/%s", root, "50/task");
	mkdirf("%s/%s", root, "50/task/50");
	CHECK(fi_read_process(root, 50, &s) == -ESRCH);
	/* A sched file we cannot parse is an error, not a skipped thread. */
	snprintf(path, sizeof(path), "%s/42/task/44/sched", root);
	fixture_put("garbage\n", "%s", path);
	CHECK(fi_read_process(root, 42, &s) == -EBADMSG);
	/* Reads are bounded. */
	{
		char big[FI_READ_MAX + 100];

		memset(big, ' ', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		fixture_put(big, "%s", path);
		CHECK(fi_read_process(root, 42, &s) == -EFBIG);
	}
	CHECK(s.sum_exec_ns == 9);
	fixture_rm_rf(root);
	free(root);
}

static void read_cgroup_and_host(void)
{
	char *root = tmpdir_new();
	char path[4096];
	struct fi_cg_sample c = { 0 };

	snprintf(path, sizeof(path), "%s/cpu.stat", root);
	fixture_put(cpu_stat_sample, "%s", path);
	mkdirf("%s/%s", root, "system.slice");
	mkdirf("%s/%s", root, "system.slice/x.service");
	snprintf(path, sizeof(path), "%s/system.slice/x.service/cpu.stat", root);
	fixture_put("usage_usec 7\ncore_sched.force_idle_usec 3\n", "%s", path);

	CHECK(fi_read_cgroup(root, "/system.slice/x.service", &c) == 0);
	CHECK(c.usage_ns == 7000 && c.forceidle_ns == 3000);
	CHECK(fi_read_cgroup(root, "system.slice/x.service", &c) == 0 && c.usage_ns == 7000);
	CHECK(fi_read_host(root, &c) == 0);
	CHECK(c.usage_ns == UINT64_C(2463112000) && c.forceidle_ns == UINT64_C(2460777000));
	CHECK(fi_read_cgroup(root, "", &c) == 0 && c.usage_ns == UINT64_C(2463112000));
	CHECK(fi_read_cgroup(root, "/gone.scope", &c) == -ENOENT);
	CHECK(fi_read_cgroup(root, "/system.slice/../../etc", &c) == -EINVAL);
	CHECK(fi_read_cgroup(root, "..", &c) == -EINVAL);
	CHECK(c.usage_ns == UINT64_C(2463112000));
	fixture_rm_rf(root);
	free(root);
}

static void share_between_samples(void)
{
	struct fi_cg_sample a = { 1000, 200, true, true }, b = { 3000, 1200, true, true };
	struct fi_cg_sample no_fi = { 3000, 0, true, false };
	double r = -1;

	CHECK(fi_share(&a, &b, &r) == 0 && near(r, 0.5, 1e-12));
	CHECK(fi_share(&a, &a, &r) == -EINVAL);
	CHECK(fi_share(&b, &a, &r) == -ERANGE);
	CHECK(fi_share(&a, &no_fi, &r) == -ENODATA);
	CHECK(near(r, 0.5, 1e-12));
}

/* ---- accounting --------------------------------------------------------- */

static struct fi_task_sample ts(uint64_t cpu, uint64_t fi)
{
	return (struct fi_task_sample){ .sum_exec_ns = cpu, .forceidle_ns = fi, .has_forceidle = true };
}

static void totals(const struct fi_account *a, uint64_t *cpu, uint64_t *fi)
{
	struct fi_totals t;

	fi_account_task_totals(a, &t);
	*cpu = t.cpu_ns;
	*fi = t.forceidle_ns;
}

static void account_tasks_monotonic(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_task_sample s, off = { .sum_exec_ns = 700 };
	struct fi_totals t;
	uint64_t cpu, fi;

	fi_account_task_totals(a, &t);
	CHECK(t.cpu_ns == 0 && t.forceidle_ns == 0 && !t.has_forceidle);
	/* First sight adds the whole counters. */
	s = ts(100, 10);
	CHECK(fi_account_task(a, 1, &s) == 1);
	s = ts(50, 5);
	CHECK(fi_account_task(a, 2, &s) == 1);
	totals(a, &cpu, &fi);
	CHECK(cpu == 150 && fi == 15);
	/* Then deltas. */
	s = ts(160, 30);
	CHECK(fi_account_task(a, 1, &s) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 210 && fi == 35);
	/* A summed process lost a thread: its counters drop; nothing is
	 * subtracted and the drop is the new baseline. */
	s = ts(40, 4);
	CHECK(fi_account_task(a, 1, &s) == 0);
	s = ts(45, 6);
	CHECK(fi_account_task(a, 1, &s) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 215 && fi == 37);
	/* Schedstats off hides the counter; when it returns with its old
	 * value only the growth counts. */
	CHECK(fi_account_task(a, 2, &off) == 0);
	s = ts(800, 35);
	CHECK(fi_account_task(a, 2, &s) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 965 && fi == 67);
	fi_account_task_totals(a, &t);
	CHECK(t.has_forceidle);
	CHECK(fi_account_free(a) == NULL);
	CHECK(fi_account_free(NULL) == NULL);
}

static void account_task_exits(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_task_sample s = ts(160, 30);
	uint64_t cpu, fi;

	CHECK(fi_account_task(a, 1, &s) == 1);
	s = ts(50, 5);
	CHECK(fi_account_task(a, 2, &s) == 1);
	/* Exit with a last sample adds its delta and forgets the task. */
	CHECK(fi_account_n_tasks(a) == 2);
	s = ts(80, 25);
	CHECK(fi_account_task_exit(a, 2, &s) == 0);
	CHECK(fi_account_n_tasks(a) == 1);
	totals(a, &cpu, &fi);
	CHECK(cpu == 240 && fi == 55);
	/* Exit without a sample keeps what was counted. */
	CHECK(fi_account_task_exit(a, 1, NULL) == 0);
	CHECK(fi_account_n_tasks(a) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 240 && fi == 55);
	CHECK(fi_account_task_exit(a, 1, NULL) == -ENOENT);
	/* A task first seen at its exit counts whole. */
	s = ts(5, 1);
	CHECK(fi_account_task_exit(a, 3, &s) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 245 && fi == 56 && fi_account_n_tasks(a) == 0);
	fi_account_free(a);
}

static void account_seed_and_limit(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_task_sample s = ts(1000, 100);
	uint64_t cpu, fi;

	/* A seeded task adds nothing until it grows. */
	CHECK(fi_account_task_seed(a, 9, &s) == 1);
	totals(a, &cpu, &fi);
	CHECK(cpu == 0 && fi == 0);
	s = ts(1010, 101);
	CHECK(fi_account_task(a, 9, &s) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 10 && fi == 1);

	CHECK(fi_account_set_max_tasks(a, 0) == -EBUSY);
	CHECK(fi_account_set_max_tasks(a, 2) == 0);
	CHECK(fi_account_task(a, 10, &s) == 1);
	CHECK(fi_account_task(a, 11, &s) == -ENOSPC);
	CHECK(fi_account_n_tasks(a) == 2);
	totals(a, &cpu, &fi);
	CHECK(cpu == 1020 && fi == 102);
	/* The untracked task is still counted when its exit sample arrives. */
	CHECK(fi_account_task_exit(a, 11, &s) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 2030 && fi == 203);
	fi_account_free(a);
}

/* Many tasks whose ids share low bits, removed in another order than
 * added: every survivor must still be found (a broken deletion would
 * lose one and count it whole again), and memory shrinks back. */
static void account_table_churn(void)
{
	enum { N = 5000, GONE = (N + 2) / 3 };
	struct fi_account *a = fi_account_new();
	struct fi_task_sample s = ts(1, 0);
	uint64_t cpu, fi;
	int bad = 0;

	for (uint64_t i = 0; i < N; i++)
		bad += fi_account_task(a, (i << 32) | (i & 7), &s) != 1;
	CHECK(bad == 0 && fi_account_n_tasks(a) == N);
	for (uint64_t i = 0; i < N; i += 3)
		bad += fi_account_task_exit(a, (i << 32) | (i & 7), NULL) != 0;
	CHECK(bad == 0 && fi_account_n_tasks(a) == N - GONE);
	/* Each survivor is known (returns 0) and adds exactly its growth. */
	s = ts(2, 0);
	for (uint64_t i = 0; i < N; i++)
		if (i % 3)
			bad += fi_account_task(a, (i << 32) | (i & 7), &s) != 0;
	CHECK(bad == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == N + (N - GONE));
	for (uint64_t i = 0; i < N; i++)
		if (i % 3)
			bad += fi_account_task_exit(a, (i << 32) | (i & 7), NULL) != 0;
	CHECK(bad == 0 && fi_account_n_tasks(a) == 0);
	fi_account_free(a);
}

static void account_cgroup_reset(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_cg_sample c = { 100, 10, true, true };
	struct fi_totals t;

	CHECK(fi_account_cgroup(a, &c) == 0);
	fi_account_cgroup_totals(a, &t);
	CHECK(t.cpu_ns == 100 && t.forceidle_ns == 10 && t.has_forceidle);
	c = (struct fi_cg_sample){ 150, 12, true, true };
	CHECK(fi_account_cgroup(a, &c) == 0);
	/* Recreated cgroup: the counters restart; the new values are growth. */
	c = (struct fi_cg_sample){ 30, 20, true, true };
	CHECK(fi_account_cgroup(a, &c) == 1);
	fi_account_cgroup_totals(a, &t);
	CHECK(t.cpu_ns == 180 && t.forceidle_ns == 32);
	/* A sample without the forced-idle field keeps its baseline. */
	c = (struct fi_cg_sample){ 50, 0, true, false };
	CHECK(fi_account_cgroup(a, &c) == 0);
	c = (struct fi_cg_sample){ 60, 25, true, true };
	CHECK(fi_account_cgroup(a, &c) == 0);
	fi_account_cgroup_totals(a, &t);
	CHECK(t.cpu_ns == 210 && t.forceidle_ns == 37);
	/* The task source is separate. */
	fi_account_task_totals(a, &t);
	CHECK(t.cpu_ns == 0 && t.forceidle_ns == 0);
	fi_account_free(a);
}

static struct fi_thread_sample th(pid_t tid, uint64_t start, uint64_t cpu, uint64_t fi)
{
	return (struct fi_thread_sample){ .tid = tid, .leader = tid == 100, .has_start = tid != 100,
					  .start = start, .s = ts(cpu, fi) };
}

/* Per-thread baselines: an exiting thread loses only its own last
 * interval; a new thread counts whole when born since born_since; a tid
 * taken by a new thread is that new thread; memory follows the threads. */
static void account_threads(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_thread_sample t[4];
	uint64_t cpu, fi;

	/* Seeded: nothing added. */
	t[0] = th(100, 0, 100, 0);
	t[1] = th(101, 10, 300, 200);
	t[2] = th(102, 10, 5, 5);
	CHECK(fi_account_threads(a, 7, t, 3, 50, FI_SEED) == 1);
	totals(a, &cpu, &fi);
	CHECK(cpu == 0 && fi == 0 && fi_account_n_threads(a) == 3);
	/* 101 exits; 100 gains 150; 102 is now another thread born at 60
	 * (whole); 103 is new but born at 20, before born_since (from now).
	 * No worker known before is left: 100 is measured as after an exec,
	 * from the highest baseline not above it (102's old forced idle 5). */
	t[0] = th(100, 0, 250, 150);
	t[1] = th(103, 20, 1000, 1000);
	t[2] = th(102, 60, 40, 30);
	CHECK(fi_account_threads(a, 7, t, 3, 50, FI_WHOLE) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 190 && fi == 175 && fi_account_n_threads(a) == 3);
	/* Then growth alone. */
	t[0] = th(100, 0, 260, 151);
	t[1] = th(103, 20, 1001, 1002);
	t[2] = th(102, 60, 41, 33);
	CHECK(fi_account_threads(a, 7, t, 3, 80, FI_WHOLE) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 202 && fi == 181);
	/* Down to one thread: the array goes. */
	t[0] = th(100, 0, 261, 152);
	CHECK(fi_account_threads(a, 7, t, 1, 80, FI_WHOLE) == 0);
	CHECK(fi_account_n_threads(a) == 1);
	/* A new process counts whole; its exit adds growth and frees it. */
	t[0] = th(200, 90, 10, 1);
	t[1] = th(201, 90, 10, 1);
	CHECK(fi_account_threads(a, 8, t, 2, 80, FI_WHOLE) == 1);
	CHECK(fi_account_n_threads(a) == 3 && fi_account_n_tasks(a) == 2);
	t[0] = th(201, 90, 15, 2);
	CHECK(fi_account_threads(a, 8, t, 1, 80, FI_EXIT) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 203 + 25 && fi == 182 + 3);
	CHECK(fi_account_n_threads(a) == 1 && fi_account_n_tasks(a) == 1);
	CHECK(fi_account_threads(a, 8, NULL, 0, 0, FI_EXIT) == -ENOENT);
	CHECK(fi_account_threads(a, 7, NULL, 0, 0, FI_EXIT) == 0);
	CHECK(fi_account_n_threads(a) == 0 && fi_account_n_tasks(a) == 0);
	fi_account_free(a);
}

/* Memory follows the threads tracked: once a process with many threads is
 * gone, the account does not keep room for them (a user can run such a
 * process under any number of keys, one after another). */
static void account_threads_memory_returned(void)
{
	struct fi_account *a = fi_account_new();
	size_t n = 20000, small;
	struct fi_thread_sample *t = calloc(n, sizeof(*t)), one = th(100, 0, 5, 1);

	CHECK(t != NULL);
	CHECK(fi_account_threads(a, 9, &one, 1, 0, FI_WHOLE) == 1);
	small = fi_account_bytes(a);
	for (size_t i = 0; i < n; i++)
		t[i] = th((pid_t)(1000 + i), 10, 100, 10);
	t[0] = th(100, 0, 100, 10);
	CHECK(fi_account_threads(a, 7, t, n, 0, FI_WHOLE) == 1);
	CHECK(fi_account_bytes(a) >= n * 32);
	CHECK(fi_account_threads(a, 7, t, 1, 0, FI_EXIT) == 0);
	one = th(100, 0, 6, 1);
	CHECK(fi_account_threads(a, 9, &one, 1, 0, FI_WHOLE) == 0);
	CHECK(fi_account_n_threads(a) == 1);
	CHECK(fi_account_bytes(a) <= small + 16384);
	free(t);
	fi_account_free(a);
}

/* A thread other than the leader that runs a program takes the leader's
 * tid and start time, and its own counters: every other thread is gone.
 * Its time up to the last sample was counted under its own tid; measured
 * from the old leader's baseline it would count again. Whichever thread
 * it was, the leader's growth is not above the true one. */
static void account_threads_exec_from_worker(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_thread_sample t[3];
	uint64_t cpu, fi;

	t[0] = th(100, 0, 1000, 10);
	t[1] = th(101, 10, 50000, 20000);
	t[2] = th(102, 10, 300, 200);
	CHECK(fi_account_threads(a, 7, t, 3, 5, FI_SEED) == 1);
	/* 101 execs: 100 is now 101, which ran 500 more (forced idle 100). */
	t[0] = th(100, 0, 50500, 20100);
	CHECK(fi_account_threads(a, 7, t, 1, 20, FI_WHOLE) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu <= 500 && fi <= 100);
	CHECK(fi_account_n_threads(a) == 1);
	/* Then the new program's growth counts as ever. */
	t[0] = th(100, 0, 50600, 20150);
	CHECK(fi_account_threads(a, 7, t, 1, 30, FI_WHOLE) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu >= 100 && cpu <= 600 && fi >= 50 && fi <= 150);
	/* A leader that outlives its workers, which exit normally: it loses
	 * at most its own interval, as an exiting thread does. */
	t[0] = th(100, 0, 10, 5);
	t[1] = th(101, 10, 20, 1000);
	CHECK(fi_account_threads(a, 9, t, 2, 5, FI_SEED) == 1);
	{
		uint64_t c0 = cpu, f0 = fi;

		t[0] = th(100, 0, 40, 105);
		CHECK(fi_account_threads(a, 9, t, 1, 20, FI_WHOLE) == 0);
		totals(a, &cpu, &fi);
		CHECK(cpu - c0 >= 20 && cpu - c0 <= 30 && fi - f0 == 100);
	}
	fi_account_free(a);
}

/* A worker runs a program, and the program's first thread gets the tid of
 * a worker that went with the exec: that is a new thread, not the old
 * worker still there, so the leader is still measured as after an exec. */
static void account_threads_exec_tid_reused(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_thread_sample t[3];
	uint64_t cpu, fi;

	t[0] = th(100, 0, 1000, 10);
	t[1] = th(101, 10, 50000, 20000);
	t[2] = th(102, 10, 300, 200);
	CHECK(fi_account_threads(a, 7, t, 3, 5, FI_SEED) == 1);
	/* 101 execs (500 more, forced idle 100); a new thread takes 102. */
	t[0] = th(100, 0, 50500, 20100);
	t[1] = th(102, 60, 7, 3);
	CHECK(fi_account_threads(a, 7, t, 2, 20, FI_WHOLE) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu <= 500 + 7 && fi <= 100 + 3);
	fi_account_free(a);
}

/* procfs lists a task directory whose inode it could not make with inode
 * 1: that number is no thread's identity, and a later thread with the
 * tid and that number is not taken for the one known. */
static void account_threads_ino_one(void)
{
	struct fi_account *a = fi_account_new();
	struct fi_thread_sample t[2];
	uint64_t cpu, fi;

	t[0] = th(100, 0, 10, 0);
	t[1] = th(101, 10, 100, 50);
	t[1].ino = 1;
	CHECK(fi_account_threads(a, 7, t, 2, 5, FI_SEED) == 1);
	CHECK(!fi_account_knows_thread(a, 7, 101, 1, 200));
	/* Another 101, older than the last sample (it was missed): from now. */
	t[0] = th(100, 0, 10, 0);
	t[1] = (struct fi_thread_sample){ .tid = 101, .ino = 1, .s = ts(400, 300) };
	CHECK(fi_account_threads(a, 7, t, 2, 20, FI_WHOLE) == 0);
	totals(a, &cpu, &fi);
	CHECK(cpu == 0 && fi == 0);
	t[1].ino = 55;
	CHECK(fi_account_threads(a, 7, t, 2, 20, FI_WHOLE) == 0);
	CHECK(fi_account_knows_thread(a, 7, 101, 55, 400));
	fi_account_free(a);
}

/* The reader reads a thread's start time only where the account does not
 * know the thread by its directory's inode. */
static void read_threads_start_once(void)
{
	char *root = fake_proc_new();
	struct fi_account *a = fi_account_new();
	struct fi_threads buf = { 0 };
	char path[4096];

	snprintf(path, sizeof(path), "%s/42/task/43/stat", root);
	fixture_put("43 (a) b) S 1 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 2 0 777 0 0\n", "%s", path);
	CHECK(fi_read_threads(root, 42, a, 1, &buf) == 0);
	CHECK(buf.n == 2); /* 44 has no sched file: gone */
	for (size_t i = 0; i < buf.n; i++) {
		if (buf.v[i].tid == 42)
			CHECK(buf.v[i].leader && !buf.v[i].has_start);
		else
			CHECK(buf.v[i].tid == 43 && buf.v[i].has_start && buf.v[i].start == 777 && buf.v[i].ino);
	}
	CHECK(fi_account_threads(a, 1, buf.v, buf.n, 0, FI_SEED) == 1);
	fixture_put("garbage\n", "%s", path);
	CHECK(fi_read_threads(root, 42, a, 1, &buf) == 0 && buf.n == 2);
	CHECK(fi_read_threads(root, 42, NULL, 1, &buf) == -EBADMSG);
	/* A thread whose stat is gone has exited. */
	unlink(path);
	CHECK(fi_read_threads(root, 42, NULL, 1, &buf) == 0 && buf.n == 1 && buf.v[0].tid == 42);
	CHECK(fi_read_threads(root, 7, NULL, 1, &buf) == -ESRCH && buf.n == 0);
	fi_threads_done(&buf);
	fi_account_free(a);
	fixture_rm_rf(root);
	free(root);
}

/* ---- statistics --------------------------------------------------------- */

static void summarize_known_values(void)
{
	const double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	/* A large common offset defeats the sum-of-squares formula. */
	const double w[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	const double z[] = { -1, 1 }, one[] = { 3 }, bad[] = { 1, NAN };
	struct fi_summary s = { 0 };

	CHECK(fi_summarize(v, 8, &s) == 0);
	CHECK(s.n == 8 && near(s.mean, 5, 1e-12));
	CHECK(near(s.sd, sqrt(32.0 / 7), 1e-12) && near(s.sd, 2.138, 5e-4));
	CHECK(near(s.sem, 0.756, 5e-4));
	CHECK(near(s.sd_pct, 42.762, 5e-3) && near(s.sem_pct, 15.119, 5e-3));

	CHECK(fi_summarize(w, 4, &s) == 0);
	CHECK(near(s.mean, 1e9 + 10, 1e-6) && near(s.sd, sqrt(30), 1e-6));

	CHECK(fi_summarize(z, 2, &s) == 0);
	CHECK(s.mean == 0 && s.sd_pct == 0 && s.sem_pct == 0 && near(s.sd, sqrt(2), 1e-12));
	CHECK(fi_summarize(one, 1, &s) == 0);
	CHECK(s.mean == 3 && s.sd == 0 && s.sem == 0);
	CHECK(fi_summarize(v, 0, &s) == -EINVAL);
	CHECK(fi_summarize(bad, 2, &s) == -EINVAL);
	CHECK(s.mean == 3);
}

/* ---- Prometheus --------------------------------------------------------- */

static void label_escape(void)
{
	char buf[64], small[5];

	CHECK(fi_label_escape("web", buf, sizeof(buf)) == 3);
	CHECK_STREQ(buf, "web");
	CHECK(fi_label_escape("a\\b\"c\nd", buf, sizeof(buf)) == 10);
	CHECK_STREQ(buf, "a\\\\b\\\"c\\nd");
	/* Like snprintf: the full length back, the output cut and ended. */
	CHECK(fi_label_escape("\"\"\"", small, sizeof(small)) == 6);
	CHECK_STREQ(small, "\\\"\\\"");
	CHECK(fi_label_escape("xyz", NULL, 0) == 3);
	CHECK(fi_label_escape("", buf, sizeof(buf)) == 0 && buf[0] == '\0');
	/* The format is UTF-8: valid sequences pass, any other byte (a
	 * cgroup's name can hold one) becomes U+FFFD. */
	CHECK(fi_label_escape("/a/\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", buf, sizeof(buf)) == 12);
	CHECK_STREQ(buf, "/a/\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
	CHECK(fi_label_escape("a\xff\"\xc3", buf, sizeof(buf)) == 9);
	CHECK_STREQ(buf, "a\xef\xbf\xbd\\\"\xef\xbf\xbd");
	/* Overlong, surrogate, past U+10FFFF: one U+FFFD per byte. */
	CHECK(fi_label_escape("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", buf, sizeof(buf)) == 27);
}

static void metrics_builder(void)
{
	struct fi_metrics *m = fi_metrics_new();
	const char *web[] = { "group", "web", "key", "1000", NULL };
	const char *odd[] = { "group", "a\"b\\c\nd", NULL };
	const char *badl[] = { "0x", "v", NULL };
	const char *half[] = { "group", NULL };
	const char *help_fi = "Time siblings were forced idle.";

	CHECK_STREQ(fi_metrics_text(m), "");
	CHECK(fi_metrics_add(m, "coresched_forceidle_seconds_total", help_fi, "counter", web, 1.203311201) == 0);
	CHECK(fi_metrics_add(m, "coresched_groups", "Groups\\loaded\nnow.", "gauge", NULL, 3) == 0);
	CHECK(fi_metrics_add(m, "coresched_forceidle_seconds_total", help_fi, "counter", odd, 0.5) == 0);
	CHECK(fi_metrics_add(m, "coresched_ratio", "r", "gauge", NULL, NAN) == 0);
	CHECK(fi_metrics_add(m, "coresched_ratio", "r", "gauge", web, INFINITY) == 0);
	CHECK(fi_metrics_add(m, "coresched_ratio", "r", "gauge", NULL, 1e21) == 0);

	CHECK(fi_metrics_add(m, "coresched_ratio", "r", "counter", NULL, 1) == -EINVAL);
	CHECK(fi_metrics_add(m, "coresched_ratio", "other help", "gauge", NULL, 1) == -EINVAL);
	CHECK(fi_metrics_add(m, "9lives", "h", "gauge", NULL, 1) == -EINVAL);
	CHECK(fi_metrics_add(m, "bad-name", "h", "gauge", NULL, 1) == -EINVAL);
	CHECK(fi_metrics_add(m, "x", "h", "histogram", NULL, 1) == -EINVAL);
	CHECK(fi_metrics_add(m, "x", "h", "gauge", badl, 1) == -EINVAL);
	CHECK(fi_metrics_add(m, "x", "h", "gauge", half, 1) == -EINVAL);

	CHECK_STREQ(fi_metrics_text(m),
		    "# HELP coresched_forceidle_seconds_total Time siblings were forced idle.\n"
		    "# TYPE coresched_forceidle_seconds_total counter\n"
		    "coresched_forceidle_seconds_total{group=\"web\",key=\"1000\"} 1.203311201\n"
		    "coresched_forceidle_seconds_total{group=\"a\\\"b\\\\c\\nd\"} 0.5\n"
		    "# HELP coresched_groups Groups\\\\loaded\\nnow.\n"
		    "# TYPE coresched_groups gauge\n"
		    "coresched_groups 3\n"
		    "# HELP coresched_ratio r\n"
		    "# TYPE coresched_ratio gauge\n"
		    "coresched_ratio NaN\n"
		    "coresched_ratio{group=\"web\",key=\"1000\"} +Inf\n"
		    "coresched_ratio 1e+21\n");
	CHECK(fi_metrics_free(m) == NULL);
	CHECK(fi_metrics_free(NULL) == NULL);
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void metrics_write_atomic(void)
{
	char *dir = tmpdir_new();
	char path[4096], missing[4096], sub[4096];
	struct stat st;
	mode_t old = umask(077);

	snprintf(path, sizeof(path), "%s/coresched.prom", dir);
	CHECK(fi_metrics_write(path, "a 1\n") == 0);
	CHECK(fi_metrics_write(path, "# TYPE b gauge\nb 2\n") == 0);
	CHECK_STREQ(slurp(path), "# TYPE b gauge\nb 2\n");
	CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644);
	CHECK(count_entries(dir) == 1);

	/* Nothing is created where the directory does not exist. */
	snprintf(missing, sizeof(missing), "%s/nope/coresched.prom", dir);
	CHECK(fi_metrics_write(missing, "a 1\n") == -ENOENT);
	CHECK(count_entries(dir) == 1);
	/* A failed rename (over a directory) removes the temporary file and
	 * leaves the target alone. */
	snprintf(sub, sizeof(sub), "%s/d.prom", dir);
	mkdirf("%s/%s", dir, "d.prom");
	mkdirf("%s/%s", dir, "d.prom/x");
	CHECK(fi_metrics_write(sub, "a 1\n") < 0);
	CHECK(count_entries(dir) == 2 && count_entries(sub) == 1);
	CHECK(fi_metrics_write("", "a 1\n") == -EINVAL);
	snprintf(sub, sizeof(sub), "%s/", dir);
	CHECK(fi_metrics_write(sub, "a 1\n") == -EINVAL);
	CHECK_STREQ(slurp(path), "# TYPE b gauge\nb 2\n");
	umask(old);
	fixture_rm_rf(dir);
	free(dir);
}

/* The real kernel's file, where it has one: its format must still parse. */
static void live_proc_parses(void)
{
	struct fi_task_sample s = { 0 };

	CHECK(fi_read_process("/proc", getpid(), &s) == 0);
	CHECK(s.nr_threads == 1);
	CHECK(fi_read_thread("/proc", getpid(), gettid(), &s) == 0);
}

struct spinner {
	volatile int spun;
	int release; /* its read returns once the other end is closed */
};

/* Ends by returning, not by pthread_cancel(): a frame unwound by a
 * cancellation leaves ASan's marks on the stack, which the sanitizer's
 * own thread exit then reports as a bad write. */
static void *spin_and_wait(void *arg)
{
	struct spinner *w = arg;
	struct timespec a, b;
	char c;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < 60);
	w->spun = 1;
	(void)!read(w->release, &c, 1);
	return NULL;
}

/* A process of two threads sums both: the one that ran 60 ms counts. */
static void live_proc_sums_threads(void)
{
	struct fi_task_sample s = { 0 }, leader = { 0 };
	struct spinner w = { 0 };
	pthread_t th;
	int fds[2];

	CHECK(pipe(fds) == 0);
	w.release = fds[0];
	CHECK(pthread_create(&th, NULL, spin_and_wait, &w) == 0);
	while (!w.spun)
		usleep(1000);
	CHECK(fi_read_thread("/proc", getpid(), getpid(), &leader) == 0);
	CHECK(fi_read_process("/proc", getpid(), &s) == 0);
	CHECK(s.nr_threads == 2);
	CHECK(s.sum_exec_ns >= leader.sum_exec_ns + 50000000);
	close(fds[1]);
	pthread_join(th, NULL);
	close(fds[0]);
}

int main(void)
{
	RUN(parse_sched_full_sample);
	RUN(msns_conversion_is_exact);
	RUN(parse_sched_without_forceidle);
	RUN(parse_sched_rejects_bad_input);
	RUN(parse_cpu_stat_fields);
	RUN(read_process_fake_tree);
	RUN(read_process_gone_or_broken);
	RUN(live_proc_sums_threads);
	RUN(read_cgroup_and_host);
	RUN(share_between_samples);
	RUN(account_tasks_monotonic);
	RUN(account_task_exits);
	RUN(account_seed_and_limit);
	RUN(account_table_churn);
	RUN(account_cgroup_reset);
	RUN(account_threads);
	RUN(account_threads_exec_from_worker);
	RUN(account_threads_memory_returned);
	RUN(account_threads_exec_tid_reused);
	RUN(account_threads_ino_one);
	RUN(read_threads_start_once);
	RUN(summarize_known_values);
	RUN(label_escape);
	RUN(metrics_builder);
	RUN(metrics_write_atomic);
	if (access("/proc/self/sched", R_OK) == 0)
		RUN(live_proc_parses);
	else
		printf("SKIP: unit/live_proc_parses: no /proc/PID/sched (needs CONFIG_SCHED_DEBUG)\n");
	UNIT_EXIT();
}
