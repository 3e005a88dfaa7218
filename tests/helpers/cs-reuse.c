// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-reuse take PID SECONDS: start a process that sleeps SECONDS under pid
 * PID (clone3 with set_tid: root), print its pid and return at once.
 *
 * cs-reuse SOCKET GOFILE MESSAGE...: a connection that outlives the process
 * that opened it. Connects to SOCKET, forks, and the connecting process
 * prints its pid and exits; the child, holding the connection, waits until
 * GOFILE exists (the caller has meanwhile given that pid to another
 * process), then sends each MESSAGE (a varlink call, NUL-terminated on the
 * wire) and prints each reply on a line of its own. Whatever the daemon
 * decides about the caller must be what it knew at connect time, not what
 * the pid names now. While it waits it makes a cheap call every half
 * second, so that it is not dropped as idle. Exit status 2 on a set-up
 * error. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int call(int fd, const char *msg, bool print)
{
	char buf[65536];
	size_t n = 0;

	if (send(fd, msg, strlen(msg) + 1, MSG_NOSIGNAL) < 0)
		return -1;
	while (n < sizeof(buf) - 1) {
		ssize_t r = recv(fd, buf + n, 1, 0);

		if (r <= 0)
			return -1;
		if (buf[n] == '\0')
			break;
		n++;
	}
	buf[n] = '\0';
	if (print) {
		printf("%s\n", buf);
		fflush(stdout);
	}
	return 0;
}

static int take(pid_t pid, unsigned secs)
{
	struct clone_args args = { .exit_signal = SIGCHLD, .set_tid = (uint64_t)(uintptr_t)&pid, .set_tid_size = 1 };
	long r = syscall(SYS_clone3, &args, sizeof(args));

	if (r < 0) {
		perror("cs-reuse: clone3 with set_tid");
		return 2;
	}
	if (r == 0) { /* off the caller's pipe, or $(...) would wait for it */
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		sleep(secs);
		_exit(0);
	}
	printf("%ld\n", r);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec nap = { 0, 20000000 };
	int fd, waited = 0;
	pid_t child;

	if (argc == 4 && strcmp(argv[1], "take") == 0)
		return take((pid_t)atoi(argv[2]), (unsigned)atoi(argv[3]));
	if (argc < 4) {
		fprintf(stderr, "usage: cs-reuse SOCKET GOFILE MESSAGE... | cs-reuse take PID SECONDS\n");
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("cs-reuse: connect");
		return 2;
	}
	child = fork();
	if (child < 0) {
		perror("cs-reuse: fork");
		return 2;
	}
	if (child > 0) { /* the connecting process: say who it was, and go */
		printf("%d\n", (int)getpid());
		fflush(stdout);
		return 0;
	}
	while (access(argv[2], F_OK) < 0) {
		if (++waited > 3000) { /* a minute */
			fprintf(stderr, "cs-reuse: %s never appeared\n", argv[2]);
			return 2;
		}
		/* a call now and then, so that the daemon does not drop the
		 * connection as idle meanwhile */
		if (waited % 25 == 0 && call(fd, "{\"method\":\"org.varlink.service.GetInfo\",\"parameters\":{}}", false) < 0) {
			printf("closed\n");
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	for (int i = 3; i < argc; i++)
		if (call(fd, argv[i], true) < 0) {
			printf("closed\n");
			return 0;
		}
	return 0;
}
