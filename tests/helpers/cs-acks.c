// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-acks SECONDS: send the proc connector a request for no operation,
 * again and again, for SECONDS, from a socket that subscribes to nothing;
 * prints "sent=N errors=N". Any user may send such a request, and the
 * kernel multicasts each answer, an ack (here a refusal, EINVAL; before
 * Linux 6.6 an unprivileged user's is refused with EPERM), to every
 * listener: what an unprivileged user can throw at coreschedd. No
 * operation changes no listener count on any kernel (an IGNORE from root
 * lowers it before 6.6, subscribed or not). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

int main(int argc, char **argv)
{
	struct {
		struct nlmsghdr nh;
		struct cn_msg cn;
		uint32_t op;
	} __attribute__((packed)) req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = NLMSG_DONE },
		.cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(uint32_t) },
		.op = 0x7fffffffu, /* no such operation */
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timespec t0, t;
	double secs;
	long sent = 0, errors = 0;
	int fd;

	if (argc != 2 || (secs = atof(argv[1])) <= 0) {
		fprintf(stderr, "usage: cs-acks SECONDS\n");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0) {
		fprintf(stderr, "cs-acks: socket: %s\n", strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 256; i++) {
			if (sendto(fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
				errors++;
			else
				sent++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("sent=%ld errors=%ld\n", sent, errors);
	close(fd);
	return 0;
}
