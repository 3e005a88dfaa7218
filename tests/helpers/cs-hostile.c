// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-hostile SOCKET SECONDS: a badly behaved client of the control socket.
 * It opens many connections, sends garbage, an oversized message, a
 * message that never ends, and a flood of calls it never reads, holds all
 * of that open for SECONDS, then closes it. The daemon must go on serving
 * everyone else meanwhile. Bounded in connections, bytes and time. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define IDLE_CONNECTIONS 300
#define FLOODERS 8
#define FLOOD_BYTES (4 << 20)

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -1;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}

/* Sends what the socket takes now; returns the bytes sent. */
static size_t send_some(int fd, const void *buf, size_t len)
{
	ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	return n > 0 ? (size_t)n : 0;
}

static int garbage(const char *path)
{
	static const char junk[] = "\x01\xff{not json at all}\0{\"method\":42}\0[]\0\"\"\0{\"method\":\"io.coresched.Nope\"}";
	int fd = connect_to(path);

	if (fd >= 0)
		send_some(fd, junk, sizeof(junk));
	return fd;
}

static int oversized(const char *path)
{
	size_t len = 70 * 1024;
	char *buf = malloc(len + 1);
	int fd = connect_to(path);

	if (!buf || fd < 0) {
		free(buf);
		return fd;
	}
	memset(buf, 'a', len);
	memcpy(buf, "{\"method\":\"io.coresched.Status\",\"parameters\":{\"pad\":\"", 52);
	buf[len - 3] = '"';
	buf[len - 2] = '}';
	buf[len - 1] = '}';
	buf[len] = '\0';
	send_some(fd, buf, len + 1);
	free(buf);
	return fd;
}

static int unterminated(const char *path)
{
	static const char msg[] = "{\"method\":\"io.coresched.Status\",\"parameters\":{}}";
	int fd = connect_to(path);

	if (fd >= 0)
		send_some(fd, msg, sizeof(msg) - 1); /* no NUL: never ends */
	return fd;
}

/* Calls until the socket is full or FLOOD_BYTES went out; never reads. */
static int flood(const char *path, size_t *sent)
{
	static const char msg[] = "{\"method\":\"io.coresched.ListProcesses\",\"parameters\":{}}";
	int fd = connect_to(path);

	while (fd >= 0 && *sent < FLOOD_BYTES) {
		size_t n = send_some(fd, msg, sizeof(msg));

		if (n == 0)
			break;
		*sent += n;
	}
	return fd;
}

int main(int argc, char **argv)
{
	int fds[IDLE_CONNECTIONS + FLOODERS + 3], n = 0, idle = 0;
	struct timespec hold = { 0 };
	size_t sent = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: cs-hostile SOCKET SECONDS\n");
		return 2;
	}
	hold.tv_sec = atoi(argv[2]);
	fds[n++] = garbage(argv[1]);
	fds[n++] = oversized(argv[1]);
	fds[n++] = unterminated(argv[1]);
	for (int i = 0; i < FLOODERS; i++)
		fds[n++] = flood(argv[1], &sent);
	for (int i = 0; i < IDLE_CONNECTIONS; i++) {
		fds[n] = connect_to(argv[1]);
		idle += fds[n++] >= 0;
	}
	printf("cs-hostile: %d idle connections, %zu flood bytes; holding %ld s\n", idle, sent,
	       (long)hold.tv_sec);
	fflush(stdout);
	while (nanosleep(&hold, &hold) < 0 && errno == EINTR)
		;
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return 0;
}
