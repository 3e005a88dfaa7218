// SPDX-License-Identifier: GPL-2.0-or-later
/* The read-only daemon commands: status, list, ps, explain. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libsmartcols.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "daemon-call.h"
#include "table.h"

#define MAX_PIDS 4096
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void print_json(json_object *o)
{
	printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED));
}

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

/* Options of a command that takes only -h and the table options (or,
 * with table NULL, only -J). Returns 0, or an exit code; -1 after --help. */
static int parse_simple(int argc, char **argv, const char *name, struct table_opts *o,
			const struct table_column *cols, size_t n_cols)
{
	static const struct option opts[] = { TABLE_LONGOPTS, { "help", no_argument, NULL, 'h' }, {} };
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:" TABLE_SHORTOPTS "h", opts, NULL)) >= 0) {
		if (c == 'h') {
			cli_command_usage(name);
			if (cols)
				table_help(cols, n_cols);
			return -1;
		}
		if (c == '?' || c == ':')
			return cli_getopt_error(c, argv);
		if (!cols && c != 'J')
			return cli_usage_error("%s takes only -J", name);
		table_opt(o, c, optarg);
	}
	return 0;
}

/* A daemon in a dry run applies nothing: say so on stderr, so that what
 * stdout shows is never taken for the kernel's state. */
static bool dry_run_note(json_object *reply)
{
	bool dry = daemon_call_bool(reply, "dry_run");

	if (dry)
		fprintf(stderr, "coresched: coreschedd is in a dry run: nothing is applied; groups, keys and "
				"cookies are what it would apply, not the kernel's\n");
	return dry;
}

/* A member that is null (or absent) as "not probed (dry run)". */
static const char *probed(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return "not probed (dry run)";
	return yes_no(json_object_get_boolean(v));
}

static int no_arguments(int argc, char **argv)
{
	return optind < argc ? cli_usage_error("unexpected argument '%s'", argv[optind]) : 0;
}

/* ---- status ---- */

static void status_counters(json_object *cnt)
{
	json_object_object_foreach(cnt, key, val)
		printf("  %s: %" PRId64 "\n", key, json_object_get_int64(val));
}

/* Per group: CPU time run before the group's cookie came. */
static void status_exposure(json_object *s)
{
	json_object *x = NULL;
	size_t n;

	if (!json_object_object_get_ex(s, "exposure", &x) || !(n = daemon_call_len(x)))
		return;
	printf("untagged before placement:\n");
	for (size_t i = 0; i < n; i++) {
		json_object *g = json_object_array_get_idx(x, i);

		printf("  %s: %.6f s CPU in %lld placements\n", daemon_call_str(g, "group", "?"),
		       (double)daemon_call_int(g, "untagged_cpu_ns", 0) / 1e9,
		       daemon_call_int(g, "untagged_placements", 0));
	}
}

/* How long processes ran before the cookie their group gives came. */
static void status_window(json_object *s)
{
	json_object *w = NULL;

	if (!json_object_object_get_ex(s, "window", &w) || !w)
		return;
	printf("untagged window: %lld placements", daemon_call_int(w, "placements", 0));
	if (daemon_call_int(w, "placements", 0) > 0)
		printf(", p50 %lld us, p90 %lld us, p99 %lld us, max %lld us", daemon_call_int(w, "p50_usec", 0),
		       daemon_call_int(w, "p90_usec", 0), daemon_call_int(w, "p99_usec", 0),
		       daemon_call_int(w, "max_usec", 0));
	printf("\n");
}

static void status_print(json_object *s)
{
	json_object *src = NULL, *stats = NULL, *cnt = NULL;
	long long up = daemon_call_int(s, "uptime_usec", 0) / 1000000;

	daemon_call_escape(s);
	printf("coreschedd: running\n");
	printf("version: %s\n", daemon_call_str(s, "version", "?"));
	printf("pid: %lld\n", daemon_call_int(s, "pid", 0));
	printf("uptime: %lldd %02lld:%02lld:%02lld\n", up / 86400, up / 3600 % 24, up / 60 % 60, up % 60);
	printf("dry run: %s\n", daemon_call_bool(s, "dry_run") ? "yes (nothing is applied to the kernel)" : "no");
	printf("core scheduling: %s\n", probed(s, "core_scheduling"));
	printf("SMT: %s\n", probed(s, "smt"));
	if (json_object_object_get_ex(s, "stats", &stats) && stats)
		printf("schedstats: %s\nforced-idle accounting: %s\n", yes_no(daemon_call_bool(stats, "schedstats")),
		       yes_no(daemon_call_bool(stats, "accounting")));
	else
		printf("forced-idle accounting: off\n");
	printf("seccomp: %s\n", yes_no(daemon_call_bool(s, "seccomp")));
	printf("confinement: %s\n", daemon_call_str(s, "confinement", "?"));
	printf("config dir: %s\n", daemon_call_str(s, "config_dir", ""));
	printf("config generation: %lld\n", daemon_call_int(s, "config_generation", 0));
	printf("config sources:\n");
	json_object_object_get_ex(s, "config_sources", &src);
	for (size_t i = 0; i < daemon_call_len(src); i++)
		printf("  %s\n", json_object_get_string(json_object_array_get_idx(src, i)));
	printf("groups: %lld\n", daemon_call_int(s, "groups", 0));
	printf("keys: %lld\n", daemon_call_int(s, "keys", 0));
	printf("cookie holders: %lld\n", daemon_call_int(s, "live_cookies", 0));
	printf("tracked processes: %lld\n", daemon_call_int(s, "tracked_processes", 0));
	printf("clients: %lld\n", daemon_call_int(s, "clients", 0));
	if (json_object_object_get_ex(s, "counters", &cnt) && json_object_is_type(cnt, json_type_object)) {
		printf("counters:\n");
		status_counters(cnt);
	}
	status_window(s);
	status_exposure(s);
}

int cli_cmd_status(int argc, char **argv)
{
	struct table_opts o = {};
	json_object *reply;
	int r = parse_simple(argc, argv, "status", &o, NULL, 0);

	if (r == 0)
		r = no_arguments(argc, argv);
	if (r)
		return r < 0 ? 0 : r;
	r = daemon_call("io.coresched.Status", NULL, &reply);
	if (r)
		return r;
	if (o.json)
		print_json(reply);
	else
		status_print(reply);
	json_object_put(reply);
	return 0;
}

/* ---- list ---- */

enum { L_GROUP, L_KEY, L_TASKS, L_COOKIE, L_PER, L_TRUSTED, L_SOURCE, L_ASSIGNMENTS };
static const struct table_column list_cols[] = {
	[L_GROUP] = { "GROUP", 0.1, 0, 0, "group name" },
	[L_KEY] = { "KEY", 0.1, SCOLS_FL_TRUNC, 0, "instance: uid, cgroup, PID:START, container:ID or pod:ID; empty for Per=group" },
	[L_TASKS] = { "TASKS", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "tasks carrying the cookie" },
	[L_COOKIE] = { "COOKIE", 0.1, 0, 0, "the kernel's cookie (a dry run's: planned)" },
	[L_PER] = { "PER", 0.05, 0, 0, "how members are split" },
	[L_TRUSTED] = { "TRUSTED", 0.05, 0, SCOLS_JSON_BOOLEAN, "members run with cookie 0" },
	[L_SOURCE] = { "SOURCE", 0.3, SCOLS_FL_TRUNC, 0, "file:line defining the group" },
	[L_ASSIGNMENTS] = { "ASSIGNMENTS", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "cookies given" },
};

static int list_row(struct table *t, json_object *g)
{
	char tasks[32], assignments[32];
	const char *v[ARRAY_SIZE(list_cols)] = {};

	snprintf(tasks, sizeof(tasks), "%lld", daemon_call_int(g, "tasks", 0));
	snprintf(assignments, sizeof(assignments), "%lld", daemon_call_int(g, "assignments", 0));
	v[L_GROUP] = daemon_call_str(g, "name", NULL);
	v[L_KEY] = daemon_call_str(g, "key", NULL);
	v[L_TASKS] = tasks;
	v[L_COOKIE] = daemon_call_str(g, "cookie", NULL);
	v[L_PER] = daemon_call_str(g, "per", NULL);
	/* yes/no: libsmartcols reads a JSON boolean cell as false only
	 * when it is empty or starts with 0, N or n. */
	v[L_TRUSTED] = daemon_call_bool(g, "trusted") ? "yes" : "no";
	v[L_SOURCE] = daemon_call_str(g, "source", NULL);
	v[L_ASSIGNMENTS] = assignments;
	return table_add(t, v);
}

int cli_cmd_list(int argc, char **argv)
{
	struct table_opts o = {};
	json_object *reply, *groups = NULL;
	struct table *t;
	int r = parse_simple(argc, argv, "list", &o, list_cols, ARRAY_SIZE(list_cols));

	if (r == 0)
		r = no_arguments(argc, argv);
	if (r)
		return r < 0 ? 0 : r;
	r = table_new("groups", list_cols, ARRAY_SIZE(list_cols), "GROUP,KEY,TASKS,COOKIE,PER,TRUSTED,SOURCE",
		      &o, &t);
	if (r)
		return r;
	r = daemon_call("io.coresched.ListGroups", NULL, &reply);
	if (r) {
		table_free(t);
		return r;
	}
	table_json_flag(t, "dry_run", dry_run_note(reply));
	json_object_object_get_ex(reply, "groups", &groups);
	for (size_t i = 0; i < daemon_call_len(groups) && r >= 0; i++)
		r = list_row(t, json_object_array_get_idx(groups, i));
	json_object_put(reply);
	return table_print_free(t);
}

/* ---- ps ---- */

enum { P_PID, P_USER, P_UID, P_COMM, P_GROUP, P_KEY, P_COOKIE, P_ORIGIN, P_EXE, P_CGROUP };
static const struct table_column ps_cols[] = {
	[P_PID] = { "PID", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "process id" },
	[P_USER] = { "USER", 0.08, 0, 0, "owner's name" },
	[P_UID] = { "UID", 0.05, SCOLS_FL_RIGHT, SCOLS_JSON_NUMBER, "owner's uid" },
	[P_COMM] = { "COMM", 0.1, 0, 0, "command name" },
	[P_GROUP] = { "GROUP", 0.1, 0, 0, "the group it is in" },
	[P_KEY] = { "KEY", 0.1, SCOLS_FL_TRUNC, 0, "the group's instance" },
	[P_COOKIE] = { "COOKIE", 0.1, 0, 0, "cookie read back from the kernel (a dry run's: planned)" },
	[P_ORIGIN] = { "ORIGIN", 0.08, 0, 0, "how it got its cookie" },
	[P_EXE] = { "EXE", 0.3, SCOLS_FL_TRUNC, 0, "executable" },
	[P_CGROUP] = { "CGROUP", 0.2, SCOLS_FL_TRUNC, 0, "cgroup v2 path" },
};

struct ps_args {
	struct table_opts o;
	json_object *params;
	json_object *pids; /* the PIDs asked for (a reference), or NULL */
};

static int parse_user(const char *s, json_object *params)
{
	struct passwd *pw = getpwnam(s);
	pid_t uid;

	if (pw)
		uid = (pid_t)pw->pw_uid;
	else if (cli_parse_pid(s, &uid) < 0)
		return cli_usage_error("unknown user '%s'", s);
	json_object_object_add(params, "user", json_object_new_int(uid));
	return 0;
}

static int ps_pids(int argc, char **argv, json_object *params)
{
	json_object *pids;

	if (argc - optind > MAX_PIDS)
		return cli_usage_error("too many PIDs (at most %d)", MAX_PIDS);
	pids = json_object_new_array();
	json_object_object_add(params, "pids", pids);
	for (int i = optind; i < argc; i++) {
		pid_t pid;

		if (cli_parse_pid(argv[i], &pid) < 0 || pid == 0)
			return cli_usage_error("invalid PID argument: '%s'", argv[i]);
		json_object_array_add(pids, json_object_new_int(pid));
	}
	return 0;
}

static int ps_parse(int argc, char **argv, struct ps_args *a)
{
	static const struct option opts[] = {
		TABLE_LONGOPTS,
		{ "user", required_argument, NULL, 'u' },
		{ "group", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c, r = 0;

	optind = 1;
	opterr = 0;
	while (r == 0 && (c = getopt_long(argc, argv, ":" TABLE_SHORTOPTS "u:g:h", opts, NULL)) >= 0) {
		if (c == '?' || c == ':')
			return cli_getopt_error(c, argv);
		if (c == 'h') {
			cli_command_usage("ps");
			table_help(ps_cols, ARRAY_SIZE(ps_cols));
			return -1;
		}
		if (c == 'u')
			r = parse_user(optarg, a->params);
		else if (c == 'g')
			json_object_object_add(a->params, "group", json_object_new_string(optarg));
		else
			table_opt(&a->o, c, optarg);
	}
	if (r == 0 && optind < argc)
		r = ps_pids(argc, argv, a->params);
	return r;
}

static int ps_row(struct table *t, json_object *p)
{
	char pid[16], uid[16], cut[PATH_MAX + 16];
	const char *v[ARRAY_SIZE(ps_cols)] = {};

	snprintf(pid, sizeof(pid), "%lld", daemon_call_int(p, "pid", 0));
	snprintf(uid, sizeof(uid), "%lld", daemon_call_int(p, "uid", 0));
	v[P_PID] = pid;
	v[P_UID] = uid;
	v[P_USER] = daemon_call_str(p, "user", uid);
	v[P_COMM] = daemon_call_str(p, "comm", NULL);
	v[P_GROUP] = daemon_call_str(p, "group", NULL);
	v[P_KEY] = daemon_call_str(p, "key", NULL);
	v[P_COOKIE] = daemon_call_str(p, "cookie", NULL);
	v[P_ORIGIN] = daemon_call_str(p, "origin", NULL);
	v[P_EXE] = daemon_call_str(p, "exe", NULL);
	v[P_CGROUP] = daemon_call_str(p, "cgroup", NULL);
	/* The mark goes first: a terminal's width cuts the end of the cell,
	 * and a path the kernel cut is always longer than that. */
	if (v[P_CGROUP] && daemon_call_bool(p, "cgroup_cut")) {
		snprintf(cut, sizeof(cut), "(cut) %s/...", v[P_CGROUP]);
		v[P_CGROUP] = cut;
	}
	return table_add(t, v);
}

static int by_pid(const void *a, const void *b)
{
	int x = json_object_get_int(json_object_object_get(*(json_object *const *)a, "pid"));
	int y = json_object_get_int(json_object_object_get(*(json_object *const *)b, "pid"));

	return (x > y) - (x < y);
}

/* Names each PID asked for that the listing does not hold: true if any. */
static bool ps_missing(json_object *asked, json_object *procs)
{
	bool any = false;

	for (size_t i = 0; asked && i < daemon_call_len(asked); i++) {
		int pid = json_object_get_int(json_object_array_get_idx(asked, i));
		bool found = false;

		for (size_t j = 0; !found && j < daemon_call_len(procs); j++)
			found = daemon_call_int(json_object_array_get_idx(procs, j), "pid", 0) == pid;
		if (!found) {
			fprintf(stderr, "coresched: PID %d: not a process coreschedd tracks%s\n", pid,
				getuid() == 0 ? "" : " and shows you");
			any = true;
		}
	}
	return any;
}

int cli_cmd_ps(int argc, char **argv)
{
	struct ps_args a = { .params = json_object_new_object() };
	json_object *reply = NULL, *procs = NULL;
	struct table *t = NULL;
	bool missing;
	int r = ps_parse(argc, argv, &a);

	if (r == 0 && json_object_object_get_ex(a.params, "pids", &a.pids))
		json_object_get(a.pids);

	if (r == 0)
		r = table_new("processes", ps_cols, ARRAY_SIZE(ps_cols), "PID,USER,COMM,GROUP,KEY,COOKIE,ORIGIN",
			      &a.o, &t);
	if (r == 0)
		r = daemon_call("io.coresched.ListProcesses", a.params, &reply);
	json_object_put(a.params);
	if (r) {
		table_free(t);
		return r < 0 ? 0 : r;
	}
	table_json_flag(t, "dry_run", dry_run_note(reply));
	json_object_object_get_ex(reply, "processes", &procs);
	if (json_object_is_type(procs, json_type_array))
		json_object_array_sort(procs, by_pid);
	for (size_t i = 0; i < daemon_call_len(procs) && r >= 0; i++)
		r = ps_row(t, json_object_array_get_idx(procs, i));
	missing = ps_missing(a.pids, procs);
	if (daemon_call_bool(reply, "truncated"))
		fprintf(stderr, "coresched: only the first 512 of your processes are listed; name PIDs to see others\n");
	json_object_put(reply);
	json_object_put(a.pids);
	r = table_print_free(t);
	return r ? r : missing ? EXIT_NO_PROCESS : 0;
}

/* ---- explain ---- */

static void explain_rules(json_object *rules)
{
	printf("rules, in evaluation order:\n");
	if (daemon_call_len(rules) == 0)
		printf("  (no groups are configured)\n");
	for (size_t i = 0; i < daemon_call_len(rules); i++) {
		json_object *r = json_object_array_get_idx(rules, i);

		printf("  %-3s %s (%s): %s\n", daemon_call_bool(r, "matched") ? "yes" : "no",
		       daemon_call_str(r, "group", ""), daemon_call_str(r, "source", ""),
		       daemon_call_str(r, "reason", ""));
	}
}

static void explain_print(json_object *e)
{
	json_object *rules = NULL;
	const char *key, *cgroup;

	daemon_call_escape(e); /* comm, exe, cgroup and key are the process's */
	key = daemon_call_str(e, "key", NULL);
	printf("pid: %lld\n", daemon_call_int(e, "pid", 0));
	printf("comm: %s\n", daemon_call_str(e, "comm", ""));
	printf("exe: %s\n", daemon_call_str(e, "exe", ""));
	printf("uid: %lld\n", daemon_call_int(e, "uid", 0));
	printf("gid: %lld\n", daemon_call_int(e, "gid", 0));
	cgroup = daemon_call_str(e, "cgroup", "");
	if (daemon_call_bool(e, "cgroup_cut"))
		printf("cgroup: %s/... (cut by the kernel: the process's own is below it)\n", cgroup);
	else
		printf("cgroup: %s\n", *cgroup ? cgroup : "(none read)");
	json_object_object_get_ex(e, "rules", &rules);
	explain_rules(rules);
	printf("rules choose: %s\n", daemon_call_str(e, "rule_group", "(none)"));
	printf("group: %s\n", daemon_call_str(e, "group", "(none)"));
	if (key)
		printf("key: %s\n", *key ? key : "(one key for the whole group)");
	printf("origin: %s\n", daemon_call_str(e, "origin", ""));
	if (daemon_call_bool(e, "dry_run"))
		printf("planned cookie (not applied): %s\n", daemon_call_str(e, "cookie", ""));
	else
		printf("cookie now: %s\n", daemon_call_str(e, "cookie", ""));
	printf("expected cookie: %s\n", daemon_call_str(e, "expected_cookie", "(any: set by someone else)"));
	printf("agrees: %s\n", yes_no(daemon_call_bool(e, "agrees")));
}

int cli_cmd_explain(int argc, char **argv)
{
	struct table_opts o = {};
	json_object *params, *reply;
	pid_t pid;
	int r = parse_simple(argc, argv, "explain", &o, NULL, 0);

	if (r > 0 || (r == 0 && argc - optind != 1))
		return r > 0 ? r : cli_usage_error("explain needs one PID");
	if (r < 0)
		return 0;
	if (cli_parse_pid(argv[optind], &pid) < 0 || pid == 0)
		return cli_usage_error("invalid PID argument: '%s'", argv[optind]);
	params = json_object_new_object();
	json_object_object_add(params, "pid", json_object_new_int(pid));
	r = daemon_call("io.coresched.Explain", params, &reply);
	json_object_put(params);
	if (r)
		return r;
	(void)dry_run_note(reply);
	if (o.json)
		print_json(reply);
	else
		explain_print(reply);
	json_object_put(reply);
	return 0;
}
