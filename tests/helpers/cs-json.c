// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-json PATH < JSON: print the value at PATH, a dot-separated list of
 * member names and array indexes ("groups.0.cookie"); a last component
 * "#" prints the array's length. Strings print bare, null as "null".
 * Exit 1 when stdin is not JSON or PATH is absent: the VM has no jq. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_object *step(json_object *o, const char *name)
{
	json_object *v = NULL;
	char *end;
	long i;

	if (json_object_is_type(o, json_type_array)) {
		i = strtol(name, &end, 10);
		if (*end || i < 0 || (size_t)i >= json_object_array_length(o))
			exit(1);
		return json_object_array_get_idx(o, (size_t)i);
	}
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, name, &v))
		exit(1);
	return v;
}

int main(int argc, char **argv)
{
	static char buf[4 << 20];
	size_t len = fread(buf, 1, sizeof(buf) - 1, stdin);
	json_object *root, *o;
	char *path, *tok, *save = NULL;

	if (argc != 2)
		return 2;
	buf[len] = '\0';
	root = json_tokener_parse(buf);
	if (!root)
		return 1;
	o = root;
	path = strdup(argv[1]);
	for (tok = strtok_r(path, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		if (strcmp(tok, "#") == 0) {
			if (!json_object_is_type(o, json_type_array))
				return 1;
			printf("%zu\n", json_object_array_length(o));
			free(path);
			json_object_put(root);
			return 0;
		}
		o = step(o, tok);
	}
	if (!o)
		printf("null\n");
	else if (json_object_is_type(o, json_type_string))
		printf("%s\n", json_object_get_string(o));
	else
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	free(path);
	json_object_put(root);
	return 0;
}
