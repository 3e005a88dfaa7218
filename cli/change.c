// SPDX-License-Identifier: GPL-2.0-or-later
/* The daemon commands that change state: assign, run --group, clear,
 * reload, check-config. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "daemon-call.h"
#include "errmsg.h"

#define MAX_PIDS 4096

/* Adds argv[from..argc) as "pids". */
static int add_pids(json_object *params, int argc, char **argv, int from)
{
	json_object *pids = json_object_new_array();

	json_object_object_add(params, "pids", pids);
	if (argc - from > MAX_PIDS)
		return cli_usage_error("too many PIDs (at most %d)", MAX_PIDS);
	for (int i = from; i < argc; i++) {
		pid_t pid;

		if (cli_parse_pid(argv[i], &pid) < 0 || pid == 0)
			return cli_usage_error("invalid PID argument: '%s'", argv[i]);
		json_object_array_add(pids, json_object_new_int(pid));
	}
	return 0;
}

/* Prints each PidFailure of a reply escaped by report(); returns the exit
 * code of the last (0: none). */
static int report_failures(json_object *reply, const char *verb)
{
	json_object *failed = NULL;
	int status = 0;

	if (json_object_object_get_ex(reply, "failed", &failed) && failed &&
	    !json_object_is_type(failed, json_type_array)) {
		fprintf(stderr, "coresched: coreschedd answered with a malformed list of failures\n");
		return EXIT_FAILURE;
	}
	for (size_t i = 0; i < daemon_call_len(failed); i++) {
		json_object *f = json_object_array_get_idx(failed, i);
		const char *error = daemon_call_str(f, "error", "failed");

		fprintf(stderr, "coresched: cannot %s PID %lld: %s\n", verb, daemon_call_int(f, "pid", 0), error);
		status = daemon_call_pid_failure_code(error);
	}
	return status;
}

static void report_done(json_object *reply, const char *list, const char *what)
{
	json_object *done = NULL;

	if (!cli_verbose)
		return;
	json_object_object_get_ex(reply, list, &done);
	for (size_t i = 0; i < daemon_call_len(done); i++)
		fprintf(stderr, "coresched: %s PID %d%s%s%s%s\n", what,
			json_object_get_int(json_object_array_get_idx(done, i)),
			*list == 'a' ? " to group " : "", *list == 'a' ? daemon_call_str(reply, "group", "") : "",
			*list == 'a' ? ", cookie " : "", *list == 'a' ? daemon_call_str(reply, "cookie", "?") : "");
}

/* A daemon in a dry run changes no cookie: say so, whether -v or not, so
 * that a placement is never taken for isolation. */
static void dry_run_note(json_object *reply, const char *what)
{
	if (daemon_call_bool(reply, "dry_run"))
		fprintf(stderr, "coresched: coreschedd is in a dry run: nothing is applied; %s\n", what);
}

/* What an Assign or Clear reply says, its strings escaped once for the
 * terminal: the dry run, with -v what was done, and each failure. Returns
 * report_failures()'s code. */
static int report(json_object *reply, const char *list, const char *what, const char *verb)
{
	dry_run_note(reply, "the processes keep the cookies they carry");
	daemon_call_escape(reply);
	report_done(reply, list, what);
	return report_failures(reply, verb);
}

/* Only -v, -h and, where group is not NULL, -g/--group. */
static int parse_group_opts(int argc, char **argv, const char *name, const char **group)
{
	static const struct option opts[] = {
		{ "group", required_argument, NULL, 'g' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, group ? ":g:vh" : ":vh", opts, NULL)) >= 0) {
		switch (c) {
		case 'g':
			if (!group)
				return cli_usage_error("%s does not take --group", name);
			*group = optarg;
			break;
		case 'v': cli_verbose = true; break;
		case 'h': cli_command_usage(name); return -1;
		default: return cli_getopt_error(c, argv);
		}
	}
	return 0;
}

int cli_cmd_assign(int argc, char **argv)
{
	const char *group = NULL;
	json_object *params, *reply;
	int r = parse_group_opts(argc, argv, "assign", &group);

	if (r)
		return r < 0 ? 0 : r;
	if (!group)
		return cli_usage_error("assign needs --group GROUP");
	if (optind >= argc)
		return cli_usage_error("assign needs PIDs");
	params = json_object_new_object();
	json_object_object_add(params, "group", json_object_new_string(group));
	r = add_pids(params, argc, argv, optind);
	if (r == 0)
		r = daemon_call("io.coresched.Assign", params, &reply);
	json_object_put(params);
	if (r)
		return r;
	r = report(reply, "assigned", "assigned", "assign");
	json_object_put(reply);
	return r;
}

int cli_join_group(const char *group, bool *ret_lock)
{
	json_object *params = json_object_new_object(), *reply;
	int r;

	json_object_object_add(params, "group", json_object_new_string(group));
	/* The daemon places the peer of this connection: this very process,
	 * which then becomes the command. Nothing runs untagged in between. */
	r = daemon_call("io.coresched.Run", params, &reply);
	json_object_put(params);
	if (r)
		return r;
	dry_run_note(reply, "the command runs without the group's cookie");
	if (cli_verbose)
		fprintf(stderr, "coresched: joined group %s, cookie %s\n", daemon_call_str(reply, "group", group),
			daemon_call_str(reply, "cookie", "?"));
	*ret_lock = daemon_call_bool(reply, "lock");
	json_object_put(reply);
	return 0;
}

/* clear: through the daemon when it runs, so that it does not undo the
 * change as drift; directly otherwise. */
static int clear_parse(int argc, char **argv, bool *ret_type_given)
{
	static const struct option opts[] = {
		{ "dest-type", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	enum sc_scope type;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":t:vh", opts, NULL)) >= 0) {
		switch (c) {
		case 't':
			if (sc_scope_from_string(optarg, &type) < 0)
				return cli_usage_error("unsupported dest-type '%s' (pid, tgid or pgid)", optarg);
			*ret_type_given |= type != SC_SCOPE_THREAD_GROUP;
			break;
		case 'v': cli_verbose = true; break;
		case 'h': cli_command_usage("clear"); return -1;
		default: return cli_getopt_error(c, argv);
		}
	}
	return optind < argc ? 0 : cli_usage_error("clear needs PIDs");
}

int cli_cmd_clear_any(int argc, char **argv)
{
	json_object *params, *reply;
	bool type_given = false;
	int fd = -1, r = clear_parse(argc, argv, &type_given);

	if (r)
		return r < 0 ? 0 : r;
	params = json_object_new_object();
	r = add_pids(params, argc, argv, optind);
	if (r) {
		json_object_put(params);
		return r;
	}
	r = daemon_call_connect(&fd);
	if (r == -ENOENT || r == -ECONNREFUSED) {
		json_object_put(params);
		return cli_cmd_clear(argc, argv);
	}
	if (r == 0 && type_given)
		r = cli_usage_error("coreschedd runs and clears whole processes: -t pid and -t pgid are direct mode only");
	else if (r == 0)
		r = daemon_call_on(fd, "io.coresched.Clear", params, &reply);
	else
		r = daemon_call_connect_error(r);
	json_object_put(params);
	if (fd >= 0)
		close(fd);
	if (r)
		return r;
	r = report(reply, "cleared", "cleared", "clear");
	json_object_put(reply);
	return r;
}

int cli_cmd_reload(int argc, char **argv)
{
	json_object *reply;
	int r = parse_group_opts(argc, argv, "reload", NULL);

	if (r)
		return r < 0 ? 0 : r;
	if (optind < argc)
		return cli_usage_error("unexpected argument '%s'", argv[optind]);
	r = daemon_call("io.coresched.Reload", NULL, &reply);
	if (r)
		return r;
	if (cli_verbose)
		fprintf(stderr, "coresched: reloaded: %lld groups, configuration generation %lld\n",
			daemon_call_int(reply, "groups", 0), daemon_call_int(reply, "config_generation", 0));
	json_object_put(reply);
	return 0;
}

/* Whether the resolved path can go to the daemon; says why not. */
static bool utf8_path(const char *arg, const char *path)
{
	char *a, *p;
	size_t k;

	for (const char *c = path; *c; c += k)
		if (!(k = sc_utf8_len(c))) {
			a = sc_escape_controls(arg);
			p = sc_escape_controls(path);
			fprintf(stderr,
				"coresched: cannot use %s: its full path %s is not UTF-8, which the daemon's protocol "
				"cannot carry\n",
				a ? a : "", p ? p : "");
			free(a);
			free(p);
			return false;
		}
	return true;
}

int cli_cmd_check_config(int argc, char **argv)
{
	json_object *params = json_object_new_object(), *reply, *errors = NULL, *warnings = NULL, *ok = NULL;
	char dir[PATH_MAX];
	int r = parse_group_opts(argc, argv, "check-config", NULL);

	if (r == 0 && argc - optind > 1)
		r = cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
	/* The daemon resolves paths from its own working directory. */
	if (r == 0 && optind < argc && !realpath(argv[optind], dir))
		r = cli_error(-errno, "cannot use %s", argv[optind]);
	/* Through a link, or from the working directory, the path sent may
	 * hold what the argument does not. */
	if (r == 0 && optind < argc && !utf8_path(argv[optind], dir))
		r = EXIT_FAILURE;
	if (r == 0 && optind < argc)
		json_object_object_add(params, "dir", json_object_new_string(dir));
	if (r == 0)
		r = daemon_call("io.coresched.CheckConfig", params, &reply);
	json_object_put(params);
	if (r)
		return r < 0 ? 0 : r;
	daemon_call_escape(reply);
	json_object_object_get_ex(reply, "errors", &errors);
	for (size_t i = 0; i < daemon_call_len(errors); i++)
		fprintf(stderr, "%s\n", json_object_get_string(json_object_array_get_idx(errors, i)));
	json_object_object_get_ex(reply, "warnings", &warnings);
	for (size_t i = 0; i < daemon_call_len(warnings); i++)
		fprintf(stderr, "warning: %s\n", json_object_get_string(json_object_array_get_idx(warnings, i)));
	/* Valid only when the daemon says so in so many words, with no error. */
	r = json_object_object_get_ex(reply, "ok", &ok) && json_object_is_type(ok, json_type_boolean) &&
			    json_object_get_boolean(ok) && !daemon_call_len(errors) ?
		    0 :
		    EXIT_FAILURE;
	if (r && !daemon_call_len(errors))
		fprintf(stderr, "coresched: the configuration is not valid\n");
	if (r == 0)
		printf("ok\n");
	json_object_put(reply);
	return r;
}
