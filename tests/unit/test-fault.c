// SPDX-License-Identifier: GPL-2.0-or-later
/* The CORESCHED_FAULT grammar: "site:errno[:count],...". The injecting
 * build is tested in the VM; its parser is tested here. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#include "sched_core.h"
#include "unit.h"

static void names_the_site_and_its_entry(void)
{
	unsigned idx = 99;
	unsigned long count = 99;

	CHECK(sc_fault_parse("share_to:3:5", "share_to", &idx, &count) == 3);
	CHECK(idx == 0 && count == 5);
	CHECK(sc_fault_parse("get:1,recv:105", "recv", &idx, &count) == 105);
	CHECK(idx == 1 && count == 0);
	CHECK(sc_fault_parse("a:1,,b:2:0", "b", &idx, &count) == 2);
	CHECK(idx == 2 && count == 0);
}

static void leaves_other_sites_alone(void)
{
	unsigned idx = 7;
	unsigned long count = 7;

	/* share_to is a prefix of neither share_from nor share_to2. */
	CHECK(sc_fault_parse("share_from:1:2,share_to2:4", "share_to", &idx, &count) == 0);
	CHECK(sc_fault_parse(NULL, "get", &idx, &count) == 0);
	CHECK(sc_fault_parse("", "get", &idx, &count) == 0);
	CHECK(sc_fault_parse("get", "get", &idx, &count) == 0);
	CHECK(idx == 7 && count == 7);
}

static void rejects_malformed_entries(void)
{
	unsigned idx = 7;
	unsigned long count = 7;

	CHECK(sc_fault_parse("get:", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:0", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:-3", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:3:-1", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:3:", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:3x", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:4096", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:3:1:1", "get", &idx, &count) == -EINVAL);
	CHECK(sc_fault_parse("get:3:99999999999999999999999", "get", &idx, &count) == -EINVAL);
	CHECK(idx == 7 && count == 7);
	CHECK(sc_fault_parse("get:4095,recv:x", "get", &idx, &count) == 4095);
}

/* Without the define the wrappers must not consult the environment. */
static void off_without_the_define(void)
{
#ifndef CORESCHED_FAULT_INJECTION
	CHECK(setenv("CORESCHED_FAULT", "get:3,create:3", 1) == 0);
	CHECK(sc_fault("get") == 0);
	CHECK(sc_fault("create") == 0);
	unsetenv("CORESCHED_FAULT");
#endif
}

int main(void)
{
	RUN(names_the_site_and_its_entry);
	RUN(leaves_other_sites_alone);
	RUN(rejects_malformed_entries);
	RUN(off_without_the_define);
	UNIT_EXIT();
}
