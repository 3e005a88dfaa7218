// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "errmsg.h"
#include "ocistate.h"
#include "unit.h"

static int parse(const char *json, struct oci_state *s, char **error)
{
	*error = NULL;
	return ocihook_parse_state(json, strlen(json), s, error);
}

/* json must be rejected with a message containing want. */
static void rejects(const char *json, const char *want)
{
	struct oci_state s = { .id = (char *)"untouched" };
	char *error = NULL;

	CHECK(parse(json, &s, &error) == -EINVAL);
	CHECK(error && strstr(error, want));
	if (error && !strstr(error, want))
		fprintf(stderr, "  message was: %s\n", error);
	CHECK_STREQ(s.id, "untouched"); /* ret written only on success */
	free(error);
}

static void state_full(void)
{
	struct oci_state s;
	char *error;

	CHECK(parse("{\"ociVersion\":\"1.0.2\",\"id\":\"web-1\",\"status\":\"creating\",\"pid\":4242,"
		    "\"bundle\":\"/run/b\",\"annotations\":{\"io.coresched.policy\":\"isolate\","
		    "\"io.coresched.group\":\"pods\",\"io.kubernetes.cri.sandbox-id\":\"sb1\","
		    "\"other\":\"x\"}}\n",
		    &s, &error) == 0);
	CHECK(error == NULL);
	CHECK_STREQ(s.id, "web-1");
	CHECK(s.pid == 4242);
	CHECK_STREQ(s.status, "creating");
	CHECK_STREQ(s.bundle, "/run/b");
	CHECK_STREQ(s.policy, "isolate");
	CHECK_STREQ(s.group, "pods");
	CHECK_STREQ(s.sandbox, "sb1");
	ocihook_state_done(&s);
	CHECK(s.id == NULL && s.sandbox == NULL);
}

static void state_minimal(void)
{
	struct oci_state s;
	char *error;

	CHECK(parse("{\"id\":\"c\",\"pid\":1}", &s, &error) == 0);
	CHECK_STREQ(s.id, "c");
	CHECK(s.pid == 1);
	CHECK(!s.status && !s.bundle && !s.policy && !s.group && !s.sandbox);
	ocihook_state_done(&s);
}

static void sandbox_crio_and_precedence(void)
{
	struct oci_state s;
	char *error;

	CHECK(parse("{\"id\":\"c\",\"pid\":2,\"annotations\":{\"io.kubernetes.cri-o.SandboxID\":\"crio\"}}",
		    &s, &error) == 0);
	CHECK_STREQ(s.sandbox, "crio");
	ocihook_state_done(&s);
	CHECK(parse("{\"id\":\"c\",\"pid\":2,\"annotations\":{\"io.kubernetes.cri-o.SandboxID\":\"crio\","
		    "\"io.kubernetes.cri.sandbox-id\":\"cri\"}}",
		    &s, &error) == 0);
	CHECK_STREQ(s.sandbox, "cri");
	ocihook_state_done(&s);
	/* An empty one names none: the other is used, and an empty group is
	 * no group (the daemon would refuse either, stopping the container). */
	CHECK(parse("{\"id\":\"c\",\"pid\":2,\"annotations\":{\"io.kubernetes.cri-o.SandboxID\":\"crio\","
		    "\"io.kubernetes.cri.sandbox-id\":\"\",\"io.coresched.group\":\"\"}}",
		    &s, &error) == 0);
	CHECK_STREQ(s.sandbox, "crio");
	CHECK(s.group == NULL);
	ocihook_state_done(&s);
	CHECK(parse("{\"id\":\"c\",\"pid\":2,\"annotations\":{\"io.kubernetes.cri.sandbox-id\":\"\"}}", &s,
		    &error) == 0);
	CHECK(s.sandbox == NULL);
	ocihook_state_done(&s);
}

static void rejects_invalid_json(void)
{
	rejects("", "invalid JSON");
	rejects("{\"id\":\"c\",\"pid\":1", "invalid JSON");
	rejects("{\"id\":\"c\",\"pid\":1} {}", "trailing bytes");
	rejects("[1,2]", "not a JSON object");
	rejects("\"pid\"", "not a JSON object");
}

static void rejects_embedded_nul(void)
{
	static const char json[] = "{\"id\":\"c\",\0\"pid\":1}";
	struct oci_state s;
	char *error = NULL;

	CHECK(ocihook_parse_state(json, sizeof(json) - 1, &s, &error) == -EINVAL);
	CHECK(error && strstr(error, "NUL"));
	free(error);
	rejects("{\"id\":\"a\\u0000b\",\"pid\":1}", "id: contains a NUL");
}

/* A line break in a name would split the hook's one-line message. */
static void rejects_control_characters(void)
{
	rejects("{\"id\":\"a\\nb\",\"pid\":1}", "id: contains a control character");
	rejects("{\"id\":\"a\\u007fb\",\"pid\":1}", "id: contains a control character");
	rejects("{\"id\":\"c\",\"pid\":1,\"annotations\":{\"io.coresched.group\":\"w\\te\"}}",
		"contains a control character");
	/* C1, as JSON's \u escape or as UTF-8, and bytes that are not UTF-8. */
	rejects("{\"id\":\"a\\u009bb\",\"pid\":1}", "id: contains a control character, a byte that is not UTF-8 or U+FFFD");
	rejects("{\"id\":\"a\xc2\x9b" "b\",\"pid\":1}", "id: contains a control character");
	rejects("{\"id\":\"a\xff\",\"pid\":1}", "id: contains a control character, a byte that is not UTF-8 or U+FFFD");
	rejects("{\"id\":\"c\",\"pid\":1,\"annotations\":{\"io.kubernetes.cri.sandbox-id\":\"s\xc3\"}}",
		"that is not UTF-8 or U+FFFD");
	rejects("{\"id\":\"a\\ud800\",\"pid\":1}", "id: contains a control character, a byte that is not UTF-8 or U+FFFD");
}

static void rejects_bad_pid(void)
{
	rejects("{\"id\":\"c\"}", "pid: missing");
	rejects("{\"id\":\"c\",\"pid\":\"12\"}", "pid: must be an integer");
	rejects("{\"id\":\"c\",\"pid\":1.5}", "pid: must be an integer");
	rejects("{\"id\":\"c\",\"pid\":null}", "pid: must be an integer");
	rejects("{\"id\":\"c\",\"pid\":0}", "pid: must be a positive integer, not 0");
	rejects("{\"id\":\"c\",\"pid\":-7}", "pid: must be a positive integer, not -7");
	rejects("{\"id\":\"c\",\"pid\":2147483648}", "pid: must be a positive integer");
	rejects("{\"id\":\"c\",\"pid\":99999999999999999999999}", "pid: must be");
}

static void rejects_bad_id(void)
{
	char json[1200];

	rejects("{\"pid\":1}", "id: missing");
	rejects("{\"id\":\"\",\"pid\":1}", "id: missing or empty");
	rejects("{\"id\":7,\"pid\":1}", "id: must be a string");
	snprintf(json, sizeof(json), "{\"id\":\"%01025d\",\"pid\":1}", 0);
	rejects(json, "id: longer than 1024 bytes");
}

static void id_at_limit(void)
{
	struct oci_state s;
	char json[1200], *error;

	snprintf(json, sizeof(json), "{\"id\":\"%01024d\",\"pid\":1}", 0);
	CHECK(parse(json, &s, &error) == 0);
	CHECK(s.id && strlen(s.id) == 1024);
	ocihook_state_done(&s);
}

static void rejects_bad_annotations(void)
{
	rejects("{\"id\":\"c\",\"pid\":1,\"annotations\":[]}", "annotations: must be an object");
	rejects("{\"id\":\"c\",\"pid\":1,\"annotations\":\"x\"}", "annotations: must be an object");
	rejects("{\"id\":\"c\",\"pid\":1,\"annotations\":{\"io.coresched.group\":5}}",
		"annotations.io.coresched.group: must be a string");
	/* Any value, not only the ones the hook reads. */
	rejects("{\"id\":\"c\",\"pid\":1,\"annotations\":{\"vendor.x\":{}}}",
		"annotations.vendor.x: must be a string");
	rejects("{\"id\":\"c\",\"pid\":1,\"status\":3}", "status: must be a string");
}

/* The parsers' messages (this one's, the runtime's): a value quoted in one
 * cannot break its line or drive a terminal. */
static void messages_escape_controls(void)
{
	char *e = NULL, *plain = sc_escape_controls("plain /x y");

	CHECK(sc_failf(&e, "bundle '%s': bad", "/b\x1b[31m\nc\x7f") == -EINVAL);
	CHECK_STREQ(e, "bundle '/b\\x1b[31m\\x0ac\\x7f': bad");
	CHECK_STREQ(plain, "plain /x y");
	free(e);
	free(plain);
	/* C1 controls, as UTF-8 or as lone bytes, and bytes that are not
	 * UTF-8, escaped; printable UTF-8 (2, 3 and 4 bytes) kept. */
	e = sc_escape_controls("a\xc2\x9b" "2J|\x9b|caf\xc3\xa9|\xe2\x82\xac|\xf0\x9f\x98\x80|\xe9|\xed\xa0\x80|\xc0\xaf|\xc2\xa0");
	CHECK_STREQ(e, "a\\xc2\\x9b" "2J|\\x9b|caf\xc3\xa9|\xe2\x82\xac|\xf0\x9f\x98\x80|\\xe9|\\xed\\xa0\\x80|"
		       "\\xc0\\xaf|\xc2\xa0");
	free(e);
	/* A cut sequence at the end is escaped, nothing read past it. */
	e = sc_escape_controls("x\xe2\x82");
	CHECK_STREQ(e, "x\\xe2\\x82");
	free(e);
}

int main(void)
{
	RUN(state_full);
	RUN(rejects_control_characters);
	RUN(state_minimal);
	RUN(sandbox_crio_and_precedence);
	RUN(rejects_invalid_json);
	RUN(rejects_embedded_nul);
	RUN(rejects_bad_pid);
	RUN(rejects_bad_id);
	RUN(id_at_limit);
	RUN(rejects_bad_annotations);
	RUN(messages_escape_controls);
	UNIT_EXIT();
}
