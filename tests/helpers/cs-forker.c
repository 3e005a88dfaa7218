// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-forker [-p] [-u UID:GID] [-w SECONDS] N [COMMAND...]: fork N children
 * at the top of main, the moment the exec is done, then sleep until killed.
 * The children sleep too, or with COMMAND exec it. Children die with the
 * parent unless COMMAND drops that.
 *   -u  switch to UID:GID (real, effective and saved) first, as su or a
 *       setuid launcher does, and fork right after
 *   -p  fork one child first, which does the rest (-u, -w, the N) and
 *       makes its N with CLONE_PARENT, as a server's worker does: they
 *       are this process's children, run its program under its name, and
 *       have the worker's user
 *   -w  first wait up to SECONDS for our own cookie to become non-zero, so
 *       that the children start from a placed parent (the exec path alone,
 *       without the fork race)
 * Prints nothing; exit status 2 on a usage or set-up error. */
#define _GNU_SOURCE
#include <grp.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RACE_PR_SCHED_CORE 62
#define RACE_PR_SCHED_CORE_GET 0

static int switch_user(const char *spec)
{
	unsigned int uid, gid;
	gid_t g;

	if (sscanf(spec, "%u:%u", &uid, &gid) != 2)
		return -1;
	g = gid;
	if (setgroups(1, &g) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0) {
		perror("cs-forker: switching user");
		return -1;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* By the clock, not by a count of naps: a loaded VM stretches every nap. */
static void wait_placed(double secs)
{
	struct timespec pause_ts = { 0, 5000000 };
	unsigned long long c = 0;
	double end = now_s() + secs;

	while (now_s() < end) {
		if (prctl(RACE_PR_SCHED_CORE, RACE_PR_SCHED_CORE_GET, 0, 0, (unsigned long)&c) == 0 && c)
			return;
		nanosleep(&pause_ts, NULL);
	}
}

int main(int argc, char **argv)
{
	const char *user = NULL;
	double wait_s = 0;
	bool clone_parent = false;
	long n, i;
	int opt;

	while ((opt = getopt(argc, argv, "+pu:w:")) != -1) {
		switch (opt) {
		case 'p':
			clone_parent = true;
			break;
		case 'u':
			user = optarg;
			break;
		case 'w':
			wait_s = atof(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	n = atol(argv[optind]);
	if (clone_parent) {
		pid_t worker = fork();

		if (worker < 0) {
			perror("cs-forker: fork");
			return 2;
		}
		if (worker > 0)
			for (;;)
				pause();
	}
	if (user && switch_user(user) < 0)
		return 2;
	if (clone_parent)
		prctl(PR_SET_PDEATHSIG, SIGKILL); /* after the switch, which resets it */
	if (wait_s > 0)
		wait_placed(wait_s);
	for (i = 0; i < n; i++) {
		pid_t pid = clone_parent ? (pid_t)syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0) : fork();

		if (pid < 0) {
			perror("cs-forker: fork");
			break;
		}
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (optind + 1 < argc) {
				execvp(argv[optind + 1], argv + optind + 1);
				perror("cs-forker: exec");
				_exit(127);
			}
			for (;;)
				pause();
		}
	}
	for (;;)
		pause();

usage:
	fprintf(stderr, "usage: cs-forker [-p] [-u UID:GID] [-w SECONDS] N [COMMAND...]\n");
	return 2;
}
