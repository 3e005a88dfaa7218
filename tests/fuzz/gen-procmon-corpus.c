// SPDX-License-Identifier: GPL-2.0-or-later
/* Writes the seed datagrams of the procmon fuzzer into the directory named
 * by argv[1]: one valid proc connector datagram per event kind, one with
 * several messages, an ack and a NOOP, laid out by the kernel's own uapi
 * structures so the seeds match what the kernel sends. */
#include <stdio.h>
#include <string.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#define MSG_SIZE (NLMSG_HDRLEN + sizeof(struct cn_msg) + sizeof(struct proc_event))

static size_t put(unsigned char *buf, unsigned short nltype, unsigned what)
{
	struct nlmsghdr nh = { .nlmsg_len = MSG_SIZE, .nlmsg_type = nltype };
	struct cn_msg cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .seq = 7, .len = sizeof(struct proc_event) };
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = what;
	ev.timestamp_ns = 123456789;
	ev.event_data.fork.parent_pid = 100;
	ev.event_data.fork.parent_tgid = 100;
	ev.event_data.fork.child_pid = 101;
	ev.event_data.fork.child_tgid = 101;
	if (what == PROC_EVENT_COMM)
		memcpy(ev.event_data.comm.comm, "worker", 7);
	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + NLMSG_HDRLEN + sizeof(cn), &ev, sizeof(ev));
	return MSG_SIZE;
}

static int save(const char *dir, const char *name, const unsigned char *buf, size_t len)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned what;
	} kinds[] = {
		{ "fork", PROC_EVENT_FORK }, { "exec", PROC_EVENT_EXEC }, { "uid", PROC_EVENT_UID },
		{ "gid", PROC_EVENT_GID },   { "comm", PROC_EVENT_COMM }, { "exit", PROC_EVENT_EXIT },
		{ "ack", PROC_EVENT_NONE },  { "sid", PROC_EVENT_SID },
	};
	unsigned char buf[4 * MSG_SIZE];
	size_t i, len;
	int bad = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		bad |= save(argv[1], kinds[i].name, buf, put(buf, NLMSG_DONE, kinds[i].what));
	len = put(buf, NLMSG_DONE, PROC_EVENT_FORK);
	len += put(buf + len, NLMSG_NOOP, PROC_EVENT_EXEC);
	len += put(buf + len, NLMSG_DONE, PROC_EVENT_EXEC);
	len += put(buf + len, NLMSG_DONE, PROC_EVENT_EXIT);
	bad |= save(argv[1], "several", buf, len);
	return bad;
}
