// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-launch [-n] COMMAND [ARG...]: give itself a new cookie and become
 * COMMAND, as util-linux's `coresched new -- COMMAND` does, and nothing
 * else: the smallest launcher there is, linked with libc only, the peer
 * the benchmark holds `coresched run` against. -n skips the cookie, to
 * tell the cost of the second exec from the kernel's cost of a cookie. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#endif
#define PR_SCHED_CORE_CREATE 1
#define PIDTYPE_TGID 1

int main(int argc, char **argv)
{
	int cookie = !(argc > 1 && strcmp(argv[1], "-n") == 0);

	argv += !cookie;
	argc -= !cookie;
	if (argc < 2) {
		fprintf(stderr, "usage: cs-launch [-n] COMMAND [ARG...]\n");
		return 1;
	}
	if (cookie && prctl(PR_SCHED_CORE, PR_SCHED_CORE_CREATE, 0, PIDTYPE_TGID, 0) < 0) {
		fprintf(stderr, "cs-launch: cannot create a cookie: %s\n", strerror(errno));
		return 1;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "cs-launch: cannot execute %s: %s\n", argv[1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
