// SPDX-License-Identifier: GPL-2.0-or-later
/* The bundle's config.json gains coresched's createRuntime hook. Only
 * hooks.createRuntime changes: json-c keeps the members' order and each
 * number's original text, so everything else comes out as it went in
 * (bar whitespace). */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

int runtime_failf(char **ret_error, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	*ret_error = msg;
	return -EINVAL;
}

static unsigned line_of(const char *text, size_t offset)
{
	unsigned line = 1;
	size_t i;

	for (i = 0; i < offset; i++)
		line += text[i] == '\n';
	return line;
}

/* The whole text must be one JSON object, whitespace around it allowed. */
static int parse(const char *json, size_t len, const char *name, json_object **ret, char **ret_error)
{
	enum json_tokener_error e;
	json_tokener *tok;
	json_object *o;
	size_t end;

	if (len > SPEC_MAX)
		return runtime_failf(ret_error, "%s: longer than %d bytes", name, SPEC_MAX);
	if (memchr(json, '\0', len))
		return runtime_failf(ret_error, "%s:%u: invalid JSON: a NUL byte", name,
				     line_of(json, (size_t)((const char *)memchr(json, '\0', len) - json)));
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, json, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o)
		return runtime_failf(ret_error, "%s:%u: invalid JSON: %s", name, line_of(json, end),
				     e == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(e));
	while (end < len && strchr(" \t\r\n", json[end]))
		end++;
	if (end < len) {
		json_object_put(o);
		return runtime_failf(ret_error, "%s:%u: invalid JSON: trailing bytes after the object", name,
				     line_of(json, end));
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return runtime_failf(ret_error, "%s: not a JSON object", name);
	}
	*ret = o;
	return 0;
}

/* A hook that runs coresched oci-hook, wherever coresched is installed. */
static bool is_ours(json_object *hook)
{
	json_object *path, *args, *arg1;
	const char *p, *slash;

	if (!json_object_object_get_ex(hook, "path", &path) || !json_object_is_type(path, json_type_string) ||
	    !json_object_object_get_ex(hook, "args", &args) || !json_object_is_type(args, json_type_array))
		return false;
	p = json_object_get_string(path);
	slash = strrchr(p, '/');
	arg1 = json_object_array_get_idx(args, 1);
	return strcmp(slash ? slash + 1 : p, "coresched") == 0 && arg1 &&
	       json_object_is_type(arg1, json_type_string) && strcmp(json_object_get_string(arg1), "oci-hook") == 0;
}

/* hooks.STAGE: 0 absent, 1 holds our hook, 2 without it (*ret_list set), or
 * -EINVAL for a spec the runtime would refuse as well. */
static int find_stage(json_object *hooks, const char *stage, const char *name, json_object **ret_list,
		      char **ret_error)
{
	json_object *list, *h;
	size_t i, n;

	if (!json_object_object_get_ex(hooks, stage, &list) || json_object_is_type(list, json_type_null))
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return runtime_failf(ret_error, "%s: hooks.%s: must be an array", name, stage);
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		h = json_object_array_get_idx(list, i);
		if (!json_object_is_type(h, json_type_object))
			return runtime_failf(ret_error, "%s: hooks.%s[%zu]: must be an object", name, stage, i);
		if (is_ours(h))
			return 1;
	}
	*ret_list = list;
	return 2;
}

static json_object *new_hook(const char *hook_path)
{
	json_object *h = json_object_new_object(), *args = json_object_new_array();

	json_object_array_add(args, json_object_new_string("coresched"));
	json_object_array_add(args, json_object_new_string("oci-hook"));
	json_object_object_add(h, "path", json_object_new_string(hook_path));
	json_object_object_add(h, "args", args);
	json_object_object_add(h, "timeout", json_object_new_int(SPEC_HOOK_TIMEOUT));
	return h;
}

/* 0 added to o, 1 already there, or -EINVAL. */
static int add_hook(json_object *o, const char *name, const char *hook_path, char **ret_error)
{
	json_object *hooks, *list = NULL, *unused = NULL;
	int r;

	if (!json_object_object_get_ex(o, "hooks", &hooks) || json_object_is_type(hooks, json_type_null)) {
		hooks = json_object_new_object();
		json_object_object_add(o, "hooks", hooks);
	} else if (!json_object_is_type(hooks, json_type_object))
		return runtime_failf(ret_error, "%s: hooks: must be an object", name);
	r = find_stage(hooks, "prestart", name, &unused, ret_error);
	if (r == 1 || r < 0)
		return r;
	r = find_stage(hooks, "createRuntime", name, &list, ret_error);
	if (r == 1 || r < 0)
		return r;
	if (!list) {
		list = json_object_new_array();
		json_object_object_add(hooks, "createRuntime", list);
	}
	json_object_array_add(list, new_hook(hook_path));
	return 0;
}

int spec_add_hook(const char *json, size_t len, const char *name, const char *hook_path, char **ret_text,
		  char **ret_error)
{
	json_object *o = NULL;
	const char *s;
	char *text;
	int r;

	r = parse(json, len, name, &o, ret_error);
	if (r < 0)
		return r;
	r = add_hook(o, name, hook_path, ret_error);
	if (r != 0) {
		json_object_put(o);
		return r;
	}
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	text = s ? malloc(strlen(s) + 2) : NULL;
	if (text)
		strcpy(stpcpy(text, s), "\n");
	json_object_put(o);
	if (!text)
		return -ENOMEM;
	*ret_text = text;
	return 0;
}
