/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The CLI's end of the control socket: connect, then one varlink round
 * trip per call, each bounded by a timeout. */
#pragma once

#include <json-c/json.h>

/* RUNSTATEDIR "/coresched/io.coresched", or $CORESCHED_SOCKET when set and
 * not empty (tests and a daemon run by hand listen elsewhere). */
const char *client_default_path(void);

/* Connects to path (NULL: client_default_path()) within timeout_ms (< 0:
 * no limit). -ENOENT or -ECONNREFUSED mean the daemon is not running. */
int client_connect(const char *path, int timeout_ms, int *ret_fd);

/* Calls method with params (borrowed; NULL means {}) and waits up to
 * timeout_ms (< 0: no limit) for the whole round trip. Returns 0 with
 * *ret_params for a reply; 1 with *ret_params and *ret_error_name (free it)
 * for a varlink error; a negative errno when the transport failed
 * (-ETIMEDOUT, -ECONNRESET when the daemon closed, -EBADMSG, -EMSGSIZE). */
int client_call(int fd, const char *method, json_object *params, int timeout_ms,
		json_object **ret_params, char **ret_error_name);
