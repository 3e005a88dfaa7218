// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary processes through the rule matcher. Every exec any user makes
 * reaches it with a path, comm and cgroup the user chose. Byte 0, bit 0
 * set: the rule set is the text up to the first NUL that follows, else a
 * fixed one covering every match kind and Per= mode. The rest is a list
 * of processes, each: a flags byte (bits 0-2: exe, comm, cgroup unknown),
 * uid and gid as 4 bytes little-endian, then exe, comm and cgroup, each
 * ended by NUL or the end of input.
 * The verdict must be deterministic, agree with explain's group-by-group
 * one, and carry the key its group's Per= promises.
 * fuzz-sources: daemon/conf.c daemon/conf-keys.c daemon/conf-words.c daemon/conf-ids.c daemon/rules-glob.c
 * fuzz-pkgs: inih */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

#define MAX_GROUPS_CHECKED 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fixed_rules[] =
	"[Group system]\n"
	"MatchCgroup=/system.slice/* /init.scope\n"
	"Trusted=yes\n"
	"Priority=100\n"
	"[Group browsers]\n"
	"MatchExe=/usr/bin/firefox /usr/lib/chromium/* /opt/[a-c]?/bin/\\*\n"
	"MatchGroup=0 100-199\n"
	"Per=user\n"
	"Priority=100\n"
	"[Group build]\n"
	"MatchComm=cc1 cc1plus rustc ld.* [!x]y\n"
	"MatchUser=root 1 1000-59999\n"
	"Per=user\n"
	"[Group vms]\n"
	"MatchCgroup=/machine.slice/* /machine.slice/*/vm?\n"
	"Per=cgroup\n"
	"Priority=-10\n"
	"[Group deep]\n"
	"MatchCgroup=/d/*\n"
	"MatchUser=0-4294967294\n"
	"Per=cgroup\n"
	"[Group tenant]\n"
	"MatchUser=10000-19999 65534\n"
	"MatchCgroup=/user.slice\n"
	"Per=process\n"
	"Priority=-10\n"
	"[Group users]\n"
	"MatchCgroup=/user.slice/user-*.slice\n"
	"Priority=-1000\n"
	"[Group manual]\n"
	"Description=joined only on request\n";

static struct conf *fixed;

static struct conf *load(const char *text)
{
	struct conf *c = NULL;
	char *error = NULL;

	if (conf_load_string(text, "rules.conf", &c, &error) < 0) {
		free(error);
		return NULL;
	}
	return c;
}

struct verdicts {
	bool matched[MAX_GROUPS_CHECKED];
	size_t n;
};

static void on_explain(void *userdata, const struct group *g, bool matched, const char *reason)
{
	struct verdicts *v = userdata;

	if (!reason || !*reason || g->order != v->n)
		abort();
	if (v->n < MAX_GROUPS_CHECKED)
		v->matched[v->n] = matched;
	v->n++;
}

/* Whether key is cgroup cut at a '/' boundary (or whole). "/" itself is
 * the root cgroup's key: a slash-and-star MatchCgroup= matches it. */
static bool is_cgroup_prefix(const char *key, const char *cgroup)
{
	size_t n = strlen(key);

	return n > 0 && cgroup && key[0] == '/' && strncmp(key, cgroup, n) == 0 &&
	       (cgroup[n] == '\0' || cgroup[n] == '/');
}

static void check_key(const struct group *g, const struct match_input *in, const char *key, bool own_key)
{
	char uid[16];

	if (memchr(key, '\0', MATCH_KEY_MAX) == NULL)
		abort();
	switch (g->per) {
	case PER_USER:
		snprintf(uid, sizeof(uid), "%u", (unsigned)in->uid);
		if (strcmp(key, uid) != 0)
			abort();
		break;
	case PER_CGROUP:
		/* A key of the process's own: only for a cgroup path that does
		 * not fit a key (the matched prefix, at least that long). */
		if (own_key ? *key || !in->cgroup || strlen(in->cgroup) < MATCH_KEY_MAX
			    : !is_cgroup_prefix(key, in->cgroup))
			abort();
		break;
	default:
		if (*key || own_key)
			abort();
	}
	if (g->trusted && *key)
		abort();
}

/* Groups explain says match but the matcher passed over: only a
 * Per=cgroup group whose key would not fit may be skipped. */
static void check_against_explain(const struct conf *c, const struct match_input *in, const struct group *g)
{
	struct verdicts v = { .n = 0 };
	size_t until = g ? g->order : c->n_groups;

	rules_explain(c, in, on_explain, &v);
	if (v.n != c->n_groups)
		abort();
	if (g && g->order < MAX_GROUPS_CHECKED && !v.matched[g->order])
		abort();
	for (size_t i = 0; i < until && i < MAX_GROUPS_CHECKED; i++)
		if (v.matched[i] && c->groups[i]->per != PER_CGROUP)
			abort();
}

static void check_match(const struct conf *c, const struct match_input *in)
{
	struct match_result a, b;
	int ra, rb;

	memset(&a, 0x5a, sizeof(a));
	ra = rules_match(c, in, &a);
	rb = rules_match(c, in, &b);
	if (ra != 0 && ra != 1)
		abort();
	if (ra != rb || (ra && (a.group != b.group || strcmp(a.key, b.key) != 0 || a.own_key != b.own_key)))
		abort();
	if (ra == 1) {
		if (a.group->order >= c->n_groups || c->groups[a.group->order] != a.group)
			abort();
		check_key(a.group, in, a.key, a.own_key);
	} else if (a.key[0] != 0x5a) {
		abort(); /* written although nothing matched */
	}
	check_against_explain(c, in, ra ? a.group : NULL);
}

/* The next NUL-ended string of [*p, end) as a heap copy. */
static char *take_string(const uint8_t **p, const uint8_t *end)
{
	const uint8_t *nul = memchr(*p, '\0', (size_t)(end - *p));
	size_t len = nul ? (size_t)(nul - *p) : (size_t)(end - *p);
	char *s = malloc(len + 1);

	if (!s)
		abort();
	memcpy(s, *p, len);
	s[len] = '\0';
	*p += len + (nul != NULL);
	return s;
}

static uint32_t take_u32(const uint8_t **p, const uint8_t *end)
{
	uint32_t v = 0;

	for (int i = 0; i < 4 && *p < end; i++, (*p)++)
		v |= (uint32_t)**p << (8 * i);
	return v;
}

static void run_processes(const struct conf *c, const uint8_t *p, const uint8_t *end)
{
	while (p < end) {
		uint8_t flags = *p++;
		struct match_input in;
		char *exe, *comm, *cgroup;

		in.uid = take_u32(&p, end);
		in.gid = take_u32(&p, end);
		exe = take_string(&p, end);
		comm = take_string(&p, end);
		cgroup = take_string(&p, end);
		in.exe = flags & 1 ? NULL : exe;
		in.comm = flags & 2 ? NULL : comm;
		in.cgroup = flags & 4 ? NULL : cgroup;
		check_match(c, &in);
		free(exe);
		free(comm);
		free(cgroup);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 1, *end = data + size;
	struct conf *own = NULL;
	char *text;

	if (size < 1)
		return 0;
	if (!fixed && !(fixed = load(fixed_rules)))
		abort();
	if (!(data[0] & 1)) {
		run_processes(fixed, p, end);
		return 0;
	}
	text = take_string(&p, end);
	own = load(text);
	free(text);
	if (own)
		run_processes(own, p, end);
	conf_free(own);
	return 0;
}
