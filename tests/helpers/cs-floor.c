// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-floor EXE: the floor for event-driven tagging. A bare proc-connector
 * listener that takes a cookie of its own, then for every exec event whose
 * /proc/PID/exe is EXE does one PR_SCHED_CORE SHARE_TO, and nothing else:
 * no task table, no rules, no batching. Prints "ready" once subscribed;
 * on SIGTERM prints what it did to stderr. */
#include <errno.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sched_core.h"

static volatile sig_atomic_t stop;
static unsigned long n_exec, n_shared, n_failed, n_lost;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int subscribe(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		enum proc_cn_mcast_op op;
	} __attribute__((packed)) req = {
		.nl = { .nlmsg_len = sizeof(req), .nlmsg_type = NLMSG_DONE },
		.cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(enum proc_cn_mcast_op) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || send(fd, &req, sizeof(req), 0) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void on_exec(pid_t tgid, const char *exe)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	n_exec++;
	snprintf(path, sizeof(path), "/proc/%d/exe", tgid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	if (strcmp(target, exe) != 0)
		return;
	if (sc_share_to(tgid, SC_SCOPE_THREAD_GROUP) == 0)
		n_shared++;
	else
		n_failed++;
}

static void handle(const char *buf, ssize_t len, const char *exe)
{
	const struct nlmsghdr *nl;

	for (nl = (const void *)buf; NLMSG_OK(nl, (size_t)len); nl = NLMSG_NEXT(nl, len)) {
		const struct cn_msg *cn = NLMSG_DATA(nl);
		const struct proc_event *ev = (const void *)cn->data;

		if (nl->nlmsg_type != NLMSG_DONE || cn->id.idx != CN_IDX_PROC)
			continue;
		if (ev->what == PROC_EVENT_EXEC)
			on_exec(ev->event_data.exec.process_tgid, exe);
	}
}

int main(int argc, char **argv)
{
	char buf[16384] __attribute__((aligned(8)));
	struct sigaction sa = { .sa_handler = on_term };
	int fd, r;

	if (argc != 2) {
		fprintf(stderr, "usage: cs-floor EXE\n");
		return 2;
	}
	r = sc_create(0, SC_SCOPE_THREAD);
	fd = r < 0 ? r : subscribe();
	if (fd < 0) {
		fprintf(stderr, "cs-floor: %s\n", strerror(-fd));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	fflush(stdout);
	while (!stop) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);

		if (n < 0 && errno == ENOBUFS)
			n_lost++;
		else if (n > 0)
			handle(buf, n, argv[1]);
	}
	fprintf(stderr, "cs-floor: %lu execs, %lu shared, %lu failed, %lu losses\n",
		n_exec, n_shared, n_failed, n_lost);
	return 0;
}
