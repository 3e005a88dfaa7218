/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coresched-runtime: what its files share. args.c, spec.c and conf.c are
 * pure logic (no syscalls); main.c reads, writes and executes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define RUNTIME_PREFIX "coresched-runtime: "
#define RUNTIME_DEFAULT "runc"
#define RUNTIME_CONF SYSCONFDIR "/coresched/runtime.conf"
#define RUNTIME_CONF_MAX (64 * 1024)      /* bytes of runtime.conf */
#define RUNTIME_LINE_MAX 4096             /* bytes of one line of it */
#define SPEC_MAX (16 * 1024 * 1024)       /* bytes of config.json */
#define SPEC_HOOK_TIMEOUT 10              /* seconds, as in hooks.d */

/* What the runtime's command line asks for, as the runtime parses it. */
struct runtime_args {
	const char *command; /* the subcommand, NULL when there is none */
	const char *bundle;  /* --bundle/-b of create, run or restore; NULL = the cwd */
	bool add_hook;       /* create, run or restore (not asking for help) */
	const char *log;     /* --log: where the runtime logs, NULL = stderr */
	bool log_json;       /* --log-format json */
};

/* Finds the subcommand after the runtime's global options and, for create,
 * run and restore, the bundle. Never fails: anything it does not
 * understand is left to the runtime. */
void args_parse(int argc, char *const *argv, struct runtime_args *ret);

/* With lock ([Container] Lock=yes), also makes linux.seccomp refuse every
 * prctl(PR_SCHED_CORE) command but GET with EPERM (a profile that allows
 * everything else, when the spec has none; an existing one keeps all it
 * allows and refuses, less that).
 * Adds the hook {path, ["coresched", "oci-hook"], timeout} to
 * hooks.createRuntime of the config.json text unless a coresched oci-hook
 * is already among hooks.createRuntime or hooks.prestart. Returns 0 with
 * *ret_text (malloc'd, the new JSON), 1 when the hook is already there, or
 * -EINVAL with *ret_error (malloc'd, starting with name) for input that
 * is not a valid spec; -ENOMEM without a message. */
struct spec_policy {
	bool lock;      /* [Container] Lock=yes: the seccomp lock as well */
	bool fail_open; /* [Container] FailMode=open: the hook gets --fail-mode open */
};
int spec_add_hook(const char *json, size_t len, const char *name, const char *hook_path,
		  const struct spec_policy *policy, char **ret_text, char **ret_error);

/* Parses runtime.conf text (Key=Value lines, # or ; comments). Returns 0
 * with *ret_runtime (malloc'd, NULL when the file does not set it), or
 * -EINVAL with *ret_error ("name:line: ..."); -ENOMEM without a message. */
int conf_parse(const char *text, size_t len, const char *name, char **ret_runtime, char **ret_error);

#include "errmsg.h"
