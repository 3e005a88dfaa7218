/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pam_coresched's arguments and its reading of the daemon's replies: pure
 * logic, no system calls, so that a host test can drive it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif
/* Where the daemon listens (daemon/methods.c: the same RUNSTATEDIR). */
#define PAM_CORESCHED_SOCKET RUNSTATEDIR "/coresched/io.coresched"

/* What the module does when the daemon cannot be reached. */
enum pam_fail {
	PAM_FAIL_OPEN,   /* log, and the session runs without a cookie */
	PAM_FAIL_NEW,    /* the session gets a fresh cookie of its own */
	PAM_FAIL_CLOSED, /* the session fails (and account refuses the login) */
};

/* Which process ends up the user's. */
enum pam_model {
	PAM_MODEL_AUTO, /* exec when the opener is PID 1's unexec'd child, else fork */
	PAM_MODEL_FORK, /* the opener forks the user's process and stays itself */
	PAM_MODEL_EXEC, /* the opener becomes the user's process */
};

struct pam_args {
	enum pam_fail fail;
	enum pam_model model;
	const char *socket;
	int timeout_ms;
	bool debug;
};

/* fail=open|new|closed, model=auto|fork|exec, socket=PATH, timeout=MS,
 * debug. -EINVAL on anything else, with a message naming the argument
 * in err. */
int pam_args_parse(int argc, const char **argv, struct pam_args *ret, char *err, size_t err_size);

/* The string value of the first "key" in a JSON text, copied into buf
 * (NULL: only whether there is one). False when absent or not a string. */
bool pam_args_json_string(const char *json, const char *key, char *buf, size_t size);
/* Whether the first "key" in a JSON text is true. */
bool pam_args_json_true(const char *json, const char *key);
