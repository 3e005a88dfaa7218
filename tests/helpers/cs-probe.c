// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-probe [TIMEOUT_MS] [--fork | --cgroup TEXT]: measure the untagged
 * window as the process itself sees it. First thing after exec, poll until
 * placed and print the delay in microseconds from the start of main (or
 * "timeout"):
 *   (default)      until our own cookie is non-zero;
 *   --cgroup TEXT  until /proc/self/cgroup contains TEXT (a cgroup
 *                  classifier such as cgrulesengd, measured the same way);
 *   --fork         wait to be tagged, then fork: the child polls until its
 *                  cookie differs from ours (policy that changes at fork,
 *                  Per=process) and the delay printed is the child's.
 * A second column says whether the very first look already found the
 * cookie (1) or not (0): an entry point that places a process before its
 * first instruction gives 1 every time, whatever the emulator's delay. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sched_core.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Poll until our cookie is set and differs from `unlike`; the delay, or
 * negative on timeout or error. */
static int first_look = -1; /* 1: the first look found it */

static double wait_cookie(double start, double limit, sc_cookie unlike, sc_cookie *ret)
{
	sc_cookie c = 0;

	for (;;) {
		if (sc_get(0, &c) < 0)
			return -1;
		if (first_look < 0)
			first_look = c != 0 && c != unlike;
		if (c != 0 && c != unlike)
			break;
		if (now_us() - start > limit)
			return -1;
	}
	*ret = c;
	return now_us() - start;
}

static int cgroup_has(const char *text)
{
	char buf[4096];
	int fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

static double wait_cgroup(double start, double limit, const char *text)
{
	while (!cgroup_has(text))
		if (now_us() - start > limit)
			return -1;
	return now_us() - start;
}

/* Tagged parent forks; the child measures its own window and reports it. */
static double fork_window(double limit)
{
	sc_cookie mine, theirs;
	int fds[2], status;
	double d = -1;
	pid_t pid;

	if (wait_cookie(now_us(), limit, 0, &mine) < 0 || pipe(fds) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		double w = wait_cookie(now_us(), limit, mine, &theirs);

		(void)!write(fds[1], &w, sizeof(w));
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], &d, sizeof(d)) != sizeof(d))
		d = -1;
	close(fds[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	return d;
}

int main(int argc, char **argv)
{
	double start = now_us(), limit = (argc > 1 ? atof(argv[1]) : 1000) * 1000, d;
	sc_cookie c;

	if (argc > 2 && strcmp(argv[2], "--fork") == 0)
		d = fork_window(limit);
	else if (argc > 3 && strcmp(argv[2], "--cgroup") == 0)
		d = wait_cgroup(start, limit, argv[3]);
	else
		d = wait_cookie(start, limit, 0, &c);
	if (d < 0) {
		printf("timeout\n");
		return 1;
	}
	printf("%.1f %d\n", d, first_look > 0);
	return 0;
}
