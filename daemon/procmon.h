/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The netlink proc connector: process events from the kernel. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum procmon_kind {
	PROCMON_FORK,
	PROCMON_EXEC,
	PROCMON_UID,
	PROCMON_GID,
	PROCMON_COMM,
	PROCMON_EXIT,
};

struct procmon_event {
	enum procmon_kind kind;
	pid_t pid;         /* the thread the event is about (child for FORK) */
	pid_t tgid;        /* its thread group (child's for FORK) */
	pid_t parent_pid;  /* FORK only */
	pid_t parent_tgid; /* FORK only */
	uint64_t timestamp_ns; /* kernel's event timestamp */
};

/* Open a NETLINK_CONNECTOR socket (non-blocking, close-on-exec), bind it to
 * CN_IDX_PROC, set SO_RCVBUFFORCE to rcvbuf when non-zero (falling back to
 * SO_RCVBUF), send PROC_CN_MCAST_LISTEN and wait up to 1 s for the
 * kernel's ack: a missing or failed ack is an error. Outside the initial
 * user and pid namespaces the kernel drops the request silently, which
 * shows as -ETIMEDOUT; a refusal in the ack (before 6.6: no CAP_NET_ADMIN)
 * is returned as its negative errno, e.g. -EPERM. Then, from Linux 6.6,
 * the kernel is asked to send this socket every event and no ack: other
 * programs' subscriptions (any user may send one) no longer fill its
 * buffer, and show as missing numbers instead (see procmon_receive()).
 * Events that arrive before the ack are kept for the first
 * procmon_receive() (see procmon_pending()). Returns the fd or a negative
 * errno. */
int procmon_open(unsigned rcvbuf);

/* Receive and decode everything queued on fd without blocking, calling fn
 * per event. Returns the number of events, 0 when nothing was queued, or
 * -ENOBUFS when the kernel dropped events (the caller must drain the
 * socket and rescan), -ENOMSG when a message's number showed one missing
 * before it (struct procmon_numbers: an event the kernel could not
 * allocate, or an ack to another program that the kernel did not send
 * this socket): the events before that message were passed to fn, it and
 * the rest are held for the next call (procmon_pending()), no drain is
 * needed, and the caller notes the loss before it takes them and
 * rescans (a CPU's count shows a loss only at that CPU's next message:
 * events of other CPUs may have been passed on after the lost one); or another negative errno (-EBADMSG,
 * -EMSGSIZE: a datagram that could not be decoded, whose events are lost
 * as with -ENOBUFS). Events passed to fn before an error stand. Messages
 * not from the kernel (nl_pid != 0) are dropped. At most max_events are
 * handled per call so the caller's loop stays responsive. */
typedef void (*procmon_fn)(void *userdata, const struct procmon_event *ev);
int procmon_receive(int fd, size_t max_events, procmon_fn fn, void *userdata);

/* After a loss (any negative procmon_receive() but -EAGAIN/-EINTR), and
 * before the rescan: discard the events held back and up to max_datagrams
 * queued datagrams. Returns 1 when the kernel's queue was left empty (its
 * congestion, during which it drops every event silently, is over: rescan
 * now), 0 when max_datagrams were discarded and more are queued (call
 * again when the socket polls readable), or a negative errno. */
int procmon_drain(int fd, size_t max_datagrams);

/* True when procmon_receive(fd, ...) has something to hand out without
 * reading the socket: events held back by procmon_open() (they arrived
 * before the ack) or beyond a previous call's max_events, or a loss to
 * report. A poll loop calls procmon_receive() again, without waiting for
 * POLLIN, while this holds. Process-wide state: one socket per process. */
bool procmon_pending(int fd);
/* Attach to fd a socket filter that drops the proc connector's acks
 * (procmon_open() does, once its own subscription is acked): 0 or -errno. */
int procmon_drop_acks(int fd);
/* Nothing to take: no event held and no message queued on fd. */
bool procmon_empty(int fd);

/* The kernel numbers each proc connector message on the CPU that sends
 * it: cn_msg.seq counts that CPU's messages and proc_event.cpu names the
 * CPU (cn_proc.c, send_msg()), and a CPU's messages are sent in that
 * order, to every listener alike. A message the kernel cannot allocate
 * (it asks without waiting) is lost to every listener, and no listener is
 * told (no ENOBUFS): its number is missing from its CPU's. procmon_receive()
 * reports such a gap as -ENOMSG. The numbers expected next, per CPU
 * (CPUs past PROCMON_CPUS are not checked); all zero: none known yet. */
#define PROCMON_CPUS 4096
struct procmon_numbers {
	uint32_t next[PROCMON_CPUS];
	unsigned char known[PROCMON_CPUS / 8];
	bool missing; /* a number was found missing (the last decode's) */
};

/* Pure: procmon_decode(), and each proc connector message's number
 * checked against nums and noted there (of every kind, events not
 * followed and acks included): every event is passed to fn, and the
 * return is -ENOMSG where a message's CPU's number showed a message
 * missing before it (nums->missing says so too). */
int procmon_decode_numbered(const void *buf, size_t len, struct procmon_numbers *nums, procmon_fn fn,
			    void *userdata);

/* Pure: decode one datagram as read from the socket (netlink header(s),
 * cn_msg, proc_event). Returns the number of events passed to fn, or
 * -EBADMSG for a malformed buffer (every length is checked; fuzzed); fn
 * may have been called for the messages before the malformed one. Events
 * of kinds not listed above, NLMSG_NOOP and messages of other connector
 * users are skipped silently; NLMSG_ERROR and NLMSG_OVERRUN are -EBADMSG. */
int procmon_decode(const void *buf, size_t len, procmon_fn fn, void *userdata);
