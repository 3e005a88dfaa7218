/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An error message for the caller to print: the parsers of this project
 * return -EINVAL with the message in *ret_error. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Sets *ret_error to the formatted message, control characters escaped
 * (sc_escape_controls(); the caller frees it), and returns -EINVAL;
 * -ENOMEM if it cannot, with *ret_error NULL or untouched. */
int sc_failf(char **ret_error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A copy of s (the caller frees it) in which each byte of a control
 * character (C0, DEL, and C1 as UTF-8 or as a lone byte) and each byte
 * that is not part of valid UTF-8 is written as \xNN, so that a value
 * quoted in a message cannot break its line or drive a terminal; printable
 * UTF-8 is kept. NULL if out of memory. */
char *sc_escape_controls(const char *s);
/* The same into out (NULL: only count); the escaped length, without the
 * NUL that out then ends with. */
size_t sc_escape_controls_to(const char *s, char *out);

/* The length of the well-formed UTF-8 sequence that starts at s (RFC 3629:
 * no overlong form, no surrogate, nothing past U+10FFFF; 1 for an ASCII
 * character), 0 at the NUL and at a byte that starts none. */
size_t sc_utf8_len(const char *s);

/* Whether s, of len bytes, is a name fit for a key and a one-line message:
 * no NUL inside, printable UTF-8 only (no C0, DEL or C1 control, no byte
 * that is not UTF-8), and no U+FFFD, which JSON parsers put for what they
 * could not read (a lone surrogate escape), so that two names sent apart
 * stay apart. */
bool sc_name_printable(const char *s, size_t len);
