// SPDX-License-Identifier: GPL-2.0-or-later
/* The runtime's command line as runc reads it: Go's flag syntax (one or two
 * dashes, "--name value" or "--name=value", "--" ends the options), global
 * options before the subcommand, and the subcommand's options anywhere
 * after it (runc moves them ahead of the container id). */
#include <stddef.h>
#include <string.h>

#include "runtime.h"

/* runc's global options that take a value; every other one is a switch. */
static const char *const global_values[] = { "log", "log-format", "root", "criu", "rootless", NULL };
/* Options of create, run and restore that take a value. */
static const char *const command_values[] = { "bundle", "b", "console-socket", "pid-file", "preserve-fds",
					      "pidfd-socket", "image-path", "work-path", "manage-cgroups-mode",
					      "empty-ns", "lsm-profile", "lsm-mount-context", NULL };

/* The commands that make a container from a bundle, and run its
 * createRuntime hooks: restore makes one from a checkpoint as well, and
 * runc runs the hooks there before the restored processes resume. */
static bool makes_container(const char *command)
{
	return strcmp(command, "create") == 0 || strcmp(command, "run") == 0 || strcmp(command, "restore") == 0;
}

static bool in_list(const char *const *list, const char *name, size_t len)
{
	for (; *list; list++)
		if (strlen(*list) == len && strncmp(*list, name, len) == 0)
			return true;
	return false;
}

/* An option's name without its dashes and "=value": *ret_len bytes at the
 * returned pointer, *ret_value the inline value or NULL. NULL for an
 * argument that is no option ("-" and "--" included). */
static const char *option_name(const char *arg, size_t *ret_len, const char **ret_value)
{
	const char *eq;

	if (arg[0] != '-' || arg[1] == '\0' || strcmp(arg, "--") == 0)
		return NULL;
	arg += arg[1] == '-' ? 2 : 1;
	eq = strchr(arg, '=');
	*ret_len = eq ? (size_t)(eq - arg) : strlen(arg);
	*ret_value = eq ? eq + 1 : NULL;
	return arg;
}

static bool is_name(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && strncmp(name, want, len) == 0;
}

static bool asks_help(const char *name, size_t len)
{
	return is_name(name, len, "help") || is_name(name, len, "h");
}

/* The index of the subcommand, or argc when there is none. Sets
 * info_only when a global option asks for help or the version, which runc
 * answers without running the subcommand, and the log options. */
static int find_command(int argc, char *const *argv, bool *info_only, struct runtime_args *a)
{
	const char *name, *value;
	size_t len;
	int i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i + 1;
		name = option_name(argv[i], &len, &value);
		if (!name)
			return i;
		if (asks_help(name, len) || is_name(name, len, "version") || is_name(name, len, "v"))
			*info_only = true;
		if (!value && in_list(global_values, name, len)) {
			if (++i >= argc)
				break;
			value = argv[i];
		}
		if (value && is_name(name, len, "log"))
			a->log = *value ? value : NULL;
		else if (value && is_name(name, len, "log-format"))
			a->log_json = strcmp(value, "json") == 0;
	}
	return argc;
}

void args_parse(int argc, char *const *argv, struct runtime_args *ret)
{
	const char *name, *value;
	struct runtime_args a = {};
	bool info = false;
	size_t len;
	int i = find_command(argc, argv, &info, &a);

	if (i < argc)
		a.command = argv[i];
	a.add_hook = a.command && !info && makes_container(a.command);
	for (i++; a.add_hook && i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		name = option_name(argv[i], &len, &value);
		if (!name)
			continue;
		if (asks_help(name, len))
			a.add_hook = false;
		if (!value && in_list(command_values, name, len)) {
			if (++i >= argc)
				break;
			value = argv[i];
		}
		if (value && (is_name(name, len, "bundle") || is_name(name, len, "b")))
			a.bundle = value; /* the last one wins, as in Go */
	}
	*ret = a;
}
