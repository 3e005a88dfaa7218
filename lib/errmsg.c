// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include "errmsg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

char *sc_escape_controls(const char *s)
{
	size_t n = 0;
	char *out, *o;

	for (const char *p = s; *p; p++)
		n += (unsigned char)*p < 0x20 || *p == 0x7f ? 4 : 1;
	if (!(o = out = malloc(n + 1)))
		return NULL;
	for (const char *p = s; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			o += sprintf(o, "\\x%02x", (unsigned char)*p);
		else
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

int sc_failf(char **ret_error, const char *fmt, ...)
{
	va_list ap;
	char *msg;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	/* Values quoted in a message may come from a container's spec or a
	 * user's file: a terminal shows none of their control bytes as such. */
	*ret_error = sc_escape_controls(msg);
	free(msg);
	return *ret_error ? -EINVAL : -ENOMEM;
}
