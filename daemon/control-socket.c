// SPDX-License-Identifier: GPL-2.0-or-later
#include "control-socket.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

static int mkdir_parents(const char *path, mode_t mode)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *slash = strchr(p + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			int r = -errno;
			free(p);
			return r;
		}
		*slash = '/';
	}
	free(p);
	return 0;
}

int control_socket_make_dir(const char *path)
{
	return mkdir_parents(path, 0755);
}

/* A socket nobody listens on is left over from a dead daemon; a live one
 * means a second daemon is starting, which must not steal the address. */
static int remove_stale_socket(const struct sockaddr_un *sa)
{
	struct stat st;
	int fd, r;

	if (lstat(sa->sun_path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 || r == -EAGAIN)
		return -EADDRINUSE;
	if (unlink(sa->sun_path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int control_socket_bind(const char *path, int *ret_fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(path) >= sizeof(sa.sun_path) || path[0] != '/')
		return -EINVAL;
	strcpy(sa.sun_path, path);
	r = mkdir_parents(path, 0755);
	if (r >= 0)
		r = remove_stale_socket(&sa);
	if (r < 0)
		return r;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		r = -errno;
		close(fd);
		return r;
	}
	/* Anyone may connect: each method authorizes by SO_PEERCRED. */
	if (chmod(path, 0666) < 0 || listen(fd, SOMAXCONN) < 0) {
		r = -errno;
		close(fd);
		unlink(path);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

int control_socket_adopt(int fd)
{
	int flags;

	if (sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0) <= 0)
		return -ENOTSOCK;
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}
