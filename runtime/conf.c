// SPDX-License-Identifier: GPL-2.0-or-later
/* runtime.conf: which runtime coresched-runtime executes. Key=Value lines,
 * blank lines and # or ; comments; one key, Runtime=. A file of its own
 * rather than a key of coreschedd.conf: the runtime starts containers
 * while the daemon is down, and must not fail on the daemon's settings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static const char *trim(char *s)
{
	char *e;

	s += strspn(s, " \t");
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* One line, NUL-terminated and writable: 0, or -EINVAL. */
static int parse_line(char *line, const char *name, unsigned n, char **runtime, char **ret_error)
{
	char *eq = strchr(line, '=');
	const char *key, *value, *p = trim(line);
	char *copy;

	if (*p == '\0' || *p == '#' || *p == ';')
		return 0;
	if (!eq)
		return sc_failf(ret_error, "%s:%u: expected Key=Value, got '%s'", name, n, p);
	*eq = '\0';
	key = trim(line);
	value = trim(eq + 1);
	if (strcmp(key, "Runtime") != 0)
		return sc_failf(ret_error, "%s:%u: unknown key '%s'", name, n, key);
	if (*value == '\0')
		return sc_failf(ret_error, "%s:%u: Runtime: empty", name, n);
	if (strchr(value, '/') && *value != '/')
		return sc_failf(ret_error, "%s:%u: Runtime: '%s' must be an absolute path or a name looked up in PATH",
				     name, n, value);
	copy = strdup(value);
	if (!copy)
		return -ENOMEM;
	free(*runtime); /* the last one wins */
	*runtime = copy;
	return 0;
}

int conf_parse(const char *text, size_t len, const char *name, char **ret_runtime, char **ret_error)
{
	char line[RUNTIME_LINE_MAX + 1], *runtime = NULL;
	size_t start = 0, end;
	unsigned n = 0;
	int r = 0;

	if (len > RUNTIME_CONF_MAX)
		return sc_failf(ret_error, "%s: longer than %d bytes", name, RUNTIME_CONF_MAX);
	if (memchr(text, '\0', len))
		return sc_failf(ret_error, "%s: contains a NUL byte", name);
	while (r == 0 && start < len) {
		const char *nl = memchr(text + start, '\n', len - start);

		end = nl ? (size_t)(nl - text) : len;
		n++;
		if (end - start > RUNTIME_LINE_MAX) {
			r = sc_failf(ret_error, "%s:%u: line longer than %d bytes", name, n, RUNTIME_LINE_MAX);
			break;
		}
		memcpy(line, text + start, end - start);
		line[end - start] = '\0';
		r = parse_line(line, name, n, &runtime, ret_error);
		start = end + 1;
	}
	if (r < 0) {
		free(runtime);
		return r;
	}
	*ret_runtime = runtime;
	return 0;
}
