// SPDX-License-Identifier: GPL-2.0-or-later
/* The container cgroup table on a fake cgroup tree: a directory stands for
 * a live cgroup, removing it ends the container. */
#define _GNU_SOURCE
#include "containers.h"
#include "fixture.h"
#include "unit.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char base[PATH_MAX];

static void mkdir_at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mkdir_at(const char *fmt, ...)
{
	char rel[256], path[PATH_MAX + 256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s%s", base, rel);
	if (mkdir(path, 0755) < 0 && errno != EEXIST) {
		perror(path);
		exit(2);
	}
}

static void rmdir_at(const char *rel)
{
	char path[PATH_MAX + 256];

	snprintf(path, sizeof(path), "%s%s", base, rel);
	if (rmdir(path) < 0) {
		perror(path);
		exit(2);
	}
}

/* A fresh fake tree and an empty table; v2 says whether it is a cgroup v2
 * root (cgroup.controllers) or a bare directory. */
static void setup(bool v2)
{
	/* tmpfs when there is one: the full table is 65,536 directories. */
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(base, sizeof(base), "%s/coresched-containers-XXXXXX", tmp);
	if (!mkdtemp(base)) {
		perror(base);
		exit(2);
	}
	if (v2)
		fixture_put("", "%s/cgroup.controllers", base);
	containers_clear();
	containers_set_root(base);
}

static void teardown(void)
{
	containers_clear();
	fixture_rm_rf(base);
}

/* The key cgroup is placed under, or "" when none claims it. */
static const char *key_of(const char *cgroup)
{
	const char *group = "untouched", *key = "untouched";

	if (containers_lookup(cgroup, &group, &key) != 1)
		return (strcmp(group, "untouched") == 0 && strcmp(key, "untouched") == 0) ? "" : "ret written on 0";
	return key;
}

static void lookup_longest_prefix(void)
{
	setup(true);
	mkdir_at("/a");
	mkdir_at("/a/b");
	CHECK(containers_remember("/a/b", "g", "inner") == 0);
	CHECK(containers_remember("/a", "g", "outer") == 0);
	CHECK_STREQ(key_of("/a/b/c/d"), "inner");
	CHECK_STREQ(key_of("/a/b"), "inner");
	CHECK_STREQ(key_of("/a/b/"), "inner");
	CHECK_STREQ(key_of("/a"), "outer");
	CHECK_STREQ(key_of("/a/bc"), "outer"); /* not below /a/b */
	CHECK_STREQ(key_of("/a/bc/x"), "outer");
	CHECK_STREQ(key_of("/ab"), "");
	CHECK_STREQ(key_of("/"), "");
	CHECK_STREQ(key_of("a/b"), "");
	CHECK_STREQ(key_of(""), "");
	CHECK(containers_lookup(NULL, &(const char *){ NULL }, &(const char *){ NULL }) == 0);
	teardown();
}

static void lookup_returns_group(void)
{
	const char *group = NULL, *key = NULL;

	setup(true);
	CHECK(containers_lookup("/x", &group, &key) == 0); /* empty table */
	CHECK(!group && !key);
	CHECK(containers_remember("/x", "pods", "web-1") == 0);
	CHECK(containers_lookup("/x/y", &group, &key) == 1);
	CHECK_STREQ(group, "pods");
	CHECK_STREQ(key, "web-1");
	teardown();
}

/* "/" claims every cgroup, behind any longer match; within() agrees. */
static void root_cgroup(void)
{
	setup(true);
	CHECK(containers_within("/a", "/"));
	CHECK(containers_within("/", "/"));
	CHECK(containers_within("/a/b", "/a"));
	CHECK(containers_within("/a/b", "/a/b"));
	CHECK(!containers_within("/ab", "/a"));
	CHECK(!containers_within("/a", "/a/b"));
	CHECK(containers_remember("/", "g", "root") == 0);
	mkdir_at("/x");
	CHECK(containers_remember("/x", "g", "x") == 0);
	CHECK_STREQ(key_of("/"), "root");
	CHECK_STREQ(key_of("/a/b"), "root");
	CHECK_STREQ(key_of("/x/y"), "x");
	CHECK_STREQ(key_of("/xy"), "root");
	teardown();
}

/* A relative or empty path is no cgroup: "" would claim everything. */
static void remember_rejects_relative(void)
{
	setup(true);
	CHECK(containers_remember("", "g", "k") == -EINVAL);
	CHECK(containers_remember("a/b", "g", "k") == -EINVAL);
	CHECK(containers_remember(NULL, "g", "k") == -EINVAL);
	CHECK_STREQ(key_of("/a/b"), "");
	teardown();
}

static void remember_replaces(void)
{
	setup(true);
	mkdir_at("/c");
	CHECK(containers_remember("/c", "g1", "first") == 0);
	CHECK(containers_remember("/c", "g2", "second") == 0);
	CHECK_STREQ(key_of("/c/x"), "second");
	teardown();
}

/* The old fixed table dropped its oldest live entry at 1,024. */
static void remember_past_1024(void)
{
	char cg[32];
	int failed = 0;

	setup(true);
	for (int i = 0; i < 1500; i++) {
		mkdir_at("/c%d", i);
		snprintf(cg, sizeof(cg), "/c%d", i);
		failed += containers_remember(cg, "g", cg) != 0;
	}
	CHECK(failed == 0);
	CHECK_STREQ(key_of("/c0/sub"), "/c0");
	for (int i = 0; i < 1500; i++) {
		snprintf(cg, sizeof(cg), "/c%d", i);
		failed += strcmp(key_of(cg), cg) != 0;
	}
	CHECK(failed == 0);
	teardown();
}

/* CONTAINERS_MAX live entries /c0...; dirs makes them live cgroups (else
 * the tree must have no hierarchy for them to count as live). */
static void fill(bool dirs)
{
	char cg[32];
	int failed = 0;

	for (int i = 0; i < CONTAINERS_MAX; i++) {
		if (dirs)
			mkdir_at("/c%d", i);
		snprintf(cg, sizeof(cg), "/c%d", i);
		failed += containers_remember(cg, "g", cg) != 0;
	}
	CHECK(failed == 0);
}

/* Nothing known gone (no hierarchy), so no directories needed. */
static void full_table_refuses(void)
{
	setup(false);
	fill(false);
	CHECK(containers_remember("/new", "g", "new") == -ENOSPC);
	CHECK_STREQ(key_of("/new"), "");
	CHECK_STREQ(key_of("/c0"), "/c0");
	CHECK_STREQ(key_of("/c65535"), "/c65535");
	/* Re-placing an entry needs no room. */
	CHECK(containers_remember("/c7", "g", "moved") == 0);
	CHECK_STREQ(key_of("/c7"), "moved");
	teardown();
}

static void full_table_prunes_gone(void)
{
	setup(true);
	fill(true);
	rmdir_at("/c0");
	rmdir_at("/c4242");
	mkdir_at("/new");
	mkdir_at("/newer");
	mkdir_at("/newest");
	CHECK(containers_remember("/new", "g", "new") == 0);
	CHECK(containers_remember("/newer", "g", "newer") == 0);
	CHECK(containers_remember("/newest", "g", "newest") == -ENOSPC); /* all live */
	CHECK_STREQ(key_of("/new"), "new");
	CHECK_STREQ(key_of("/newer"), "newer");
	CHECK_STREQ(key_of("/c0"), "");
	CHECK_STREQ(key_of("/c4242"), "");
	CHECK_STREQ(key_of("/c1"), "/c1");
	CHECK_STREQ(key_of("/c65535"), "/c65535");
	teardown();
}

/* Enough remembers past a gone entry for the table to prune (it does well
 * before 1,000); whether /gone went says where cgroups were looked for. */
static const char *after_growth(const char *dir)
{
	char cg[32];

	CHECK(containers_remember("/gone", "g", "gone") == 0);
	CHECK(containers_remember("/live", "g", "live") == 0);
	for (int i = 0; i < 1000; i++) {
		mkdir_at("%s/c%d", dir, i);
		snprintf(cg, sizeof(cg), "/c%d", i);
		CHECK(containers_remember(cg, "g", cg) == 0);
	}
	CHECK_STREQ(key_of("/c999"), "/c999");
	return key_of("/gone");
}

static void prune_drops_gone_only(void)
{
	setup(true);
	mkdir_at("/live");
	CHECK_STREQ(after_growth(""), "");
	CHECK_STREQ(key_of("/live"), "live");
	teardown();
}

/* Hybrid v1+v2: the v2 hierarchy is at unified/. */
static void prune_hybrid_root(void)
{
	setup(false);
	mkdir_at("/unified");
	fixture_put("", "%s/unified/cgroup.controllers", base);
	mkdir_at("/unified/live");
	containers_set_root(base);
	CHECK_STREQ(after_growth("/unified"), "");
	CHECK_STREQ(key_of("/live"), "live");
	teardown();
}

/* No v2 hierarchy: nothing can be known gone, so nothing is dropped. */
static void prune_without_hierarchy(void)
{
	setup(false);
	CHECK_STREQ(after_growth(""), "gone");
	CHECK_STREQ(key_of("/live"), "live");
	teardown();
}

int main(void)
{
	RUN(lookup_longest_prefix);
	RUN(lookup_returns_group);
	RUN(root_cgroup);
	RUN(remember_rejects_relative);
	RUN(remember_replaces);
	RUN(remember_past_1024);
	RUN(full_table_refuses);
	RUN(full_table_prunes_gone);
	RUN(prune_drops_gone_only);
	RUN(prune_hybrid_root);
	RUN(prune_without_hierarchy);
	UNIT_EXIT();
}
