// SPDX-License-Identifier: GPL-2.0-or-later
#include "varlink.h"
#include "errmsg.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any request we define, shallow enough that a hostile
 * "[[[[..." can't make the parser's stack grow. */
#define VL_JSON_DEPTH 32
#define VL_NAME_MAX 255
#define VL_BUFFER_INITIAL 4096

struct vl_buffer {
	char *data;
	size_t alloc;
	size_t start;   /* first byte not yet handed out */
	size_t end;     /* bytes held */
	size_t scanned; /* [start, scanned) is known to hold no terminator */
	size_t max;
};

struct vl_buffer *vl_buffer_new(size_t max)
{
	struct vl_buffer *b;

	if (max == 0 || max >= SIZE_MAX / 2)
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->max = max;
	return b;
}

struct vl_buffer *vl_buffer_free(struct vl_buffer *b)
{
	if (b) {
		free(b->data);
		free(b);
	}
	return NULL;
}

static void buffer_compact(struct vl_buffer *b)
{
	if (b->start == 0)
		return;
	memmove(b->data, b->data + b->start, b->end - b->start);
	b->end -= b->start;
	b->scanned -= b->start;
	b->start = 0;
}

/* Grows by doubling up to max + 1: room for a largest message and its
 * terminator, so an idle client costs little and a busy one is bounded. */
static int buffer_grow(struct vl_buffer *b)
{
	size_t cap = b->max + 1, n;
	char *p;

	if (b->alloc >= cap)
		return -ENOBUFS;
	n = b->alloc ? b->alloc * 2 : VL_BUFFER_INITIAL;
	if (n > cap)
		n = cap;
	p = realloc(b->data, n);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->alloc = n;
	return 0;
}

int vl_buffer_space(struct vl_buffer *b, char **ret_ptr, size_t *ret_len)
{
	int r;

	if (b->end - b->start > b->max && !memchr(b->data + b->start, 0, b->end - b->start))
		return -EMSGSIZE;
	buffer_compact(b);
	if (b->end == b->alloc) {
		r = buffer_grow(b);
		if (r < 0)
			return r; /* -ENOBUFS: complete messages wait in vl_buffer_next() */
	}
	*ret_ptr = b->data + b->end;
	*ret_len = b->alloc - b->end;
	return 0;
}

void vl_buffer_advance(struct vl_buffer *b, size_t n)
{
	if (n > b->alloc - b->end)
		n = b->alloc - b->end;
	b->end += n;
}

int vl_buffer_feed(struct vl_buffer *b, const void *data, size_t len)
{
	size_t taken = 0, room;
	char *p;
	int r;

	if (len > INT_MAX)
		len = INT_MAX;
	while (taken < len) {
		r = vl_buffer_space(b, &p, &room);
		if (r == -ENOBUFS)
			break;
		if (r < 0)
			return r;
		if (room > len - taken)
			room = len - taken;
		memcpy(p, (const char *)data + taken, room);
		vl_buffer_advance(b, room);
		taken += room;
	}
	return (int)taken;
}

int vl_buffer_next(struct vl_buffer *b, const char **ret_msg, size_t *ret_len)
{
	char *nul = NULL;

	if (b->end > b->scanned)
		nul = memchr(b->data + b->scanned, 0, b->end - b->scanned);
	if (!nul) {
		b->scanned = b->end;
		return b->end - b->start > b->max ? -EMSGSIZE : 0;
	}
	if ((size_t)(nul - (b->data + b->start)) > b->max)
		return -EMSGSIZE;
	*ret_msg = b->data + b->start;
	*ret_len = (size_t)(nul - (b->data + b->start));
	b->start = (size_t)(nul - b->data) + 1;
	b->scanned = b->start;
	return 1;
}

size_t vl_buffer_pending(const struct vl_buffer *b)
{
	return b->end - b->start;
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_alnum(char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9');
}

/* [A-Za-z]([-]*[A-Za-z0-9])*(\.[A-Za-z0-9]([-]*[A-Za-z0-9])*)+ */
bool vl_interface_name_valid(const char *s, size_t len)
{
	size_t dots = 0;

	if (len == 0 || len > VL_NAME_MAX || !is_alpha(s[0]))
		return false;
	for (size_t i = 1; i < len; i++) {
		if (s[i] == '.') {
			if (!is_alnum(s[i - 1]) || i + 1 == len || !is_alnum(s[i + 1]))
				return false;
			dots++;
		} else if (s[i] == '-') {
			if (i + 1 == len || s[i - 1] == '.')
				return false;
		} else if (!is_alnum(s[i])) {
			return false;
		}
	}
	return dots > 0 && s[len - 1] != '-';
}

bool vl_method_name_valid(const char *s)
{
	const char *dot = strrchr(s, '.');

	if (!dot || strlen(s) > VL_NAME_MAX || !vl_interface_name_valid(s, (size_t)(dot - s)))
		return false;
	if (dot[1] < 'A' || dot[1] > 'Z')
		return false;
	for (const char *p = dot + 2; *p; p++)
		if (!is_alnum(*p))
			return false;
	return true;
}

static bool only_space(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
			return false;
	return true;
}

/* One strict JSON object spanning the whole message, or -EBADMSG. */
static int parse_object(const char *msg, size_t len, json_object **ret)
{
	json_tokener *tok;
	json_object *o;
	size_t end;
	bool ok;

	if (len > INT_MAX || memchr(msg, 0, len))
		return -EBADMSG;
	tok = json_tokener_new_ex(VL_JSON_DEPTH);
	if (!tok)
		return -ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, msg, (int)len);
	end = json_tokener_get_parse_end(tok);
	ok = o && json_tokener_get_error(tok) == json_tokener_success &&
	     json_object_is_type(o, json_type_object) && end <= len &&
	     only_space(msg + end, len - end);
	json_tokener_free(tok);
	if (!ok) {
		json_object_put(o);
		return -EBADMSG;
	}
	*ret = o;
	return 0;
}

void vl_call_done(struct vl_call *c)
{
	free(c->method);
	json_object_put(c->params);
	*c = (struct vl_call){ 0 };
}

static int decode_fail(int r, const char *name, const char *key, const char *value,
		       const char **ret_error_name, json_object **ret_error_params)
{
	json_object *p = json_object_new_object();

	if (!p || json_object_object_add(p, key, json_object_new_string(value)) < 0) {
		json_object_put(p);
		return -ENOMEM;
	}
	*ret_error_name = name;
	*ret_error_params = p;
	return r;
}

/* An optional boolean member; a present one of another type is an error. */
static int get_flag(json_object *o, const char *key, bool *ret)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !v) {
		*ret = false;
		return 0;
	}
	if (!json_object_is_type(v, json_type_boolean))
		return -EINVAL;
	*ret = json_object_get_boolean(v);
	return 0;
}

static const char *decode_members(json_object *o, struct vl_call *c, const char **ret_method)
{
	json_object *m, *p;
	const char *s;

	*ret_method = NULL;
	if (!json_object_object_get_ex(o, "method", &m) || !json_object_is_type(m, json_type_string))
		return "method";
	s = json_object_get_string(m);
	if (strlen(s) != (size_t)json_object_get_string_len(m))
		return "method";
	if (json_object_object_get_ex(o, "parameters", &p) && p &&
	    !json_object_is_type(p, json_type_object))
		return "parameters";
	if (get_flag(o, "oneway", &c->oneway) < 0)
		return "oneway";
	if (get_flag(o, "more", &c->more) < 0)
		return "more";
	if (get_flag(o, "upgrade", &c->upgrade) < 0)
		return "upgrade";
	*ret_method = s;
	c->params = p ? json_object_get(p) : NULL;
	return NULL;
}

int vl_decode_call(const char *msg, size_t len, struct vl_call *ret,
		   const char **ret_error_name, json_object **ret_error_params)
{
	struct vl_call c = { 0 };
	const char *bad, *method;
	json_object *o;
	int r;

	r = parse_object(msg, len, &o);
	if (r == -EBADMSG)
		return decode_fail(r, VL_ERROR_INVALID_PARAMETER, "parameter", "message",
				   ret_error_name, ret_error_params);
	if (r < 0)
		return r;
	bad = decode_members(o, &c, &method);
	if (bad)
		r = decode_fail(-EINVAL, VL_ERROR_INVALID_PARAMETER, "parameter", bad,
				ret_error_name, ret_error_params);
	else if (!vl_method_name_valid(method))
		r = decode_fail(-EINVAL, VL_ERROR_METHOD_NOT_FOUND, "method", method,
				ret_error_name, ret_error_params);
	else if (!(c.method = strdup(method)) || (!c.params && !(c.params = json_object_new_object())))
		r = -ENOMEM;
	json_object_put(o);
	if (r < 0) {
		vl_call_done(&c);
		return r;
	}
	*ret = c;
	return 0;
}

int vl_decode_reply(const char *msg, size_t len, json_object **ret_params, char **ret_error_name)
{
	json_object *o, *e = NULL, *p = NULL;
	char *name = NULL;
	int r;

	r = parse_object(msg, len, &o);
	if (r < 0)
		return r;
	r = -EBADMSG;
	if (json_object_object_get_ex(o, "error", &e) && !json_object_is_type(e, json_type_string))
		goto out;
	if (json_object_object_get_ex(o, "parameters", &p) && p &&
	    !json_object_is_type(p, json_type_object))
		goto out;
	r = -ENOMEM;
	if (e && !(name = strdup(json_object_get_string(e))))
		goto out;
	p = p ? json_object_get(p) : json_object_new_object();
	if (!p) {
		free(name);
		goto out;
	}
	*ret_params = p;
	if (name)
		*ret_error_name = name;
	r = name ? 1 : 0;
out:
	json_object_put(o);
	return r;
}

/* JSON text is UTF-8, and a peer drops a message that is not (the parser
 * here does). A string may hold bytes that are no UTF-8: a comm the kernel
 * cut inside a character, a program's path in another charset. json-c
 * writes them as they are, and only inside strings. In a reply each is
 * sent as U+FFFD, the replacement character, as the metrics file writes
 * it: what is shown reads a little off, nothing acts on it. A call is
 * refused (-EILSEQ): a path or a name it carries would, so changed, name
 * something else. n: the text's length, NUL not included. */
static int utf8_only(const char *s, size_t *n, bool replace, char **ret)
{
	static const char replacement[3] = "\xef\xbf\xbd";
	size_t bad = 0, k, o = 0;
	char *buf;

	for (size_t i = 0; i < *n; i += k)
		if (!(k = sc_utf8_len(s + i)))
			bad++, k = 1;
	if (bad && !replace)
		return -EILSEQ;
	buf = malloc(*n + 2 * bad + 1);
	if (!buf)
		return -ENOMEM;
	for (size_t i = 0; i < *n; i += k) {
		if ((k = sc_utf8_len(s + i))) {
			memcpy(buf + o, s + i, k);
			o += k;
		} else {
			memcpy(buf + o, replacement, 3);
			o += 3;
			k = 1;
		}
	}
	buf[o] = '\0';
	*n = o;
	*ret = buf;
	return 0;
}

/* Consumes o. */
static int encode(json_object *o, bool replace, char **ret_buf, size_t *ret_len)
{
	const char *s;
	size_t n = 0;
	char *buf = NULL;
	int r;

	if (!o)
		return -ENOMEM;
	s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	r = s ? utf8_only(s, &n, replace, &buf) : -ENOMEM;
	json_object_put(o);
	if (r < 0)
		return r;
	*ret_buf = buf;
	*ret_len = n + 1;
	return 0;
}

static json_object *drop(json_object *o)
{
	json_object_put(o);
	return NULL;
}

static int add_params(json_object *o, json_object *params)
{
	json_object *p = params ? json_object_get(params) : json_object_new_object();

	if (!p)
		return -ENOMEM;
	if (json_object_object_add(o, "parameters", p) < 0) {
		json_object_put(p);
		return -ENOMEM;
	}
	return 0;
}

static int add_string(json_object *o, const char *key, const char *value)
{
	json_object *s = json_object_new_string(value);

	if (!s || json_object_object_add(o, key, s) < 0) {
		json_object_put(s);
		return -ENOMEM;
	}
	return 0;
}

int vl_encode_reply(json_object *params, char **ret_buf, size_t *ret_len)
{
	json_object *o = json_object_new_object();

	if (o && add_params(o, params) < 0)
		o = drop(o);
	return encode(o, true, ret_buf, ret_len);
}

int vl_encode_error(const char *error, json_object *params, char **ret_buf, size_t *ret_len)
{
	json_object *o = json_object_new_object();

	if (o && (add_string(o, "error", error) < 0 || add_params(o, params) < 0))
		o = drop(o);
	return encode(o, true, ret_buf, ret_len);
}

int vl_encode_call(const char *method, json_object *params, bool oneway, char **ret_buf,
		   size_t *ret_len)
{
	json_object *o = json_object_new_object();

	if (o && (add_string(o, "method", method) < 0 || add_params(o, params) < 0))
		o = drop(o);
	if (o && oneway && json_object_object_add(o, "oneway", json_object_new_boolean(1)) < 0)
		o = drop(o);
	return encode(o, false, ret_buf, ret_len);
}
