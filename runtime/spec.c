// SPDX-License-Identifier: GPL-2.0-or-later
/* The bundle's config.json gains coresched's createRuntime hook. Only
 * hooks.createRuntime changes: json-c keeps the members' order and each
 * number's original text, so everything else comes out as it went in
 * (bar whitespace). */
#define _GNU_SOURCE /* vasprintf */
#include <errno.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"

static unsigned line_of(const char *text, size_t offset)
{
	unsigned line = 1;
	size_t i;

	for (i = 0; i < offset; i++)
		line += text[i] == '\n';
	return line;
}

/* The whole text must be one JSON object, whitespace around it allowed. */
static int parse(const char *json, size_t len, const char *name, json_object **ret, char **ret_error)
{
	enum json_tokener_error e;
	json_tokener *tok;
	json_object *o;
	size_t end;

	if (len > SPEC_MAX)
		return sc_failf(ret_error, "%s: longer than %d bytes", name, SPEC_MAX);
	if (memchr(json, '\0', len))
		return sc_failf(ret_error, "%s:%u: invalid JSON: a NUL byte", name,
				     line_of(json, (size_t)((const char *)memchr(json, '\0', len) - json)));
	tok = json_tokener_new();
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, json, (int)len);
	e = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!o)
		return sc_failf(ret_error, "%s:%u: invalid JSON: %s", name, line_of(json, end),
				     e == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc(e));
	while (end < len && strchr(" \t\r\n", json[end]))
		end++;
	if (end < len) {
		json_object_put(o);
		return sc_failf(ret_error, "%s:%u: invalid JSON: trailing bytes after the object", name,
				     line_of(json, end));
	}
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return sc_failf(ret_error, "%s: not a JSON object", name);
	}
	*ret = o;
	return 0;
}

/* A hook that runs coresched oci-hook, wherever coresched is installed. */
static bool is_ours(json_object *hook)
{
	json_object *path, *args, *arg1;
	const char *p, *slash;

	if (!json_object_object_get_ex(hook, "path", &path) || !json_object_is_type(path, json_type_string) ||
	    !json_object_object_get_ex(hook, "args", &args) || !json_object_is_type(args, json_type_array))
		return false;
	p = json_object_get_string(path);
	slash = strrchr(p, '/');
	arg1 = json_object_array_get_idx(args, 1);
	return strcmp(slash ? slash + 1 : p, "coresched") == 0 && arg1 &&
	       json_object_is_type(arg1, json_type_string) && strcmp(json_object_get_string(arg1), "oci-hook") == 0;
}

/* hooks.STAGE: 0 absent, 1 holds our hook, 2 without it (*ret_list set), or
 * -EINVAL for a spec the runtime would refuse as well. */
static int find_stage(json_object *hooks, const char *stage, const char *name, json_object **ret_list,
		      char **ret_error)
{
	json_object *list, *h;
	size_t i, n;

	if (!json_object_object_get_ex(hooks, stage, &list) || json_object_is_type(list, json_type_null))
		return 0;
	if (!json_object_is_type(list, json_type_array))
		return sc_failf(ret_error, "%s: hooks.%s: must be an array", name, stage);
	n = json_object_array_length(list);
	for (i = 0; i < n; i++) {
		h = json_object_array_get_idx(list, i);
		if (!json_object_is_type(h, json_type_object))
			return sc_failf(ret_error, "%s: hooks.%s[%zu]: must be an object", name, stage, i);
		if (is_ours(h))
			return 1;
	}
	*ret_list = list;
	return 2;
}

static json_object *new_hook(const char *hook_path, bool fail_open)
{
	json_object *h = json_object_new_object(), *args = json_object_new_array();

	json_object_array_add(args, json_object_new_string("coresched"));
	json_object_array_add(args, json_object_new_string("oci-hook"));
	if (fail_open) {
		json_object_array_add(args, json_object_new_string("--fail-mode"));
		json_object_array_add(args, json_object_new_string("open"));
	}
	json_object_object_add(h, "path", json_object_new_string(hook_path));
	json_object_object_add(h, "args", args);
	json_object_object_add(h, "timeout", json_object_new_int(SPEC_HOOK_TIMEOUT));
	return h;
}

/* 0 added to o, 1 already there, or -EINVAL. */
static int add_hook(json_object *o, const char *name, const char *hook_path, bool fail_open, char **ret_error)
{
	json_object *hooks, *list = NULL, *unused = NULL;
	int r;

	if (!json_object_object_get_ex(o, "hooks", &hooks) || json_object_is_type(hooks, json_type_null)) {
		hooks = json_object_new_object();
		json_object_object_add(o, "hooks", hooks);
	} else if (!json_object_is_type(hooks, json_type_object))
		return sc_failf(ret_error, "%s: hooks: must be an object", name);
	r = find_stage(hooks, "prestart", name, &unused, ret_error);
	if (r == 1 || r < 0)
		return r;
	r = find_stage(hooks, "createRuntime", name, &list, ret_error);
	if (r == 1 || r < 0)
		return r;
	if (!list) {
		list = json_object_new_array();
		json_object_object_add(hooks, "createRuntime", list);
	}
	json_object_array_add(list, new_hook(hook_path, fail_open));
	return 0;
}

/* ---- [Container] Lock=yes: the container may read its cookie, not change it ---- */

#define PR_SCHED_CORE_OPTION 62 /* prctl option; commands 1-3 change a cookie */
static const unsigned lock_cmds[] = { 1 /* CREATE */, 2 /* SHARE_TO */, 3 /* SHARE_FROM */ };

/* {"index": I, "value": 0xffffffff, "valueTwo": V, "op": "SCMP_CMP_MASKED_EQ"}:
 * the kernel reads option and command as 32-bit, so junk in the upper
 * half must not get past. */
static json_object *masked_arg(unsigned index, unsigned value)
{
	json_object *a = json_object_new_object();

	json_object_object_add(a, "index", json_object_new_int((int)index));
	json_object_object_add(a, "value", json_object_new_int64(0xffffffffLL));
	json_object_object_add(a, "valueTwo", json_object_new_int64(value));
	json_object_object_add(a, "op", json_object_new_string("SCMP_CMP_MASKED_EQ"));
	return a;
}

/* {"index": I, "value": MASK, "valueTwo": V, "op": "SCMP_CMP_MASKED_EQ"} */
static json_object *masked_bits(unsigned index, unsigned mask, unsigned value)
{
	json_object *a = masked_arg(index, value);

	json_object_object_add(a, "value", json_object_new_int64(mask));
	return a;
}

static json_object *prctl_rule(const char *action, json_object *arg0, json_object *arg1)
{
	json_object *r = json_object_new_object(), *names = json_object_new_array(), *args = json_object_new_array();

	json_object_array_add(names, json_object_new_string("prctl"));
	json_object_array_add(args, arg0);
	if (arg1)
		json_object_array_add(args, arg1);
	json_object_object_add(r, "names", names);
	json_object_object_add(r, "action", json_object_new_string(action));
	json_object_object_add(r, "args", args);
	return r;
}

/* What an allow-list profile allowed of prctl, less the lock: libseccomp
 * lets an unconditional rule swallow conditional ones of the same call,
 * and has no "masked not equal". So: allowed when a bit of the 32-bit
 * option differs from PR_SCHED_CORE's (one rule per bit: their union is
 * every other option), and PR_SCHED_CORE itself with GET only. */
static void add_allow_except_lock(json_object *rules)
{
	for (unsigned b = 0; b < 32; b++) {
		unsigned bit = 1u << b;

		json_object_array_add(rules, prctl_rule("SCMP_ACT_ALLOW",
							masked_bits(0, bit, ~(unsigned)PR_SCHED_CORE_OPTION & bit), NULL));
	}
	json_object_array_add(rules, prctl_rule("SCMP_ACT_ALLOW", masked_arg(0, PR_SCHED_CORE_OPTION),
						masked_arg(1, 0 /* GET */)));
}

static json_object *lock_rule(unsigned cmd)
{
	json_object *r = json_object_new_object(), *names = json_object_new_array(), *args = json_object_new_array();

	json_object_array_add(names, json_object_new_string("prctl"));
	json_object_array_add(args, masked_arg(0, PR_SCHED_CORE_OPTION));
	json_object_array_add(args, masked_arg(1, cmd));
	json_object_object_add(r, "names", names);
	json_object_object_add(r, "action", json_object_new_string("SCMP_ACT_ERRNO"));
	json_object_object_add(r, "errnoRet", json_object_new_int(1)); /* EPERM */
	json_object_object_add(r, "args", args);
	return r;
}

static const char *str_of(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : NULL;
}

/* Whether rule is lock_rule(cmd), as this program writes it: all of it,
 * so that a look-alike with another mask, index or action (which would
 * lock nothing) is not taken for the lock. */
static bool is_lock_rule(json_object *rule, unsigned cmd)
{
	json_object *ours = lock_rule(cmd);
	bool equal = json_object_equal(rule, ours);

	json_object_put(ours);
	return equal;
}

/* Whether rule is one that add_allow_except_lock() writes. */
static bool is_allow_except_lock(json_object *rule)
{
	json_object *ours = json_object_new_array();
	bool equal = false;

	add_allow_except_lock(ours);
	for (size_t i = 0; !equal && i < json_object_array_length(ours); i++)
		equal = json_object_equal(rule, json_object_array_get_idx(ours, i));
	json_object_put(ours);
	return equal;
}

/* Whether a rule's action stops the call: those never let a locked
 * command through, whatever else the rule says. */
static bool denies(const char *action)
{
	static const char *const deny[] = { "SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_THREAD",
					    "SCMP_ACT_KILL_PROCESS", "SCMP_ACT_TRAP" };

	for (size_t i = 0; action && i < sizeof(deny) / sizeof(deny[0]); i++)
		if (strcmp(action, deny[i]) == 0)
			return true;
	return false;
}

/* A rule that allows prctl whatever its arguments: its "prctl" is taken
 * out (runc merges rules of one call, crun keeps the first), every time
 * the list names it, and 1 is returned so that the caller allows prctl
 * once more, after the lock's rules. A rule that lets prctl through on
 * conditions of its own, or hands it to a tracer or a listener, would
 * win over the lock's rules where they overlap (libseccomp keeps the
 * less specific or the first of two comparisons on one argument): the
 * container is refused, -EINVAL. A rule that denies, or a conditional
 * one with the default action (skipped by the runtime), is left alone;
 * an unconditional one with the default action is taken out as well. */
static int take_prctl(json_object *rule, size_t i, const char *name, const char *def, char **ret_error)
{
	json_object *names, *args;
	const char *action = str_of(rule, "action");
	bool conditional, found = false;
	size_t n;

	if (!json_object_is_type(rule, json_type_object))
		return sc_failf(ret_error, "%s: linux.seccomp.syscalls[%zu]: must be an object", name, i);
	if (!json_object_object_get_ex(rule, "names", &names) || !json_object_is_type(names, json_type_array))
		return 0;
	if (!action || denies(action) || is_allow_except_lock(rule))
		return 0;
	conditional = json_object_object_get_ex(rule, "args", &args) && json_object_is_type(args, json_type_array) &&
		      json_object_array_length(args) > 0;
	if (conditional && strcmp(action, def) == 0)
		return 0;
	n = json_object_array_length(names);
	for (size_t j = n; j-- > 0;) {
		json_object *v = json_object_array_get_idx(names, j);

		if (!json_object_is_type(v, json_type_string) || strcmp(json_object_get_string(v), "prctl") != 0)
			continue;
		if (conditional || (strcmp(action, "SCMP_ACT_ALLOW") != 0 && strcmp(action, "SCMP_ACT_LOG") != 0 &&
				    strcmp(action, def) != 0))
			return sc_failf(ret_error,
					     "%s: linux.seccomp.syscalls[%zu]: %s for prctl%s would let PR_SCHED_CORE "
					     "through: cannot lock the container's cookie ([Container] Lock=yes)",
					     name, i, action, conditional ? " on conditions" : "");
		json_object_array_del_idx(names, j, 1);
		found = true;
	}
	return found;
}

/* Adds the lock's rules in front of linux.seccomp.syscalls, making the
 * profile (allow by default) when there is none. 0 added, 1 already
 * there, -EINVAL. */
static int add_lock(json_object *o, const char *name, char **ret_error)
{
	json_object *linux_, *seccomp, *syscalls, *rules;
	const char *def;
	size_t n, found = 0;
	bool allow_prctl = false;
	int r;

	if (!json_object_object_get_ex(o, "linux", &linux_) || json_object_is_type(linux_, json_type_null)) {
		linux_ = json_object_new_object();
		json_object_object_add(o, "linux", linux_);
	} else if (!json_object_is_type(linux_, json_type_object))
		return sc_failf(ret_error, "%s: linux: must be an object", name);
	if (!json_object_object_get_ex(linux_, "seccomp", &seccomp) || json_object_is_type(seccomp, json_type_null)) {
		json_object *arches = json_object_new_array();

		seccomp = json_object_new_object();
		json_object_object_add(seccomp, "defaultAction", json_object_new_string("SCMP_ACT_ALLOW"));
#if defined(__x86_64__)
		json_object_array_add(arches, json_object_new_string("SCMP_ARCH_X86_64"));
		json_object_array_add(arches, json_object_new_string("SCMP_ARCH_X86"));
		json_object_array_add(arches, json_object_new_string("SCMP_ARCH_X32"));
#elif defined(__aarch64__)
		json_object_array_add(arches, json_object_new_string("SCMP_ARCH_AARCH64"));
		json_object_array_add(arches, json_object_new_string("SCMP_ARCH_ARM"));
#endif
		json_object_object_add(seccomp, "architectures", arches);
		json_object_object_add(linux_, "seccomp", seccomp);
	} else if (!json_object_is_type(seccomp, json_type_object))
		return sc_failf(ret_error, "%s: linux.seccomp: must be an object", name);
	def = str_of(seccomp, "defaultAction");
	if (!def)
		return sc_failf(ret_error, "%s: linux.seccomp.defaultAction: must be a string", name);
	if (!json_object_object_get_ex(seccomp, "syscalls", &syscalls) || json_object_is_type(syscalls, json_type_null)) {
		syscalls = json_object_new_array();
		json_object_object_add(seccomp, "syscalls", syscalls);
	} else if (!json_object_is_type(syscalls, json_type_array))
		return sc_failf(ret_error, "%s: linux.seccomp.syscalls: must be an array", name);
	n = json_object_array_length(syscalls);
	for (size_t i = 0; i < n; i++)
		for (size_t c = 0; c < sizeof(lock_cmds) / sizeof(lock_cmds[0]); c++)
			if (is_lock_rule(json_object_array_get_idx(syscalls, i), lock_cmds[c]))
				found |= 1u << c;
	for (size_t i = 0; i < n; i++) {
		r = take_prctl(json_object_array_get_idx(syscalls, i), i, name, def, ret_error);
		if (r < 0)
			return r;
		allow_prctl |= r > 0;
	}
	/* Locked already, and nothing allows prctl whatever its arguments. */
	if (found == 7 && !allow_prctl)
		return 1;
	/* The new list: the lock first, prctl allowed again if a rule did,
	 * then the rest (rules left without a name dropped). */
	rules = json_object_new_array();
	for (size_t c = 0; c < sizeof(lock_cmds) / sizeof(lock_cmds[0]); c++)
		json_object_array_add(rules, lock_rule(lock_cmds[c]));
	if (allow_prctl && strcmp(def, "SCMP_ACT_ALLOW") != 0)
		add_allow_except_lock(rules);
	for (size_t i = 0; i < n; i++) {
		json_object *rule = json_object_array_get_idx(syscalls, i), *names;
		bool ours = false;

		for (size_t c = 0; c < sizeof(lock_cmds) / sizeof(lock_cmds[0]); c++)
			ours |= is_lock_rule(rule, lock_cmds[c]);
		if (ours || (json_object_object_get_ex(rule, "names", &names) &&
			     json_object_is_type(names, json_type_array) && json_object_array_length(names) == 0))
			continue;
		json_object_array_add(rules, json_object_get(rule));
	}
	json_object_object_add(seccomp, "syscalls", rules);
	return 0;
}

int spec_add_hook(const char *json, size_t len, const char *name, const char *hook_path,
		  const struct spec_policy *policy, char **ret_text, char **ret_error)
{
	json_object *o = NULL;
	const char *s;
	char *text;
	int r;

	r = parse(json, len, name, &o, ret_error);
	if (r < 0)
		return r;
	r = add_hook(o, name, hook_path, policy->fail_open, ret_error);
	if (r >= 0 && policy->lock) {
		int l = add_lock(o, name, ret_error);

		r = l < 0 ? l : r == 1 && l == 1 ? 1 : 0;
	}
	if (r != 0) {
		json_object_put(o);
		return r;
	}
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	text = s ? malloc(strlen(s) + 2) : NULL;
	if (text)
		strcpy(stpcpy(text, s), "\n");
	json_object_put(o);
	if (!text)
		return -ENOMEM;
	*ret_text = text;
	return 0;
}
