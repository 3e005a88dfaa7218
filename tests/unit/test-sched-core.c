// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "sched_core.h"
#include "unit.h"

static void scope_names_round_trip(void)
{
	enum sc_scope s;

	CHECK(sc_scope_from_string("pid", &s) == 0 && s == SC_SCOPE_THREAD);
	CHECK(sc_scope_from_string("tgid", &s) == 0 && s == SC_SCOPE_THREAD_GROUP);
	CHECK(sc_scope_from_string("pgid", &s) == 0 && s == SC_SCOPE_PROCESS_GROUP);
	CHECK(sc_scope_from_string("thread", &s) == -EINVAL);
	CHECK(sc_scope_from_string("", &s) == -EINVAL);
	CHECK_STREQ(sc_scope_to_string(SC_SCOPE_PROCESS_GROUP), "pgid");
}

static void errors_name_their_cause(void)
{
	CHECK(strstr(sc_strerror(-EINVAL), "CONFIG_SCHED_CORE") != NULL);
	CHECK(strstr(sc_strerror(-ENODEV), "SMT") != NULL);
	CHECK(strstr(sc_strerror(-EPERM), "CAP_SYS_PTRACE") != NULL);
	CHECK(strstr(sc_strerror(-ESRCH), "no such process") != NULL);
}

static void cookie_is_64_bits(void)
{
	CHECK(sizeof(sc_cookie) == 8);
}

int main(void)
{
	RUN(scope_names_round_trip);
	RUN(errors_name_their_cause);
	RUN(cookie_is_64_bits);
	UNIT_EXIT();
}
