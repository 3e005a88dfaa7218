// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-floor [--dry-run] [--rcvbuf BYTES] EXE: the floor for event-driven
 * tagging. A bare proc-connector listener that takes a cookie of its own,
 * then for every exec event whose /proc/PID/exe is EXE does one
 * PR_SCHED_CORE SHARE_TO, and nothing else: no task table, no rules, no
 * batching. Prints "ready" once subscribed; on SIGTERM prints what it did
 * to stderr.
 * --dry-run makes no core-scheduling call at all (no cookie of its own, no
 * SHARE_TO; a match is only counted): the floor of coreschedd --dry-run,
 * and what runs on a kernel without core scheduling, where every such call
 * fails with EINVAL. Without it, a failed CREATE at start is fatal.
 * --rcvbuf sets the socket's receive buffer as coreschedd's ReceiveBuffer=
 * does (SO_RCVBUFFORCE); without it the buffer is net.core.rmem_default.
 * Each match's untagged window, from the event's kernel time to the end of
 * its SHARE_TO (or of the match, in a dry run), goes into the daemon's own
 * histogram (window.h); printed on SIGTERM as a second line.
 * It asks the kernel for the daemon's time slice (slice.h), as coreschedd
 * does, so that the two compare as code, not as scheduling. */
#include <errno.h>
#include <limits.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sched_core.h"
#include "slice.h"
#include "window.h"

static volatile sig_atomic_t stop;
static unsigned long n_exec, n_matched, n_shared, n_failed, n_lost;
static int dry_run;
static struct window_hist window;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static int subscribe(int rcvbuf)
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
	if (rcvbuf > 0 && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0) {
		close(fd);
		return -errno;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || send(fd, &req, sizeof(req), 0) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void window_since(uint64_t event_ns)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	window_add(&window, now > event_ns ? (now - event_ns) / 1000 : 0);
}

static void on_exec(pid_t tgid, const char *exe, uint64_t event_ns)
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
	n_matched++;
	if (dry_run) {
		window_since(event_ns);
		return;
	}
	if (sc_share_to(tgid, SC_SCOPE_THREAD_GROUP) == 0)
		n_shared++;
	else
		n_failed++;
	window_since(event_ns);
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
			on_exec(ev->event_data.exec.process_tgid, exe, ev->timestamp_ns);
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: cs-floor [--dry-run] [--rcvbuf BYTES] EXE\n");
	return 2;
}

int main(int argc, char **argv)
{
	char buf[16384] __attribute__((aligned(8)));
	struct sigaction sa = { .sa_handler = on_term };
	const char *exe = NULL;
	long rcvbuf = 0;
	char *end;
	int fd, r;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--dry-run") == 0)
			dry_run = 1;
		else if (strcmp(argv[i], "--rcvbuf") == 0 && i + 1 < argc) {
			rcvbuf = strtol(argv[++i], &end, 10);
			if (*end || rcvbuf <= 0 || rcvbuf > (1L << 30)) {
				fprintf(stderr, "cs-floor: --rcvbuf: '%s' is not a size in bytes\n", argv[i]);
				return 2;
			}
		} else if (argv[i][0] == '-' || exe)
			return usage();
		else
			exe = argv[i];
	}
	if (!exe)
		return usage();
	if (!dry_run) {
		r = sc_create(0, SC_SCOPE_THREAD);
		if (r < 0) {
			fprintf(stderr, "cs-floor: cannot create a cookie: %s%s\n", strerror(-r),
				r == -EINVAL || r == -ENODEV ? " (no core scheduling here: --dry-run skips it)" : "");
			return 1;
		}
	}
	{
		uint64_t ns;

		(void)slice_request(SLICE_DAEMON_NS, &ns);
	}
	fd = subscribe((int)rcvbuf);
	if (fd < 0) {
		fprintf(stderr, "cs-floor: cannot subscribe to process events: %s\n", strerror(-fd));
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
			handle(buf, n, exe);
	}
	fprintf(stderr, "cs-floor: %lu execs, %lu matched, %lu shared, %lu failed, %lu losses\n",
		n_exec, n_matched, n_shared, n_failed, n_lost);
	fprintf(stderr, "cs-floor: window n=%llu p50=%llu p90=%llu p99=%llu max=%llu (us)\n",
		(unsigned long long)window.n, (unsigned long long)window_quantile(&window, 0.50),
		(unsigned long long)window_quantile(&window, 0.90), (unsigned long long)window_quantile(&window, 0.99),
		(unsigned long long)window.max_us);
	return 0;
}
