// SPDX-License-Identifier: GPL-2.0-or-later
/* coresched stats: forced-idle accounting per group key, as cumulative
 * totals or as statistics over repeated intervals. */
#include <errno.h>
#include <getopt.h>
#include <libsmartcols.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "daemon-call.h"
#include "sample-stats.h"
#include "table.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_COUNT 100000

struct stats_args {
	struct table_opts o;
	double interval;
	long count; /* 0: one cumulative table */
	bool untagged; /* the exposure per group instead */
};

enum { T_GROUP, T_KEY, T_TASKS, T_FORCED_IDLE, T_CPU, T_RATIO };
static const struct table_column total_cols[] = {
	[T_GROUP] = { "GROUP", 0.1, 0, 0, "group name" },
	[T_KEY] = { "KEY", 0.1, SCOLS_FL_TRUNC, 0, "the group's instance" },
	[T_TASKS] = { "TASKS", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "tasks now" },
	[T_FORCED_IDLE] = { "FORCED-IDLE", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			    "seconds siblings were forced idle while members ran" },
	[T_CPU] = { "CPU", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "CPU seconds members used" },
	[T_RATIO] = { "RATIO", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "FORCED-IDLE / CPU" },
};

enum { S_GROUP, S_KEY, S_METRIC, S_N, S_MEAN, S_STD, S_STD_PCT, S_SEM, S_SEM_PCT };
static const struct table_column sample_cols[] = {
	[S_GROUP] = { "GROUP", 0.1, 0, 0, "group name" },
	[S_KEY] = { "KEY", 0.1, SCOLS_FL_TRUNC, 0, "the group's instance" },
	[S_METRIC] = { "METRIC", 0.1, 0, 0, "forced-idle (s), cpu (s) or ratio, per interval" },
	[S_N] = { "N", 0.03, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "intervals measured" },
	[S_MEAN] = { "MEAN", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "mean" },
	[S_STD] = { "STD", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "sample standard deviation" },
	[S_STD_PCT] = { "STD%", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "STD relative to MEAN" },
	[S_SEM] = { "SEM", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "standard error of the mean" },
	[S_SEM_PCT] = { "SEM%", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "SEM relative to MEAN" },
};

enum { U_GROUP, U_PLACEMENTS, U_CPU };
static const struct table_column untagged_cols[] = {
	[U_GROUP] = { "GROUP", 0.1, 0, 0, "group name" },
	[U_PLACEMENTS] = { "PLACEMENTS", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
			   "processes given the group's cookie after they had run without it" },
	[U_CPU] = { "UNTAGGED-CPU", 0.1, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER,
		    "CPU seconds they had run so, since their exec or fork" },
};

static int parse_number(const char *s, double min, double max, double *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= min && v <= max))
		return -EINVAL;
	*ret = v;
	return 0;
}

static int stats_parse(int argc, char **argv, struct stats_args *a)
{
	static const struct option opts[] = {
		TABLE_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "untagged", no_argument, NULL, 'u' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	double v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" TABLE_SHORTOPTS "i:c:uh", opts, NULL)) >= 0) {
		if (c == 'i' && parse_number(optarg, 0.001, 86400, &a->interval) < 0)
			return cli_usage_error("invalid interval: '%s'", optarg);
		if (c == 'c' && (parse_number(optarg, 1, MAX_COUNT, &v) < 0 || v != (long)v))
			return cli_usage_error("invalid count: '%s'", optarg);
		if (c == 'c')
			a->count = (long)v;
		if (c == 'u')
			a->untagged = true;
		if (c == 'h') {
			cli_command_usage("stats");
			table_help(total_cols, ARRAY_SIZE(total_cols));
			printf("\nWith --count:\n");
			table_help(sample_cols, ARRAY_SIZE(sample_cols));
			printf("\nWith --untagged:\n");
			table_help(untagged_cols, ARRAY_SIZE(untagged_cols));
			return -1;
		}
		if (c == '?' || c == ':')
			return cli_getopt_error(c, argv);
		table_opt(&a->o, c, optarg);
	}
	if (a->untagged && a->count)
		return cli_usage_error("--untagged takes no --count");
	return optind < argc ? cli_usage_error("unexpected argument '%s'", argv[optind]) : 0;
}

static double ns_to_s(long long ns)
{
	return (double)ns / 1e9;
}

static int totals_row(struct table *t, json_object *k)
{
	char tasks[32], fi[32], cpu[32], ratio[32];
	const char *v[ARRAY_SIZE(total_cols)] = {};
	json_object *jr = NULL;

	json_object_object_get_ex(k, "ratio", &jr);
	snprintf(tasks, sizeof(tasks), "%lld", daemon_call_int(k, "tasks", 0));
	snprintf(fi, sizeof(fi), "%.3f", ns_to_s(daemon_call_int(k, "forced_idle_ns", 0)));
	snprintf(cpu, sizeof(cpu), "%.3f", ns_to_s(daemon_call_int(k, "cpu_ns", 0)));
	snprintf(ratio, sizeof(ratio), "%.4f", jr ? json_object_get_double(jr) : 0.0);
	v[T_GROUP] = daemon_call_str(k, "group", NULL);
	v[T_KEY] = daemon_call_str(k, "key", NULL);
	v[T_TASKS] = tasks;
	v[T_FORCED_IDLE] = fi;
	v[T_CPU] = cpu;
	v[T_RATIO] = ratio;
	return table_add(t, v);
}

static int print_totals(struct table *t, json_object *reply)
{
	json_object *keys = NULL;
	int r = 0;

	json_object_object_get_ex(reply, "keys", &keys);
	for (size_t i = 0; i < daemon_call_len(keys) && r >= 0; i++)
		r = totals_row(t, json_object_array_get_idx(keys, i));
	return table_print_free(t);
}

static void sleep_seconds(double s)
{
	struct timespec ts = { .tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* The entry of sample for group/key, or NULL. */
static json_object *find_key(json_object *sample, const char *group, const char *key)
{
	json_object *keys = NULL;

	json_object_object_get_ex(sample, "keys", &keys);
	for (size_t i = 0; i < daemon_call_len(keys); i++) {
		json_object *k = json_object_array_get_idx(keys, i);

		if (strcmp(daemon_call_str(k, "group", ""), group) == 0 &&
		    strcmp(daemon_call_str(k, "key", ""), key) == 0)
			return k;
	}
	return NULL;
}

static void format_value(char *buf, size_t size, double v, const char *fmt)
{
	if (isnan(v))
		buf[0] = '\0';
	else
		snprintf(buf, size, fmt, v);
}

static int sample_row(struct table *t, const char *group, const char *key, const char *metric,
		      const double *v, size_t n, const char *fmt)
{
	char num[32], mean[32], std[32], stdp[32], sem[32], semp[32];
	const char *vals[ARRAY_SIZE(sample_cols)] = { group, key, metric, num, mean, std, stdp, sem, semp };
	struct sample_stats s;

	if (sample_stats_compute(v, n, &s) < 0)
		return 0;
	snprintf(num, sizeof(num), "%zu", s.n);
	format_value(mean, sizeof(mean), s.mean, fmt);
	format_value(std, sizeof(std), s.std, fmt);
	format_value(sem, sizeof(sem), s.sem, fmt);
	format_value(stdp, sizeof(stdp), s.std_pct, "%.2f");
	format_value(semp, sizeof(semp), s.sem_pct, "%.2f");
	return table_add(t, vals);
}

/* Per-interval deltas of one key over samples[0..n]; rows for each metric. */
static int key_rows(struct table *t, json_object **samples, long n, json_object *last, double *buf)
{
	const char *group = daemon_call_str(last, "group", ""), *key = daemon_call_str(last, "key", "");
	double *fi = buf, *cpu = buf + n, *ratio = buf + 2 * n;
	size_t m = 0;
	int r;

	for (long i = 0; i < n; i++) {
		json_object *a = find_key(samples[i], group, key), *b = find_key(samples[i + 1], group, key);

		if (!a || !b)
			continue;
		fi[m] = ns_to_s(daemon_call_int(b, "forced_idle_ns", 0) - daemon_call_int(a, "forced_idle_ns", 0));
		cpu[m] = ns_to_s(daemon_call_int(b, "cpu_ns", 0) - daemon_call_int(a, "cpu_ns", 0));
		ratio[m] = cpu[m] > 0 ? fi[m] / cpu[m] : 0;
		m++;
	}
	r = sample_row(t, group, key, "forced-idle", fi, m, "%.6f");
	if (r >= 0)
		r = sample_row(t, group, key, "cpu", cpu, m, "%.6f");
	if (r >= 0)
		r = sample_row(t, group, key, "ratio", ratio, m, "%.4f");
	return r;
}

static int print_samples(struct table *t, json_object **samples, long n)
{
	json_object *keys = NULL;
	double *buf = calloc((size_t)n * 3, sizeof(double));
	int r = buf ? 0 : -ENOMEM;

	json_object_object_get_ex(samples[n], "keys", &keys);
	for (size_t i = 0; i < daemon_call_len(keys) && r >= 0; i++)
		r = key_rows(t, samples, n, json_object_array_get_idx(keys, i), buf);
	free(buf);
	if (r < 0) {
		table_free(t);
		return cli_error(r, "cannot summarise the samples");
	}
	return table_print_free(t);
}

/* count + 1 samples, interval seconds apart. */
static int take_samples(const struct stats_args *a, json_object **samples)
{
	for (long i = 0; i <= a->count; i++) {
		int r;

		if (i > 0)
			sleep_seconds(a->interval);
		r = daemon_call("io.coresched.Stats", NULL, &samples[i]);
		if (r) {
			while (i-- > 0)
				json_object_put(samples[i]);
			return r;
		}
	}
	return 0;
}

/* The exposure per group, from Status: it needs no forced-idle accounting. */
static int print_untagged(struct stats_args *a)
{
	json_object *reply = NULL, *x = NULL;
	struct table *t;
	int r = table_new("stats", untagged_cols, ARRAY_SIZE(untagged_cols), "GROUP,PLACEMENTS,UNTAGGED-CPU", &a->o,
			  &t);

	if (r)
		return r;
	r = daemon_call("io.coresched.Status", NULL, &reply);
	if (r) {
		table_free(t);
		return r;
	}
	/* A daemon older than this coresched does not say: not "none". */
	if (!json_object_object_get_ex(reply, "exposure", &x) || !json_object_is_type(x, json_type_array)) {
		json_object_put(reply);
		table_free(t);
		return cli_error(-EPROTONOSUPPORT,
				 "coreschedd does not report the exposure (restart it after an upgrade)");
	}
	for (size_t i = 0; i < daemon_call_len(x) && r >= 0; i++) {
		json_object *g = json_object_array_get_idx(x, i);
		char n[32], cpu[32];
		const char *v[ARRAY_SIZE(untagged_cols)] = {};

		snprintf(n, sizeof(n), "%lld", daemon_call_int(g, "untagged_placements", 0));
		snprintf(cpu, sizeof(cpu), "%.6f", ns_to_s(daemon_call_int(g, "untagged_cpu_ns", 0)));
		v[U_GROUP] = daemon_call_str(g, "group", NULL);
		v[U_PLACEMENTS] = n;
		v[U_CPU] = cpu;
		r = table_add(t, v);
	}
	json_object_put(reply);
	return table_print_free(t);
}

/* Zeros that mean "not counted", not "no cost", said so. */
static void warn_uncounted(json_object *sample)
{
	json_object *v = NULL;

	if (json_object_object_get_ex(sample, "schedstats", &v) && !json_object_get_boolean(v))
		fputs("coresched: warning: kernel.sched_schedstats is off, so the kernel counts no forced idle: "
		      "FORCED-IDLE does not grow (sysctl kernel.sched_schedstats=1 turns it on)\n",
		      stderr);
}

int cli_cmd_stats(int argc, char **argv)
{
	struct stats_args a = { .interval = 1 };
	json_object **samples;
	struct table *t;
	int r = stats_parse(argc, argv, &a);

	if (r)
		return r < 0 ? 0 : r;
	if (a.untagged)
		return print_untagged(&a);
	if (a.count == 0)
		r = table_new("stats", total_cols, ARRAY_SIZE(total_cols), "GROUP,KEY,TASKS,FORCED-IDLE,CPU,RATIO",
			      &a.o, &t);
	else
		r = table_new("stats", sample_cols, ARRAY_SIZE(sample_cols),
			      "GROUP,KEY,METRIC,N,MEAN,STD,STD%,SEM,SEM%", &a.o, &t);
	if (r)
		return r;
	samples = calloc((size_t)a.count + 1, sizeof(*samples));
	r = samples ? take_samples(&a, samples) : cli_error(-ENOMEM, "cannot sample");
	if (r) {
		free(samples);
		table_free(t);
		return r;
	}
	warn_uncounted(samples[a.count]);
	r = a.count == 0 ? print_totals(t, samples[0]) : print_samples(t, samples, a.count);
	for (long i = 0; i <= a.count; i++)
		json_object_put(samples[i]);
	free(samples);
	return r;
}
