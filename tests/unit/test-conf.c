// SPDX-License-Identifier: GPL-2.0-or-later
/* The configuration loader: every key, every error with its file:line,
 * drop-in precedence and masking on real directories, long lines, limits
 * and evaluation order. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conf.h"
#include "unit.h"

/* Loads text as "x.conf"; returns the conf, or NULL with *ret_error set. */
static struct conf *load(const char *text, char **ret_error)
{
	struct conf *c = NULL;
	char *error = NULL;

	if (conf_load_string(text, "x.conf", &c, &error) < 0) {
		if (ret_error)
			*ret_error = error;
		else
			free(error);
		return NULL;
	}
	return c;
}

/* The error for text, or NULL when it loads. */
static char *error_of(const char *text)
{
	char *error = NULL;
	struct conf *c = load(text, &error);

	if (c) {
		conf_free(c);
		return NULL;
	}
	return error ? error : strdup("(no message)");
}

static char *print(const struct conf *c)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	conf_print(c, f);
	fclose(f);
	return buf;
}

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs(text, f);
	fclose(f);
}

static void rm_tree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK(system(cmd) == 0);
}

static void test_defaults(void)
{
	struct conf *c = load("", NULL);
	char *out;

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(c->daemon.reconcile_sec == 30);
	CHECK(c->daemon.log_level == 6);
	CHECK(c->daemon.max_tasks == 65536);
	CHECK(c->daemon.max_keys == 4096);
	CHECK(!c->daemon.clear_foreign);
	CHECK(!c->daemon.has_control_gid);
	CHECK(c->daemon.max_clients == 64);
	CHECK(c->daemon.max_clients_per_uid == 8);
	CHECK(c->daemon.force_idle_accounting);
	CHECK(c->daemon.stats_interval_sec == 10);
	CHECK(c->daemon.metrics_file == NULL);
	CHECK(c->daemon.receive_buffer == 262144);
	CHECK(c->daemon.time_slice_usec == 100);
	CHECK(!c->daemon.dry_run);
	CHECK(c->container.def == CONTAINER_ISOLATE);
	CHECK(c->container.group == NULL);
	CHECK(!c->container.fail_open);
	CHECK(!c->container.lock);
	CHECK(c->n_groups == 0);
	out = print(c);
	CHECK_STREQ(out, "# source: x.conf\n[Daemon]\nReconcileSec=30\nLogLevel=info\nMaxTasks=65536\n"
			 "MaxKeys=4096\nClearForeign=no\nUnmatchedExec=keep\nAllowSchedExt=no\nControlGroup=\nMaxClients=64\nMaxClientsPerUser=8\n"
			 "IdleTimeoutSec=60\nForceIdleAccounting=yes\nStatsIntervalSec=10\nMetricsFile=\nReceiveBuffer=262144\n"
			 "TimeSliceUSec=100\nDryRun=no\n\n[Container]\nDefault=isolate\nGroup=\nFailMode=closed\nLock=no\n");
	free(out);
	conf_free(c);
}

static void test_daemon_keys(void)
{
	struct conf *c = load("[Daemon]\nReconcileSec=0\nLogLevel=warning\nMaxTasks=100\nMaxKeys=7\n"
			      "ClearForeign=yes\nUnmatchedExec=clear\nAllowSchedExt=yes\nControlGroup=adm\nMaxClients=3\nMaxClientsPerUser=2\n"
			      "ForceIdleAccounting=off\nStatsIntervalSec=3600\nMetricsFile=/run/x.prom\n"
			      "ReceiveBuffer=64K\nTimeSliceUSec=500\nDryRun=yes\n",
			      NULL);

	CHECK(c != NULL);
	if (!c)
		return;
	CHECK(c->daemon.reconcile_sec == 0);
	CHECK(c->daemon.log_level == 4);
	CHECK(c->daemon.max_tasks == 100);
	CHECK(c->daemon.max_keys == 7);
	CHECK(c->daemon.clear_foreign);
	CHECK(c->daemon.unmatched_clear);
	CHECK(c->daemon.allow_sched_ext);
	CHECK(c->daemon.has_control_gid && c->daemon.control_gid == 4);
	CHECK(c->daemon.max_clients == 3);
	CHECK(c->daemon.max_clients_per_uid == 2);
	CHECK(!c->daemon.force_idle_accounting);
	CHECK(c->daemon.stats_interval_sec == 3600);
	CHECK_STREQ(c->daemon.metrics_file, "/run/x.prom");
	CHECK(c->daemon.receive_buffer == 65536);
	CHECK(c->daemon.time_slice_usec == 500);
	CHECK(c->daemon.dry_run);
	conf_free(c);

	c = load("[Daemon]\nControlGroup=1234\nReceiveBuffer=0\nLogLevel=err\nLogLevel=debug\nTimeSliceUSec=0\n", NULL);
	CHECK(c && c->daemon.control_gid == 1234 && c->daemon.receive_buffer == 0 && c->daemon.log_level == 7);
	CHECK(c && c->daemon.time_slice_usec == 0);
	conf_free(c);
	/* An empty value puts the default back. */
	c = load("[Daemon]\nMaxTasks=5\nMaxTasks=\nMetricsFile=/a\nMetricsFile=\nControlGroup=0\nControlGroup=\n",
		 NULL);
	CHECK(c && c->daemon.max_tasks == 65536 && !c->daemon.metrics_file && !c->daemon.has_control_gid);
	conf_free(c);
}

static void test_booleans(void)
{
	static const char *const yes[] = { "yes", "true", "1", "on" }, *const no[] = { "no", "false", "0", "off" };
	char text[64];
	struct conf *c;

	for (int i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), "[Daemon]\nClearForeign=%s\n", yes[i]);
		c = load(text, NULL);
		CHECK(c && c->daemon.clear_foreign);
		conf_free(c);
		snprintf(text, sizeof(text), "[Daemon]\nForceIdleAccounting=%s\n", no[i]);
		c = load(text, NULL);
		CHECK(c && !c->daemon.force_idle_accounting);
		conf_free(c);
	}
}

static void test_container_keys(void)
{
	struct conf *c = load("[Container]\nDefault=group\nGroup=pods\nFailMode=open\nLock=yes\n[Group pods]\n", NULL);

	CHECK(c && c->container.def == CONTAINER_GROUP && c->container.fail_open && c->container.lock);
	CHECK(c && c->container.group && strcmp(c->container.group, "pods") == 0);
	conf_free(c);
	c = load("[Container]\nDefault=trusted\nFailMode=closed\n", NULL);
	CHECK(c && c->container.def == CONTAINER_TRUSTED && !c->container.fail_open);
	conf_free(c);
}

/* Quotes are not syntax (coreschedd.conf(5), SYNTAX): part of the word. */
static void test_quotes_are_literal(void)
{
	struct conf *c = load("[Group q]\nMatchComm=\"cc1\" 'ld'\nDescription=\"a b\"\n", NULL);
	const struct group *g = c ? conf_find_group(c, "q") : NULL;

	CHECK(g != NULL);
	if (g) {
		CHECK(g->n_match_words[MATCH_COMM] == 2);
		CHECK_STREQ(g->match_words[MATCH_COMM][0], "\"cc1\"");
		CHECK_STREQ(g->match_words[MATCH_COMM][1], "'ld'");
		CHECK_STREQ(g->description, "\"a b\"");
	}
	conf_free(c);
}

static void test_group_keys(void)
{
	struct conf *c = load("[Group web]\nDescription=Browsers and more\nMatchExe=/usr/bin/firefox  /usr/lib/x/*\n"
			      "MatchExe=/opt/y\nMatchComm=cc1 ld.*\nMatchUser=root 1000-1999 @root\n"
			      "MatchGroup=adm 100-200 0\nMatchCgroup=/user.slice /machine.slice/*\nPer=user\n"
			      "Priority=-5\nAllowUsers=daemon 4242\nAllowGroups=adm\nLock=true\n",
			      NULL);
	const struct group *g;

	CHECK(c != NULL);
	if (!c)
		return;
	g = conf_find_group(c, "web");
	CHECK(g != NULL);
	if (!g)
		goto out;
	CHECK_STREQ(g->description, "Browsers and more");
	CHECK(g->n_match_words[MATCH_EXE] == 3);
	CHECK_STREQ(g->match_words[MATCH_EXE][2], "/opt/y");
	CHECK(g->n_match_words[MATCH_COMM] == 2);
	CHECK(g->n_match_words[MATCH_USER] == 3 && g->n_match_words[MATCH_GROUP] == 3);
	CHECK(g->n_match_uids >= 3);
	CHECK(g->match_uids[0].first == 0 && g->match_uids[0].last == 0 && g->match_uids[0].word == 0);
	CHECK(g->match_uids[1].first == 1000 && g->match_uids[1].last == 1999 && g->match_uids[1].word == 1);
	CHECK(g->match_uids[2].first == 0 && g->match_uids[2].word == 2); /* root's primary group */
	CHECK(g->n_match_gids == 3 && g->match_gids[0].first == 4 && g->match_gids[1].last == 200);
	CHECK(g->match_mask == 0x1f);
	CHECK(g->per == PER_USER && g->priority == -5 && g->lock && !g->trusted);
	CHECK(g->n_allow_uids == 2 && g->allow_uids[0] == 1 && g->allow_uids[1] == 4242);
	CHECK(g->n_allow_gids == 1 && g->allow_gids[0] == 4);
	CHECK_STREQ(g->file, "x.conf");
	CHECK(g->line == 1);
out:
	conf_free(c);
}

static void test_list_reset(void)
{
	struct conf *c = load("[Group g]\nMatchExe=/a\nMatchExe=\nMatchExe=/b\nMatchUser=root\nMatchUser=\n"
			      "AllowUsers=root\nAllowUsers=\nPer=user\nPer=\nDescription=x\nDescription=\n",
			      NULL);
	const struct group *g = c ? conf_find_group(c, "g") : NULL;

	CHECK(g != NULL);
	if (g) {
		CHECK(g->n_match_words[MATCH_EXE] == 1 && strcmp(g->match_words[MATCH_EXE][0], "/b") == 0);
		CHECK(g->n_match_words[MATCH_USER] == 0 && g->n_match_uids == 0);
		CHECK(g->match_mask == 1u << MATCH_EXE);
		CHECK(g->n_allow_uids == 0 && g->per == PER_GROUP && !g->description);
	}
	conf_free(c);
}

static const struct {
	const char *text;
	const char *error;
} error_cases[] = {
	{ "[Group web]\nMachExe=/x\n", "x.conf:2: unknown key 'MachExe' in [Group web]" },
	{ "[Daemon]\nFoo=1\n", "x.conf:2: unknown key 'Foo' in [Daemon]" },
	{ "[Container]\nMatchExe=/x\n", "x.conf:2: unknown key 'MatchExe' in [Container]" },
	{ "[Group w]\n\nMatchUser=nobodyx\n", "x.conf:3: MatchUser: unknown user 'nobodyx'" },
	{ "[Group w]\nMatchUser=@nogroupx\n", "x.conf:2: MatchUser: unknown group 'nogroupx'" },
	{ "[Group w]\nMatchUser=99999999999\n", "x.conf:2: MatchUser: invalid uid '99999999999'" },
	{ "[Group w]\nMatchUser=2000-1000\n", "x.conf:2: MatchUser: range '2000-1000' is empty" },
	{ "[Group w]\nMatchUser=0-4294967295\n", "x.conf:2: MatchUser: invalid range '0-4294967295'" },
	{ "[Group w]\nMatchUser=99999999999-1\n", "x.conf:2: MatchUser: invalid range '99999999999-1'" },
	{ "[Group w]\nMatchGroup=5-99999999999\n", "x.conf:2: MatchGroup: invalid range '5-99999999999'" },
	{ "[Group w]\nMatchGroup=nogroupx\n", "x.conf:2: MatchGroup: unknown group 'nogroupx'" },
	{ "[Group w]\nMatchGroup=9-8\n", "x.conf:2: MatchGroup: range '9-8' is empty" },
	{ "[Group w]\nMatchExe=/x\nPer=cgroup\n", "x.conf:3: Per=cgroup needs MatchCgroup=" },
	{ "[Group w]\nPer=cgroup\nMatchCgroup=/a\nMatchCgroup=\n[Daemon]\n", "x.conf:2: Per=cgroup needs MatchCgroup=" },
	{ "[Group w]\nMatchExe=bin/x\n", "x.conf:2: MatchExe: 'bin/x' cannot match: not an absolute path" },
	{ "[Group w]\nMatchExe=*/x\n", "x.conf:2: MatchExe: '*/x' cannot match: not an absolute path" },
	{ "[Group w]\nMatchComm=abcdefghijklmnop\n",
	  "x.conf:2: MatchComm: 'abcdefghijklmnop' cannot match: longer than 15 characters" },
	{ "[Group w]\nMatchComm=abcdefghijklmnop*\n",
	  "x.conf:2: MatchComm: 'abcdefghijklmnop*' cannot match: longer than 15 characters" },
	{ "[Group w]\nMatchCgroup=system.slice\n",
	  "x.conf:2: MatchCgroup: 'system.slice' cannot match: not an absolute path" },
	{ "[Group w]\nMatchCgroup=/a/\n", "x.conf:2: MatchCgroup: '/a/' cannot match: trailing slash" },
	{ "[Group w]\nMatchCgroup=/a//b\n", "x.conf:2: MatchCgroup: '/a//b' cannot match: empty path component" },
	{ "[Group w]\nTrusted=yes\nPer=user\n", "x.conf:3: Trusted=yes cannot be combined with Per=user" },
	{ "[Group w]\nPer=process\nTrusted=1\n", "x.conf:3: Trusted=yes cannot be combined with Per=process" },
	{ "[Group w]\nPer=sometimes\n",
	  "x.conf:2: Per: invalid value 'sometimes' (expected group|user|cgroup|process)" },
	{ "[Group w]\nPriority=1001\n", "x.conf:2: Priority: value '1001' out of range -1000..1000" },
	{ "[Group w]\nPriority=1x\n", "x.conf:2: Priority: invalid number '1x'" },
	{ "[Group w]\nLock=maybe\n", "x.conf:2: Lock: invalid boolean 'maybe'" },
	{ "[Group w]\nAllowUsers=root nobodyx\n", "x.conf:2: AllowUsers: unknown user 'nobodyx'" },
	{ "[Group w]\nAllowGroups=nogroupx\n", "x.conf:2: AllowGroups: unknown group 'nogroupx'" },
	{ "ReconcileSec=1\n", "x.conf:1: key 'ReconcileSec' outside of any section" },
	{ "[Daemon]\nReconcileSec=86401\n", "x.conf:2: ReconcileSec: value '86401' out of range 0..86400" },
	{ "[Daemon]\nReconcileSec=-1\n", "x.conf:2: ReconcileSec: value '-1' out of range 0..86400" },
	{ "[Daemon]\nReconcileSec=abc\n", "x.conf:2: ReconcileSec: invalid number 'abc'" },
	{ "[Daemon]\nLogLevel=loud\n",
	  "x.conf:2: LogLevel: invalid value 'loud' (expected err|warning|notice|info|debug)" },
	{ "[Daemon]\nClearForeign=maybe\n", "x.conf:2: ClearForeign: invalid boolean 'maybe'" },
	{ "[Daemon]\nUnmatchedExec=drop\n", "x.conf:2: UnmatchedExec: invalid value 'drop' (expected keep|clear)" },
	{ "[Daemon]\nControlGroup=nogroupx\n", "x.conf:2: ControlGroup: unknown group 'nogroupx'" },
	{ "[Daemon]\nStatsIntervalSec=0\n", "x.conf:2: StatsIntervalSec: value '0' out of range 1..3600" },
	{ "[Daemon]\nMetricsFile=x.prom\n", "x.conf:2: MetricsFile: path 'x.prom' is not absolute" },
	{ "[Daemon]\nMetricsFile=/\n", "x.conf:2: MetricsFile: path '/' names a directory, not a file" },
	{ "[Daemon]\nMetricsFile=/run/\n", "x.conf:2: MetricsFile: path '/run/' names a directory, not a file" },
	{ "[Daemon]\nReceiveBuffer=100\n",
	  "x.conf:2: ReceiveBuffer: value '100' out of range (0 or 4096..16777216)" },
	{ "[Daemon]\nReceiveBuffer=17M\n",
	  "x.conf:2: ReceiveBuffer: value '17M' out of range (0 or 4096..16777216)" },
	{ "[Daemon]\nReceiveBuffer=4X\n", "x.conf:2: ReceiveBuffer: invalid size '4X'" },
	{ "[Daemon]\nReceiveBuffer=17000000\n",
	  "x.conf:2: ReceiveBuffer: value '17000000' out of range (0 or 4096..16777216)" },
	{ "[Daemon]\nReceiveBuffer=99999999999999999999\n",
	  "x.conf:2: ReceiveBuffer: invalid size '99999999999999999999'" },
	{ "[Daemon]\nReceiveBuffer=18446744073709551615M\n",
	  "x.conf:2: ReceiveBuffer: value '18446744073709551615M' out of range (0 or 4096..16777216)" },
	{ "[Daemon]\nTimeSliceUSec=99\n", "x.conf:2: TimeSliceUSec: value '99' out of range (0 or 100..100000)" },
	{ "[Daemon]\nTimeSliceUSec=100001\n", "x.conf:2: TimeSliceUSec: value '100001' out of range (0 or 100..100000)" },
	{ "[Daemon]\nTimeSliceUSec=1ms\n", "x.conf:2: TimeSliceUSec: invalid number '1ms'" },
	{ "[Container]\nDefault=group\n", "x.conf:2: Default=group needs Group=" },
	{ "[Container]\nGroup=web\n[Group web]\n", "x.conf:2: Group= is only used with Default=group" },
	{ "[Container]\nDefault=group\nGroup=nope\n", "x.conf:3: Group: no group named 'nope' is defined" },
	{ "[Container]\nGroup=a b\n", "x.conf:2: Group: invalid group name 'a b'" },
	{ "[Container]\nFailMode=ajar\n", "x.conf:2: FailMode: invalid value 'ajar' (expected open|closed)" },
	{ "[Container]\nDefault=maybe\n",
	  "x.conf:2: Default: invalid value 'maybe' (expected isolate|trusted|group)" },
	{ "\n[Foo]\n", "x.conf:2: unknown section [Foo]" },
	{ "[Daemon extra]\n", "x.conf:1: unknown section [Daemon extra]" },
	{ "[Group]\n", "x.conf:1: [Group] needs a name" },
	{ "[Group a b]\n", "x.conf:1: invalid group name 'a b' (1 to 64 of A-Z a-z 0-9 _ . -)" },
	{ "[Group a/b]\n", "x.conf:1: invalid group name 'a/b' (1 to 64 of A-Z a-z 0-9 _ . -)" },
	{ "[Daemon\n", "x.conf:1: invalid section header '[Daemon'" },
	{ "[Daemon] x\n", "x.conf:1: invalid section header '[Daemon] x'" },
	{ "[Group w]\nMatchExe\n", "x.conf:2: expected Key=value, got 'MatchExe'" },
	{ "[Group w]\nMatchExe: /x\n", "x.conf:2: expected Key=value, got 'MatchExe: /x'" },
	{ "[Group a]\n[Group b]\n[Group a]\n", "x.conf:3: group 'a' already defined at x.conf:1" },
	/* Control bytes quoted from the file are escaped: one line, no
	 * terminal sequence. */
	{ "[Group \x1b[2Jx]\n", "x.conf:1: invalid group name '\\x1b[2Jx' (1 to 64 of A-Z a-z 0-9 _ . -)" },
	{ "[Group w]\nMatchUser=a\rb\n", "x.conf:2: MatchUser: unknown user 'a\\x0db'" },
	{ "[Daemon]\nReceiveBuffer=1\x7f\n", "x.conf:2: ReceiveBuffer: invalid size '1\\x7f'" },
};

static void test_errors(void)
{
	for (size_t i = 0; i < sizeof(error_cases) / sizeof(error_cases[0]); i++) {
		char *e = error_of(error_cases[i].text);

		CHECK_STREQ(e, error_cases[i].error);
		free(e);
	}
}

static void test_syntax(void)
{
	/* Comments, blank lines, CRLF, spaces around '=', a 64-character group
	 * name (longer than libinih's own section buffer), ';' kept in values. */
	static const char name64[] = "a234567890123456789012345678901234567890123456789012345678901234";
	char text[512];
	struct conf *c;
	const struct group *g;

	snprintf(text, sizeof(text),
		 "\xef\xbb\xbf# comment\r\n; another\r\n\r\n  [Group %s]  \r\n  MatchExe = /a;b  \r\nDescription=x ; y\n",
		 name64);
	c = load(text, NULL);
	CHECK(c != NULL);
	g = c ? conf_find_group(c, name64) : NULL;
	CHECK(g != NULL);
	if (g) {
		CHECK(g->line == 4);
		CHECK(g->n_match_words[MATCH_EXE] == 1 && strcmp(g->match_words[MATCH_EXE][0], "/a;b") == 0);
		CHECK_STREQ(g->description, "x ; y");
	}
	conf_free(c);
	snprintf(text, sizeof(text), "[Group %s5]\n", name64);
	c = load(text, NULL);
	CHECK(c == NULL);
}

/* MatchComm= takes a pattern whose shortest match fits a comm (15
 * characters) and refuses one character more; a bracket expression is one
 * character, "[:alpha:]" and an escaped ']' inside it included. */
static void test_comm_length(void)
{
	static const char *const fit[] = {
		"abcdefghijklmno", "abcdefghijklmn?", "abcdefghijklmno*", "[[:alpha:]]abcdefghijklmn",
		"[![:digit:]]abcdefghijklmn", "[\\]]abcdefghijklmn", "[[.a.]]abcdefghijklmn", "[]a]abcdefghijklmn",
		"abcdefghijklmn\\*",
	};
	static const char *const too_long[] = {
		"abcdefghijklmnop", "[[:alpha:]]abcdefghijklmno", "[\\]]abcdefghijklmno", "[]a]abcdefghijklmno",
	};
	char text[128], *e;

	for (size_t i = 0; i < sizeof(fit) / sizeof(fit[0]); i++) {
		snprintf(text, sizeof(text), "[Group w]\nMatchComm=%s\n", fit[i]);
		e = error_of(text);
		if (e)
			fprintf(stderr, "  %s: %s\n", fit[i], e);
		CHECK(e == NULL);
		free(e);
	}
	for (size_t i = 0; i < sizeof(too_long) / sizeof(too_long[0]); i++) {
		snprintf(text, sizeof(text), "[Group w]\nMatchComm=%s\n", too_long[i]);
		e = error_of(text);
		CHECK(e && strstr(e, "cannot match: longer than 15 characters"));
		free(e);
	}
}

static void test_long_line(void)
{
	char *text = malloc(2200), *e;
	struct conf *c;

	/* line 3 is exactly CONF_LINE_MAX characters: accepted */
	strcpy(text, "[Group w]\n\nDescription=");
	memset(text + strlen(text), 'x', CONF_LINE_MAX - strlen("Description="));
	strcpy(text + strlen("[Group w]\n\nDescription=") + CONF_LINE_MAX - strlen("Description="), "\nLock=yes\n");
	c = load(text, NULL);
	CHECK(c != NULL);
	CHECK(c && strlen(conf_find_group(c, "w")->description) == CONF_LINE_MAX - strlen("Description="));
	CHECK(c && conf_find_group(c, "w")->lock);
	conf_free(c);
	/* one more character on line 3: rejected, and named by its own line */
	strcpy(text, "[Group w]\n\nDescription=");
	memset(text + strlen(text), 'x', CONF_LINE_MAX + 1 - strlen("Description="));
	strcpy(text + strlen("[Group w]\n\nDescription=") + CONF_LINE_MAX + 1 - strlen("Description="),
	       "\nMachExe=/x\n");
	e = error_of(text);
	CHECK_STREQ(e, "x.conf:3: line too long");
	free(e);
	free(text);
}

static void test_long_line_file(void)
{
	char dir[] = "/tmp/test-conf-XXXXXX", main_file[256], *text, *error = NULL;
	const char *const dirs[] = { NULL };
	struct conf_paths paths = { main_file, dirs };
	struct conf *c = NULL;

	CHECK(mkdtemp(dir) != NULL);
	text = calloc(1, 3000);
	strcpy(text, "[Daemon]\nLogLevel=info\n\n\n# ");
	memset(text + strlen(text), '#', 1500);
	strcat(text, "\nMaxTasks=oops\n");
	write_file(dir, "coreschedd.conf", text);
	snprintf(main_file, sizeof(main_file), "%s/coreschedd.conf", dir);
	CHECK(conf_load(&paths, &c, &error) == -EINVAL);
	CHECK(c == NULL);
	CHECK(error && strstr(error, "/coreschedd.conf:5: line too long"));
	free(error);
	free(text);
	rm_tree(dir);
}

/* A line that does not end within what memory allows (here a sparse
 * file of 1 GiB of zeros as the main file; a device such as /dev/zero is
 * refused before any read) is refused once it is too long, not read on:
 * in a child held to 256 MiB of address space, where reading it whole
 * fails for memory, which must not pass for the end of the file. A
 * sanitizer's shadow memory does not fit that. */
static void test_endless_line(void)
{
#if defined(__SANITIZE_ADDRESS__)
	fprintf(stderr, "  skipped: an address space limit and AddressSanitizer do not mix\n");
#else
	char dir[] = "/tmp/test-conf-XXXXXX", file[256], expect[300];
	const char *const dirs[] = { NULL };
	struct conf_paths paths = { file, dirs };
	int status = -1, fd;
	pid_t pid;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(file, sizeof(file), "%s/zeros.conf", dir);
	fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)1 << 30) == 0);
	if (fd >= 0)
		close(fd);
	snprintf(expect, sizeof(expect), "%s:1: NUL byte in line", file);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 256 << 20, 256 << 20 };
		struct conf *c = NULL;
		char *error = NULL;
		int r;

		alarm(20);
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			_exit(2);
		r = conf_load(&paths, &c, &error);
		if (r == -EINVAL && error && strcmp(error, expect) == 0)
			_exit(0);
		fprintf(stderr, "  conf_load: %d %s\n", r, error ? error : "(no error)");
		_exit(1);
	}
	if (pid > 0)
		CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rm_tree(dir);
#endif
}

/* Three directories in precedence order, as /etc, /run and /usr/lib. */
static void test_precedence(void)
{
	char base[] = "/tmp/test-conf-XXXXXX", d[3][256], main_file[256], path[512], *error = NULL;
	const char *dirs[4];
	struct conf_paths paths = { main_file, dirs };
	struct conf *c = NULL;

	CHECK(mkdtemp(base) != NULL);
	for (int i = 0; i < 3; i++) {
		snprintf(d[i], sizeof(d[i]), "%s/d%d", base, i);
		CHECK(mkdir(d[i], 0755) == 0);
		dirs[i] = d[i];
	}
	dirs[3] = NULL;
	snprintf(main_file, sizeof(main_file), "%s/coreschedd.conf", base);
	write_file(base, "coreschedd.conf", "[Daemon]\nReconcileSec=5\nMaxKeys=9\n");
	write_file(d[2], "10-a.conf", "[Group vendor-a]\n");
	write_file(d[0], "10-a.conf", "[Group admin-a]\n[Daemon]\nReconcileSec=6\n");
	write_file(d[1], "10-a.conf", "[Group runtime-a]\n");
	write_file(d[2], "20-b.conf", "[Group vendor-b]\n");
	snprintf(path, sizeof(path), "%s/20-b.conf", d[0]);
	CHECK(symlink("/dev/null", path) == 0);
	write_file(d[1], "30-c.conf", "[Group runtime-c]\n[Daemon]\nReconcileSec=7\n");
	write_file(d[2], "05-z.conf", "[Group vendor-z]\n[Daemon]\nReconcileSec=4\nMaxKeys=8\n");
	write_file(d[0], "README", "not a drop-in\n");
	write_file(d[0], ".hidden.conf", "garbage\n");

	CHECK(conf_load(&paths, &c, &error) == 0);
	CHECK(error == NULL);
	if (!c) {
		fprintf(stderr, "  %s\n", error);
		free(error);
		rm_tree(base);
		return;
	}
	CHECK(c->n_sources == 4);
	if (c->n_sources == 4) {
		CHECK_STREQ(c->sources[0], main_file);
		CHECK(strstr(c->sources[1], "/d2/05-z.conf") != NULL);
		CHECK(strstr(c->sources[2], "/d0/10-a.conf") != NULL);
		CHECK(strstr(c->sources[3], "/d1/30-c.conf") != NULL);
	}
	CHECK(conf_find_group(c, "admin-a") && !conf_find_group(c, "vendor-a") && !conf_find_group(c, "runtime-a"));
	CHECK(!conf_find_group(c, "vendor-b")); /* masked */
	CHECK(conf_find_group(c, "vendor-z") && conf_find_group(c, "runtime-c"));
	CHECK(c->daemon.reconcile_sec == 7); /* the last file applied wins */
	CHECK(c->daemon.max_keys == 8);
	CHECK(c->n_groups == 3 && strcmp(c->groups[0]->name, "vendor-z") == 0 &&
	      strcmp(c->groups[2]->name, "runtime-c") == 0);
	conf_free(c);
	rm_tree(base);
}

static void test_missing_and_unreadable(void)
{
	char base[] = "/tmp/test-conf-XXXXXX", main_file[256], sub[512], *error = NULL;
	const char *dirs[] = { "/nonexistent/rules.d", NULL };
	struct conf_paths paths = { main_file, dirs };
	struct conf *c = NULL;

	CHECK(mkdtemp(base) != NULL);
	snprintf(main_file, sizeof(main_file), "%s/missing.conf", base);
	CHECK(conf_load(&paths, &c, &error) == 0);
	CHECK(c && c->n_sources == 0 && c->daemon.reconcile_sec == 30);
	c = conf_free(c);
	/* a directory where the file should be: opens, then cannot be read */
	snprintf(main_file, sizeof(main_file), "%s/dir.conf", base);
	CHECK(mkdir(main_file, 0755) == 0);
	CHECK(conf_load(&paths, &c, &error) < 0);
	CHECK(c == NULL);
	snprintf(sub, sizeof(sub), "%s: read error: ", main_file);
	CHECK(error && strncmp(error, sub, strlen(sub)) == 0);
	free(error);
	/* a FIFO: refused at once, not waited on for a writer (the alarm
	 * ends the test if it is) */
	error = NULL;
	snprintf(main_file, sizeof(main_file), "%s/fifo.conf", base);
	CHECK(mkfifo(main_file, 0600) == 0);
	alarm(10);
	CHECK(conf_load(&paths, &c, &error) == -EINVAL);
	alarm(0);
	CHECK(c == NULL);
	snprintf(sub, sizeof(sub), "%s: cannot open: a FIFO, not a file", main_file);
	CHECK_STREQ(error, sub);
	free(error);
	/* a device: refused too (a read of /dev/ptmx waits for ever), but
	 * /dev/null reads as an empty file */
	error = NULL;
	snprintf(main_file, sizeof(main_file), "%s/ptmx.conf", base);
	CHECK(symlink("/dev/ptmx", main_file) == 0);
	if (access("/dev/ptmx", R_OK) == 0) {
		alarm(10);
		CHECK(conf_load(&paths, &c, &error) == -EINVAL);
		alarm(0);
		CHECK(c == NULL);
		snprintf(sub, sizeof(sub), "%s: cannot open: a device, not a file", main_file);
		CHECK_STREQ(error, sub);
		free(error);
	}
	error = NULL;
	snprintf(main_file, sizeof(main_file), "%s/null.conf", base);
	CHECK(symlink("/dev/null", main_file) == 0);
	CHECK(conf_load(&paths, &c, &error) == 0);
	CHECK(c && c->n_sources == 1);
	c = conf_free(c);
	rm_tree(base);
}

static void test_duplicate_across_files(void)
{
	char base[] = "/tmp/test-conf-XXXXXX", main_file[256], dir[256], expect[1024], *error = NULL;
	const char *dirs[] = { dir, NULL };
	struct conf_paths paths = { main_file, dirs };
	struct conf *c = NULL;

	CHECK(mkdtemp(base) != NULL);
	snprintf(main_file, sizeof(main_file), "%s/coreschedd.conf", base);
	snprintf(dir, sizeof(dir), "%s/rules.d", base);
	CHECK(mkdir(dir, 0755) == 0);
	write_file(base, "coreschedd.conf", "[Daemon]\n[Group web]\n");
	write_file(dir, "50-web.conf", "\n\n[Group web]\n");
	CHECK(conf_load(&paths, &c, &error) == -EINVAL);
	snprintf(expect, sizeof(expect), "%s/50-web.conf:3: group 'web' already defined at %s:2", dir, main_file);
	CHECK_STREQ(error, expect);
	free(error);
	rm_tree(base);
}

static void test_evaluation_order(void)
{
	struct conf *c = load("[Group a]\n[Group b]\nPriority=10\n[Group c]\n[Group d]\nPriority=10\n"
			      "[Group e]\nPriority=-1\n",
			      NULL);
	static const char *const expect[] = { "b", "d", "a", "c", "e" };

	CHECK(c && c->n_groups == 5);
	for (size_t i = 0; c && i < c->n_groups && i < 5; i++) {
		CHECK_STREQ(c->groups[i]->name, expect[i]);
		CHECK(c->groups[i]->order == i);
	}
	conf_free(c);
}

static void test_limits(void)
{
	size_t size = (CONF_MAX_GROUPS + 1) * 32;
	char *text = malloc(size), *e;
	size_t n = 0;

	for (int i = 0; i <= CONF_MAX_GROUPS; i++)
		n += (size_t)snprintf(text + n, size - n, "[Group g%d]\n", i);
	e = error_of(text);
	CHECK_STREQ(e, "x.conf:4097: too many groups (limit 4096)");
	free(e);
	/* the limit itself is fine */
	text[n - strlen("[Group g4096]\n")] = '\0';
	e = error_of(text);
	CHECK(e == NULL);
	free(e);
	free(text);

	size = (CONF_MAX_MATCH_WORDS + 1) * 24 + 64;
	text = malloc(size);
	n = (size_t)snprintf(text, size, "[Group w]\n");
	for (int i = 0; i <= CONF_MAX_MATCH_WORDS; i++)
		n += (size_t)snprintf(text + n, size - n, "MatchComm=c%d\n", i);
	e = error_of(text);
	CHECK_STREQ(e, "x.conf:4098: MatchComm: too many match words in [Group w] (limit 4096)");
	free(e);
	free(text);
}

static void test_print(void)
{
	struct conf *c = load("[Group z]\nMatchUser=daemon\t root\nAllowUsers=root\nTrusted=yes\n"
			      "[Group web]\nPriority=3\nMatchExe=/b /a\nDescription=Web\n",
			      NULL);
	char *out = c ? print(c) : NULL;
	const char *groups = out ? strstr(out, "\n[Group") : NULL;

	CHECK_STREQ(groups, "\n[Group web]\n# defined at x.conf:5\nDescription=Web\nMatchExe=/b /a\nPer=group\n"
			    "Trusted=no\nPriority=3\nLock=no\n"
			    "\n[Group z]\n# defined at x.conf:1\nMatchUser=daemon root\nPer=group\nTrusted=yes\n"
			    "Priority=0\nAllowUsers=0\nLock=no\n");
	CHECK_STREQ(per_mode_to_string(PER_CGROUP), "cgroup");
	free(out);
	conf_free(c);
	CHECK(conf_free(NULL) == NULL);
}

struct warnings {
	char text[4096];
};

static void collect_warning(void *userdata, const char *msg)
{
	struct warnings *w = userdata;
	size_t n = strlen(w->text);

	snprintf(w->text + n, sizeof(w->text) - n, "%s\n", msg);
}

/* A MatchExe= path that is a symbolic link or a #! script matches no
 * process (the kernel shows the link's target, the interpreter): a warning
 * says so and what to name instead; a plain program, a pattern and a path
 * that does not exist (yet) say nothing. */
static void test_exe_word_warnings(void)
{
	char dir[] = "/tmp/test-conf-exe-XXXXXX", text[1024], path[256];
	struct warnings w = { "" };
	struct conf *c;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/prog", dir);
	f = fopen(path, "w");
	CHECK(f && fputs("\177ELF", f) >= 0 && fclose(f) == 0);
	snprintf(path, sizeof(path), "%s/script", dir);
	f = fopen(path, "w");
	CHECK(f && fputs("#!/bin/sh\nexit 0\n", f) >= 0 && fclose(f) == 0);
	snprintf(path, sizeof(path), "%s/link", dir);
	CHECK(symlink("/usr/bin/env", path) == 0);
	snprintf(path, sizeof(path), "%s/fifo", dir); /* opened, it would wait for a writer */
	CHECK(mkfifo(path, 0600) == 0);
	snprintf(text, sizeof(text),
		 "[Group a]\nMatchExe=%s/prog %s/link %s/*\n[Group b]\nMatchExe=%s/script %s/absent %s/fifo\n",
		 dir, dir, dir, dir, dir, dir);
	c = load(text, NULL);
	CHECK(c != NULL);
	if (c) {
		conf_warnings(c, collect_warning, &w);
		CHECK(strstr(w.text, "[Group a] MatchExe=") && strstr(w.text, "/link resolves to /usr/bin/env (a symbolic link on the way"));
		/* named by the line of its key, not of its section */
		CHECK(strstr(w.text, "x.conf:4: [Group b] MatchExe=") && strstr(w.text, "/script is a script"));
		CHECK(!strstr(w.text, "/prog ") && !strstr(w.text, "/absent") && !strstr(w.text, "/* ") &&
		      !strstr(w.text, "/fifo"));
		CHECK(strstr(w.text, "x.conf:2: [Group a]") != NULL);
		conf_free(c);
	}
	/* Lock= on a rule's group: its own line too */
	w.text[0] = '\0';
	c = load("[Group r]\nMatchComm=x\n\nLock=yes\n", NULL);
	CHECK(c != NULL);
	if (c) {
		conf_warnings(c, collect_warning, &w);
		CHECK(strstr(w.text, "x.conf:4: [Group r] Lock=yes locks only") != NULL);
		conf_free(c);
	}
	/* [Container] Lock=: the line that set it last */
	w.text[0] = '\0';
	c = load("[Container]\nLock=no\n\n[Container]\nLock=yes\n", NULL);
	CHECK(c != NULL);
	if (c) {
		conf_warnings(c, collect_warning, &w);
		CHECK(strstr(w.text, "x.conf:5: [Container] Lock=yes locks only containers") != NULL);
		conf_free(c);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	CHECK(system(path) == 0);
}

int main(void)
{
	RUN(test_defaults);
	RUN(test_daemon_keys);
	RUN(test_booleans);
	RUN(test_container_keys);
	RUN(test_group_keys);
	RUN(test_quotes_are_literal);
	RUN(test_list_reset);
	RUN(test_errors);
	RUN(test_syntax);
	RUN(test_comm_length);
	RUN(test_long_line);
	RUN(test_long_line_file);
	RUN(test_endless_line);
	RUN(test_precedence);
	RUN(test_missing_and_unreadable);
	RUN(test_duplicate_across_files);
	RUN(test_evaluation_order);
	RUN(test_limits);
	RUN(test_print);
	RUN(test_exe_word_warnings);
	UNIT_EXIT();
}
