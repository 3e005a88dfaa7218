// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary bytes as a bundle's config.json for coresched-runtime. The
 * spec comes from the engine, but its content from whoever wrote the
 * container. A spec that gained the hook must be a JSON object holding it
 * and must not gain it twice; a refused one must say why, naming the file.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = NULL, *again = NULL, *error = NULL;
	int r;

	r = spec_add_hook((const char *)data, size, NAME, HOOK, &text, &error);
	if (r == 0) {
		if (!text || error)
			abort();
		check_added(text);
		/* Idempotent: the rewritten spec already has the hook. */
		if (spec_add_hook(text, strlen(text), NAME, HOOK, &again, &error) != 1 || again || error)
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
