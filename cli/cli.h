/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the CLI's command files share. */
#pragma once

#include <stdbool.h>

#include "sched_core.h"

/* Exit codes: 0 and 1 as util-linux's coresched; the rest let scripts tell
 * the causes apart. 126/127 are the shell's for a command that could not be
 * executed or found. */
enum {
	EXIT_USAGE = 1,
	EXIT_NO_SCHED_CORE = 3, /* kernel without CONFIG_SCHED_CORE */
	EXIT_NO_SMT = 4,        /* SMT absent or switched off */
	EXIT_NO_PROCESS = 5,    /* ESRCH */
	EXIT_DENIED = 6,        /* EPERM */
	EXIT_NO_DAEMON = 7,     /* coreschedd is not running */
	EXIT_EXEC_FAILED = 126,
	EXIT_EXEC_NOT_FOUND = 127,
};

struct cli_command {
	const char *name;
	const char *usage;
	int (*exec)(int argc, char **argv);
};

extern bool cli_verbose;

/* Print "coresched: <what>: <cause>" and return the matching exit code. */
int cli_error(int negerrno, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* util-linux style: message, then the "Try ... --help" line; returns EXIT_USAGE. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_parse_pid(const char *s, pid_t *ret);
/* Exec argv; only returns on failure, with 126 or 127 after a message. */
int cli_exec(char **argv);

int cli_cmd_get(int argc, char **argv);
int cli_cmd_new(int argc, char **argv);
int cli_cmd_copy(int argc, char **argv);
int cli_cmd_run(int argc, char **argv);
int cli_cmd_clear(int argc, char **argv);
/* The OCI runtime hook (ocihook.c): container state on stdin. */
int cli_cmd_oci_hook(int argc, char **argv);

/* Daemon mode (coreschedd over its control socket). */
int cli_cmd_status(int argc, char **argv);
int cli_cmd_list(int argc, char **argv);
int cli_cmd_ps(int argc, char **argv);
int cli_cmd_explain(int argc, char **argv);
int cli_cmd_assign(int argc, char **argv);
int cli_cmd_clear_any(int argc, char **argv);
int cli_cmd_reload(int argc, char **argv);
int cli_cmd_check_config(int argc, char **argv);
int cli_cmd_stats(int argc, char **argv);
/* run --group: coreschedd puts this very process into group (it knows it
 * by the socket's credentials); the caller then execs. 0 or an exit code. */
/* *ret_lock: the group's Lock=, the command must be locked in. */
int cli_join_group(const char *group, bool *ret_lock);

/* The front end only (handoff.c): remember argv as given, then execute the
 * full command line with it; cli_handoff() returns only on failure, with
 * an exit code after a message. */
int cli_handoff_init(int argc, char **argv);
int cli_handoff(int argc, char **argv);

/* "Usage: coresched NAME USAGE" from the command table, on stdout. */
void cli_command_usage(const char *name);
/* The usage error for getopt's '?' or ':' (c) at argv[optind - 1]; the
 * option string must start with ":" (after any "+"). */
int cli_getopt_error(int c, char **argv);
