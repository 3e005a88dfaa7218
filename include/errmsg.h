/* SPDX-License-Identifier: GPL-2.0-or-later */
/* An error message for the caller to print: the parsers of this project
 * return -EINVAL with the message in *ret_error. */
#pragma once

/* Sets *ret_error to the formatted message (the caller frees it) and
 * returns -EINVAL; -ENOMEM, with *ret_error untouched, if it cannot. */
int sc_failf(char **ret_error, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A copy of s (the caller frees it) in which each control byte (below 0x20,
 * and 0x7f) is written as \xNN, so that a value quoted in a message cannot
 * break its line or drive a terminal; NULL if out of memory. */
char *sc_escape_controls(const char *s);
