/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One varlink round trip to coreschedd, with the CLI's messages and exit
 * codes for everything that can go wrong. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

/* Connects to the daemon. -ENOENT or -ECONNREFUSED: it is not running. */
int daemon_call_connect(int *ret_fd);

/* Calls method with params (borrowed; NULL means {}) on fd. Returns 0 with
 * *ret_reply, or an exit code after printing the one-line reason. */
int daemon_call_on(int fd, const char *method, json_object *params, json_object **ret_reply);

/* Connect, call, close. Same returns as daemon_call_on; a daemon that is
 * not running is EXIT_NO_DAEMON with its one plain line. */
int daemon_call(const char *method, json_object *params, json_object **ret_reply);

/* Prints the not-running line for connect's error r, or the transport
 * error; returns the exit code. */
int daemon_call_connect_error(int r);

/* The exit code for a PidFailure's error text (5, 6 or 1). */
int daemon_call_pid_failure_code(const char *error);

/* Escapes, in place, the control bytes of every string in o (see
 * sc_escape_controls): a reply's comm, exe, cgroup or reason is printed as
 * text only after this. JSON output needs none (json-c escapes them). */
void daemon_call_escape(json_object *o);

/* The length of a reply's array member: 0 for an absent, null or
 * mistyped one (json-c asserts on those). */
size_t daemon_call_len(json_object *a);

/* Members of a reply, with defaults for absent or null ones. */
const char *daemon_call_str(json_object *o, const char *key, const char *dflt);
long long daemon_call_int(json_object *o, const char *key, long long dflt);
bool daemon_call_bool(json_object *o, const char *key);
