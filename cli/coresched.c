// SPDX-License-Identifier: GPL-2.0-or-later
/* coresched: the command table and what every command shares. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif

bool cli_verbose;

/* The front end (/usr/bin/coresched, libc only) runs the direct functions
 * itself and hands every other one to the full command line. */
#ifdef CLI_FRONTEND
#define FULL(f) cli_handoff
#else
#define FULL(f) f
#endif

static const struct cli_command commands[] = {
	{ "get", "[-s PID] [PID...]", cli_cmd_get },
	{ "new", "[-t TYPE] [--lock] (-d PID | [--] COMMAND [ARG...])", cli_cmd_new },
	{ "copy", "[-s PID] [-t TYPE] [--lock] (-d PID | [--] COMMAND [ARG...])", cli_cmd_copy },
	{ "run", "[--new] [-t TYPE] [-g GROUP] [--lock] [--] COMMAND [ARG...]", cli_cmd_run },
	{ "clear", "[-t TYPE] PID...", FULL(cli_cmd_clear_any) },
	{ "status", "[-J]", FULL(cli_cmd_status) },
	{ "list", "[-J] [-n] [-r] [-o COLUMNS]", FULL(cli_cmd_list) },
	{ "ps", "[-J] [-n] [-r] [-o COLUMNS] [-u USER] [-g GROUP] [PID...]", FULL(cli_cmd_ps) },
	{ "explain", "[-J] PID", FULL(cli_cmd_explain) },
	{ "assign", "-g GROUP PID...", FULL(cli_cmd_assign) },
	{ "reload", "", FULL(cli_cmd_reload) },
	{ "check-config", "[DIR]", FULL(cli_cmd_check_config) },
	{ "stats", "[-i SECONDS] [-c COUNT] [-u] [-J] [-n] [-r] [-o COLUMNS]", FULL(cli_cmd_stats) },
	{ "oci-hook", "[--timeout MS] [--fail-mode open|closed]", FULL(cli_cmd_oci_hook) },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, " coresched %s%s%s\n", commands[i].name, *commands[i].usage ? " " : "", commands[i].usage);
	fprintf(f, "\nManage core scheduling cookies for tasks. Options may also come before\n"
		   "the function, as in util-linux: coresched -v new -d PID.\n\n"
		   "Functions:\n"
		   " get     print the cookie of PID (default: coresched itself)\n"
		   " new     give PID, or COMMAND, a new cookie\n"
		   " copy    copy the cookie of -s PID to -d PID, or run COMMAND with it\n"
		   " run     run COMMAND with a new cookie (same as new -- COMMAND)\n"
		   " clear   return PID to cookie 0 (through coreschedd when it runs)\n"
		   "\nFunctions that need coreschedd:\n"
		   " status        whether coreschedd runs, what the kernel offers, counters\n"
		   " list          groups and their keys, tasks and cookies\n"
		   " ps            processes coreschedd tracks (PIDs, or -u USER, -g GROUP)\n"
		   " explain       which group a process belongs in, rule by rule, and why\n"
		   " assign        put PIDs into GROUP (across exec; their new children join)\n"
		   " run -g GROUP  join GROUP, then execute COMMAND\n"
		   " reload        read the configuration again; errors keep the old one\n"
		   " check-config  check the configuration in DIR (default: coreschedd's)\n"
		   " stats         forced idle per group key; -c COUNT samples -i SECONDS apart\n"
		   "\nOptions:\n"
		   " -s, --source <PID>     where to copy the cookie from\n"
		   " -d, --dest <PID>       where to set the cookie\n"
		   " -t, --dest-type <TYPE> pid, tgid (default) or pgid\n"
		   " -g, --group <GROUP>    coreschedd group to join (run, assign, ps)\n"
		   " -u, --user <USER>      only USER's processes (ps)\n"
		   " -u, --untagged         untagged CPU time per group, not forced idle (stats)\n"
		   " -i, --interval <SECS>  seconds between samples (stats; default 1)\n"
		   " -c, --count <COUNT>    intervals to sample (stats)\n"
		   " -J, --json             JSON output\n"
		   " -o, --output <LIST>    columns to print (+LIST adds to the defaults)\n"
		   " -n, --noheadings       do not print headings\n"
		   " -r, --raw              raw output\n"
		   "     --new              accepted by run, which always makes a new cookie\n"
		   "     --lock             forbid COMMAND to change its cookie (new, copy, run)\n"
		   "     --timeout <MS>     wait at most MS for coreschedd (oci-hook; default 2000)\n"
		   "     --fail-mode <MODE> without coreschedd, open gives the container a fresh\n"
		   "                        cookie, closed (default) refuses it (oci-hook)\n"
		   " -v, --verbose          report what was set on stderr\n"
		   " -h, --help             display this help\n"
		   " -V, --version          display version (alone, or with get, new, copy, run)\n"
		   "\nExit status: 0 success, 1 failure or bad usage, 3 kernel lacks\n"
		   "CONFIG_SCHED_CORE, 4 SMT off, 5 no such process, 6 permission denied,\n"
		   "7 coreschedd is not running, 126/127 COMMAND could not be executed /\n"
		   "found.\n"
		   "\nThe socket is $CORESCHED_SOCKET, by default " RUNSTATEDIR "/coresched/io.coresched.\n"
		   "\nFor more details see coresched(1).\n");
}

void cli_command_usage(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			printf("Usage: coresched %s%s%s\n", name, *commands[i].usage ? " " : "", commands[i].usage);
	printf("See 'coresched --help' or coresched(1).\n");
}

int cli_getopt_error(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':' && strncmp(arg, "--", 2) == 0)
		return cli_usage_error("option '%s' requires an argument", arg);
	if (c == ':')
		return cli_usage_error("option requires an argument -- '%c'", optopt);
	if (optopt)
		return cli_usage_error("invalid option -- '%c'", optopt);
	return cli_usage_error("unrecognized option '%s'", arg);
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("coresched: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'coresched --help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/* Whether this process runs under a seccomp filter (Seccomp: 2 in its
 * status): the lock of coresched run --lock makes every change EPERM. */
static bool under_seccomp_filter(void)
{
	char line[128];
	bool filtered = false;
	FILE *f = fopen("/proc/self/status", "re");

	if (!f)
		return false;
	while (!filtered && fgets(line, sizeof(line), f))
		filtered = strncmp(line, "Seccomp:", 8) == 0 && strtol(line + 8, NULL, 10) == 2;
	fclose(f);
	return filtered;
}

int cli_error(int negerrno, const char *fmt, ...)
{
	va_list ap;

	fputs("coresched: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s%s\n", sc_strerror(negerrno),
		negerrno == -EPERM && under_seccomp_filter() ?
			" (or this process runs under a seccomp filter that forbids it: coresched run --lock, Lock=yes)" :
			"");
	switch (-negerrno) {
	case EINVAL: return sc_probe() == -EINVAL ? EXIT_NO_SCHED_CORE : EXIT_FAILURE;
	case ENODEV: return EXIT_NO_SMT;
	case ESRCH: return EXIT_NO_PROCESS;
	case EPERM: return EXIT_DENIED;
	default: return EXIT_FAILURE;
	}
}

int cli_parse_pid(const char *s, pid_t *ret)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	*ret = (pid_t)v;
	return 0;
}

int cli_exec(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "coresched: failed to execute %s: %s\n", argv[0], strerror(errno));
	return errno == ENOENT ? EXIT_EXEC_NOT_FOUND : EXIT_EXEC_FAILED;
}

static const struct cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* Whether option opt takes the next argument as its value, in any
 * function, the short ones among letters: to find the function behind
 * options given before it. */
static bool takes_value(const char *opt, const char *letters)
{
	static const char *const longs[] = { "source", "dest", "dest-type", "group", "user", "interval",
					     "count", "output", "timeout", "fail-mode" };
	static const char *const flags[] = { "new", "lock", "verbose", "help", "version", "json",
					     "noheadings", "raw", "untagged" };
	bool is_flag = false, is_long = false;
	size_t n;

	if (opt[1] != '-') {
		/* -vd PID: the first letter that takes a value ends the cluster */
		for (const char *p = opt + 1; *p; p++)
			if (strchr(letters, *p))
				return p[1] == '\0';
		return false;
	}
	if (strchr(opt, '='))
		return false;
	/* getopt_long takes an abbreviation, as --sou for --source; one
	 * that both kinds begin with (--u: --user in ps, --untagged in
	 * stats) takes a value where the letters say -u does */
	n = strlen(opt + 2);
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		is_flag = is_flag || strncmp(flags[i], opt + 2, n) == 0;
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		is_long = is_long || strncmp(longs[i], opt + 2, n) == 0;
	return is_long && is_flag ? strchr(letters, 'u') != NULL : is_long;
}

/* The index of the first argument that is neither an option nor an
 * option's value, or of a function right after "--" (util-linux's getopt
 * finds it there too); 0 if there is none. */
static int find_function_with(int argc, char **argv, const char *letters)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1 < argc && find_command(argv[i + 1]) ? i + 1 : 0;
		if (argv[i][0] != '-' || argv[i][1] == '\0')
			return i;
		if (takes_value(argv[i], letters))
			i++;
	}
	return 0;
}

/* -u takes a value in ps (--user), none in stats (--untagged): read as
 * ps' first, as stats' when that names no function. */
static int find_function(int argc, char **argv)
{
	int at = find_function_with(argc, argv, "sdtguico"), alt;

	if (at && find_command(argv[at]))
		return at;
	alt = find_function_with(argc, argv, "sdtgico");
	return alt && find_command(argv[alt]) ? alt : at;
}

static bool wants(int argc, char **argv, const char *s, const char *l)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], s) == 0 || strcmp(argv[i], l) == 0)
			return true;
	return false;
}

/* As util-linux's close_stdout(): what could not be written (a full disk,
 * a closed descriptor) fails the command, so that a script never takes
 * missing output for success. A reader gone (EPIPE) is no error. */
static void stdout_check(void)
{
	int err = fflush(stdout) == 0 ? 0 : errno;

	if ((err == 0 && !ferror(stdout)) || err == EPIPE)
		return;
	fprintf(stderr, "coresched: write error%s%s\n", err ? ": " : "", err ? strerror(err) : "");
	_exit(EXIT_FAILURE);
}

/* get without the word: its messages name get, not the program's path. */
static int implied_get(int argc, char **argv)
{
	static char get[] = "get";

	argv[0] = get;
	return cli_cmd_get(argc, argv);
}

int main(int argc, char **argv)
{
	const struct cli_command *cmd;
	int at = find_function(argc, argv);
	char *name;

	atexit(stdout_check);

#ifdef CLI_FRONTEND
	/* The full command line gets the arguments as given, not reordered. */
	if (cli_handoff_init(argc, argv) < 0)
		return cli_error(-ENOMEM, "cannot start");
#else
	/* The character set only (names in tables: UTF-8 shown as it is, its
	 * controls escaped); numbers keep their C form. */
	setlocale(LC_CTYPE, "");
#endif

	/* util-linux's coresched lets getopt permute its arguments, so
	 * options may come before the function: "coresched -v new -d PID".
	 * Move the function in front of them; its own parser then sees
	 * "new -v -d PID". No function at all means get, as there. */
	if (at == 0) {
		if (wants(argc, argv, "-h", "--help")) {
			usage(stdout);
			return 0;
		}
		if (wants(argc, argv, "-V", "--version")) {
			printf("coresched %s\n", VERSION);
			return 0;
		}
		return implied_get(argc, argv);
	}
	name = argv[at];
	cmd = find_command(name);
	if (!cmd) {
		pid_t pid;

		/* "coresched -s PID PID..." is get with more PIDs */
		if (at > 1 && cli_parse_pid(name, &pid) == 0)
			return implied_get(argc, argv);
		return cli_usage_error("unknown function '%s'", name);
	}
	memmove(argv + 2, argv + 1, (size_t)(at - 1) * sizeof(*argv));
	argv[1] = name;
	return cmd->exec(argc - 1, argv + 1);
}
