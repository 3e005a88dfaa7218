// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include "errmsg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sc_utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] && s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

/* The length of the valid UTF-8 sequence at s that encodes a printable
 * character above ASCII (not a C1 control, U+0080..U+009F), else 0. */
static size_t utf8_printable(const unsigned char *s)
{
	size_t n = s[0] >= 0x80 ? sc_utf8_len((const char *)s) : 0;

	return n == 2 && s[0] == 0xc2 && s[1] < 0xa0 ? 0 : n;
}

size_t sc_escape_controls_to(const char *s, char *out)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, k;

	while (*p) {
		if (*p >= 0x20 && *p < 0x7f)
			k = 1;
		else if (*p < 0x80 || !(k = utf8_printable(p))) {
			if (out)
				sprintf(out + n, "\\x%02x", *p);
			n += 4;
			p++;
			continue;
		}
		if (out)
			memcpy(out + n, p, k);
		n += k;
		p += k;
	}
	if (out)
		out[n] = '\0';
	return n;
}

char *sc_escape_controls(const char *s)
{
	char *out = malloc(sc_escape_controls_to(s, NULL) + 1);

	if (out)
		sc_escape_controls_to(s, out);
	return out;
}

bool sc_name_printable(const char *s, size_t len)
{
	return len == strlen(s) && sc_escape_controls_to(s, NULL) == len && !strstr(s, "\xef\xbf\xbd");
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
