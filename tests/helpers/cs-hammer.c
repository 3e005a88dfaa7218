// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-hammer SOCKET SECONDS: call the control socket's most expensive
 * methods, one after another, as fast as the daemon answers, for SECONDS:
 * the listings, a configuration check, statistics, an Assign naming 64
 * processes (of others: each is looked up, then refused), a 16 KiB message
 * that does not decode; and connect again every 16 calls. Prints
 * "calls=N" at the end or on SIGTERM. A load for the event-loop
 * benchmark. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define N_CALLS 6
static char assign[1024], garbage[16384];
static const char *calls[N_CALLS] = {
	"{\"method\":\"io.coresched.CheckConfig\",\"parameters\":{}}",
	"{\"method\":\"io.coresched.ListProcesses\",\"parameters\":{}}",
	"{\"method\":\"io.coresched.ListGroups\",\"parameters\":{}}",
	"{\"method\":\"io.coresched.Stats\",\"parameters\":{}}",
	assign,
	garbage,
};

static void build_calls(void)
{
	size_t n = (size_t)snprintf(assign, sizeof(assign), "{\"method\":\"io.coresched.Assign\",\"parameters\":{\"group\":\"probe\",\"pids\":[1");

	for (int pid = 2; pid <= 64; pid++)
		n += (size_t)snprintf(assign + n, sizeof(assign) - n, ",%d", pid);
	snprintf(assign + n, sizeof(assign) - n, "]}}");
	memset(garbage, '[', sizeof(garbage) - 1);
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int connect_to(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

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
	build_calls();
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_term }, NULL); /* no SA_RESTART */
	fd = connect_to(&sa);
	if (fd < 0) {
		perror("cs-hammer: connect");
		return 1;
	}
	while (!stop && time(NULL) < end) {
		const char *c = calls[n % N_CALLS];

		/* a reply, or the daemon closing on a message it refuses */
		if (send(fd, c, strlen(c) + 1, MSG_NOSIGNAL) < 0 || drain(fd) < 0 || (n + 1) % 16 == 0) {
			if (stop)
				break;
			close(fd);
			fd = connect_to(&sa);
			if (fd < 0)
				break;
		}
		n++;
	}
	printf("calls=%ld\n", n);
	return 0;
}
