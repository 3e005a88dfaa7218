// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* asprintf */
#include "ocistate.h"

#include "errmsg.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole input must be one JSON object; trailing whitespace is allowed
 * because runtimes and shells end the state with a newline. */
static int parse_object(const char *json, size_t len, json_object **ret, char **ret_error)
{
	json_tokener *tok;
	json_object *o;
	size_t end;

	if (len > OCI_STATE_MAX)
		return sc_failf(ret_error, "state: longer than %d bytes", OCI_STATE_MAX);
	if (memchr(json, '\0', len))
		return sc_failf(ret_error, "state: invalid JSON: contains a NUL byte");
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, json, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!o) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		json_tokener_free(tok);
		return sc_failf(ret_error, "state: invalid JSON: %s",
			     e == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(e));
	}
	json_tokener_free(tok);
	while (end < len && strchr(" \t\r\n", json[end]))
		end++;
	if (end < len) {
		json_object_put(o);
		return sc_failf(ret_error, "state: invalid JSON: trailing bytes after the object");
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return sc_failf(ret_error, "state: not a JSON object");
	}
	*ret = o;
	return 0;
}

/* Optional string member: 0 and *ret (malloc'd, or NULL when absent). */
static int get_string(json_object *o, const char *where, const char *field, size_t max, char **ret,
		      char **ret_error)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(o, field, &v) || json_object_is_type(v, json_type_null)) {
		*ret = NULL;
		return 0;
	}
	if (!json_object_is_type(v, json_type_string))
		return sc_failf(ret_error, "%s%s: must be a string", where, field);
	s = json_object_get_string(v);
	if ((size_t)json_object_get_string_len(v) != strlen(s))
		return sc_failf(ret_error, "%s%s: contains a NUL character", where, field);
	if (strlen(s) > max)
		return sc_failf(ret_error, "%s%s: longer than %zu bytes", where, field, max);
	/* A name ends up in keys, logs and one-line messages: no line breaks
	 * or other control characters, C1 included (runc allows none in an
	 * id), and UTF-8 only (sc_name_printable()). */
	if (max != PATH_MAX && !sc_name_printable(s, strlen(s)))
		return sc_failf(ret_error, "%s%s: contains a control character, a byte that is not UTF-8 or U+FFFD",
				where, field);
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

static int get_pid(json_object *o, pid_t *ret, char **ret_error)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(o, "pid", &v))
		return sc_failf(ret_error, "pid: missing (the hook must run at createRuntime or prestart)");
	if (!json_object_is_type(v, json_type_int))
		return sc_failf(ret_error, "pid: must be an integer");
	n = json_object_get_int64(v);
	if (n <= 0 || n > INT_MAX)
		return sc_failf(ret_error, "pid: must be a positive integer, not %s",
			     json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
	*ret = (pid_t)n;
	return 0;
}

/* Every annotation value must be a string, whether or not we read it:
 * the runtime-spec says so, and a state that breaks it was not written by
 * a runtime. */
static int check_annotations(json_object *a, char **ret_error)
{
	json_object_object_foreach(a, name, value)
		if (!json_object_is_type(value, json_type_string))
			return sc_failf(ret_error, "annotations.%.200s: must be a string", name);
	return 0;
}

static void drop_empty(char **s)
{
	if (*s && !**s) {
		free(*s);
		*s = NULL;
	}
}

static int get_annotations(json_object *o, struct oci_state *s, char **ret_error)
{
	const char *w = "annotations.";
	json_object *a;
	char *crio = NULL;
	int r;

	if (!json_object_object_get_ex(o, "annotations", &a) || json_object_is_type(a, json_type_null))
		return 0;
	if (!json_object_is_type(a, json_type_object))
		return sc_failf(ret_error, "annotations: must be an object");
	r = check_annotations(a, ret_error);
	if (r >= 0)
		r = get_string(a, w, OCI_ANNOTATION_POLICY, OCI_ID_MAX, &s->policy, ret_error);
	if (r >= 0)
		r = get_string(a, w, OCI_ANNOTATION_GROUP, OCI_ID_MAX, &s->group, ret_error);
	if (r >= 0)
		r = get_string(a, w, OCI_ANNOTATION_CRI_SANDBOX, OCI_ID_MAX, &s->sandbox, ret_error);
	if (r >= 0)
		r = get_string(a, w, OCI_ANNOTATION_CRIO_SANDBOX, OCI_ID_MAX, &crio, ret_error);
	/* An empty group or sandbox names none: as if absent (the daemon
	 * refuses an empty name, and the other sandbox annotation may hold
	 * the id). */
	drop_empty(&s->group);
	drop_empty(&s->sandbox);
	drop_empty(&crio);
	if (r >= 0 && !s->sandbox)
		s->sandbox = crio;
	else
		free(crio);
	return r;
}

static int parse_members(json_object *o, struct oci_state *s, char **ret_error)
{
	int r;

	r = get_string(o, "", "id", OCI_ID_MAX, &s->id, ret_error);
	if (r >= 0 && (!s->id || !*s->id))
		r = sc_failf(ret_error, "id: missing or empty");
	if (r >= 0)
		r = get_pid(o, &s->pid, ret_error);
	if (r >= 0)
		r = get_string(o, "", "status", OCI_ID_MAX, &s->status, ret_error);
	if (r >= 0)
		r = get_string(o, "", "bundle", PATH_MAX, &s->bundle, ret_error);
	if (r >= 0)
		r = get_annotations(o, s, ret_error);
	return r;
}

int ocihook_parse_state(const char *json, size_t len, struct oci_state *ret, char **ret_error)
{
	struct oci_state s = {};
	char *error = NULL;
	json_object *o = NULL;
	int r;

	r = parse_object(json, len, &o, &error);
	if (r >= 0) {
		r = parse_members(o, &s, &error);
		json_object_put(o);
	}
	if (r < 0) {
		ocihook_state_done(&s);
		if (error)
			*ret_error = error;
		return r;
	}
	*ret = s;
	return 0;
}

void ocihook_state_done(struct oci_state *s)
{
	free(s->id);
	free(s->status);
	free(s->bundle);
	free(s->policy);
	free(s->group);
	free(s->sandbox);
	*s = (struct oci_state){};
}
