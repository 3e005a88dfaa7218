// SPDX-License-Identifier: GPL-2.0-or-later
/* The schedstats keeper (see keeper.h). The child is tiny on purpose: two
 * descriptors, one capability, and a seccomp filter of six calls. */
#include "keeper.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"

static int keeper_fd = -1;
static pid_t keeper_pid;
static char *keeper_path;

/* In the child: CAP_SYS_ADMIN alone, no way to gain more, and only the
 * calls of serve(). Any other call kills it. */
static int confine(void)
{
	static const int calls[] = { SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(pwrite64),
				     SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn) };
	scmp_filter_ctx ctx;
	int r;

	(void)prctl(PR_SET_NAME, "coreschedd-keep", 0, 0, 0);
	r = sandbox_keep_caps(1ULL << CAP_SYS_ADMIN);
	if (r < 0)
		return r;
	ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	if (!ctx)
		return -ENOMEM;
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]) && r >= 0; i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, calls[i], 0);
	if (r >= 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}

/* One byte in ('0' or '1'), the errno of the write out (0: done). At end
 * of file, the daemon is gone: put back what was found. */
static void serve(int sock, int file, char found)
{
	char last = found, c, buf[2];
	int err;

	while (read(sock, &c, 1) == 1) {
		if (c != '0' && c != '1') {
			err = EINVAL;
		} else {
			buf[0] = c;
			buf[1] = '\n';
			err = pwrite(file, buf, 2, 0) == 2 ? 0 : errno ? errno : EIO;
			if (err == 0)
				last = c;
		}
		if (write(sock, &err, sizeof(err)) != (ssize_t)sizeof(err))
			break;
	}
	if (last != found) {
		buf[0] = found;
		buf[1] = '\n';
		(void)!pwrite(file, buf, 2, 0);
	}
	_exit(0);
}

static void child(int sock, const char *path)
{
	char found = '0';
	int file = open(path, O_RDWR | O_CLOEXEC);

	if (file < 0 || pread(file, &found, 1, 0) != 1)
		_exit(1);
	/* Keep the two descriptors only: nothing of the daemon's leaks here. */
	if (dup2(sock, 3) < 0 || dup2(file, 4) < 0 || syscall(SYS_close_range, 5U, ~0U, 0) < 0)
		_exit(1);
	/* Signals stay blocked (the daemon blocked them before forking):
	 * a Ctrl-C on the terminal must not kill it before it restores. */
	if (confine() < 0)
		_exit(1);
	serve(3, 4, found);
}

int keeper_start(const char *path)
{
	int sv[2];
	pid_t pid;

	if (keeper_fd >= 0)
		return -EALREADY;
	if (!sandbox_has_cap(CAP_SYS_ADMIN))
		return -EPERM;
	if (access(path, W_OK) < 0)
		return -errno;
	if (!(keeper_path = strdup(path)))
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0)
		child(sv[1], path);
	close(sv[1]);
	keeper_fd = sv[0];
	keeper_pid = pid;
	return 0;
}

bool keeper_handles(const char *path)
{
	return keeper_fd >= 0 && keeper_path && strcmp(path, keeper_path) == 0;
}

int keeper_write(const char *value)
{
	int err;

	if (keeper_fd < 0)
		return -ENOTCONN;
	/* A dead keeper must cost an error, not the daemon (SIGPIPE). */
	if (send(keeper_fd, value, 1, MSG_NOSIGNAL) != 1)
		return -errno;
	if (read(keeper_fd, &err, sizeof(err)) != (ssize_t)sizeof(err))
		return -EPIPE; /* the keeper died */
	return -err;
}

void keeper_stop(void)
{
	if (keeper_fd < 0)
		return;
	close(keeper_fd);
	keeper_fd = -1;
	(void)waitpid(keeper_pid, NULL, 0);
	free(keeper_path);
	keeper_path = NULL;
}
