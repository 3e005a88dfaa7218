// SPDX-License-Identifier: GPL-2.0-or-later
#include "daemon-call.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "errmsg.h"

#define ERR(name) "io.coresched." name
#define CONNECT_TIMEOUT_MS 5000
/* Reload and CheckConfig read a whole configuration tree; allow for it. */
#define CALL_TIMEOUT_MS 30000

int daemon_call_connect(int *ret_fd)
{
	return client_connect(NULL, CONNECT_TIMEOUT_MS, ret_fd);
}

int daemon_call_connect_error(int r)
{
	if (r == -ENOENT || r == -ECONNREFUSED) {
		fprintf(stderr, "coresched: coreschedd is not running (no socket at %s)\n",
			client_default_path());
		return EXIT_NO_DAEMON;
	}
	fprintf(stderr, "coresched: cannot connect to coreschedd at %s: %s\n", client_default_path(),
		strerror(-r));
	return r == -EACCES || r == -EPERM ? EXIT_DENIED : EXIT_FAILURE;
}

int daemon_call_pid_failure_code(const char *error)
{
	if (!error)
		return EXIT_FAILURE;
	if (strncmp(error, "permission denied", 17) == 0)
		return EXIT_DENIED;
	if (strcmp(error, "no such process") == 0)
		return EXIT_NO_PROCESS;
	return EXIT_FAILURE;
}

static int print_config_errors(json_object *params)
{
	json_object *errors = NULL;

	json_object_object_get_ex(params, "errors", &errors);
	for (size_t i = 0; i < daemon_call_len(errors); i++)
		fprintf(stderr, "%s\n", json_object_get_string(json_object_array_get_idx(errors, i)));
	if (daemon_call_len(errors) == 0)
		fprintf(stderr, "coresched: the configuration is not valid\n");
	return EXIT_FAILURE;
}

void daemon_call_escape(json_object *o)
{
	const char *str;
	char *esc;

	switch (json_object_get_type(o)) {
	case json_type_string:
		str = json_object_get_string(o);
		if (sc_escape_controls_to(str, NULL) == strlen(str))
			return; /* nothing to escape */
		if ((esc = sc_escape_controls(str)))
			json_object_set_string(o, esc);
		free(esc);
		return;
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++)
			daemon_call_escape(json_object_array_get_idx(o, i));
		return;
	case json_type_object: {
		json_object_object_foreach(o, k, v) {
			(void)k;
			daemon_call_escape(v);
		}
		return;
	}
	default:
		return;
	}
}

/* One line naming the error and its parameters, already escaped; -1 for
 * an error this CLI does not know. */
static int print_known_error(const char *name, json_object *params)
{
	const char *reason = daemon_call_str(params, "reason", NULL);

	if (strcmp(name, ERR("NoSuchGroup")) == 0) {
		fprintf(stderr, "coresched: no such group '%s'\n", daemon_call_str(params, "group", ""));
		return EXIT_FAILURE;
	}
	if (strcmp(name, ERR("NoSuchProcess")) == 0) {
		fprintf(stderr, "coresched: no such process: %lld\n", daemon_call_int(params, "pid", 0));
		return EXIT_NO_PROCESS;
	}
	if (strcmp(name, ERR("PermissionDenied")) == 0) {
		fprintf(stderr, "coresched: permission denied: %s\n", reason ? reason : "");
		return EXIT_DENIED;
	}
	if (strcmp(name, ERR("ConfigError")) == 0)
		return print_config_errors(params);
	if (strcmp(name, ERR("AssignFailed")) == 0) {
		const char *error = daemon_call_str(params, "error", "failed");

		fprintf(stderr, "coresched: cannot assign PID %lld: %s\n", daemon_call_int(params, "pid", 0),
			error);
		return daemon_call_pid_failure_code(error);
	}
	if (strcmp(name, ERR("NotSupported")) == 0) {
		fprintf(stderr, "coresched: not supported: %s\n", reason ? reason : "");
		return EXIT_FAILURE;
	}
	if (strcmp(name, ERR("NotReady")) == 0) {
		fprintf(stderr, "coresched: coreschedd is not ready: %s\n", reason ? reason : "");
		return EXIT_FAILURE;
	}
	if (strcmp(name, ERR("LimitReached")) == 0) {
		fprintf(stderr, "coresched: limit reached: %s\n", daemon_call_str(params, "what", ""));
		return EXIT_FAILURE;
	}
	if (strcmp(name, "org.varlink.service.InvalidParameter") == 0) {
		fprintf(stderr, "coresched: coreschedd rejected parameter '%s'\n",
			daemon_call_str(params, "parameter", ""));
		return EXIT_FAILURE;
	}
	return -1;
}

static int print_varlink_error(const char *name, json_object *params)
{
	/* An unknown one as the JSON it came as, escaped once: json-c
	 * escapes C0 controls itself, not C1. */
	char *raw = sc_escape_controls(json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN));
	int r;

	daemon_call_escape(params);
	r = print_known_error(name, params);
	if (r < 0) {
		fprintf(stderr, "coresched: coreschedd answered %s %s\n", name, raw ? raw : "");
		r = EXIT_FAILURE;
	}
	free(raw);
	return r;
}

int daemon_call_on(int fd, const char *method, json_object *params, json_object **ret_reply)
{
	json_object *reply = NULL;
	char *error = NULL;
	int r;

	r = client_call(fd, method, params, CALL_TIMEOUT_MS, &reply, &error);
	if (r < 0) {
		fprintf(stderr, "coresched: %s failed: %s\n", method,
			r == -ECONNRESET ? "coreschedd closed the connection" :
			r == -EILSEQ	 ? "an argument is not UTF-8, which the daemon's protocol cannot carry" :
					   strerror(-r));
		return EXIT_FAILURE;
	}
	if (r == 1) {
		r = print_varlink_error(error, reply);
		free(error);
		json_object_put(reply);
		return r;
	}
	*ret_reply = reply;
	return 0;
}

int daemon_call(const char *method, json_object *params, json_object **ret_reply)
{
	int fd, r;

	r = daemon_call_connect(&fd);
	if (r < 0)
		return daemon_call_connect_error(r);
	r = daemon_call_on(fd, method, params, ret_reply);
	close(fd);
	return r;
}

size_t daemon_call_len(json_object *a)
{
	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

const char *daemon_call_str(json_object *o, const char *key, const char *dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return dflt;
	return json_object_get_string(v);
}

long long daemon_call_int(json_object *o, const char *key, long long dflt)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v)
		return dflt;
	return (long long)json_object_get_int64(v);
}

bool daemon_call_bool(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v && json_object_get_boolean(v);
}
