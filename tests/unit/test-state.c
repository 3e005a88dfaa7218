// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* nftw() with FTW_DEPTH, in fixture.h */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"
#include "state.h"
#include "unit.h"

static char dir[64];

static struct state_entry entry(pid_t pid, uint64_t start, enum origin o, const char *group, const char *key)
{
	struct state_entry en = { .pid = pid, .start = start, .origin = o };

	snprintf(en.group, sizeof(en.group), "%s", group);
	snprintf(en.key, sizeof(en.key), "%s", key);
	return en;
}

static bool same(const struct state_entry *a, const struct state_entry *b)
{
	return a->pid == b->pid && a->start == b->start && a->origin == b->origin &&
	       strcmp(a->group, b->group) == 0 && strcmp(a->key, b->key) == 0;
}

static void test_line_round_trip(void)
{
	/* Per=group (empty), Per=user, Per=cgroup with a space, a lone "-",
	 * a '%' and a byte outside ASCII must all come back as they were. */
	static const char *const keys[] = { "", "1000", "/machine.slice/my pod", "-", "50%", "caf\xc3\xa9", "-x" };
	char line[STATE_LINE_MAX];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct state_entry en = entry(100 + (pid_t)i, 12345678901ULL, ORIGIN_HOOK, "web.tier-1", keys[i]), back;
		int n = state_format(&en, line, sizeof(line));

		CHECK(n > 0 && line[n - 1] == '\n');
		CHECK(strchr(line, '\n') == line + n - 1);
		CHECK(state_parse(line, &back) == 0);
		CHECK(same(&en, &back));
	}
	struct state_entry en = entry(7, 1, ORIGIN_ASSIGN, "g", "");

	CHECK(state_format(&en, line, sizeof(line)) > 0);
	CHECK_STREQ(line, "7 1 assign g -\n");

	/* The cookie it carried, when known, comes sixth, in hex; a line
	 * without it (an older daemon's) reads as "not known". */
	struct state_entry kept = entry(8, 2, ORIGIN_STICKY, "g", "1000"), back;

	kept.cookie = 0xdeadbeef01ULL;
	CHECK(state_format(&kept, line, sizeof(line)) > 0);
	CHECK_STREQ(line, "8 2 sticky g 1000 deadbeef01\n");
	CHECK(state_parse(line, &back) == 0 && back.cookie == 0xdeadbeef01ULL && back.origin == ORIGIN_STICKY);
	CHECK(state_parse("8 2 sticky g 1000\n", &back) == 0 && back.cookie == 0);
	CHECK(state_parse("8 2 sticky g 1000 xyz\n", &back) == -EBADMSG);
	CHECK(state_parse("8 2 sticky g 1000 1 2 3\n", &back) == -EBADMSG);

	/* Who placed it comes seventh, so that a user's own placement stays
	 * theirs to change after a restart. */
	struct state_entry mine = entry(9, 3, ORIGIN_RUN, "g", ""), got;

	mine.placer = 1000;
	mine.placer_gid = 1002;
	CHECK(state_format(&mine, line, sizeof(line)) > 0);
	CHECK_STREQ(line, "9 3 run g - 0 1000:1002\n");
	CHECK(state_parse(line, &got) == 0 && got.placer == 1000 && got.placer_gid == 1002 && got.cookie == 0);
	/* an older daemon's line names no gid */
	CHECK(state_parse("9 3 run g - 0 1000\n", &got) == 0 && got.placer == 1000 && got.placer_gid == STATE_GID_UNKNOWN);
	mine.placer_gid = STATE_GID_UNKNOWN;
	CHECK(state_format(&mine, line, sizeof(line)) > 0);
	CHECK_STREQ(line, "9 3 run g - 0 1000\n");
	CHECK(state_parse("9 3 run g - 0 x\n", &got) == -EBADMSG);
	CHECK(state_parse("9 3 run g - 0 1000:\n", &got) == -EBADMSG);
	CHECK(state_parse("9 3 run g - 0 0:0\n", &got) == -EBADMSG);
	CHECK(state_parse("9 3 run g - 0 1000:1:2\n", &got) == -EBADMSG);
}

static void test_format_refuses(void)
{
	char line[STATE_LINE_MAX], tiny[8];
	struct state_entry rule = entry(7, 1, ORIGIN_RULE, "g", ""), nopid = entry(0, 1, ORIGIN_RUN, "g", "");
	struct state_entry badgroup = entry(7, 1, ORIGIN_RUN, "a b", ""), ok = entry(7, 1, ORIGIN_RUN, "group", "");

	CHECK(state_format(&rule, line, sizeof(line)) == -EINVAL); /* only explicit origins are kept */
	CHECK(state_format(&nopid, line, sizeof(line)) == -EINVAL);
	CHECK(state_format(&badgroup, line, sizeof(line)) == -EINVAL);
	CHECK(state_format(&ok, tiny, sizeof(tiny)) == -ENAMETOOLONG);
}

static void test_parse_garbage(void)
{
	static const char *const bad[] = {
		"", "\n", "garbage", "12 34 assign g", "12 34 assign g k extra", "-1 34 assign g k",
		"0 34 assign g k", "x 34 assign g k", "12 x assign g k", "12 34 rule g k", "12 34 foreign g k",
		"12  34 assign g k", "12 34 assign g%20 k", "12 34 assign g k%2", "12 34 assign g k%zz",
		"12 34 assign g k%00", "99999999999 34 assign g k", "12 99999999999999999999999 assign g k",
		"12 34 assign g k\tv",
	};
	struct state_entry en = entry(1, 1, ORIGIN_RUN, "keep", "me");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool refused = state_parse(bad[i], &en) == -EBADMSG;

		if (!refused)
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
		CHECK(refused);
	}
	CHECK_STREQ(en.group, "keep"); /* nothing written on failure */
}

static void test_save_load(void)
{
	char path[128], tmp[140];
	struct state_entry v[3] = { entry(10, 100, ORIGIN_ASSIGN, "a", "1000"),
				    entry(11, 101, ORIGIN_RUN, "b", ""),
				    entry(12, 102, ORIGIN_INHERITED, "c", "/x y") };
	struct state_file *sf = NULL;

	snprintf(path, sizeof(path), "%s/coreschedd.state", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	CHECK(state_load(path, &sf, NULL) == -ENOENT && !sf);
	fixture_put("old contents\n", "%s", path);
	CHECK(state_save(path, &(struct state_file){ .entries = v, .n = 3 }) == 0);
	CHECK(access(tmp, F_OK) < 0); /* the temporary file was renamed */
	CHECK(state_load(path, &sf, NULL) == 0);
	CHECK(sf && sf->n == 3 && sf->n_bad == 0);
	for (size_t i = 0; sf && i < sf->n && i < 3; i++)
		CHECK(same(&sf->entries[i], &v[i]));
	sf = state_file_free(sf);
	CHECK(state_save(path, &(struct state_file){ .entries = v, .n = 0 }) == 0);
	CHECK(state_load(path, &sf, NULL) == 0 && sf && sf->n == 0);
	sf = state_file_free(sf);
	CHECK(state_file_free(NULL) == NULL);
	/* Anyone could have written a group- or world-writable file; the
	 * refusal says what is wrong. */
	const char *why = NULL;

	CHECK(chmod(path, 0666) == 0);
	CHECK(state_load(path, &sf, &why) == -EPERM && !sf);
	CHECK_STREQ(why, "it is writable by its group or by others");
	CHECK(chmod(path, 0620) == 0);
	CHECK(state_load(path, &sf, NULL) == -EPERM && !sf);
	CHECK(chmod(path, 0600) == 0);
	if (geteuid() == 0) {
		CHECK(chown(path, 65534, 0) == 0);
		CHECK(state_load(path, &sf, &why) == -EPERM && !sf);
		CHECK_STREQ(why, "it is owned by neither root nor the daemon's user");
		CHECK(chown(path, 0, 0) == 0);
	}
	/* A planted link is not followed. */
	snprintf(tmp, sizeof(tmp), "%s.link", path);
	CHECK(symlink(path, tmp) == 0);
	CHECK(state_load(tmp, &sf, &why) == -ELOOP && !sf);
	CHECK_STREQ(why, "it is a symbolic link, which is not followed");
	unlink(tmp);
	/* A directory, and a FIFO refused at once, not waited on for a
	 * writer (the alarm ends the test if it is). */
	snprintf(tmp, sizeof(tmp), "%s.dir", path);
	CHECK(mkdir(tmp, 0700) == 0);
	CHECK(state_load(tmp, &sf, &why) == -EPERM && !sf);
	CHECK_STREQ(why, "it is a directory, not a file");
	rmdir(tmp);
	snprintf(tmp, sizeof(tmp), "%s.fifo", path);
	CHECK(mkfifo(tmp, 0600) == 0);
	alarm(10);
	CHECK(state_load(tmp, &sf, &why) == -EPERM && !sf);
	alarm(0);
	CHECK_STREQ(why, "it is a FIFO, not a file");
	unlink(tmp);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* A failed write leaves the old file alone. */
	struct state_entry bad = entry(13, 1, ORIGIN_RULE, "d", "");

	CHECK(state_save(path, &(struct state_file){ .entries = &bad, .n = 1 }) == -EINVAL);
	CHECK(access(tmp, F_OK) < 0);
	CHECK(state_load(path, &sf, NULL) == 0 && sf && sf->n == 0 && sf->n_bad == 0);
	sf = state_file_free(sf);
	unlink(path);
}

static bool same_placers(const struct placers *a, const struct placers *b)
{
	if (a->n != b->n || a->privileged != b->privileged)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (a->uid[i] != b->uid[i] || a->gid[i] != b->gid[i])
			return false;
	return true;
}

/* A key's placers of record: round trip through a line and a saved file,
 * beside the placements; malformed ones refused. */
static void test_placers_lines(void)
{
	struct state_placers v[3] = { { "a", "1000", { { 1000 }, { 1000 }, 1, false } },
				      { "b", "", { { 1000, 1001 }, { 2000, 1001 }, 2, true } },
				      { "c", "/x y", { { 0 }, { 0 }, 0, true } } };
	static const char *const bad[] = { "placers a - 2\n", "placers a - 1 1000\n", "placers a - 1 1000:\n",
					   "placers a - 0 1:1 1:1\n", "placers a - 0 1:1 2:2 3:3\n",
					   "placers a/b - 0\n", "placers a - 0 -1:0\n", "placers a\n" };
	struct state_entry en = entry(10, 100, ORIGIN_ASSIGN, "a", "1000");
	struct state_placers p;
	struct state_file *sf = NULL;
	char line[STATE_LINE_MAX], path[128];

	for (size_t i = 0; i < 3; i++) {
		CHECK(state_format_placers(&v[i], line, sizeof(line)) > 0);
		CHECK(state_parse_placers(line, &p) == 0);
		CHECK_STREQ(p.group, v[i].group);
		CHECK_STREQ(p.key, v[i].key);
		CHECK(same_placers(&p.placers, &v[i].placers));
	}
	CHECK(state_format_placers(&v[1], line, sizeof(line)) > 0);
	CHECK_STREQ(line, "placers b - 1 1000:2000 1001:1001\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool refused = state_parse_placers(bad[i], &p) == -EBADMSG;

		if (!refused)
			fprintf(stderr, "  accepted: '%s'\n", bad[i]);
		CHECK(refused);
	}
	/* a gid not known (an older daemon's line named none) */
	CHECK(state_parse_placers("placers a - 0 1000:4294967295\n", &p) == 0 && p.placers.gid[0] == (gid_t)-1);
	snprintf(path, sizeof(path), "%s/placers.state", dir);
	CHECK(state_save(path, &(struct state_file){ .entries = &en, .n = 1, .placers = v, .n_placers = 3,
						    .unowned = &(struct state_unowned){ 77, 7777 }, .n_unowned = 1 }) == 0);
	CHECK(state_load(path, &sf, NULL) == 0);
	CHECK(sf && sf->n == 1 && sf->n_placers == 3 && sf->n_unowned == 1 && sf->n_bad == 0);
	for (size_t i = 0; sf && i < sf->n_placers && i < 3; i++)
		CHECK(strcmp(sf->placers[i].key, v[i].key) == 0 && same_placers(&sf->placers[i].placers, &v[i].placers));
	CHECK(sf && sf->n_unowned == 1 && sf->unowned[0].pid == 77 && sf->unowned[0].start == 7777);
	sf = state_file_free(sf);
	/* malformed unowned lines are counted, the rest read */
	fixture_put("unowned 0 1\nunowned 5\nunowned 5 6 7\nunowned x 1\nunowned 5 6\n", "%s", path);
	CHECK(state_load(path, &sf, NULL) == 0 && sf && sf->n_unowned == 1 && sf->n_bad == 4 && sf->first_bad == 1);
	sf = state_file_free(sf);
	unlink(path);
}

static void test_load_skips_bad_lines(void)
{
	char path[128], *text, *p;
	struct state_file *sf = NULL;
	size_t long_len = STATE_LINE_MAX + 100;

	snprintf(path, sizeof(path), "%s/corrupt.state", dir);
	text = malloc(long_len + 512);
	CHECK(text != NULL);
	if (!text)
		return;
	p = text + sprintf(text, "# comment\n20 200 assign web -\nnot a placement\n21 201 run db 1000\n");
	memset(p, 'x', long_len); /* line 5: over-long */
	p += long_len;
	sprintf(p, "\n22 202 hook ctr /pod\n\x01\x02\n23 203 inherited web -"); /* no final newline */
	fixture_put(text, "%s", path);
	free(text);
	CHECK(state_load(path, &sf, NULL) == 0);
	CHECK(sf && sf->n == 4);
	CHECK(sf && sf->n_bad == 3 && sf->first_bad == 3);
	if (sf && sf->n == 4) {
		CHECK(sf->entries[0].pid == 20 && sf->entries[1].pid == 21);
		CHECK(sf->entries[2].pid == 22 && sf->entries[3].pid == 23);
		CHECK(sf->entries[3].origin == ORIGIN_INHERITED);
		CHECK_STREQ(sf->entries[2].key, "/pod");
	}
	state_file_free(sf);
	unlink(path);
}

/* A process (PID and start time) listed twice, an edit by hand: the first
 * line stands, the second is counted with both line numbers, the others
 * load. A line of the same PID with another start time is another process
 * (at most one of them is alive): it loads. */
static void test_load_repeated_pid(void)
{
	char path[256];
	struct state_file *sf = NULL;

	snprintf(path, sizeof(path), "%s/repeated.state", dir);
	fixture_put("# comment\n40 400 assign web -\n41 401 run db 1000\n40 400 assign db -\n"
		    "42 402 hook ctr /pod\n41 401 run web 1000\n40 999 assign db -\n",
		    "%s", path);
	CHECK(state_load(path, &sf, NULL) == 0);
	CHECK(sf && sf->n == 4 && sf->n_bad == 0);
	CHECK(sf && sf->n_dup == 2 && sf->first_dup == 4 && sf->first_dup_of == 2);
	if (sf && sf->n == 4) {
		CHECK(sf->entries[0].pid == 40 && sf->entries[0].start == 400);
		CHECK_STREQ(sf->entries[0].group, "web");
		CHECK(sf->entries[1].pid == 41);
		CHECK_STREQ(sf->entries[1].group, "db");
		CHECK(sf->entries[2].pid == 42);
		CHECK(sf->entries[3].pid == 40 && sf->entries[3].start == 999);
	}
	state_file_free(sf);
	unlink(path);
}

static void fake_stat(const char *proc, pid_t pid, uint64_t start)
{
	char path[256], text[256];

	snprintf(path, sizeof(path), "%s/%d", proc, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stat", proc, pid);
	snprintf(text, sizeof(text), "%d (w) S 1 %d %d 0 -1 4194304 0 0 0 0 0 0 0 0 20 0 1 0 %" PRIu64 " 0 0\n",
		 pid, pid, pid, start);
	fixture_put(text, "%s", path);
}

static void test_prune_stale(void)
{
	char proc[128], path[256];
	struct state_entry v[4] = { entry(30, 300, ORIGIN_ASSIGN, "a", ""), /* alive */
				    entry(31, 301, ORIGIN_ASSIGN, "a", ""), /* pid reused: other start */
				    entry(32, 302, ORIGIN_RUN, "a", ""),    /* gone */
				    entry(33, 303, ORIGIN_HOOK, "b", "k") }; /* alive */
	struct state_file *sf = NULL;

	snprintf(proc, sizeof(proc), "%s/proc", dir);
	mkdir(proc, 0755);
	fake_stat(proc, 30, 300);
	fake_stat(proc, 31, 999);
	fake_stat(proc, 33, 303);
	snprintf(path, sizeof(path), "%s/prune.state", dir);
	CHECK(state_save(path, &(struct state_file){ .entries = v, .n = 4 }) == 0);
	CHECK(state_load(path, &sf, NULL) == 0 && sf && sf->n == 4);
	if (!sf)
		return;
	CHECK(state_prune(sf, proc) == 2);
	CHECK(sf->n == 2);
	CHECK(sf->n == 2 && same(&sf->entries[0], &v[0]) && same(&sf->entries[1], &v[3]));
	CHECK(state_prune(sf, proc) == 0);
	state_file_free(sf);
	unlink(path);
	for (pid_t pid = 30; pid <= 33; pid++) {
		snprintf(path, sizeof(path), "%s/%d/stat", proc, pid);
		unlink(path);
		snprintf(path, sizeof(path), "%s/%d", proc, pid);
		rmdir(path);
	}
	rmdir(proc);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/test-state.XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	RUN(test_line_round_trip);
	RUN(test_format_refuses);
	RUN(test_parse_garbage);
	RUN(test_save_load);
	RUN(test_placers_lines);
	RUN(test_load_skips_bad_lines);
	RUN(test_load_repeated_pid);
	RUN(test_prune_stale);
	rmdir(dir);
	UNIT_EXIT();
}
