// SPDX-License-Identifier: GPL-2.0-or-later
/* The rule matcher: each match kind, OR within a key and AND across keys,
 * evaluation order, keys per mode, explain's reasons, and a 2000-group
 * configuration checked against explain's group-by-group verdicts. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "unit.h"

static struct conf *load(const char *text)
{
	struct conf *c = NULL;
	char *error = NULL;

	if (conf_load_string(text, "x.conf", &c, &error) < 0) {
		fprintf(stderr, "  load: %s\n", error);
		free(error);
		return NULL;
	}
	return c;
}

static struct match_result last;

/* The name of the group in matches, or "-" for none. */
static const char *match(const struct conf *c, const char *exe, const char *comm, uid_t uid, gid_t gid,
			 const char *cgroup)
{
	struct match_input in = { exe, comm, uid, gid, cgroup };

	memset(&last, 0, sizeof(last));
	if (!c)
		return "(no conf)";
	return rules_match(c, &in, &last) == 1 ? last.group->name : "-";
}

static void test_exe(void)
{
	struct conf *c = load("[Group web]\nMatchExe=/usr/bin/firefox /usr/lib/chromium/*\n");

	CHECK_STREQ(match(c, "/usr/bin/firefox", "firefox", 1000, 1000, "/user.slice"), "web");
	CHECK_STREQ(match(c, "/usr/lib/chromium/chromium", "chromium", 0, 0, "/"), "web");
	/* plain fnmatch: '*' crosses '/' for executables */
	CHECK_STREQ(match(c, "/usr/lib/chromium/a/b/helper", "helper", 0, 0, "/"), "web");
	CHECK_STREQ(match(c, "/usr/bin/firefox-esr", "firefox", 0, 0, "/"), "-");
	CHECK_STREQ(match(c, "/usr/lib/chromium", "x", 0, 0, "/"), "-");
	CHECK_STREQ(match(c, NULL, "firefox", 0, 0, "/"), "-");
	CHECK_STREQ(last.key, "");
	conf_free(c);
}

static void test_comm(void)
{
	struct conf *c = load("[Group build]\nMatchComm=cc1 ld.* rust?\n");

	CHECK_STREQ(match(c, "/x", "cc1", 0, 0, "/"), "build");
	CHECK_STREQ(match(c, "/x", "ld.gold", 0, 0, "/"), "build");
	CHECK_STREQ(match(c, "/x", "rustc", 0, 0, "/"), "build");
	CHECK_STREQ(match(c, "/x", "rust", 0, 0, "/"), "-");
	CHECK_STREQ(match(c, "/x", "cc1plus", 0, 0, "/"), "-");
	CHECK_STREQ(match(c, "/x", NULL, 0, 0, "/"), "-");
	conf_free(c);
}

static void test_user_and_group(void)
{
	struct conf *c = load("[Group u]\nMatchUser=daemon 1000-1999 @root\n[Group g]\nMatchGroup=adm 3000-3999\n");

	CHECK_STREQ(match(c, "/x", "x", 1, 50, "/"), "u");
	CHECK_STREQ(match(c, "/x", "x", 1000, 50, "/"), "u");
	CHECK_STREQ(match(c, "/x", "x", 1999, 50, "/"), "u");
	CHECK_STREQ(match(c, "/x", "x", 0, 50, "/"), "u"); /* root's primary group is root */
	CHECK_STREQ(match(c, "/x", "x", 2000, 50, "/"), "-");
	CHECK_STREQ(match(c, "/x", "x", 2000, 4, "/"), "g");
	CHECK_STREQ(match(c, "/x", "x", 2000, 3500, "/"), "g");
	CHECK_STREQ(match(c, "/x", "x", 2000, 4000, "/"), "-");
	conf_free(c);
}

static void test_cgroup(void)
{
	struct conf *c = load("[Group vm]\nMatchCgroup=/machine.slice/*\nPer=cgroup\n"
			      "[Group sys]\nMatchCgroup=/system.slice/a.service /init.scope\nPer=cgroup\n");

	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/machine.slice/vm1.scope/payload"), "vm");
	CHECK_STREQ(last.key, "/machine.slice/vm1.scope");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/machine.slice/vm2.scope"), "vm");
	CHECK_STREQ(last.key, "/machine.slice/vm2.scope");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/machine.slice"), "-");
	/* an exact entry matches its descendants, only at '/' boundaries */
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/system.slice/a.service/sub/deeper"), "sys");
	CHECK_STREQ(last.key, "/system.slice/a.service");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/init.scope"), "sys");
	CHECK_STREQ(last.key, "/init.scope");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/system.slice/a.services"), "-");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/system.slice"), "-");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, NULL), "-");
	conf_free(c);
}

static void test_cgroup_shortest_key(void)
{
	/* both words match; the key is the shorter prefix either way */
	struct conf *c = load("[Group k]\nMatchCgroup=/a/b/c /a/*\nPer=cgroup\n");

	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/a/b/c/d"), "k");
	CHECK_STREQ(last.key, "/a/b");
	conf_free(c);
}

static void test_and_or(void)
{
	struct conf *c = load("[Group both]\nMatchExe=/bin/a /bin/b\nMatchUser=1000 1001\n"
			      "[Group exe-only]\nMatchExe=/bin/a\n");

	CHECK_STREQ(match(c, "/bin/b", "b", 1001, 0, "/"), "both");
	CHECK_STREQ(match(c, "/bin/a", "a", 1000, 0, "/"), "both");
	CHECK_STREQ(match(c, "/bin/a", "a", 5, 0, "/"), "exe-only");
	CHECK_STREQ(match(c, "/bin/b", "b", 5, 0, "/"), "-");
	CHECK_STREQ(match(c, "/bin/c", "c", 1000, 0, "/"), "-");
	conf_free(c);
}

static void test_order(void)
{
	struct conf *c = load("[Group first]\nMatchComm=x*\n[Group second]\nMatchComm=xy\n"
			      "[Group high]\nMatchComm=xyz\nPriority=5\n[Group low]\nMatchComm=*\nPriority=-5\n"
			      "[Group manual]\n");

	CHECK_STREQ(match(c, "/x", "xyz", 0, 0, "/"), "high");
	CHECK_STREQ(match(c, "/x", "xy", 0, 0, "/"), "first");
	CHECK_STREQ(match(c, "/x", "q", 0, 0, "/"), "low");
	CHECK(c && conf_find_group(c, "manual") && conf_find_group(c, "manual")->match_mask == 0);
	conf_free(c);
	/* a group without Match*= never matches, even as the only group */
	c = load("[Group manual]\nDescription=explicit only\n");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/"), "-");
	conf_free(c);
}

static void test_keys(void)
{
	struct conf *c = load("[Group u]\nMatchUser=1000-2000\nPer=user\n[Group p]\nMatchUser=0\nPer=process\n");

	CHECK_STREQ(match(c, "/x", "x", 1234, 0, "/"), "u");
	CHECK_STREQ(last.key, "1234");
	CHECK(last.group && last.group->per == PER_USER);
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/"), "p");
	CHECK_STREQ(last.key, "");
	conf_free(c);
}

static void test_key_too_long(void)
{
	/* A matched cgroup whose path does not fit a key: the group still
	 * claims the process (a rule names it), with a key of the process's
	 * own rather than one cut short that two cgroups would share. */
	char text[1400], cg[1200], cg2[1200];
	struct conf *c;

	memset(cg, 'a', 600);
	cg[0] = '/';
	cg[600] = '\0';
	snprintf(text, sizeof(text), "[Group long]\nMatchCgroup=%s\nPer=cgroup\n[Group any]\nMatchComm=*\n", cg);
	c = load(text);
	CHECK_STREQ(match(c, "/x", "x", 0, 0, cg), "long");
	CHECK(last.own_key);
	CHECK_STREQ(last.key, "");
	conf_free(c);
	/* A cgroup longer than a key under a short word: its process's own
	 * key; one that fits is its key, as before. */
	snprintf(cg2, sizeof(cg2), "%s/one", cg);
	c = load("[Group pods]\nMatchCgroup=/a*/*\nPer=cgroup\n");
	CHECK_STREQ(match(c, "/x", "x", 0, 0, cg2), "pods");
	CHECK(last.own_key);
	CHECK_STREQ(match(c, "/x", "x", 0, 0, "/abc/pod1/x"), "pods");
	CHECK(!last.own_key);
	CHECK_STREQ(last.key, "/abc/pod1");
	conf_free(c);
}

struct explain_log {
	char text[4096];
	const char *first_match;
};

static void on_explain(void *userdata, const struct group *g, bool matched, const char *reason)
{
	struct explain_log *l = userdata;
	size_t n = strlen(l->text);

	snprintf(l->text + n, sizeof(l->text) - n, "%s %s: %s\n", g->name, matched ? "yes" : "no", reason);
	if (matched && !l->first_match)
		l->first_match = g->name;
}

static void on_explain_first(void *userdata, const struct group *g, bool matched, const char *reason)
{
	const char **first = userdata;

	(void)reason;
	if (matched && !*first)
		*first = g->name;
}

static void test_explain(void)
{
	struct conf *c = load("[Group a]\nMatchExe=/usr/bin/c? /usr/bin/gcc\nMatchUser=daemon 1000-1999\n"
			      "[Group b]\nMatchCgroup=/machine.slice/*\nMatchGroup=adm\n"
			      "[Group c]\nMatchComm=cc\n[Group d]\n");
	struct match_input in = { "/usr/bin/cc", "cc", 1500, 4, "/machine.slice/vm.scope/x" };
	struct explain_log l = { "", NULL };

	if (!c)
		return;
	rules_explain(c, &in, on_explain, &l);
	CHECK_STREQ(l.text, "a yes: MatchExe=/usr/bin/c? matched /usr/bin/cc; MatchUser=1000-1999 matched uid 1500\n"
			    "b yes: MatchGroup=adm matched gid 4; "
			    "MatchCgroup=/machine.slice/* matched /machine.slice/vm.scope\n"
			    "c yes: MatchComm=cc matched cc\n"
			    "d no: no Match*= keys: joined only on request\n");
	in = (struct match_input){ "/usr/bin/ld", "ld", 1, 0, "/init.scope" };
	l = (struct explain_log){ "", NULL };
	rules_explain(c, &in, on_explain, &l);
	CHECK_STREQ(l.text, "a no: MatchExe: executable /usr/bin/ld is not listed\n"
			    "b no: MatchGroup: gid 0 is not listed\n"
			    "c no: MatchComm: comm ld is not listed\n"
			    "d no: no Match*= keys: joined only on request\n");
	conf_free(c);
}

/* 2000 groups of every kind; the index must agree with explain, which
 * decides group by group without it. */
static void test_many_groups(void)
{
	size_t size = 2000 * 96, n = 0;
	char *text = malloc(size), exe[64], comm[16], cg[64];
	struct conf *c;
	unsigned seed = 1, hits = 0;

	for (int i = 0; i < 2000; i++) {
		n += (size_t)snprintf(text + n, size - n, "[Group g%d]\n", i);
		switch (i % 5) {
		case 0: n += (size_t)snprintf(text + n, size - n, "MatchExe=/opt/app%d /opt/glob%d/*\n", i, i); break;
		case 1: n += (size_t)snprintf(text + n, size - n, "MatchComm=c%d\nMatchUser=%d-%d\n", i, i, i + 50); break;
		case 2: n += (size_t)snprintf(text + n, size - n, "MatchUser=%d\nPriority=%d\n", i, i % 7); break;
		case 3: n += (size_t)snprintf(text + n, size - n, "MatchCgroup=/s/u%d /t/*/v%d\n", i, i); break;
		default: n += (size_t)snprintf(text + n, size - n, "MatchGroup=%d-%d\nMatchComm=c*%d\n", i, i + 9, i % 10); break;
		}
	}
	c = load(text);
	free(text);
	CHECK(c && c->n_groups == 2000);
	if (!c)
		return;
	CHECK_STREQ(match(c, "/opt/app1235", "x", 99999, 99999, "/"), "g1235");
	CHECK_STREQ(match(c, "/opt/glob1995/bin/x", "x", 99999, 99999, "/"), "g1995");
	CHECK_STREQ(match(c, "/x", "x", 99999, 99999, "/t/q/v1998/w"), "g1998");
	CHECK_STREQ(match(c, "/x", "c1001", 1030, 99999, "/"), "g1001");
	for (int round = 0; round < 1000; round++) {
		const char *first = NULL;
		struct match_input in;

		seed = seed * 1103515245u + 12345u;
		snprintf(exe, sizeof(exe), seed & 1 ? "/opt/app%u" : "/opt/glob%u/x", (seed >> 8) % 2100);
		snprintf(comm, sizeof(comm), "c%u", (seed >> 12) % 2100);
		snprintf(cg, sizeof(cg), seed & 2 ? "/s/u%u/x" : "/t/a/v%u", (seed >> 4) % 2100);
		in = (struct match_input){ exe, comm, (seed >> 16) % 2100, (seed >> 20) % 2100, cg };
		rules_explain(c, &in, on_explain_first, &first);
		CHECK_STREQ(match(c, in.exe, in.comm, in.uid, in.gid, in.cgroup), first ? first : "-");
		hits += first != NULL;
	}
	CHECK(hits > 300 && hits < 1000); /* both outcomes were exercised */
	conf_free(c);
}

int main(void)
{
	RUN(test_exe);
	RUN(test_comm);
	RUN(test_user_and_group);
	RUN(test_cgroup);
	RUN(test_cgroup_shortest_key);
	RUN(test_and_or);
	RUN(test_order);
	RUN(test_keys);
	RUN(test_key_too_long);
	RUN(test_explain);
	RUN(test_many_groups);
	UNIT_EXIT();
}
