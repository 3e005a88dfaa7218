// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-ready CMD [ARG...]: start CMD with NOTIFY_SOCKET pointing at a
 * socket of ours, wait for its READY=1 and print "pid=PID ready_ms=MS",
 * leaving it running. Time to READY for the start-up benchmark. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char buf[4096];
	double start;
	pid_t pid;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: cs-ready CMD [ARG...]\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "/tmp/cs-ready.%d", getpid());
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("cs-ready: socket");
		return 1;
	}
	setenv("NOTIFY_SOCKET", sa.sun_path, 1);
	start = now_ms();
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 600000) <= 0) {
			printf("pid=%d ready_ms=timeout\n", pid);
			break;
		}
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		if (strstr(buf, "READY=1")) {
			printf("pid=%d ready_ms=%.1f\n", pid, now_ms() - start);
			break;
		}
	}
	unlink(sa.sun_path);
	return 0;
}
