// SPDX-License-Identifier: GPL-2.0-or-later
/* The netlink proc connector: subscribing, receiving, decoding.
 *
 * Events that arrive while procmon_open() waits for the kernel's ack, and
 * events of a datagram beyond a procmon_receive() call's max_events, are
 * held in a small queue that the next procmon_receive() on the same fd
 * hands out first. If that queue overflows, the next procmon_receive()
 * reports -ENOBUFS, exactly as a kernel-side loss would be reported. The
 * queue is process-wide: one event loop owns one proc connector socket. */
#define _GNU_SOURCE /* recvmmsg */
#include "procmon.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>

#include "sched_core.h" /* sc_fault */

#define ACK_TIMEOUT_MS 1000
#define HOLD_MAX 128
#define RECV_BUF_SIZE 8192

/* ---- decoding ------------------------------------------------------------ */

/* Called once per proc connector message with local, aligned copies. A
 * negative return stops decoding and is passed through. */
typedef int (*raw_fn)(void *userdata, const struct cn_msg *cn, const struct proc_event *ev);

#define EVENT_HEAD_SIZE offsetof(struct proc_event, event_data)

/* Bytes of a proc_event of this kind that must be present before any of its
 * fields is read; 0 for kinds we do not decode. */
static size_t event_size(uint32_t what)
{
	struct proc_event *ev = NULL;

	switch (what) {
	case PROC_EVENT_NONE:
		return EVENT_HEAD_SIZE + sizeof(ev->event_data.ack);
	case PROC_EVENT_FORK:
		return EVENT_HEAD_SIZE + sizeof(ev->event_data.fork);
	case PROC_EVENT_EXEC:
		return EVENT_HEAD_SIZE + sizeof(ev->event_data.exec);
	case PROC_EVENT_UID:
	case PROC_EVENT_GID:
		return EVENT_HEAD_SIZE + sizeof(ev->event_data.id);
	case PROC_EVENT_COMM:
		return EVENT_HEAD_SIZE + sizeof(ev->event_data.comm);
	case PROC_EVENT_EXIT:
		return EVENT_HEAD_SIZE + sizeof(ev->event_data.exit);
	default:
		return 0;
	}
}

/* A message's number, from its CPU: false if one from that CPU is missing
 * before it. Older kernels send an ack outside that count, with the
 * requester's number and no CPU (cpu -1): not counted. */
static bool number_follows(struct procmon_numbers *nums, uint32_t cpu, uint32_t seq)
{
	bool follows;

	if (cpu >= PROCMON_CPUS)
		return true;
	follows = !(nums->known[cpu / 8] & (1u << (cpu % 8))) || nums->next[cpu] == seq;
	nums->known[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
	nums->next[cpu] = seq + 1; /* wraps as the kernel's count does */
	return follows;
}

/* One netlink message's payload (after the nlmsghdr): a cn_msg and the
 * proc_event it carries, its number checked against nums (NULL: not).
 * 0 when skipped or handled, negative on error. */
static int decode_payload(const unsigned char *p, size_t len, struct procmon_numbers *nums, raw_fn fn,
			  void *userdata)
{
	struct cn_msg cn;
	struct proc_event ev;
	uint32_t what;
	size_t need;

	if (len < sizeof(cn))
		return -EBADMSG;
	memcpy(&cn, p, sizeof(cn));
	if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
		return 0; /* another connector user's message */
	if (cn.len > len - sizeof(cn) || cn.len < EVENT_HEAD_SIZE)
		return -EBADMSG;
	p += sizeof(cn);
	if (nums) {
		uint32_t cpu;

		memcpy(&cpu, p + offsetof(struct proc_event, cpu), sizeof(cpu));
		if (!number_follows(nums, cpu, cn.seq))
			nums->missing = true; /* noted; this message and the rest are good */
	}
	memcpy(&what, p, sizeof(what));
	need = event_size(what);
	if (need == 0)
		return 0; /* a kind we do not follow (SID, PTRACE, COREDUMP, newer) */
	if (cn.len < need)
		return -EBADMSG;
	memset(&ev, 0, sizeof(ev));
	memcpy(&ev, p, need);
	return fn(userdata, &cn, &ev);
}

/* Walk the netlink messages of one datagram. The buffer may be unaligned
 * (fuzzers, callers' buffers): headers are copied out, never dereferenced. */
static int decode_datagram(const void *buf, size_t len, struct procmon_numbers *nums, raw_fn fn,
			   void *userdata)
{
	const unsigned char *p = buf;
	struct nlmsghdr nh;
	size_t step;
	int r;

	while (len > 0) {
		if (len < sizeof(nh))
			return -EBADMSG;
		memcpy(&nh, p, sizeof(nh));
		if (nh.nlmsg_len < NLMSG_HDRLEN || nh.nlmsg_len > len)
			return -EBADMSG;
		if (nh.nlmsg_type == NLMSG_ERROR || nh.nlmsg_type == NLMSG_OVERRUN)
			return -EBADMSG;
		/* The connector sends NLMSG_DONE; NOOP and anything else is not an event. */
		if (nh.nlmsg_type == NLMSG_DONE) {
			r = decode_payload(p + NLMSG_HDRLEN, nh.nlmsg_len - NLMSG_HDRLEN, nums, fn, userdata);
			if (r < 0)
				return r;
		}
		/* Alignment padding after the last message may be absent. */
		step = NLMSG_ALIGN(nh.nlmsg_len);
		if (step > len)
			step = len;
		p += step;
		len -= step;
	}
	return 0;
}

/* false for kinds struct procmon_event does not carry (the ack). */
static bool event_map(const struct proc_event *ev, struct procmon_event *ret)
{
	static const struct {
		uint32_t what;
		enum procmon_kind kind;
	} kinds[] = {
		{ PROC_EVENT_FORK, PROCMON_FORK }, { PROC_EVENT_EXEC, PROCMON_EXEC },
		{ PROC_EVENT_UID, PROCMON_UID },   { PROC_EVENT_GID, PROCMON_GID },
		{ PROC_EVENT_COMM, PROCMON_COMM }, { PROC_EVENT_EXIT, PROCMON_EXIT },
	};
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((uint32_t)ev->what == kinds[i].what)
			break;
	if (i == sizeof(kinds) / sizeof(kinds[0]))
		return false;

	memset(ret, 0, sizeof(*ret));
	ret->kind = kinds[i].kind;
	ret->timestamp_ns = ev->timestamp_ns;
	if (ret->kind == PROCMON_FORK) {
		ret->pid = ev->event_data.fork.child_pid;
		ret->tgid = ev->event_data.fork.child_tgid;
		ret->parent_pid = ev->event_data.fork.parent_pid;
		ret->parent_tgid = ev->event_data.fork.parent_tgid;
	} else {
		/* Every other kind starts with process_pid, process_tgid. */
		ret->pid = ev->event_data.exec.process_pid;
		ret->tgid = ev->event_data.exec.process_tgid;
	}
	return true;
}

struct decode_ctx {
	procmon_fn fn;
	void *userdata;
	int count;
};

static int decode_one(void *userdata, const struct cn_msg *cn, const struct proc_event *ev)
{
	struct decode_ctx *ctx = userdata;
	struct procmon_event out;

	(void)cn;
	if (!event_map(ev, &out))
		return 0;
	ctx->fn(ctx->userdata, &out);
	ctx->count++;
	return 0;
}

int procmon_decode_numbered(const void *buf, size_t len, struct procmon_numbers *nums, procmon_fn fn,
			    void *userdata)
{
	struct decode_ctx ctx = { .fn = fn, .userdata = userdata };
	int r;

	if (nums)
		nums->missing = false;
	r = decode_datagram(buf, len, nums, decode_one, &ctx);
	if (r < 0)
		return r;
	return nums && nums->missing ? -ENOMSG : ctx.count;
}

int procmon_decode(const void *buf, size_t len, procmon_fn fn, void *userdata)
{
	return procmon_decode_numbered(buf, len, NULL, fn, userdata);
}

/* ---- events held back for the next procmon_receive() --------------------- */

static struct {
	int fd;
	bool lost; /* the queue overflowed: report -ENOBUFS once */
	size_t head, count;
	struct procmon_event ev[HOLD_MAX];
	/* The messages' numbers since the subscription, the last drain or
	 * the last ENOBUFS: what was discarded unread, or lost and reported,
	 * is not counted missing again. */
	struct procmon_numbers nums;
} held = { .fd = -1 };

/* No number known: the next message of each CPU starts its count. */
static void numbers_forget(void)
{
	memset(&held.nums, 0, sizeof(held.nums));
}

static void hold_reset(int fd)
{
	held.fd = fd;
	held.lost = false;
	held.head = held.count = 0;
	numbers_forget();
}

static void hold_push(const struct procmon_event *ev)
{
	if (held.count == 0)
		held.head = 0;
	if (held.head + held.count >= HOLD_MAX) {
		held.lost = true;
		return;
	}
	held.ev[held.head + held.count++] = *ev;
}

bool procmon_pending(int fd)
{
	return fd >= 0 && held.fd == fd && (held.count > 0 || held.lost);
}

bool procmon_empty(int fd)
{
	char c;

	if (procmon_pending(fd))
		return false;
	return recv(fd, &c, sizeof(c), MSG_PEEK | MSG_DONTWAIT) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

/* ---- subscribing ----------------------------------------------------------- */

static int set_rcvbuf(int fd, unsigned rcvbuf)
{
	int v = rcvbuf > (unsigned)INT32_MAX ? INT32_MAX : (int)rcvbuf;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) == 0)
		return 0;
	/* Without CAP_NET_ADMIN: capped by net.core.rmem_max, still better than nothing. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0)
		return 0;
	return -errno;
}

/* Linux 6.6's struct proc_input (Debian 12's headers predate it): a
 * subscription of this length names the event kinds the kernel is to send
 * this socket; one of an op alone takes every kind, acks included. */
struct procmon_input {
	uint32_t mcast_op;
	uint32_t event_type;
};
#define PROCMON_EVENT_NONZERO_EXIT 0x20000000u

/* Send PROC_CN_MCAST_LISTEN: the op alone (input NULL), or as a struct
 * proc_input. */
static int send_listen(int fd, uint32_t ack, const struct procmon_input *input)
{
	uint32_t op = PROC_CN_MCAST_LISTEN;
	size_t len = input ? sizeof(*input) : sizeof(op);
	struct cn_msg cn = {
		.id = { CN_IDX_PROC, CN_VAL_PROC },
		.seq = ack,
		.ack = ack,
		.len = (uint16_t)len,
	};
	struct nlmsghdr nh = {
		.nlmsg_len = NLMSG_LENGTH(sizeof(cn) + len),
		.nlmsg_type = NLMSG_DONE,
	};
	_Alignas(struct nlmsghdr) unsigned char req[NLMSG_SPACE(sizeof(cn) + sizeof(struct procmon_input))];
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };

	memset(req, 0, sizeof(req));
	memcpy(req, &nh, sizeof(nh));
	memcpy(req + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(req + NLMSG_HDRLEN + sizeof(cn), input ? (const void *)input : (const void *)&op, len);
	if (sendto(fd, req, nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	return 0;
}

struct ack_ctx {
	uint32_t ack; /* the ack number we sent */
	bool acked;
	uint32_t err;
};

/* The ack is multicast to every listener: ours carries our ack + 1. Its seq
 * is not ours: the kernel overwrites it with a per-CPU event counter. */
static int ack_or_hold(void *userdata, const struct cn_msg *cn, const struct proc_event *ev)
{
	struct ack_ctx *ctx = userdata;
	struct procmon_event out;

	if (ev->what == PROC_EVENT_NONE) {
		if (cn->ack == ctx->ack + 1 && !ctx->acked) {
			ctx->acked = true;
			ctx->err = ev->event_data.ack.err;
		}
		return 0;
	}
	if (event_map(ev, &out))
		hold_push(&out);
	return 0;
}

/* Read every queued datagram from the kernel, or -errno; their numbers
 * are checked against nums (NULL: not). */
static int drain_for_ack(int fd, struct ack_ctx *ctx, struct procmon_numbers *nums)
{
	_Alignas(struct nlmsghdr) unsigned char buf[RECV_BUF_SIZE];
	struct sockaddr_nl from;
	socklen_t fromlen;
	ssize_t n;

	for (;;) {
		fromlen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fromlen);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == ENOBUFS) {
				held.lost = true; /* the ack itself may be gone: we may time out */
				numbers_forget();
				continue;
			}
			return -errno;
		}
		if (fromlen < sizeof(from) || from.nl_pid != 0)
			continue;
		/* Malformed datagrams cannot be the ack; their events are lost.
		 * A number missing before the loop takes them is reported as a
		 * loss too (-ENOBUFS): it may have been an event. */
		if (decode_datagram(buf, (size_t)n, nums, ack_or_hold, ctx) < 0 || (nums && nums->missing))
			held.lost = true;
		if (nums)
			nums->missing = false;
	}
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_ack(int fd, uint32_t ack)
{
	struct ack_ctx ctx = { .ack = ack };
	int64_t deadline = now_ms() + ACK_TIMEOUT_MS, left;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int r;

	for (;;) {
		r = drain_for_ack(fd, &ctx, &held.nums);
		if (r < 0)
			return r;
		if (ctx.acked)
			return ctx.err ? -(int)ctx.err : 0;
		left = deadline - now_ms();
		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}

/* Every program may subscribe, and before Linux 6.6 be refused, and the
 * kernel multicasts each answer (an ack) to every listener: a flood of
 * them fills this socket's buffer, and each loss costs a rescan. From 6.6
 * a subscription may name the kinds of events it takes, and the kernel
 * then sends it no ack (cn_proc.c, cn_filter()). So, subscribed and
 * acked, ask again for every kind but the modifier NONZERO_EXIT (exits
 * come all the same: their own kind is asked for; with every bit, the
 * kernel sends acks too). Older kernels ignore a request of that length,
 * without an answer, and the subscription stands as it was.
 * The kernel numbers the acks it sends, and from now on this socket
 * misses some of the numbers: its own ack, sent on the CPU this runs on,
 * while this call waits in sendto(), and later the acks to other
 * programs. The messages queued by now (those of its CPU numbered before
 * the ack are, by the time sendto() returns, and some after it may be)
 * are read and held without their numbers checked, and the count starts
 * again after them: what was lost meanwhile, the start-up scan that
 * follows the subscription sees. Another program's ack later shows as a
 * missing number: the caller cannot tell it from an event lost, and
 * rescans (see procmon_receive()). */
static int filter_acks(int fd, uint32_t ack)
{
	const struct procmon_input input = { .mcast_op = PROC_CN_MCAST_LISTEN,
					     .event_type = ~PROCMON_EVENT_NONZERO_EXIT };
	struct ack_ctx ctx = { .ack = ack };
	int r = send_listen(fd, ack, &input);

	if (r < 0)
		return r;
	r = drain_for_ack(fd, &ctx, NULL);
	numbers_forget();
	return r;
}

int procmon_drop_acks(int fd)
{
	/* Where the event's kind is: one message per datagram, as the kernel
	 * sends them. BPF loads are big-endian; PROC_EVENT_NONE is 0 in any
	 * order. A datagram too short to hold it is kept, for the decoder to
	 * report. */
	enum { WHAT = NLMSG_HDRLEN + sizeof(struct cn_msg) + offsetof(struct proc_event, what) };
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_LEN, 0),
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, WHAT + sizeof(uint32_t), 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, WHAT),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROC_EVENT_NONE, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
	};
	struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ? -errno : 0;
}

static int subscribe(int fd, unsigned rcvbuf)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	socklen_t addrlen = sizeof(addr);
	int r;

	if (rcvbuf) {
		r = set_rcvbuf(fd, rcvbuf);
		if (r < 0)
			return r;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0)
		return -errno;
	/* The port id the kernel chose is unique among netlink sockets: an
	 * ack number that no other listener's request can carry. */
	if (getsockname(fd, (struct sockaddr *)&addr, &addrlen) < 0)
		return -errno;
	hold_reset(fd);
	r = send_listen(fd, addr.nl_pid, NULL);
	if (r < 0)
		return r;
	r = wait_ack(fd, addr.nl_pid);
	if (r < 0)
		return r;
	/* Its own ack taken, the socket takes no more: before 6.6 the
	 * kernel has no other way to keep them off (filter_acks() then does
	 * nothing), and an ack to anyone's request, refused or not, is sent
	 * to every listener. A failure leaves them to filter_acks(). */
	(void)procmon_drop_acks(fd);
	return filter_acks(fd, addr.nl_pid + 1);
}

int procmon_open(unsigned rcvbuf)
{
	int fd, r;

	fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	r = subscribe(fd, rcvbuf);
	if (r < 0) {
		if (held.fd == fd)
			hold_reset(-1);
		close(fd);
		return r;
	}
	return fd;
}

/* ---- receiving --------------------------------------------------------------- */

struct recv_ctx {
	procmon_fn fn;
	void *userdata;
	size_t count, max;
};

static int deliver_or_hold(void *userdata, const struct cn_msg *cn, const struct proc_event *ev)
{
	struct recv_ctx *ctx = userdata;
	struct procmon_event out;

	(void)cn;
	if (!event_map(ev, &out))
		return 0;
	/* From the message that showed a number missing on, events are held:
	 * the caller hears of the loss before it takes them. */
	if (ctx->count < ctx->max && !held.nums.missing) {
		ctx->fn(ctx->userdata, &out);
		ctx->count++;
	} else {
		hold_push(&out);
	}
	return 0;
}

/* Events held back for this fd first; -ENOBUFS if some were lost. */
static int deliver_held(int fd, struct recv_ctx *ctx)
{
	if (held.fd != fd)
		return 0;
	if (held.lost) {
		held.lost = false;
		return -ENOBUFS;
	}
	while (held.count > 0 && ctx->count < ctx->max) {
		ctx->fn(ctx->userdata, &held.ev[held.head]);
		held.head++;
		held.count--;
		ctx->count++;
	}
	return 0;
}

/* Datagrams taken per recvmmsg(): one system call where there was one per
 * event. A proc connector datagram is under 100 bytes; one larger than
 * RECV_DGRAM_SIZE is reported as -EMSGSIZE (undecodable: a rescan). */
#define RECV_BATCH 16
#define RECV_DGRAM_SIZE 1024

/* Up to want (1..RECV_BATCH) datagrams: how many were taken, 0 when none
 * was queued, or -errno. Fewer than want: the queue was found empty, or an
 * error stopped the batch after its first datagram, which recvmmsg() keeps
 * on the socket for the next call (the socket polls readable for it, so a
 * loss, ENOBUFS, is reported one pass of the event loop later). A datagram
 * that cannot be decoded, or is too long, ends the batch with its error;
 * the datagrams taken after it are lost with it, which the caller treats
 * as any loss: it drains the socket and rescans. */
static int receive_batch(int fd, struct recv_ctx *ctx, unsigned want)
{
	_Alignas(struct nlmsghdr) unsigned char buf[RECV_BATCH][RECV_DGRAM_SIZE];
	struct sockaddr_nl from[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	struct mmsghdr msg[RECV_BATCH];
	int n, r;

	for (unsigned i = 0; i < want; i++) {
		iov[i] = (struct iovec){ .iov_base = buf[i], .iov_len = sizeof(buf[i]) };
		msg[i] = (struct mmsghdr){ .msg_hdr = { .msg_name = &from[i], .msg_namelen = sizeof(from[i]),
							 .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	do {
		r = sc_fault("recv");
		if (r < 0) {
			errno = -r;
			n = -1;
		} else
			n = recvmmsg(fd, msg, want, MSG_DONTWAIT | MSG_TRUNC, NULL);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && errno == ENOBUFS && held.fd == fd)
		numbers_forget(); /* that loss is reported: its gaps are not again */
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	if (held.fd != fd)
		hold_reset(fd);
	for (int i = 0; i < n; i++) {
		if (msg[i].msg_hdr.msg_namelen < sizeof(from[i]) || from[i].nl_pid != 0)
			continue; /* not from the kernel: dropped */
		if (msg[i].msg_len > sizeof(buf[i]))
			return -EMSGSIZE;
		r = decode_datagram(buf[i], msg[i].msg_len, &held.nums, deliver_or_hold, ctx);
		if (r < 0)
			return r;
	}
	return n;
}

/* The kernel marks a netlink socket congested when it drops a datagram for
 * it, reports ENOBUFS once, and then drops every datagram for it, silently,
 * until a read finds its queue empty (af_netlink.c: netlink_overrun(),
 * netlink_rcv_wake()). So the loss goes on after it is reported: a rescan
 * made before the queue is empty misses what happens between its read of a
 * process and the end of the congestion. Emptying the queue first ends it;
 * a loss after that is reported again. While congested the queue only
 * shrinks, so this ends. */
int procmon_drain(int fd, size_t max_datagrams)
{
	_Alignas(struct nlmsghdr) unsigned char buf[RECV_BUF_SIZE];
	ssize_t n;

	if (fd < 0)
		return -EINVAL;
	if (held.fd == fd)
		hold_reset(fd);
	for (size_t i = 0;; i++) {
		/* The last pass only looks: a queue emptied by the pass before
		 * must not be taken for one that holds more (the socket would
		 * not poll readable again to say so). A read that empties it
		 * ends the congestion as well as one that finds it empty. */
		int peek = i < max_datagrams ? 0 : MSG_PEEK;

		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_TRUNC | peek, NULL, NULL);
		if (n >= 0 && peek)
			break;
		if (n >= 0 || errno == EINTR || errno == ENOBUFS)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		break;
	}
	/* What was discarded is not missing from the numbers that follow. */
	if (held.fd == fd)
		numbers_forget();
	return n < 0;
}

int procmon_receive(int fd, size_t max_events, procmon_fn fn, void *userdata)
{
	struct recv_ctx ctx = { .fn = fn, .userdata = userdata, .max = max_events };
	int r;

	if (fd < 0 || !fn)
		return -EINVAL;
	if (max_events > INT32_MAX)
		ctx.max = INT32_MAX;
	r = deliver_held(fd, &ctx);
	if (r < 0)
		return r;
	while (ctx.count < ctx.max) {
		/* A datagram holds one event or more; what is over the limit
		 * is held for the next call. */
		unsigned want = ctx.max - ctx.count < RECV_BATCH ? (unsigned)(ctx.max - ctx.count) : RECV_BATCH;

		r = receive_batch(fd, &ctx, want);
		if (r < 0)
			return r;
		if ((unsigned)r < want || (held.fd == fd && held.nums.missing))
			break;
	}
	/* A number missing: the events before the message that showed it
	 * were handed out, that message's and the rest are held for the next
	 * call, after the caller has heard of the loss. */
	if (held.fd == fd && held.nums.missing) {
		held.nums.missing = false;
		return -ENOMSG;
	}
	return (int)ctx.count;
}
