/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The varlink wire format spoken on coreschedd's control socket, shared by
 * the daemon and the CLI: framing of NUL-terminated JSON messages, decoding
 * of calls and replies, encoding of all three. Pure logic, no syscalls, so
 * unit tests and the fuzzer call it directly. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* Largest request the daemon accepts, terminator excluded. Everything a
 * client sends is bounded by it. */
#define VL_MESSAGE_MAX (64u * 1024u)
/* Largest reply the CLI accepts: process lists of a big host exceed 64 KiB. */
#define VL_REPLY_MAX (64u * 1024u * 1024u)

#define VL_ERROR_INVALID_PARAMETER "org.varlink.service.InvalidParameter"
#define VL_ERROR_METHOD_NOT_FOUND "org.varlink.service.MethodNotFound"
#define VL_ERROR_METHOD_NOT_IMPLEMENTED "org.varlink.service.MethodNotImplemented"
#define VL_ERROR_INTERFACE_NOT_FOUND "org.varlink.service.InterfaceNotFound"

/* Accumulates bytes read from a stream and hands out complete messages.
 * Memory never exceeds max + 1 bytes. */
struct vl_buffer;

struct vl_buffer *vl_buffer_new(size_t max);
struct vl_buffer *vl_buffer_free(struct vl_buffer *b);

/* Room to read into (compacting first): *ret_len >= 1. -EMSGSIZE when the
 * pending bytes already exceed the limit, -ENOMEM. */
int vl_buffer_space(struct vl_buffer *b, char **ret_ptr, size_t *ret_len);
/* Record that n bytes were written into the room vl_buffer_space() gave. */
void vl_buffer_advance(struct vl_buffer *b, size_t n);
/* Copies in as much of data as fits; returns the number of bytes taken.
 * Fewer than len: take complete messages with vl_buffer_next(), feed again. */
int vl_buffer_feed(struct vl_buffer *b, const void *data, size_t len);
/* 1 and the next complete message (terminator excluded; valid until the
 * next vl_buffer_space/feed), 0 when none is complete yet, -EMSGSIZE when a
 * message has outgrown the limit without its terminator. */
int vl_buffer_next(struct vl_buffer *b, const char **ret_msg, size_t *ret_len);
/* Bytes held that do not yet form a complete message. */
size_t vl_buffer_pending(const struct vl_buffer *b);

struct vl_call {
	char *method;        /* "interface.Method", validated */
	json_object *params; /* always an object, owned */
	bool oneway;
	bool more;
	bool upgrade;
};

void vl_call_done(struct vl_call *c);

/* Decodes one request. On failure returns a negative errno and sets
 * *ret_error_name (a static string) and *ret_error_params (owned by the
 * caller) to the varlink error to answer with:
 *   -EBADMSG  not a JSON object (invalid JSON, embedded NUL, trailing bytes,
 *             another top-level type): the stream can't be trusted, so the
 *             server answers and closes;
 *   -EINVAL   a well-formed object with bad members: answer and go on.
 * "more" and "upgrade" are decoded, not judged: the server decides. */
int vl_decode_call(const char *msg, size_t len, struct vl_call *ret,
		   const char **ret_error_name, json_object **ret_error_params);

/* Decodes one reply: 0 and *ret_params for a result, 1 and also
 * *ret_error_name (malloc'd) for an error; -EBADMSG when malformed. */
int vl_decode_reply(const char *msg, size_t len, json_object **ret_params,
		    char **ret_error_name);

/* Wire bytes (malloc'd, NUL-terminated); *ret_len counts the terminator.
 * params is borrowed; NULL means {}. A reply's bytes that are not UTF-8
 * go as U+FFFD; a call with any is refused with -EILSEQ. */
int vl_encode_reply(json_object *params, char **ret_buf, size_t *ret_len);
int vl_encode_error(const char *error, json_object *params, char **ret_buf, size_t *ret_len);
int vl_encode_call(const char *method, json_object *params, bool oneway, char **ret_buf,
		   size_t *ret_len);

/* Whether s is "reverse.domain.interface.Method" as the varlink spec has it. */
bool vl_method_name_valid(const char *s);
/* Whether s is a varlink interface name ("org.varlink.service"). */
bool vl_interface_name_valid(const char *s, size_t len);
