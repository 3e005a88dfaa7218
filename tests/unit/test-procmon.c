// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* sched_setaffinity */
/* The proc connector decoder on hand-made datagrams, and, where the kernel
 * lets us subscribe, the live event stream for a child we fork. */
#include "procmon.h"
#include "unit.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#define MSG_SIZE (NLMSG_HDRLEN + sizeof(struct cn_msg) + sizeof(struct proc_event))
#define MAX_SEEN 64

struct seen {
	int n;
	struct procmon_event ev[MAX_SEEN];
};

static void record(void *userdata, const struct procmon_event *ev)
{
	struct seen *s = userdata;

	if (s->n < MAX_SEEN)
		s->ev[s->n] = *ev;
	s->n++;
}

/* One connector message as the kernel sends it, at buf; returns its size. */
static size_t put_msg(unsigned char *buf, uint16_t nltype, const struct proc_event *ev)
{
	struct nlmsghdr nh = { .nlmsg_len = MSG_SIZE, .nlmsg_type = nltype };
	struct cn_msg cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(*ev) };

	memcpy(buf, &nh, sizeof(nh));
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + NLMSG_HDRLEN + sizeof(cn), ev, sizeof(*ev));
	return MSG_SIZE;
}

static struct proc_event ev_what(uint32_t what, uint64_t ts)
{
	struct proc_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.what = what;
	ev.cpu = 3;
	ev.timestamp_ns = ts;
	return ev;
}

static struct proc_event ev_fork(pid_t ppid, pid_t ptgid, pid_t cpid, pid_t ctgid)
{
	struct proc_event ev = ev_what(PROC_EVENT_FORK, 1000);

	ev.event_data.fork.parent_pid = ppid;
	ev.event_data.fork.parent_tgid = ptgid;
	ev.event_data.fork.child_pid = cpid;
	ev.event_data.fork.child_tgid = ctgid;
	return ev;
}

static struct proc_event ev_proc(uint32_t what, pid_t pid, pid_t tgid)
{
	struct proc_event ev = ev_what(what, 2000 + what);

	/* exec, id, comm and exit all start with process_pid, process_tgid. */
	ev.event_data.exec.process_pid = pid;
	ev.event_data.exec.process_tgid = tgid;
	return ev;
}

/* Decode len bytes from a heap copy of exactly that size, so any read past
 * the end is a real overread for the sanitizers and valgrind. */
static int decode_exact(const void *buf, size_t len, struct seen *s)
{
	void *copy = malloc(len ? len : 1);
	int r;

	memcpy(copy, buf, len);
	memset(s, 0, sizeof(*s));
	r = procmon_decode(copy, len, record, s);
	free(copy);
	return r;
}

static void decode_fork(void)
{
	unsigned char buf[MSG_SIZE];
	struct proc_event ev = ev_fork(100, 99, 101, 101);
	struct seen s;

	CHECK(decode_exact(buf, put_msg(buf, NLMSG_DONE, &ev), &s) == 1);
	CHECK(s.n == 1);
	CHECK(s.ev[0].kind == PROCMON_FORK);
	CHECK(s.ev[0].pid == 101 && s.ev[0].tgid == 101);
	CHECK(s.ev[0].parent_pid == 100 && s.ev[0].parent_tgid == 99);
	CHECK(s.ev[0].timestamp_ns == 1000);
}

static void decode_each_kind(void)
{
	static const struct {
		uint32_t what;
		enum procmon_kind kind;
	} kinds[] = {
		{ PROC_EVENT_EXEC, PROCMON_EXEC }, { PROC_EVENT_UID, PROCMON_UID },
		{ PROC_EVENT_GID, PROCMON_GID },   { PROC_EVENT_COMM, PROCMON_COMM },
		{ PROC_EVENT_EXIT, PROCMON_EXIT },
	};
	unsigned char buf[MSG_SIZE];
	struct seen s;
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct proc_event ev = ev_proc(kinds[i].what, 4242, 4240);

		if (kinds[i].what == PROC_EVENT_COMM)
			memcpy(ev.event_data.comm.comm, "worker", 7);
		if (kinds[i].what == PROC_EVENT_UID) {
			ev.event_data.id.r.ruid = 1000;
			ev.event_data.id.e.euid = 0;
		}
		CHECK(decode_exact(buf, put_msg(buf, NLMSG_DONE, &ev), &s) == 1);
		CHECK(s.n == 1);
		CHECK(s.ev[0].kind == kinds[i].kind);
		CHECK(s.ev[0].pid == 4242 && s.ev[0].tgid == 4240);
		CHECK(s.ev[0].parent_pid == 0 && s.ev[0].parent_tgid == 0);
		CHECK(s.ev[0].timestamp_ns == 2000 + kinds[i].what);
	}
}

static void decode_several_in_one_datagram(void)
{
	unsigned char buf[5 * MSG_SIZE];
	struct proc_event ev;
	struct seen s;
	size_t len = 0;

	ev = ev_fork(10, 10, 11, 11);
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	ev = ev_proc(PROC_EVENT_SID, 11, 11); /* not followed: skipped */
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	ev = ev_proc(PROC_EVENT_EXEC, 11, 11);
	len += put_msg(buf + len, NLMSG_NOOP, &ev); /* NOOP: skipped whatever it holds */
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	ev = ev_proc(PROC_EVENT_EXIT, 11, 11);
	len += put_msg(buf + len, NLMSG_DONE, &ev);

	CHECK(decode_exact(buf, len, &s) == 3);
	CHECK(s.n == 3);
	CHECK(s.ev[0].kind == PROCMON_FORK && s.ev[0].pid == 11 && s.ev[0].parent_pid == 10);
	CHECK(s.ev[1].kind == PROCMON_EXEC && s.ev[1].pid == 11);
	CHECK(s.ev[2].kind == PROCMON_EXIT && s.ev[2].pid == 11);
}

static void decode_skips_unknown_and_ack(void)
{
	unsigned char buf[3 * MSG_SIZE];
	struct proc_event ev;
	struct seen s;
	size_t len = 0;

	ev = ev_proc(0x00000400, 5, 5); /* a kind newer than us */
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	ev = ev_what(PROC_EVENT_NONE, 1); /* a subscription ack */
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	ev = ev_proc(PROC_EVENT_COREDUMP, 5, 5);
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	CHECK(decode_exact(buf, len, &s) == 0);
	CHECK(s.n == 0);
}

static void decode_skips_other_connector_ids(void)
{
	unsigned char buf[2 * MSG_SIZE];
	struct proc_event ev = ev_proc(PROC_EVENT_EXEC, 7, 7);
	struct cn_msg cn;
	struct seen s;
	size_t len = 0;

	len += put_msg(buf, NLMSG_DONE, &ev);
	memcpy(&cn, buf + NLMSG_HDRLEN, sizeof(cn));
	cn.id.idx = CN_IDX_PROC + 1;
	cn.len = 60000; /* not ours to judge */
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	ev = ev_proc(PROC_EVENT_EXEC, 8, 8);
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	CHECK(decode_exact(buf, len, &s) == 1);
	CHECK(s.n == 1 && s.ev[0].pid == 8);

	cn.id.idx = CN_IDX_PROC;
	cn.id.val = CN_VAL_PROC + 1;
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	CHECK(decode_exact(buf, MSG_SIZE, &s) == 0);
	CHECK(s.n == 0);
}

/* Every prefix of a two-message datagram: whole messages decode, anything
 * that ends inside one is malformed. */
static void decode_truncated_prefixes(void)
{
	unsigned char buf[2 * MSG_SIZE];
	struct proc_event ev = ev_fork(1, 1, 2, 2);
	struct seen s;
	size_t len, bad = 0;
	int r;

	put_msg(buf, NLMSG_DONE, &ev);
	ev = ev_proc(PROC_EVENT_EXIT, 2, 2);
	put_msg(buf + MSG_SIZE, NLMSG_DONE, &ev);
	for (len = 0; len <= sizeof(buf); len++) {
		r = decode_exact(buf, len, &s);
		if (len == 0 || len == MSG_SIZE || len == 2 * MSG_SIZE) {
			CHECK(r == (int)(len / MSG_SIZE));
			CHECK(s.n == (int)(len / MSG_SIZE));
		} else if (r != -EBADMSG || s.n != (len > MSG_SIZE)) {
			fprintf(stderr, "  prefix of %zu bytes: r=%d n=%d\n", len, r, s.n);
			bad++;
		}
	}
	CHECK(bad == 0);
}

/* The header claims only the bytes that are there: the cn_msg or the event
 * inside is what is cut. */
static void decode_truncated_inside(void)
{
	unsigned char buf[MSG_SIZE];
	struct proc_event ev = ev_fork(1, 1, 2, 2);
	struct seen s;
	size_t len, bad = 0;
	int r;

	put_msg(buf, NLMSG_DONE, &ev);
	for (len = 0; len < MSG_SIZE; len++) {
		struct nlmsghdr nh;

		memcpy(&nh, buf, sizeof(nh));
		nh.nlmsg_len = (uint32_t)len;
		memcpy(buf, &nh, sizeof(nh));
		r = decode_exact(buf, len < sizeof(nh) ? sizeof(nh) : len, &s);
		if (r != -EBADMSG || s.n != 0) {
			fprintf(stderr, "  nlmsg_len %zu: r=%d n=%d\n", len, r, s.n);
			bad++;
		}
	}
	CHECK(bad == 0);
}

/* cn_msg.len short of what the kind needs, with the netlink length intact. */
static void decode_short_event_length(void)
{
	unsigned char buf[MSG_SIZE];
	struct proc_event ev;
	struct seen s;
	size_t bad = 0, i;
	int r;

	static const struct {
		uint32_t what;
		size_t size; /* of its member of event_data */
	} kinds[] = {
		{ PROC_EVENT_FORK, sizeof(ev.event_data.fork) }, { PROC_EVENT_EXEC, sizeof(ev.event_data.exec) },
		{ PROC_EVENT_UID, sizeof(ev.event_data.id) },     { PROC_EVENT_GID, sizeof(ev.event_data.id) },
		{ PROC_EVENT_COMM, sizeof(ev.event_data.comm) }, { PROC_EVENT_EXIT, sizeof(ev.event_data.exit) },
	};

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t need = 0, cnlen;
		struct cn_msg cn;

		ev = ev_proc(kinds[i].what, 9, 9);
		put_msg(buf, NLMSG_DONE, &ev);
		for (cnlen = 0; cnlen <= sizeof(ev); cnlen++) {
			memcpy(&cn, buf + NLMSG_HDRLEN, sizeof(cn));
			cn.len = (uint16_t)cnlen;
			memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
			r = decode_exact(buf, MSG_SIZE, &s);
			if (r == 1 && need == 0)
				need = cnlen;
			if ((need == 0 && r != -EBADMSG) || (need != 0 && r != 1))
				bad++;
		}
		/* Accepted from exactly the head plus this kind's member on. */
		CHECK(need == offsetof(struct proc_event, event_data) + kinds[i].size);
	}
	CHECK(bad == 0);
}

static void decode_lengths_past_the_end(void)
{
	unsigned char buf[MSG_SIZE + 8];
	struct proc_event ev = ev_proc(PROC_EVENT_EXEC, 3, 3);
	struct nlmsghdr nh;
	struct cn_msg cn;
	struct seen s;

	put_msg(buf, NLMSG_DONE, &ev);
	memcpy(&nh, buf, sizeof(nh));
	nh.nlmsg_len = 1000;
	memcpy(buf, &nh, sizeof(nh));
	CHECK(decode_exact(buf, MSG_SIZE, &s) == -EBADMSG);

	nh.nlmsg_len = 0; /* a zero length must not spin in place */
	memcpy(buf, &nh, sizeof(nh));
	CHECK(decode_exact(buf, MSG_SIZE, &s) == -EBADMSG);

	nh.nlmsg_len = MSG_SIZE;
	memcpy(buf, &nh, sizeof(nh));
	memcpy(&cn, buf + NLMSG_HDRLEN, sizeof(cn));
	cn.len = sizeof(ev) + 1;
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	CHECK(decode_exact(buf, MSG_SIZE, &s) == -EBADMSG);
	CHECK(s.n == 0);
	cn.len = 0xffff;
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	CHECK(decode_exact(buf, MSG_SIZE, &s) == -EBADMSG);

	/* Four stray bytes after a good message are not a message. */
	put_msg(buf, NLMSG_DONE, &ev);
	memset(buf + MSG_SIZE, 0, 8);
	CHECK(decode_exact(buf, MSG_SIZE + 4, &s) == -EBADMSG);
	CHECK(s.n == 1);
}

static void decode_error_and_overrun(void)
{
	unsigned char buf[MSG_SIZE];
	struct proc_event ev = ev_proc(PROC_EVENT_EXEC, 3, 3);
	struct seen s;

	CHECK(decode_exact(buf, put_msg(buf, NLMSG_ERROR, &ev), &s) == -EBADMSG);
	CHECK(decode_exact(buf, put_msg(buf, NLMSG_OVERRUN, &ev), &s) == -EBADMSG);
	CHECK(s.n == 0);
}

/* One message numbered seq from cpu, decoded against nums: what
 * procmon_decode_numbered() returns (events are counted in *s). */
static int numbered(struct procmon_numbers *nums, uint32_t cpu, uint32_t seq, struct proc_event ev, struct seen *s)
{
	_Alignas(struct nlmsghdr) unsigned char buf[MSG_SIZE];
	struct cn_msg cn;

	ev.cpu = cpu;
	put_msg(buf, NLMSG_DONE, &ev);
	memcpy(&cn, buf + NLMSG_HDRLEN, sizeof(cn));
	cn.seq = seq;
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	memset(s, 0, sizeof(*s));
	return procmon_decode_numbered(buf, sizeof(buf), nums, record, s);
}

/* A CPU's messages come numbered one after another: a number missing is a
 * message the kernel lost without a word (or did not send this socket),
 * -ENOMSG at the next one from that CPU, which is passed on all the same
 * (only what is missing is lost). Every message counts, of kinds not
 * followed and acks too; an ack that names no CPU (cpu -1), and other
 * CPUs' numbers, do not. */
static void decode_numbered_gap(void)
{
	static struct procmon_numbers nums; /* all zero: no number known */
	struct seen s;

	CHECK(numbered(&nums, 3, 10, ev_fork(1, 1, 50, 50), &s) == 1 && s.n == 1);
	CHECK(numbered(&nums, 3, 11, ev_what(PROC_EVENT_SID, 1), &s) == 0);
	CHECK(numbered(&nums, 5, 100, ev_proc(PROC_EVENT_EXEC, 50, 50), &s) == 1);
	CHECK(numbered(&nums, 3, 12, ev_what(PROC_EVENT_NONE, 1), &s) == 0);
	CHECK(numbered(&nums, UINT32_MAX, 7, ev_what(PROC_EVENT_NONE, 1), &s) == 0);
	CHECK(numbered(&nums, 3, 13, ev_proc(PROC_EVENT_EXIT, 50, 50), &s) == 1);
	CHECK(numbered(&nums, 5, 101, ev_proc(PROC_EVENT_EXIT, 51, 51), &s) == 1);
	/* 14 from CPU 3 never came: said at 15, which is passed on */
	CHECK(numbered(&nums, 3, 15, ev_proc(PROC_EVENT_EXEC, 52, 52), &s) == -ENOMSG && s.n == 1 &&
	      s.ev[0].pid == 52 && nums.missing);
	CHECK(numbered(&nums, 3, 16, ev_proc(PROC_EVENT_EXEC, 52, 52), &s) == 1 && !nums.missing); /* from 15 on */
	/* a number that goes back is a gap too (the count wrapped past it) */
	CHECK(numbered(&nums, 5, 99, ev_proc(PROC_EVENT_EXIT, 51, 51), &s) == -ENOMSG);
	/* the kernel's 32-bit count wraps */
	CHECK(numbered(&nums, 1, UINT32_MAX, ev_fork(1, 1, 60, 60), &s) == 1);
	CHECK(numbered(&nums, 1, 0, ev_proc(PROC_EVENT_EXEC, 60, 60), &s) == 1);
	/* procmon_decode() checks no numbers */
	{
		_Alignas(struct nlmsghdr) unsigned char buf[MSG_SIZE];
		struct proc_event ev = ev_fork(1, 1, 70, 70);

		put_msg(buf, NLMSG_DONE, &ev);
		CHECK(decode_exact(buf, sizeof(buf), &s) == 1 && decode_exact(buf, sizeof(buf), &s) == 1);
	}
}

/* Unaligned buffers and a last message without its alignment padding. */
static void decode_unaligned_and_unpadded(void)
{
	unsigned char buf[2 * MSG_SIZE + 16];
	struct proc_event ev = ev_proc(PROC_EVENT_EXEC, 21, 21);
	struct nlmsghdr nh;
	struct seen s;
	size_t len;

	put_msg(buf + 1, NLMSG_DONE, &ev);
	CHECK(decode_exact(buf + 1, MSG_SIZE, &s) == 1);
	memset(&s, 0, sizeof(s));
	CHECK(procmon_decode(buf + 1, MSG_SIZE, record, &s) == 1);
	CHECK(s.n == 1 && s.ev[0].pid == 21);

	/* nlmsg_len 78: two bytes of slack, padded to 80 before the next. */
	len = put_msg(buf, NLMSG_DONE, &ev);
	memcpy(&nh, buf, sizeof(nh));
	nh.nlmsg_len = MSG_SIZE + 2;
	memcpy(buf, &nh, sizeof(nh));
	memset(buf + len, 0, 4);
	ev = ev_proc(PROC_EVENT_EXIT, 21, 21);
	len = NLMSG_ALIGN(MSG_SIZE + 2);
	len += put_msg(buf + len, NLMSG_DONE, &ev);
	CHECK(decode_exact(buf, len, &s) == 2);
	CHECK(s.n == 2 && s.ev[1].kind == PROCMON_EXIT);
	/* The same first message alone, its padding absent. */
	CHECK(decode_exact(buf, MSG_SIZE + 2, &s) == 1);
}

/* ---- live ------------------------------------------------------------------- */

struct child_events {
	pid_t child;
	bool fork, exec, exit;
	bool loss; /* a loss was reported meanwhile (ENOBUFS, or a number missing) */
	pid_t fork_parent;
	struct seen other;
};

static void on_live_event(void *userdata, const struct procmon_event *ev)
{
	struct child_events *c = userdata;

	if (ev->pid != c->child)
		return;
	if (ev->kind == PROCMON_FORK) {
		c->fork = true;
		c->fork_parent = ev->parent_tgid;
		CHECK(ev->tgid == c->child);
	} else if (ev->kind == PROCMON_EXEC) {
		c->exec = true;
	} else if (ev->kind == PROCMON_EXIT) {
		c->exit = true;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A procmon_receive() result that reports a loss: the kernel's ENOBUFS,
 * or a number missing. */
static bool loss_reported(int r)
{
	return r == -ENOBUFS || r == -ENOMSG;
}

/* Receive until the child's exit is seen or 2 s pass. */
static void collect(int fd, struct child_events *c)
{
	int64_t deadline = now_ms() + 2000;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	while (!c->exit && now_ms() < deadline) {
		if (!procmon_pending(fd))
			poll(&pfd, 1, 100);
		r = procmon_receive(fd, 16, on_live_event, c);
		c->loss = c->loss || loss_reported(r);
		if (r < 0 && !loss_reported(r)) {
			fprintf(stderr, "  procmon_receive: %s\n", strerror(-r));
			CHECK(0);
			return;
		}
	}
}

#define FORGED_PID 0x7ffffff0

/* ev in a connector message, sent to fd's port from a socket of this
 * process (not the kernel): true if it was sent (a unicast to another
 * socket needs CAP_NET_ADMIN). */
static bool send_foreign(int fd, const struct proc_event *ev)
{
	unsigned char buf[MSG_SIZE];
	struct sockaddr_nl me;
	socklen_t len = sizeof(me);
	bool sent;
	int s;

	s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	CHECK(s >= 0);
	CHECK(getsockname(fd, (struct sockaddr *)&me, &len) == 0);
	put_msg(buf, NLMSG_DONE, ev);
	me.nl_groups = 0;
	sent = s >= 0 && sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&me, sizeof(me)) == (ssize_t)sizeof(buf);
	if (!sent)
		fprintf(stderr, "  (no unicast to the socket: %s)\n", strerror(errno));
	if (s >= 0)
		close(s);
	return sent;
}

/* A datagram from a user socket, however well formed, is not the kernel. */
static void check_foreign_sender_dropped(int fd)
{
	struct proc_event ev = ev_proc(PROC_EVENT_EXEC, FORGED_PID, FORGED_PID);
	struct child_events c = { .child = FORGED_PID };

	if (send_foreign(fd, &ev)) {
		usleep(10000);
		while (procmon_receive(fd, 16, on_live_event, &c) > 0)
			;
		CHECK(!c.exec);
	} else {
		fprintf(stderr, "  (foreign-sender check not run)\n");
	}
}

static void procmon_live(int fd)
{
	struct child_events c = { 0 };
	int rcvbuf = 0, status;
	socklen_t len = sizeof(rcvbuf);
	pid_t pid;

	CHECK(getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &len) == 0);
	CHECK(rcvbuf >= 256 * 1024); /* asked for 256 KiB; the kernel doubles it */
	pid = fork();
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	if (pid < 0)
		return;
	c.child = pid;
	collect(fd, &c);
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	CHECK(c.fork);
	CHECK(c.fork_parent == getpid());
	CHECK(c.exec);
	CHECK(c.exit);
	check_foreign_sender_dropped(fd);
}

/* Overflow fd's queue: forked children that exit at once, two events
 * each, with nobody reading. */
static void overflow(void)
{
	for (int i = 0; i < 200; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			(void)waitpid(pid, NULL, 0);
	}
}

/* A child's fork, exec and exit, seen or not. */
static struct child_events spawn_and_collect(int fd)
{
	struct child_events c = { 0 };
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	if (pid < 0)
		return c;
	c.child = pid;
	collect(fd, &c);
	(void)waitpid(pid, NULL, 0);
	return c;
}

/* A message from every CPU this process may run on (a child's exit, sent
 * by the CPU it runs on), all read: true if a loss was reported. A number
 * missing shows at its CPU's next message. */
static bool every_cpu_speaks(int fd)
{
	cpu_set_t set;
	bool loss = false;
	int r;

	CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		pid_t pid;

		if (!CPU_ISSET(cpu, &set))
			continue;
		pid = fork();
		if (pid == 0) {
			cpu_set_t one;

			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			_exit(sched_setaffinity(0, sizeof(one), &one) == 0 ? 0 : 1);
		}
		if (pid > 0)
			(void)waitpid(pid, NULL, 0);
	}
	while ((r = procmon_receive(fd, 16, on_live_event, &(struct child_events){ 0 })) != 0) {
		loss = loss || loss_reported(r);
		if (r < 0 && !loss_reported(r))
			break;
	}
	return loss;
}

/* After ENOBUFS the kernel drops every event silently until the queue is
 * found empty; procmon_drain() ends that, so a child started after it is
 * seen whole. Without the drain (checked first, as what the kernel does:
 * which events are gone is printed, not asserted) its events may be gone,
 * but not unsaid: a loss is reported, at the latest once the numbers of
 * every CPU's next messages show it. */
static void procmon_live_drain(int fd)
{
	struct child_events c;
	int r;

	overflow();
	r = procmon_receive(fd, 1, on_live_event, &(struct child_events){ 0 });
	CHECK(r == -ENOBUFS);
	c = spawn_and_collect(fd);
	fprintf(stderr, "  (while congested, without a drain: fork %s, exec %s, exit %s%s)\n", c.fork ? "seen" : "lost",
		c.exec ? "seen" : "lost", c.exit ? "seen" : "lost", c.loss ? "; a loss reported" : "");
	CHECK((c.fork && c.exec && c.exit) || c.loss || every_cpu_speaks(fd));

	overflow();
	r = procmon_receive(fd, 1, on_live_event, &(struct child_events){ 0 });
	CHECK(r == -ENOBUFS);
	r = procmon_drain(fd, 1); /* a bounded pass: more remain */
	CHECK(r == 0);
	CHECK(poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0) == 1);
	r = procmon_drain(fd, SIZE_MAX);
	CHECK(r == 1);
	c = spawn_and_collect(fd);
	CHECK(c.fork);
	CHECK(c.exec);
	CHECK(c.exit);
}

/* A pass that takes exactly what is queued says so (1): the socket would
 * not poll readable again to call it back. One that leaves some says 0,
 * and they are still there. */
static void drain_counts_exactly(void)
{
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(send(sv[1], "x", 1, 0) == 1);
	CHECK(procmon_drain(sv[0], 2) == 0);
	CHECK(poll(&(struct pollfd){ .fd = sv[0], .events = POLLIN }, 1, 0) == 1);
	CHECK(procmon_drain(sv[0], 1) == 1);
	CHECK(poll(&(struct pollfd){ .fd = sv[0], .events = POLLIN }, 1, 0) == 0);
	for (int i = 0; i < 3; i++)
		CHECK(send(sv[1], "x", 1, 0) == 1);
	CHECK(procmon_drain(sv[0], 3) == 1);
	CHECK(procmon_drain(sv[0], 0) == 1);
	CHECK(procmon_drain(-1, 1) == -EINVAL);
	close(sv[0]);
	close(sv[1]);
}

/* procmon_empty(): a message queued is something to take, and peeking at
 * it takes nothing. */
static void empty_sees_a_queued_message(void)
{
	int sv[2];

	CHECK(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0);
	CHECK(procmon_empty(sv[0]));
	CHECK(send(sv[1], "xy", 2, 0) == 2);
	CHECK(!procmon_empty(sv[0]));
	CHECK(!procmon_empty(sv[0])); /* still there */
	CHECK(procmon_drain(sv[0], 4) == 1);
	CHECK(procmon_empty(sv[0]));
	close(sv[0]);
	close(sv[1]);
}

#define BATCH_CHILDREN 50

struct batch_events {
	pid_t child[BATCH_CHILDREN];
	int forks[BATCH_CHILDREN], exits[BATCH_CHILDREN];
	bool exit_before_fork;
	size_t events, forged;
};

static void on_batch_event(void *userdata, const struct procmon_event *ev)
{
	struct batch_events *b = userdata;

	b->events++;
	b->forged += ev->pid == FORGED_PID || ev->tgid == FORGED_PID;
	for (int i = 0; i < BATCH_CHILDREN; i++) {
		if (ev->pid != b->child[i])
			continue;
		if (ev->kind == PROCMON_FORK)
			b->forks[i]++;
		else if (ev->kind == PROCMON_EXIT) {
			b->exit_before_fork |= b->forks[i] == 0;
			b->exits[i]++;
		}
	}
}

/* Many datagrams queued (more than one receive call takes from the
 * kernel): a call hands out no more than its limit, the rest come with
 * the next calls, each event once and in order, and an empty queue gives
 * 0. A datagram from a process among them (a forged fork event) is
 * dropped, and the kernel's around it are not. */
static void procmon_live_batches(int fd)
{
	struct batch_events b = { 0 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int64_t deadline;
	int r, forged = 0;

	while (procmon_receive(fd, 1000, on_batch_event, &b) > 0) /* what came before */
		;
	for (int i = 0; i < BATCH_CHILDREN; i++) {
		pid_t pid;

		if (i == 0 || i == BATCH_CHILDREN / 2) {
			struct proc_event ev = ev_fork(1, 1, FORGED_PID, FORGED_PID);

			forged += send_foreign(fd, &ev);
		}
		pid = fork();

		if (pid == 0)
			_exit(0);
		CHECK(pid > 0);
		b.child[i] = pid;
		if (pid > 0)
			(void)waitpid(pid, NULL, 0);
	}
	b.events = 0;
	r = procmon_receive(fd, 7, on_batch_event, &b);
	CHECK(r == 7);
	CHECK(b.events == 7);
	deadline = now_ms() + 2000;
	while (now_ms() < deadline) {
		bool all = true;

		r = procmon_receive(fd, 1000, on_batch_event, &b);
		CHECK(r >= 0);
		if (r < 0)
			break;
		for (int i = 0; i < BATCH_CHILDREN; i++)
			all &= b.exits[i] > 0;
		if (all && !procmon_pending(fd))
			break;
		if (r == 0)
			poll(&pfd, 1, 100);
	}
	for (int i = 0; i < BATCH_CHILDREN; i++) {
		CHECK(b.forks[i] == 1);
		CHECK(b.exits[i] == 1);
	}
	CHECK(!b.exit_before_fork);
	CHECK(b.events >= 2 * BATCH_CHILDREN);
	if (forged != 2) /* a unicast to another socket needs CAP_NET_ADMIN */
		fprintf(stderr, "  (the forged datagrams among the kernel's were not sent)\n");
	CHECK(b.forged == 0);
}

/* A request to the proc connector from socket s: op, answered (acked) to
 * every listener. OP_NONE is no operation: refused (EINVAL), it changes no
 * listener count on any kernel, where an IGNORE from root lowers the
 * count before Linux 6.6 whether the socket listened or not (and at 0,
 * the kernel sends nobody any event). */
#define OP_NONE 0x7fffffffu

static bool mcast_request(int s, uint32_t op)
{
	struct {
		struct nlmsghdr nh;
		struct cn_msg cn;
		uint32_t op;
	} __attribute__((packed)) req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = NLMSG_DONE },
		.cn = { .id = { CN_IDX_PROC, CN_VAL_PROC }, .len = sizeof(uint32_t) },
		.op = op,
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	return sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&kernel, sizeof(kernel)) == sizeof(req);
}

static void count_event(void *userdata, const struct procmon_event *ev)
{
	(void)ev;
	(*(int *)userdata)++;
}

/* How many events other processes make on fd in ms milliseconds. */
static int background_events(int fd, int ms)
{
	int64_t deadline = now_ms() + ms;
	int n = 0;

	while (now_ms() < deadline) {
		if (!procmon_pending(fd))
			poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 20);
		(void)procmon_receive(fd, 64, count_event, &n);
	}
	return n;
}

/* A live case that cannot judge on this host says why (run_small()). */
static char skip_reason[160];

/* The kernel is 6.6 or later (it takes a struct proc_input). */
static bool kernel_filters_acks(void)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	return uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	       (major > 6 || (major == 6 && minor >= 6));
}

/* Acks to other programs' subscriptions (any user may send one, before
 * 6.6 a refused one too) are multicast to every listener. From 6.6 this
 * socket does not take them: 2,000 of them do not overflow its 4 KiB
 * (the kernel's 8 KiB) buffer, where each takes some hundreds of bytes,
 * and the events of a child forked after them all come. The acks, sent
 * from this process pinned to one CPU, are numbered there: the next
 * message of that CPU, at the latest the child's fork, shows numbers
 * missing, and procmon_receive() says so before it hands out that
 * message (the caller notes the loss before it takes the fork). */
static void procmon_live_foreign_acks(int fd)
{
	struct child_events c = { 0 };
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int s, sent = 0, nobufs = 0, missing = 0, r, status, cpu = sched_getcpu();
	bool fork_before_missing = false;
	cpu_set_t one, all;
	int64_t deadline;
	pid_t pid;

	CHECK(cpu >= 0 && sched_getaffinity(0, sizeof(all), &all) == 0);
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	CHECK(sched_setaffinity(0, sizeof(one), &one) == 0);
	/* A child's events first, taken: the CPU's count is known before the
	 * acks (a CPU's first message after a reset starts its count). */
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	c.child = pid;
	collect(fd, &c);
	CHECK(c.fork && c.exit && !c.loss);
	memset(&c, 0, sizeof(c));
	/* Other processes' events fill a 4 KiB buffer too, on a busy host:
	 * an overflow would not be the acks'. */
	r = background_events(fd, 200);
	fprintf(stderr, "  (other processes' events in 200 ms before the acks: %d)\n", r);
	if (r > 20) {
		snprintf(skip_reason, sizeof(skip_reason),
			 "other processes made %d events in 200 ms, which overflow a 4 KiB buffer on their own", r);
		CHECK(sched_setaffinity(0, sizeof(all), &all) == 0);
		return;
	}
	s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	CHECK(s >= 0);
	if (s < 0)
		return;
	for (int i = 0; i < 2000; i++)
		sent += mcast_request(s, OP_NONE);
	close(s);
	CHECK(sent == 2000);
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(sched_setaffinity(0, sizeof(all), &all) == 0);
	CHECK(pid > 0);
	if (pid < 0)
		return;
	c.child = pid;
	deadline = now_ms() + 2000;
	while (!c.exit && now_ms() < deadline) {
		if (!procmon_pending(fd))
			poll(&pfd, 1, 100);
		r = procmon_receive(fd, 16, on_live_event, &c);
		nobufs += r == -ENOBUFS;
		if (r == -ENOMSG && missing++ == 0)
			fork_before_missing = c.fork;
		CHECK(r >= 0 || r == -ENOBUFS || r == -ENOMSG);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	fprintf(stderr, "  (2000 acks to another socket, then a child: fork %s, exit %s; %d ENOBUFS, %d missing%s)\n",
		c.fork ? "seen" : "lost", c.exit ? "seen" : "lost", nobufs, missing,
		fork_before_missing ? ", the fork handed out before the first" : "");
	CHECK(nobufs == 0);
	CHECK(c.fork && c.exit);
	CHECK(missing >= 1 && !fork_before_missing);
}

/* The acks and the events of child queued on s within 500 ms. */
static void count_queued(int s, pid_t child, int *ret_acks, int *ret_child)
{
	_Alignas(struct nlmsghdr) unsigned char buf[1024];
	int64_t deadline = now_ms() + 500;
	ssize_t n;

	*ret_acks = *ret_child = 0;
	while (now_ms() < deadline) {
		struct proc_event ev; /* copied out: the kernel's is at offset 36, not aligned */

		n = recv(s, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			poll(&(struct pollfd){ .fd = s, .events = POLLIN }, 1, 50);
			continue;
		}
		if ((size_t)n < NLMSG_HDRLEN + sizeof(struct cn_msg) + sizeof(ev))
			continue;
		memcpy(&ev, buf + NLMSG_HDRLEN + sizeof(struct cn_msg), sizeof(ev));
		*ret_acks += ev.what == PROC_EVENT_NONE;
		*ret_child += ev.what == PROC_EVENT_FORK && ev.event_data.fork.child_tgid == child;
	}
}

/* procmon_drop_acks() on a socket subscribed as before 6.6 (no event
 * filter: the kernel sends it every ack): the acks of 50 requests from
 * another socket come before it, none after, and a child's fork still
 * comes. */
static void procmon_live_drop_acks(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int s = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	int o = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	int before, after, forks, status, sent = 0;
	pid_t pid;

	CHECK(s >= 0 && o >= 0 && bind(s, (struct sockaddr *)&addr, sizeof(addr)) == 0);
	if (s < 0 || o < 0)
		goto out;
	CHECK(mcast_request(s, PROC_CN_MCAST_LISTEN));
	count_queued(s, 0, &before, &forks); /* its own ack, and whatever else */
	for (int i = 0; i < 50; i++)
		sent += mcast_request(o, OP_NONE);
	count_queued(s, 0, &before, &forks);
	CHECK(procmon_drop_acks(s) == 0);
	for (int i = 0; i < 50; i++)
		sent += mcast_request(o, OP_NONE);
	pid = fork();
	if (pid == 0)
		_exit(0);
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	count_queued(s, pid, &after, &forks);
	fprintf(stderr, "  (50 acks before the filter: %d taken; 50 after: %d taken; the child's fork: %d)\n", before,
		after, forks);
	CHECK(sent == 100);
	CHECK(before >= 50);
	CHECK(after == 0);
	CHECK(forks == 1);
	(void)mcast_request(s, PROC_CN_MCAST_IGNORE); /* the listener count, as it was */
out:
	if (s >= 0)
		close(s);
	if (o >= 0)
		close(o);
}

/* One live case on a socket of its own with a 4 KiB buffer. */
static void run_small(const char *name, void (*fn)(int fd))
{
	int fd = procmon_open(4096);

	unit_case_failed = 0;
	skip_reason[0] = '\0';
	if (fd < 0) {
		fprintf(stderr, "  procmon_open(4096): %s\n", strerror(-fd));
		CHECK(0);
	} else {
		fn(fd);
		close(fd);
	}
	if (skip_reason[0] && !unit_case_failed) {
		printf("SKIP: unit/%s: %s\n", name, skip_reason);
		return;
	}
	printf("%s: unit/%s\n", unit_case_failed ? "FAIL" : "PASS", name);
	unit_total_failed += unit_case_failed;
}

static void run_live(void)
{
	int fd = procmon_open(256 * 1024);

	if (fd == -EPERM || fd == -EACCES || fd == -EPROTONOSUPPORT || fd == -EAFNOSUPPORT ||
	    fd == -ETIMEDOUT || fd == -ENOENT) {
		printf("SKIP: unit/procmon_live: cannot subscribe to process events: %s\n", strerror(-fd));
		return;
	}
	unit_case_failed = 0;
	if (fd < 0) {
		fprintf(stderr, "  procmon_open: %s\n", strerror(-fd));
		printf("FAIL: unit/procmon_live\n");
		unit_total_failed++;
		return;
	}
	procmon_live(fd);
	printf("%s: unit/procmon_live\n", unit_case_failed ? "FAIL" : "PASS");
	unit_total_failed += unit_case_failed;
	unit_case_failed = 0;
	procmon_live_batches(fd);
	close(fd);
	printf("%s: unit/procmon_live_batches\n", unit_case_failed ? "FAIL" : "PASS");
	unit_total_failed += unit_case_failed;

	run_small("procmon_live_drain", procmon_live_drain);
	unit_case_failed = 0;
	procmon_live_drop_acks();
	printf("%s: unit/procmon_live_drop_acks\n", unit_case_failed ? "FAIL" : "PASS");
	unit_total_failed += unit_case_failed;
	if (!kernel_filters_acks()) {
		printf("SKIP: unit/procmon_live_foreign_acks: before Linux 6.6 the kernel sends every listener "
		       "every ack\n");
		return;
	}
	run_small("procmon_live_foreign_acks", procmon_live_foreign_acks);
}

int main(void)
{
	RUN(decode_fork);
	RUN(decode_each_kind);
	RUN(decode_several_in_one_datagram);
	RUN(decode_skips_unknown_and_ack);
	RUN(decode_skips_other_connector_ids);
	RUN(decode_truncated_prefixes);
	RUN(decode_truncated_inside);
	RUN(decode_short_event_length);
	RUN(decode_lengths_past_the_end);
	RUN(decode_error_and_overrun);
	RUN(decode_unaligned_and_unpadded);
	RUN(decode_numbered_gap);
	RUN(drain_counts_exactly);
	RUN(empty_sees_a_queued_message);
	run_live();
	UNIT_EXIT();
}
