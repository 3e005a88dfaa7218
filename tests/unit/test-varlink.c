// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "varlink.h"

/* Feeds all of data, collecting complete messages into out[] (copies). */
static int feed_all(struct vl_buffer *b, const char *data, size_t len, char **out, size_t max_out,
		    size_t *n_out)
{
	while (len > 0) {
		const char *msg;
		size_t mlen;
		int n = vl_buffer_feed(b, data, len), r;

		if (n < 0)
			return n;
		data += n;
		len -= (size_t)n;
		while ((r = vl_buffer_next(b, &msg, &mlen)) > 0)
			if (*n_out < max_out)
				out[(*n_out)++] = strndup(msg, mlen);
		if (r < 0)
			return r;
	}
	return 0;
}

static void free_all(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
}

static void framing_split_across_reads(void)
{
	struct vl_buffer *b = vl_buffer_new(VL_MESSAGE_MAX);
	const char *wire = "{\"method\":\"a.b.C\"}";
	char *out[4];
	size_t n = 0;

	/* One byte per read, terminator last. */
	for (size_t i = 0; i <= strlen(wire); i++)
		CHECK(feed_all(b, wire + i, 1, out, 4, &n) == 0);
	CHECK(n == 1);
	if (n == 1)
		CHECK_STREQ(out[0], wire);
	CHECK(vl_buffer_pending(b) == 0);
	free_all(out, n);
	vl_buffer_free(b);
}

static void framing_several_in_one_read(void)
{
	struct vl_buffer *b = vl_buffer_new(VL_MESSAGE_MAX);
	const char wire[] = "{\"a\":1}\0{\"b\":2}\0{\"c\"";
	char *out[4];
	size_t n = 0;

	CHECK(feed_all(b, wire, sizeof(wire) - 1, out, 4, &n) == 0);
	CHECK(n == 2);
	if (n == 2) {
		CHECK_STREQ(out[0], "{\"a\":1}");
		CHECK_STREQ(out[1], "{\"b\":2}");
	}
	CHECK(vl_buffer_pending(b) == 4);
	CHECK(feed_all(b, ":3}", 4, out, 4, &n) == 0); /* with its terminator */
	CHECK(n == 3);
	if (n == 3)
		CHECK_STREQ(out[2], "{\"c\":3}");
	free_all(out, n);
	vl_buffer_free(b);
}

static void framing_empty_message(void)
{
	struct vl_buffer *b = vl_buffer_new(16);
	const char *msg = NULL;
	size_t len = 99;

	CHECK(vl_buffer_feed(b, "\0", 1) == 1);
	CHECK(vl_buffer_next(b, &msg, &len) == 1);
	CHECK(len == 0);
	CHECK(vl_buffer_next(b, &msg, &len) == 0);
	vl_buffer_free(b);
}

static char *big(size_t n, char fill)
{
	char *p = malloc(n + 1);

	memset(p, fill, n);
	p[n] = '\0';
	return p;
}

static void framing_exact_limit_is_accepted(void)
{
	struct vl_buffer *b = vl_buffer_new(VL_MESSAGE_MAX);
	char *wire = big(VL_MESSAGE_MAX, 'x'); /* + its NUL: 64 KiB + 1 on the wire */
	char *out[4];
	size_t n = 0;

	CHECK(feed_all(b, wire, VL_MESSAGE_MAX + 1, out, 4, &n) == 0);
	CHECK(n == 1);
	if (n == 1)
		CHECK(strlen(out[0]) == VL_MESSAGE_MAX);
	/* Twice in a row, in one go: the buffer is reused after compaction. */
	n = 0;
	free_all(out, 1);
	CHECK(feed_all(b, wire, VL_MESSAGE_MAX + 1, out, 4, &n) == 0);
	CHECK(n == 1);
	free_all(out, n);
	free(wire);
	vl_buffer_free(b);
}

static void framing_over_limit_is_emsgsize(void)
{
	struct vl_buffer *b = vl_buffer_new(VL_MESSAGE_MAX);
	char *wire = big(VL_MESSAGE_MAX + 1, 'x');
	char *out[1];
	size_t n = 0;

	/* One byte over, terminator included: refused before it arrives. */
	CHECK(feed_all(b, wire, VL_MESSAGE_MAX + 2, out, 1, &n) == -EMSGSIZE);
	CHECK(n == 0);
	free(wire);
	vl_buffer_free(b);
}

static void framing_missing_terminator(void)
{
	struct vl_buffer *b = vl_buffer_new(VL_MESSAGE_MAX);
	char *wire = big(VL_MESSAGE_MAX, 'y');
	const char *msg;
	char *p;
	size_t len, room;

	/* At the limit without a terminator: still waiting... */
	CHECK(vl_buffer_feed(b, wire, VL_MESSAGE_MAX) == (int)VL_MESSAGE_MAX);
	CHECK(vl_buffer_next(b, &msg, &len) == 0);
	CHECK(vl_buffer_pending(b) == VL_MESSAGE_MAX);
	/* ...one more non-terminator byte and the message can never fit. */
	CHECK(vl_buffer_feed(b, "y", 1) == 1);
	CHECK(vl_buffer_next(b, &msg, &len) == -EMSGSIZE);
	CHECK(vl_buffer_space(b, &p, &room) == -EMSGSIZE);
	free(wire);
	vl_buffer_free(b);
}

static const char *decode_error(const char *msg, json_object **ret_params, int *ret_r)
{
	struct vl_call call;
	const char *name = NULL;
	json_object *params = NULL;

	*ret_r = vl_decode_call(msg, strlen(msg), &call, &name, &params);
	if (*ret_r == 0)
		vl_call_done(&call);
	*ret_params = params;
	return name;
}

static const char *error_param(json_object *p, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(p, key, &v) ? json_object_get_string(v) : NULL;
}

static void check_decode_error(const char *msg, int want_r, const char *want_name,
			       const char *key, const char *want_value)
{
	json_object *params;
	int r;
	const char *name = decode_error(msg, &params, &r);

	CHECK(r == want_r);
	CHECK_STREQ(name, want_name);
	CHECK_STREQ(error_param(params, key), want_value);
	json_object_put(params);
}

static void decode_call_errors_have_varlink_names(void)
{
	const char *ip = VL_ERROR_INVALID_PARAMETER, *mnf = VL_ERROR_METHOD_NOT_FOUND;

	check_decode_error("{\"method\":", -EBADMSG, ip, "parameter", "message");
	check_decode_error("[1,2]", -EBADMSG, ip, "parameter", "message");
	check_decode_error("\"io.coresched.Status\"", -EBADMSG, ip, "parameter", "message");
	check_decode_error("{} {}", -EBADMSG, ip, "parameter", "message");
	check_decode_error("{'method':'a.b.C'}", -EBADMSG, ip, "parameter", "message");
	check_decode_error("{\"method\":\"a\xff.b.C\"}", -EBADMSG, ip, "parameter", "message");
	check_decode_error("{}", -EINVAL, ip, "parameter", "method");
	check_decode_error("{\"method\":42}", -EINVAL, ip, "parameter", "method");
	check_decode_error("{\"method\":\"a.b.C\\u0000x\"}", -EINVAL, ip, "parameter", "method");
	check_decode_error("{\"method\":\"a.b.C\",\"parameters\":[]}", -EINVAL, ip, "parameter",
			   "parameters");
	check_decode_error("{\"method\":\"a.b.C\",\"oneway\":1}", -EINVAL, ip, "parameter", "oneway");
	check_decode_error("{\"method\":\"a.b.C\",\"more\":\"yes\"}", -EINVAL, ip, "parameter", "more");
	check_decode_error("{\"method\":\"Status\"}", -EINVAL, mnf, "method", "Status");
	check_decode_error("{\"method\":\"io.coresched.status\"}", -EINVAL, mnf, "method",
			   "io.coresched.status");
	check_decode_error("{\"method\":\"io..coresched.Status\"}", -EINVAL, mnf, "method",
			   "io..coresched.Status");
	check_decode_error("{\"method\":\"io.coresched.Sta-tus\"}", -EINVAL, mnf, "method",
			   "io.coresched.Sta-tus");
}

static void decode_call_embedded_nul_is_undecodable(void)
{
	const char msg[] = "{\"method\":\"a.b.C\"}\0{}";
	struct vl_call call;
	const char *name = NULL;
	json_object *params = NULL;

	CHECK(vl_decode_call(msg, sizeof(msg) - 1, &call, &name, &params) == -EBADMSG);
	CHECK_STREQ(name, VL_ERROR_INVALID_PARAMETER);
	json_object_put(params);
}

static void decode_call_fields(void)
{
	const char *msg = "{\"method\":\"io.coresched.Explain\",\"parameters\":{\"pid\":7},"
			  "\"oneway\":true,\"more\":false,\"x-future\":1}";
	struct vl_call call = { 0 };
	const char *name = NULL;
	json_object *ep = NULL, *v;

	CHECK(vl_decode_call(msg, strlen(msg), &call, &name, &ep) == 0);
	CHECK(name == NULL && ep == NULL);
	CHECK_STREQ(call.method, "io.coresched.Explain");
	CHECK(call.oneway && !call.more && !call.upgrade);
	CHECK(json_object_object_get_ex(call.params, "pid", &v) && json_object_get_int(v) == 7);
	vl_call_done(&call);

	/* Missing parameters read as an empty object. */
	msg = " {\"method\":\"org.varlink.service.GetInfo\"}\n";
	CHECK(vl_decode_call(msg, strlen(msg), &call, &name, &ep) == 0);
	CHECK(json_object_is_type(call.params, json_type_object));
	CHECK(json_object_object_length(call.params) == 0);
	vl_call_done(&call);
}

static void method_names(void)
{
	CHECK(vl_method_name_valid("org.varlink.service.GetInfo"));
	CHECK(vl_method_name_valid("io.coresched.Status"));
	CHECK(vl_method_name_valid("a-b.c1.X9"));
	CHECK(!vl_method_name_valid("io.Status")); /* an interface has a dot */
	CHECK(!vl_method_name_valid("Status"));
	CHECK(!vl_method_name_valid("io.coresched."));
	CHECK(!vl_method_name_valid(".coresched.Status"));
	CHECK(!vl_method_name_valid("1o.coresched.Status"));
	CHECK(!vl_method_name_valid("io-.coresched.Status"));
	CHECK(!vl_method_name_valid("io.coresched.Get_Info"));
}

static void round_trip_call(void)
{
	json_object *p = json_object_new_object(), *v;
	struct vl_call call = { 0 };
	const char *name = NULL;
	json_object *ep = NULL;
	char *buf = NULL;
	size_t len = 0;

	json_object_object_add(p, "group", json_object_new_string("web \"quoted\" / ü"));
	CHECK(vl_encode_call("io.coresched.Run", p, true, &buf, &len) == 0);
	CHECK(buf && len == strlen(buf) + 1 && buf[len - 1] == '\0');
	CHECK(vl_decode_call(buf, len - 1, &call, &name, &ep) == 0);
	CHECK_STREQ(call.method, "io.coresched.Run");
	CHECK(call.oneway);
	CHECK(json_object_object_get_ex(call.params, "group", &v));
	CHECK_STREQ(json_object_get_string(v), "web \"quoted\" / ü");
	vl_call_done(&call);
	free(buf);
	json_object_put(p);
}

static void round_trip_reply_and_error(void)
{
	json_object *p = json_object_new_object(), *got = NULL, *v;
	char *buf = NULL, *name = NULL;
	size_t len;

	json_object_object_add(p, "pid", json_object_new_int(42));
	CHECK(vl_encode_reply(p, &buf, &len) == 0);
	CHECK(vl_decode_reply(buf, len - 1, &got, &name) == 0);
	CHECK(name == NULL);
	CHECK(json_object_object_get_ex(got, "pid", &v) && json_object_get_int(v) == 42);
	json_object_put(got);
	free(buf);

	CHECK(vl_encode_error("io.coresched.NoSuchProcess", p, &buf, &len) == 0);
	CHECK(vl_decode_reply(buf, len - 1, &got, &name) == 1);
	CHECK_STREQ(name, "io.coresched.NoSuchProcess");
	CHECK(json_object_object_get_ex(got, "pid", &v) && json_object_get_int(v) == 42);
	json_object_put(got);
	free(name);
	free(buf);
	json_object_put(p);

	/* NULL parameters encode as {}. */
	CHECK(vl_encode_reply(NULL, &buf, &len) == 0);
	CHECK_STREQ(buf, "{\"parameters\":{}}");
	free(buf);
}

static void decode_reply_rejects_malformed(void)
{
	json_object *got = NULL;
	char *name = NULL;

	CHECK(vl_decode_reply("{\"error\":5}", 11, &got, &name) == -EBADMSG);
	CHECK(vl_decode_reply("{\"parameters\":1}", 16, &got, &name) == -EBADMSG);
	CHECK(vl_decode_reply("nope", 4, &got, &name) == -EBADMSG);
	CHECK(got == NULL && name == NULL);
}

/* A string that is not UTF-8 (a comm cut inside a character, a path in
 * another charset) still makes a message the other side takes: each stray
 * byte is sent as U+FFFD, valid UTF-8 (C1 included) as it is. */
static void reply_strings_not_utf8(void)
{
	json_object *p = json_object_new_object(), *got = NULL, *v;
	char *buf = NULL, *name = NULL;
	size_t len;

	json_object_object_add(p, "comm", json_object_new_string("\xc3\xa9\xc3\xa9\xc3"));
	json_object_object_add(p, "exe", json_object_new_string("/opt/ab\xff\xc2\x9b\xe2\x82\xac\\x"));
	CHECK(vl_encode_reply(p, &buf, &len) == 0);
	CHECK(buf && strlen(buf) == len - 1);
	CHECK(vl_decode_reply(buf, len - 1, &got, &name) == 0);
	CHECK(json_object_object_get_ex(got, "comm", &v) && strcmp(json_object_get_string(v), "\xc3\xa9\xc3\xa9\xef\xbf\xbd") == 0);
	CHECK(json_object_object_get_ex(got, "exe", &v) &&
	      strcmp(json_object_get_string(v), "/opt/ab\xef\xbf\xbd\xc2\x9b\xe2\x82\xac\\x") == 0);
	json_object_put(got);
	free(buf);
	free(name);
	/* A call is refused instead: its path or name, so changed, would
	 * name something else. */
	buf = NULL;
	CHECK(vl_encode_call("io.coresched.CheckConfig", p, false, &buf, &len) == -EILSEQ);
	CHECK(buf == NULL);
	json_object_put(p);
}

int main(void)
{
	RUN(framing_split_across_reads);
	RUN(framing_several_in_one_read);
	RUN(framing_empty_message);
	RUN(framing_exact_limit_is_accepted);
	RUN(framing_over_limit_is_emsgsize);
	RUN(framing_missing_terminator);
	RUN(decode_call_errors_have_varlink_names);
	RUN(decode_call_embedded_nul_is_undecodable);
	RUN(decode_call_fields);
	RUN(method_names);
	RUN(round_trip_call);
	RUN(round_trip_reply_and_error);
	RUN(decode_reply_rejects_malformed);
	RUN(reply_strings_not_utf8);
	UNIT_EXIT();
}
