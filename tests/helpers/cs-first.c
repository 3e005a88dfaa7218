// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-first FILE [create]: a container entrypoint that reads its own cookie
 * before any code of its own runs (a constructor, ahead of main), writes it
 * to FILE as 0x... (or !ERRNO-NAME), then sleeps until killed. A cookie
 * seen there was given before the exec, not by a daemon reacting to it.
 * With "create" it then tries to give itself a new cookie and adds the
 * lines "create OK|!ERRNO-NAME" and "after 0x..." (its cookie then). */
#define _GNU_SOURCE /* strerrorname_np */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

/* The kernel's uapi numbers, on purpose not the project's. */
#define FIRST_PR_SCHED_CORE 62
#define FIRST_PR_SCHED_CORE_GET 0
#define FIRST_PR_SCHED_CORE_CREATE 1
#define FIRST_PIDTYPE_PID 0
#define FIRST_PIDTYPE_TGID 1

static unsigned long long first_cookie;
static int first_errno;

__attribute__((constructor(101))) static void read_first(void)
{
	if (prctl(FIRST_PR_SCHED_CORE, FIRST_PR_SCHED_CORE_GET, 0, FIRST_PIDTYPE_PID,
		  (unsigned long)&first_cookie) < 0)
		first_errno = errno;
}

int main(int argc, char **argv)
{
	FILE *f;

	if (argc != 2 && !(argc == 3 && strcmp(argv[2], "create") == 0)) {
		fprintf(stderr, "usage: cs-first FILE [create]\n");
		return 2;
	}
	f = fopen(argv[1], "we");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	if (first_errno)
		fprintf(f, "!%s\n", strerrorname_np(first_errno));
	else
		fprintf(f, "0x%llx\n", first_cookie);
	if (argc == 3) {
		unsigned long long after = 0;

		if (prctl(FIRST_PR_SCHED_CORE, FIRST_PR_SCHED_CORE_CREATE, 0, FIRST_PIDTYPE_TGID, 0) < 0)
			fprintf(f, "create !%s\n", strerrorname_np(errno));
		else
			fprintf(f, "create OK\n");
		if (prctl(FIRST_PR_SCHED_CORE, FIRST_PR_SCHED_CORE_GET, 0, FIRST_PIDTYPE_PID, (unsigned long)&after) < 0)
			fprintf(f, "after !%s\n", strerrorname_np(errno));
		else
			fprintf(f, "after 0x%llx\n", after);
	}
	if (fclose(f) != 0) {
		perror(argv[1]);
		return 1;
	}
	for (;;)
		pause();
}
