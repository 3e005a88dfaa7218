// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary bytes as a bundle's config.json for coresched-runtime. The
 * spec comes from the engine, but its content from whoever wrote the
 * container. A spec that gained the hook must be a JSON object holding it
 * and must not gain it twice; a refused one must say why, naming the file.
 * An input of odd length asks for [Container] Lock=yes as well: the spec
 * must then start its seccomp rules with the lock's three.
 * fuzz-sources: runtime/spec.c */
#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../runtime/runtime.h"

#define NAME "b/config.json"
#define HOOK "/usr/bin/coresched"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* text holds exactly one hook of ours at the end of hooks.createRuntime */
static void check_added(const char *text)
{
	json_object *o = json_tokener_parse(text), *hooks, *list, *h, *path;

	if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, "hooks", &hooks) ||
	    !json_object_object_get_ex(hooks, "createRuntime", &list) ||
	    !json_object_is_type(list, json_type_array) || json_object_array_length(list) == 0)
		abort();
	h = json_object_array_get_idx(list, json_object_array_length(list) - 1);
	if (!json_object_object_get_ex(h, "path", &path) || strcmp(json_object_get_string(path), HOOK) != 0)
		abort();
	json_object_put(o);
}

/* linux.seccomp.syscalls[0..2]: ERRNO for prctl, each with two args. */
static void check_locked(const char *text)
{
	json_object *o = json_tokener_parse(text), *l, *s, *calls, *rule, *v;

	if (!o || !json_object_object_get_ex(o, "linux", &l) || !json_object_object_get_ex(l, "seccomp", &s) ||
	    !json_object_object_get_ex(s, "syscalls", &calls) || !json_object_is_type(calls, json_type_array) ||
	    json_object_array_length(calls) < 3)
		abort();
	for (size_t i = 0; i < 3; i++) {
		rule = json_object_array_get_idx(calls, i);
		if (!json_object_object_get_ex(rule, "action", &v) ||
		    strcmp(json_object_get_string(v), "SCMP_ACT_ERRNO") != 0 ||
		    !json_object_object_get_ex(rule, "args", &v) || json_object_array_length(v) != 2)
			abort();
	}
	json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = NULL, *again = NULL, *error = NULL;
	bool lock = size % 2;
	struct spec_policy policy = { .lock = lock, .fail_open = size % 3 == 0 };
	int r;

	r = spec_add_hook((const char *)data, size, NAME, HOOK, &policy, &text, &error);
	if (r == 0) {
		if (!text || error)
			abort();
		if (lock)
			check_locked(text);
		else
			check_added(text);
		/* Idempotent: the rewritten spec already has the hook. */
		if (spec_add_hook(text, strlen(text), NAME, HOOK, &policy, &again, &error) != 1 || again || error)
			abort();
		free(text);
		return 0;
	}
	if (text)
		abort();
	if (r == 1) {
		if (error)
			abort();
		return 0;
	}
	if (r != -EINVAL && r != -ENOMEM)
		abort();
	if (r == -EINVAL && (!error || strncmp(error, NAME, strlen(NAME)) != 0))
		abort();
	free(error);
	return 0;
}
