// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* secure_getenv */
#include "client.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "varlink.h"

#ifndef RUNSTATEDIR
#define RUNSTATEDIR "/run"
#endif

const char *client_default_path(void)
{
	const char *env = secure_getenv("CORESCHED_SOCKET");

	return env && *env ? env : RUNSTATEDIR "/coresched/io.coresched";
}

int client_connect(const char *path, int timeout_ms, int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, flags, r = 0;

	if (!path)
		path = client_default_path();
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* A blocking connect waits for room in a full backlog; SO_SNDTIMEO
	 * bounds that wait (zero would mean forever, hence at least 1 ms). */
	if (timeout_ms >= 0) {
		int ms = timeout_ms > 0 ? timeout_ms : 1;
		struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

		if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
			r = -errno;
	}
	while (r == 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		if (errno != EINTR)
			r = errno == EAGAIN || errno == EINPROGRESS ? -ETIMEDOUT : -errno;
	flags = r == 0 ? fcntl(fd, F_GETFL) : 0;
	if (r == 0 && (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0))
		r = -errno;
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* deadline < 0: no limit. */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t left = deadline < 0 ? -1 : deadline - now_ms();
	int n;

	if (deadline >= 0 && left <= 0)
		return -ETIMEDOUT;
	n = poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	return n == 0 ? -ETIMEDOUT : 0;
}

static int send_all(int fd, const char *buf, size_t len, int64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
		int r;

		if (n >= 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (errno == EPIPE)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		r = wait_fd(fd, POLLOUT, deadline);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Reads until one whole message is buffered; never past the deadline. */
static int recv_message(int fd, struct vl_buffer *b, int64_t deadline, const char **ret_msg,
			size_t *ret_len)
{
	for (;;) {
		size_t room;
		ssize_t n;
		char *p;
		int r;

		r = vl_buffer_next(b, ret_msg, ret_len);
		if (r != 0)
			return r < 0 ? r : 0;
		r = vl_buffer_space(b, &p, &room);
		if (r < 0)
			return r;
		n = recv(fd, p, room, MSG_DONTWAIT);
		if (n > 0) {
			vl_buffer_advance(b, (size_t)n);
			continue;
		}
		if (n == 0)
			return -ECONNRESET;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		r = wait_fd(fd, POLLIN, deadline);
		if (r < 0)
			return r;
	}
}

int client_call(int fd, const char *method, json_object *params, int timeout_ms,
		json_object **ret_params, char **ret_error_name)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	json_object *reply = NULL;
	struct vl_buffer *b;
	char *buf, *name = NULL;
	const char *msg;
	size_t len;
	int r;

	r = vl_encode_call(method, params, false, &buf, &len);
	if (r < 0)
		return r;
	r = send_all(fd, buf, len, deadline);
	free(buf);
	/* Closed on us: what the server said before it closed (why it turned
	 * the connection away) is still there to read. */
	if (r < 0 && r != -ECONNRESET)
		return r;
	b = vl_buffer_new(VL_REPLY_MAX);
	if (!b)
		return -ENOMEM;
	r = recv_message(fd, b, deadline, &msg, &len);
	if (r >= 0)
		r = vl_decode_reply(msg, len, &reply, &name);
	vl_buffer_free(b);
	if (r < 0)
		return r;
	*ret_params = reply;
	if (r == 1)
		*ret_error_name = name;
	return r;
}
