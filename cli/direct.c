// SPDX-License-Identifier: GPL-2.0-or-later
/* Direct mode: the util-linux compatible functions, no daemon involved. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "sandbox.h"

#define MAX_PIDS 1024

struct direct_args {
	const char *name;     /* the function */
	pid_t src;
	bool has_src;
	pid_t dest;
	bool has_dest;
	bool new_cookie;
	bool lock;             /* COMMAND may not change its cookie */
	const char *group;     /* run -g: the daemon's group */
	enum sc_scope type;
	char **exec_argv;     /* after "--" */
	pid_t pids[MAX_PIDS]; /* -s for get, and positional PIDs */
	size_t n_pids;
};

/* PID 0 is the caller to the kernel: coresched itself, or its process
 * group with -t pgid. util-linux refuses it; so does coreschedd. */
static int parse_pid(const char *s, pid_t *ret)
{
	return cli_parse_pid(s, ret) < 0 || *ret == 0 ? -EINVAL : 0;
}

static int add_pid(struct direct_args *a, const char *s)
{
	pid_t pid;

	if (parse_pid(s, &pid) < 0)
		return cli_usage_error("invalid PID argument: '%s'", s);
	if (a->n_pids >= MAX_PIDS)
		return cli_usage_error("too many PIDs (at most %d)", MAX_PIDS);
	a->pids[a->n_pids++] = pid;
	return 0;
}

static int parse_one(struct direct_args *a, int c, const char *arg)
{
	switch (c) {
	case 's':
		if (a->has_src && a->n_pids > 0)
			a->n_pids--; /* the last -s counts, as in util-linux */
		a->has_src = true;
		if (parse_pid(arg, &a->src) < 0)
			return cli_usage_error("invalid PID argument: '%s'", arg);
		return add_pid(a, arg);
	case 'd':
		a->has_dest = true;
		if (parse_pid(arg, &a->dest) < 0)
			return cli_usage_error("invalid PID argument: '%s'", arg);
		return 0;
	case 't':
		if (sc_scope_from_string(arg, &a->type) < 0)
			return cli_usage_error("unsupported dest-type '%s' (pid, tgid or pgid)", arg);
		return 0;
	case 'g':
		if (strcmp(a->name, "run") != 0)
			return cli_usage_error("%s does not take --group", a->name);
		a->group = arg;
		return 0;
	case 'n':
		/* new and copy would take it for a choice it is not */
		if (strcmp(a->name, "run") != 0)
			return cli_usage_error("%s does not take --new", a->name);
		a->new_cookie = true;
		return 0;
	case 'L': a->lock = true; return 0;
	case 'v': cli_verbose = true; return 0;
	case 'h':
		cli_command_usage(a->name);
		exit(0);
	case 'V':
		printf("coresched %s\n", VERSION);
		exit(0);
	default:
		return cli_usage_error("bad option");
	}
}

/* util-linux's new and copy run what follows their options, "--" or not;
 * so does run. */
static bool takes_command(const char *name)
{
	return strcmp(name, "new") == 0 || strcmp(name, "copy") == 0 || strcmp(name, "run") == 0;
}

/* The front end hands --lock (seccomp) and run --group (coreschedd) to the
 * full command line once the arguments are known good, before anything
 * is changed. */
static int direct_only(const struct direct_args *a)
{
#ifdef CLI_FRONTEND
	if (a->lock || a->group)
		return cli_handoff(0, NULL);
#else
	(void)a;
#endif
	return 0;
}

static int parse_args(int argc, char **argv, struct direct_args *a)
{
	static const struct option opts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "dest", required_argument, NULL, 'd' },
		{ "dest-type", required_argument, NULL, 't' },
		{ "group", required_argument, NULL, 'g' },
		{ "new", no_argument, NULL, 'n' },
		{ "lock", no_argument, NULL, 'L' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c, r;

	*a = (struct direct_args){ .type = SC_SCOPE_THREAD_GROUP, .name = argv[0] };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:s:d:t:g:vhV", opts, NULL)) >= 0) {
		if (c == ':')
			return argv[optind - 1][1] == '-'
				       ? cli_usage_error("option '%s' requires an argument", argv[optind - 1])
				       : cli_usage_error("option requires an argument -- '%c'", optopt);
		if (c == '?') {
			return optopt ? cli_usage_error("invalid option -- '%c'", optopt)
				      : cli_usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
		r = parse_one(a, c, optarg);
		if (r)
			return r;
	}
	/* get takes PIDs after "--" too, as util-linux's "coresched -- get" */
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0 && takes_command(argv[0])) {
		if (optind >= argc)
			return cli_usage_error("no command after '--'");
		a->exec_argv = argv + optind;
		return direct_only(a);
	}
	if (optind < argc && takes_command(argv[0])) {
		a->exec_argv = argv + optind;
		return direct_only(a);
	}
	if (a->lock)
		return cli_usage_error("--lock needs -- COMMAND");
	for (; optind < argc; optind++) {
		r = add_pid(a, argv[optind]);
		if (r)
			return r;
	}
	return 0;
}

static void report(pid_t pid)
{
	sc_cookie c;

	if (cli_verbose && sc_get(pid, &c) == 0)
		fprintf(stderr, "coresched: set cookie of PID %d to 0x%llx\n", pid, (unsigned long long)c);
}

/* As util-linux's copy -v: the cookie as read back from the source. */
static void report_copy(pid_t src, pid_t dest)
{
	sc_cookie c;

	if (cli_verbose && sc_get(src, &c) == 0)
		fprintf(stderr, "coresched: copied cookie 0x%llx from PID %d to PID %d\n", (unsigned long long)c,
			src, dest);
}

int cli_cmd_get(int argc, char **argv)
{
	struct direct_args a;
	int r, status = 0;

	r = parse_args(argc, argv, &a);
	if (r)
		return r;
	if (a.has_dest || a.exec_argv)
		return cli_usage_error("get takes -s PID or PIDs only");
	if (a.n_pids == 0)
		a.pids[a.n_pids++] = getpid();
	for (size_t i = 0; i < a.n_pids; i++) {
		sc_cookie c;

		r = sc_get(a.pids[i], &c);
		if (r < 0) {
			status = cli_error(r, "cannot get the cookie of PID %d", a.pids[i]);
			if (r == -EINVAL || r == -ENODEV)
				return status;
			continue;
		}
		printf("cookie of pid %d is 0x%llx\n", a.pids[i], (unsigned long long)c);
	}
	return status;
}

/* After the cookie is set, before exec: the command and its descendants
 * get EPERM from every PR_SCHED_CORE call, so they cannot leave it. */
static int lock_and_exec(char **argv)
{
#ifdef CLI_FRONTEND
	/* not reached: direct_only() handed --lock on */
	return cli_handoff(0, argv);
#else
	int r = sandbox_lock_sched_core();

	if (r < 0)
		return cli_error(r, "cannot lock the cookie of the command");
	return cli_exec(argv);
#endif
}

static int new_cookie(const struct direct_args *a)
{
	pid_t self = getpid();
	int r;

	if (a->has_dest == !!a->exec_argv)
		return cli_usage_error("new needs either -d PID or -- COMMAND");
	r = sc_create(a->has_dest ? a->dest : self, a->type);
	if (r < 0)
		return cli_error(r, "cannot create a cookie for PID %d", a->has_dest ? a->dest : self);
	report(a->has_dest ? a->dest : self);
	if (!a->exec_argv)
		return 0;
	return a->lock ? lock_and_exec(a->exec_argv) : cli_exec(a->exec_argv);
}

int cli_cmd_new(int argc, char **argv)
{
	struct direct_args a;
	int r = parse_args(argc, argv, &a);

	if (r)
		return r;
	if (a.has_src)
		return cli_usage_error("new does not take -s");
	return new_cookie(&a);
}

int cli_cmd_run(int argc, char **argv)
{
	const char *group;
	bool group_lock = false;
	struct direct_args a;
	int r = parse_args(argc, argv, &a);

	if (r)
		return r;
	group = a.group;
	if (a.has_src || a.has_dest)
		return cli_usage_error("run does not take -s or -d: it runs COMMAND");
	if (!a.exec_argv)
		return cli_usage_error("run needs -- COMMAND");
	if (group && *group == '\0')
		return cli_usage_error("empty group name");
	if (group && (a.new_cookie || a.type != SC_SCOPE_THREAD_GROUP))
		return cli_usage_error("run --group does not take --new or -t");
	/* A group is coreschedd's to give: without one this is direct mode. */
	if (!group)
		return new_cookie(&a);
#ifdef CLI_FRONTEND
	r = cli_handoff(0, NULL); /* not reached: direct_only() handed it on */
#else
	r = cli_join_group(group, &group_lock);
#endif
	if (r)
		return r;
	/* Lock=yes in the group: as if --lock were given. */
	return a.lock || group_lock ? lock_and_exec(a.exec_argv) : cli_exec(a.exec_argv);
}

int cli_cmd_copy(int argc, char **argv)
{
	struct direct_args a;
	int r = parse_args(argc, argv, &a);

	if (r)
		return r;
	if (a.has_dest == !!a.exec_argv || a.n_pids > (a.has_src ? 1u : 0u))
		return cli_usage_error("copy needs either -d PID or -- COMMAND");
	/* Without -s the cookie is coresched's own, which it already carries. */
	if (a.has_src) {
		r = sc_share_from(a.src);
		if (r < 0)
			return cli_error(r, "cannot copy the cookie of PID %d", a.src);
	}
	if (a.exec_argv) {
		report(a.has_src ? a.src : getpid());
		return a.lock ? lock_and_exec(a.exec_argv) : cli_exec(a.exec_argv);
	}
	r = sc_share_to(a.dest, a.type);
	if (r < 0)
		return cli_error(r, "cannot set the cookie of PID %d", a.dest);
	report_copy(a.has_src ? a.src : getpid(), a.dest);
	return 0;
}

/* SHARE_TO pushes the caller's cookie, and there is no CLEAR command: to
 * clear, coresched must itself carry cookie 0. If it inherited one, pull
 * cookie 0 from a task that has none (init, then the parent). */
static int ensure_own_cookie_zero(void)
{
	const pid_t candidates[] = { 1, getppid() };
	sc_cookie c;
	int r = sc_get(0, &c);

	if (r < 0 || c == 0)
		return r;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (sc_get(candidates[i], &c) == 0 && c == 0 && sc_share_from(candidates[i]) == 0)
			return 0;
	return -EPERM;
}

int cli_cmd_clear(int argc, char **argv)
{
	struct direct_args a;
	int r = parse_args(argc, argv, &a);
	int status = 0;
	sc_cookie own;

	if (r)
		return r;
	if (a.has_src || a.has_dest || a.exec_argv || a.n_pids == 0)
		return cli_usage_error("clear needs PIDs");
	/* A kernel without core scheduling (or SMT) answers coresched's
	 * own cookie first: the error names what was asked. */
	if ((r = sc_get(0, &own)) < 0)
		return cli_error(r, "cannot clear the cookie of PID %d", a.pids[0]);
	r = ensure_own_cookie_zero();
	if (r < 0)
		return cli_error(r, "coresched carries a cookie and found no task with cookie 0 to copy");
	for (size_t i = 0; i < a.n_pids; i++) {
		r = sc_share_to(a.pids[i], a.type);
		if (r < 0) {
			status = cli_error(r, "cannot clear the cookie of PID %d", a.pids[i]);
			continue;
		}
		report(a.pids[i]);
	}
	return status;
}
