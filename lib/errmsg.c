// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include "errmsg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

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
	*ret_error = msg;
	return -EINVAL;
}
