// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-reuse [--accepted] SOCKET GOFILE MESSAGE...: a connection that
 * outlives the process that opened it. Connects to SOCKET (with
 * --accepted, waits for an answer, so that the daemon has accepted it
 * while its peer lives), forks, and the connecting process prints its pid
 * and exits; the child, holding the connection, waits until
 * GOFILE exists (the caller has meanwhile given that pid to another
 * process), then sends each MESSAGE (a varlink call, NUL-terminated on the
 * wire) and prints each reply on a line of its own. Whatever the daemon
 * decides about the caller must be what it knew at connect time, not what
 * the pid names now. While it waits it makes a cheap call every half
 * second, so that it is not dropped as idle. Exit status 2 on a set-up
 * error. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timespec nap = { 0, 20000000 };
	const char *getinfo = "{\"method\":\"org.varlink.service.GetInfo\",\"parameters\":{}}";
	bool accepted = argc > 1 && strcmp(argv[1], "--accepted") == 0;
	int fd, waited = 0;
	pid_t child;

	argc -= accepted;
	argv += accepted;
	if (argc < 4) {
		fprintf(stderr, "usage: cs-reuse [--accepted] SOCKET GOFILE MESSAGE...\n");
		return 2;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("cs-reuse: connect");
		return 2;
	}
	if (accepted && call(fd, getinfo, false) < 0) {
		fprintf(stderr, "cs-reuse: no answer from %s\n", argv[1]);
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
		if (waited % 25 == 0 && call(fd, getinfo, false) < 0) {
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
