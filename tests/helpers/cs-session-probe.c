// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-session-probe [SECONDS]: the first thing main() does is read its own
 * cookie, so what it prints is what the process started with, before any
 * daemon could have acted on its exec. Then a child of it reads its own,
 * and the probe waits SECONDS (default 0) before it exits, so that a test
 * can look at the session's opener meanwhile. Prints
 *
 *     probe: pid=PID ppid=PPID uid=UID cookie=0x...
 *     probe-child: cookie=0x...
 *
 * with !ERRNO-NAME for a cookie the kernel would not give. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void show(const char *what, int r, int err, unsigned long long c)
{
	if (r < 0)
		printf("%s!%s\n", what, strerrorname_np(err));
	else
		printf("%s0x%llx\n", what, c);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	unsigned long long c = 0;
	int r = prctl(62, 0, 0, 0, &c), err = errno;
	char head[128];
	pid_t pid;

	snprintf(head, sizeof(head), "probe: pid=%d ppid=%d uid=%u cookie=", (int)getpid(), (int)getppid(),
		 (unsigned)getuid());
	show(head, r, err, c);
	pid = fork();
	if (pid == 0) {
		r = prctl(62, 0, 0, 0, &c);
		show("probe-child: cookie=", r, errno, c);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
	if (argc > 1)
		sleep((unsigned)atoi(argv[1]));
	return 0;
}
