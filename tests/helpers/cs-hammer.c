// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-hammer SOCKET SECONDS: call the control socket's most expensive
 * methods, one after another, as fast as the daemon answers, for SECONDS.
 * Prints "calls=N". A load for the event-loop benchmark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static const char *const calls[] = {
	"{\"method\":\"io.coresched.CheckConfig\",\"parameters\":{}}",
	"{\"method\":\"io.coresched.ListProcesses\",\"parameters\":{}}",
	"{\"method\":\"io.coresched.ListGroups\",\"parameters\":{}}",
	"{\"method\":\"io.coresched.Stats\",\"parameters\":{}}",
};

/* Reads one NUL-terminated reply; 0, or -1 when the connection ended. */
static int drain(int fd)
{
	char buf[65536];

	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n <= 0)
			return -1;
		if (memchr(buf, 0, (size_t)n))
			return 0;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	time_t end;
	long n = 0;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: cs-hammer SOCKET SECONDS\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	end = time(NULL) + atoi(argv[2]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("cs-hammer: connect");
		return 1;
	}
	while (time(NULL) < end) {
		const char *c = calls[n % 4];

		if (send(fd, c, strlen(c) + 1, MSG_NOSIGNAL) < 0 || drain(fd) < 0)
			break;
		n++;
	}
	printf("calls=%ld\n", n);
	return 0;
}
