// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* accept4, struct ucred */
#include "control.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>
#include <unistd.h>

#include "control-call.h"
#include "control-socket.h"
#include "varlink.h"

#ifndef VERSION
#define VERSION "unknown"
#endif

#define DEFAULT_MAX_CLIENTS 64u
#define DEFAULT_MAX_CLIENTS_PER_UID 16u
#define DEFAULT_READ_DEADLINE_USEC (5u * 1000000u)
#define DEFAULT_MAX_OUTPUT_BYTES (1024u * 1024u)
#define DEFAULT_RESERVED_CLIENTS 8u
#define DEFAULT_IDLE_TIMEOUT_USEC (60u * 1000000u)
#define DEFAULT_CLIENT_COST_RATE 50u
#define DEFAULT_CLIENT_COST_BURST 100u
#define DEFAULT_UID_COST_RATE 100u
#define DEFAULT_UID_COST_BURST 200u
#define DEFAULT_TOTAL_COST_RATE 200u
#define DEFAULT_TOTAL_COST_BURST 400u
/* Requests served per client per wakeup: the rest wait for the next pass
 * of the loop, behind the process events. */
#define REQUESTS_PER_WAKEUP 4
/* Below the event sources' default 0: process events are served first. */
#define CLIENT_PRIORITY 10
#define ACCEPTS_PER_WAKEUP 32
#define ACCEPT_RETRY_USEC (1000u * 1000u)
#define RATELIMIT_INTERVAL_USEC (5u * 1000000u)
#define RATELIMIT_BURST 5u

/* What one unprivileged uid has left to spend, over all its clients. Kept
 * after its last client goes, so that reconnecting does not refill it. */
struct uid_budget {
	uid_t uid;
	unsigned clients;
	bool used;
	struct auth_bucket bucket;
};

struct client {
	struct control_server *server;
	struct client *prev, *next;
	struct control_caller caller;
	struct auth_peer peer;
	sd_event_source *io, *timer;
	struct vl_buffer *in;
	char *out;
	size_t out_start, out_end, out_alloc;
	struct vl_call held;    /* decoded, waiting for its cost to be affordable */
	bool has_held;
	/* or, held instead, the error for a call that did not decode: it is
	 * charged as an unknown method, so that bad calls are not free */
	const char *held_error;
	json_object *held_error_params;
	bool more;              /* the budget ran out with messages maybe buffered */
	bool closing;           /* no more input: flush what is queued, then close */
	uint64_t in_progress;   /* last message completed (or connect) */
	uint64_t out_progress;  /* output last moved (or became pending) */
	uint64_t active;        /* last message or the last reply fully taken */
	uint64_t resume;        /* throttled until then; 0: not */
	struct auth_bucket bucket;
	int budget;             /* index of its uid's in server->budgets; -1 when admitted privileged */
	uint64_t ticket;        /* its place in the queue for the shared budget; 0: none */
	bool unprivileged_slot; /* counted in server->unprivileged */
};

struct control_server {
	sd_event *event;
	sd_event_source *listen_source, *retry_source;
	int listen_fd;
	char *bound_path; /* unlinked on free: only what we bound ourselves */
	struct control_config cfg;
	const struct control_method *methods;
	size_t n_methods;
	void *userdata;
	struct client *clients;
	struct control_stats stats;
	unsigned unprivileged;  /* clients admitted as unprivileged */
	struct auth_bucket bucket; /* all unprivileged clients together */
	struct uid_budget *budgets; /* one per connected uid at least: n_budgets >= max_clients */
	unsigned n_budgets;
	uint64_t tickets;       /* the last ticket handed out */
	uint64_t rl_begin;
	unsigned rl_count, rl_suppressed;
};

#define control_log(s, level, ...)                          \
	do {                                                \
		if ((s)->cfg.log)                           \
			(s)->cfg.log((level), __VA_ARGS__); \
	} while (0)

/* For messages a client can provoke at will. */
static bool control_ratelimit(struct control_server *s)
{
	uint64_t now = 0;

	(void)sd_event_now(s->event, CLOCK_MONOTONIC, &now);
	if (s->rl_begin == 0 || now - s->rl_begin >= RATELIMIT_INTERVAL_USEC) {
		if (s->rl_suppressed > 0)
			control_log(s, LOG_WARNING, "control: %u messages suppressed", s->rl_suppressed);
		s->rl_begin = now;
		s->rl_count = 0;
		s->rl_suppressed = 0;
	}
	if (s->rl_count < RATELIMIT_BURST) {
		s->rl_count++;
		return true;
	}
	s->rl_suppressed++;
	return false;
}

static bool server_privileged(const struct control_server *s, const struct auth_peer *peer)
{
	return s->cfg.privileged ? s->cfg.privileged(s->userdata, peer) : peer->uid == 0;
}

static bool client_privileged(const struct client *c)
{
	return server_privileged(c->server, &c->peer);
}

static size_t client_out_pending(const struct client *c)
{
	return c->out_end - c->out_start;
}

static uint64_t server_now(const struct control_server *s)
{
	uint64_t now = 0;

	(void)sd_event_now(s->event, CLOCK_MONOTONIC, &now);
	return now;
}

static void client_free(struct client *c)
{
	struct control_server *s = c->server;

	if (c->prev)
		c->prev->next = c->next;
	else
		s->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->stats.clients--;
	s->unprivileged -= c->unprivileged_slot;
	if (c->budget >= 0)
		s->budgets[c->budget].clients--;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	close(c->caller.fd);
	auth_peer_done(&c->peer);
	if (c->has_held && c->held_error)
		json_object_put(c->held_error_params);
	else if (c->has_held)
		vl_call_done(&c->held);
	vl_buffer_free(c->in);
	free(c->out);
	free(c);
}

/* Drops a client that broke a limit; counted, logged rate-limited. */
static void client_drop(struct client *c, const char *why)
{
	struct control_server *s = c->server;

	s->stats.dropped++;
	if (control_ratelimit(s))
		control_log(s, LOG_INFO, "control: dropping client pid %d uid %u: %s",
			    (int)c->caller.pid, (unsigned)c->caller.uid, why);
	client_free(c);
}

/* Writes what the socket takes now; never waits. Output that moves is
 * progress: only a peer that stops reading runs into the deadline. */
static int client_flush(struct client *c)
{
	while (client_out_pending(c) > 0) {
		ssize_t n = send(c->caller.fd, c->out + c->out_start, client_out_pending(c),
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN ? 0 : -errno;
		}
		if (n > 0)
			c->out_progress = server_now(c->server);
		c->out_start += (size_t)n;
	}
	if (c->out_end > 0)
		c->active = server_now(c->server);
	c->out_start = c->out_end = 0;
	if (c->out_alloc > VL_MESSAGE_MAX) { /* one large reply: don't keep its room */
		free(c->out);
		c->out = NULL;
		c->out_alloc = 0;
	}
	return 0;
}

/* Queues wire bytes (consumed). A reply always fits an empty queue: the
 * limit is for clients that stop reading, not for large answers. */
static int client_queue(struct client *c, char *buf, size_t len, bool force)
{
	size_t pending = client_out_pending(c);
	int r = 0;

	if (!force && pending > 0 && pending + len > c->server->cfg.max_output_bytes) {
		r = -ENOBUFS;
		goto out;
	}
	if (pending == 0)
		c->out_progress = server_now(c->server);
	if (c->out_start > 0) {
		memmove(c->out, c->out + c->out_start, pending);
		c->out_start = 0;
		c->out_end = pending;
	}
	if (c->out_alloc - c->out_end < len) {
		char *p = realloc(c->out, c->out_end + len);
		if (!p) {
			r = -ENOMEM;
			goto out;
		}
		c->out = p;
		c->out_alloc = c->out_end + len;
	}
	memcpy(c->out + c->out_end, buf, len);
	c->out_end += len;
out:
	free(buf);
	return r;
}

/* Consumes params. */
static int client_send_error(struct client *c, const char *name, json_object *params, bool force)
{
	char *buf;
	size_t len;
	int r;

	r = vl_encode_error(name, params, &buf, &len);
	json_object_put(params);
	return r < 0 ? r : client_queue(c, buf, len, force);
}

/* Consumes params. */
static int client_send_reply(struct client *c, json_object *params)
{
	char *buf;
	size_t len;
	int r;

	r = vl_encode_reply(params, &buf, &len);
	json_object_put(params);
	return r < 0 ? r : client_queue(c, buf, len, false);
}

/* The stream can no longer be trusted: answer once, then close. */
static int client_protocol_error(struct client *c, const char *name, json_object *params)
{
	c->server->stats.protocol_errors++;
	c->closing = true;
	if (control_ratelimit(c->server))
		control_log(c->server, LOG_INFO, "control: protocol error from pid %d uid %u",
			    (int)c->caller.pid, (unsigned)c->caller.uid);
	return client_send_error(c, name, params, true);
}

static int client_answer(struct client *c, const struct vl_call *call)
{
	const struct control_server *s = c->server;
	const struct control_routes rt = { s->methods, s->n_methods, s->userdata, s->cfg.version, s->cfg.url,
					   s->cfg.interface_description };
	struct control_error err = { 0 };
	json_object *reply = NULL;
	int r;

	r = control_call(&rt, &c->caller, call, &reply, &err);
	if (s->cfg.before_answer)
		s->cfg.before_answer(s->userdata);
	if (call->oneway) {
		json_object_put(reply);
		json_object_put(err.params);
		return 0;
	}
	if (r >= 0) {
		json_object_put(err.params);
		return client_send_reply(c, reply);
	}
	json_object_put(reply);
	if (!err.name) {
		json_object_put(err.params);
		err.name = CONTROL_ERROR_INTERNAL;
		err.params = control_params_string("reason", strerror(-r));
	}
	return client_send_error(c, err.name, err.params, false);
}

static void bucket_refund(struct auth_bucket *b, unsigned cost, unsigned burst)
{
	b->tokens_milli += (uint64_t)(cost < burst ? cost : burst) * 1000;
}

/* The client that has waited longest for the shared budget, if any. */
static const struct client *first_waiter(const struct control_server *s)
{
	const struct client *first = NULL;

	for (const struct client *x = s->clients; x; x = x->next)
		if (x->ticket && (!first || x->ticket < first->ticket))
			first = x;
	return first;
}

/* The shared budget goes to waiting calls in the order they began to
 * wait: a stream of cheap calls cannot starve a costly one. 0, or how
 * long to wait. */
static uint64_t shared_take(struct client *c, unsigned cost, uint64_t now)
{
	struct control_server *s = c->server;
	const struct client *first = first_waiter(s);
	uint64_t wait;

	if (first && first != c)
		wait = first->resume > now ? first->resume - now + 1 : 1000;
	else
		wait = auth_bucket_take(&s->bucket, cost, s->cfg.total_cost_rate, s->cfg.total_cost_burst, now);
	if (wait > 0 && !c->ticket)
		c->ticket = ++s->tickets;
	return wait;
}

/* Whether the call is affordable now: privileged callers are not charged;
 * an unprivileged one pays from its own bucket, its uid's and the shared
 * one, all or none. */
static bool client_afford(struct client *c, const char *method, json_object *params)
{
	struct control_server *s = c->server;
	const struct control_config *cfg = &s->cfg;
	struct uid_budget *ub = c->budget >= 0 ? &s->budgets[c->budget] : NULL;
	json_object *pids = NULL;
	uint64_t now = server_now(s), wait;
	unsigned cost;

	if (params && json_object_object_get_ex(params, "pids", &pids) && json_object_is_type(pids, json_type_array))
		cost = auth_call_cost(method, json_object_array_length(pids));
	else
		cost = auth_call_cost(method, 0);

	if (!c->caller.privileged) {
		wait = auth_bucket_take(&c->bucket, cost, cfg->client_cost_rate, cfg->client_cost_burst, now);
		if (wait == 0 && ub) {
			wait = auth_bucket_take(&ub->bucket, cost, cfg->uid_cost_rate, cfg->uid_cost_burst, now);
			if (wait > 0) /* refund: it was not served */
				bucket_refund(&c->bucket, cost, cfg->client_cost_burst);
		}
		if (wait == 0 && (wait = shared_take(c, cost, now)) > 0) {
			bucket_refund(&c->bucket, cost, cfg->client_cost_burst);
			if (ub)
				bucket_refund(&ub->bucket, cost, cfg->uid_cost_burst);
		}
		if (wait > 0) {
			s->stats.throttled++;
			c->resume = now + wait;
			return false;
		}
	}
	c->ticket = 0;
	return true;
}

/* Serves the held call if it is affordable now: 1 served, 0 still held. */
static int client_serve_held(struct client *c)
{
	int r;

	if (!client_afford(c, c->held_error ? "" : c->held.method, c->held_error ? NULL : c->held.params))
		return 0;
	c->resume = 0;
	c->has_held = false;
	if (c->held_error) {
		const char *name = c->held_error;
		json_object *params = c->held_error_params;

		c->held_error = NULL;
		c->held_error_params = NULL;
		r = client_send_error(c, name, params, false);
	} else {
		r = client_answer(c, &c->held);
		vl_call_done(&c->held);
	}
	return r < 0 ? r : 1;
}

static int client_dispatch(struct client *c, const char *msg, size_t len)
{
	const char *ename;
	json_object *eparams;
	int r;

	r = vl_decode_call(msg, len, &c->held, &ename, &eparams);
	if (r == -EBADMSG)
		return client_protocol_error(c, ename, eparams);
	if (r == -EINVAL) {
		c->held_error = ename;
		c->held_error_params = eparams;
	} else if (r < 0) {
		return r;
	}
	c->has_held = true;
	r = client_serve_held(c);
	return r < 0 ? r : 0;
}

/* Reads once, if asked and there is room. */
static int client_read(struct client *c)
{
	size_t room;
	ssize_t n;
	char *p;
	int r;

	r = vl_buffer_space(c->in, &p, &room);
	if (r == -EMSGSIZE)
		return client_protocol_error(c, VL_ERROR_INVALID_PARAMETER,
					     control_params_string("parameter", "message"));
	if (r < 0)
		return r;
	n = recv(c->caller.fd, p, room, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		c->closing = true; /* a partial message at EOF has no one to answer */
		return 0;
	}
	vl_buffer_advance(c->in, (size_t)n);
	return 1;
}

/* At most REQUESTS_PER_WAKEUP requests, one read from the socket when
 * readable: level-triggered epoll (or EPOLLOUT, see client_update()) brings
 * us back for more, so one busy client can't starve the others or the
 * process events. Nothing more is served while replies wait unread. */
static int client_serve(struct client *c, bool readable)
{
	int budget = REQUESTS_PER_WAKEUP, r = 0;
	const char *msg;
	size_t len;

	c->more = false;
	while (!c->closing && budget > 0 && client_out_pending(c) == 0) {
		if (c->has_held) {
			r = client_serve_held(c);
			if (r <= 0)
				return r;
		} else if ((r = vl_buffer_next(c->in, &msg, &len)) > 0) {
			c->in_progress = c->active = server_now(c->server);
			r = client_dispatch(c, msg, len);
		} else if (r == 0 && readable) {
			readable = false;
			r = client_read(c);
			if (r <= 0)
				return r;
			continue;
		} else {
			break;
		}
		/* Flushing between replies keeps the output limit about what the
		 * peer leaves unread, not about how many requests it pipelined. */
		if (r >= 0)
			r = client_flush(c);
		if (r < 0)
			return r;
		budget--;
	}
	if (r == -EMSGSIZE)
		return client_protocol_error(c, VL_ERROR_INVALID_PARAMETER,
					     control_params_string("parameter", "message"));
	c->more = budget == 0;
	return 0;
}

/* The next moment something is due: the read deadline for a half-sent
 * message, the output deadline for unread replies, the end of a throttle,
 * or the idle timeout. */
static uint64_t client_due(const struct client *c, const char **ret_why)
{
	const struct control_config *cfg = &c->server->cfg;

	if (client_out_pending(c) > 0) {
		*ret_why = "unread output for too long";
		return c->out_progress + cfg->read_deadline_usec;
	}
	if (c->has_held) {
		*ret_why = NULL;
		return c->resume;
	}
	if (!c->closing && !c->more && vl_buffer_pending(c->in) > 0) {
		*ret_why = "deadline passed";
		return c->in_progress + cfg->read_deadline_usec;
	}
	*ret_why = "idle";
	return c->active + cfg->idle_timeout_usec;
}

/* Settles the client after an event: closes it when done, else polls for
 * what it needs and arms its one timer for what is due next. */

static int client_update(struct client *c)
{
	bool out = client_out_pending(c) > 0, serving = !c->has_held && !out && !c->closing;
	const char *why;
	int r;

	if (c->closing && !out)
		return -ECONNRESET;
	/* EPOLLOUT with nothing to write fires at once: the next pass of the
	 * loop serves what the budget left. */
	r = sd_event_source_set_io_events(c->io, (serving ? EPOLLIN : 0) |
						 (out || (serving && c->more) ? EPOLLOUT : 0));
	if (r < 0)
		return r;
	r = sd_event_source_set_time(c->timer, client_due(c, &why));
	return r < 0 ? r : sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
}

/* After serving: drop a client that does not read its replies, arm its
 * next event, or free it. */
static int client_settle(struct client *c, int r)
{
	if (r == -ENOBUFS) {
		client_drop(c, "too much unread output");
		return 0;
	}
	if (r >= 0)
		r = client_update(c);
	if (r < 0)
		client_free(c);
	return 0;
}

static int on_client_io(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct client *c = userdata;
	int r = 0;

	(void)src;
	(void)fd;
	if (revents & EPOLLOUT)
		r = client_flush(c);
	if (r >= 0 && !c->closing) {
		c->caller.privileged = client_privileged(c);
		r = client_serve(c, revents & (EPOLLIN | EPOLLHUP | EPOLLERR));
	} else if (r >= 0 && (revents & (EPOLLHUP | EPOLLERR))) {
		r = client_flush(c); /* closing: fails now if the peer is gone */
	}
	return client_settle(c, r);
}

static int on_client_timer(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct client *c = userdata;
	const char *why;

	(void)src;
	if (client_due(c, &why) > usec) { /* rescheduled meanwhile */
		if (client_update(c) < 0)
			client_free(c);
		return 0;
	}
	if (why) {
		client_drop(c, why);
		return 0;
	}
	c->caller.privileged = client_privileged(c);
	return client_settle(c, client_serve(c, false));
}

static unsigned clients_of_uid(const struct control_server *s, uid_t uid)
{
	unsigned n = 0;

	for (const struct client *c = s->clients; c; c = c->next)
		n += c->unprivileged_slot && c->caller.uid == uid;
	return n;
}

/* The uid's budget: its own, else a slot no client uses (the one unused
 * longest: the fullest), fresh. -1 only if every slot is in use. */
static int budget_for(struct control_server *s, uid_t uid)
{
	struct uid_budget *free_slot = NULL;

	for (unsigned i = 0; i < s->n_budgets; i++) {
		struct uid_budget *b = &s->budgets[i];

		if (b->used && b->uid == uid)
			return (int)i;
		if (b->clients == 0 && (!free_slot || !b->used ||
					(free_slot->used && b->bucket.last_usec < free_slot->bucket.last_usec)))
			free_slot = b;
	}
	if (!free_slot)
		return -1;
	*free_slot = (struct uid_budget){ .uid = uid, .used = true };
	return (int)(free_slot - s->budgets);
}

static int client_new(struct control_server *s, int fd, struct auth_peer *peer, bool privileged)
{
	struct client *c = calloc(1, sizeof(*c));
	int r = -ENOMEM;

	if (!c)
		return -ENOMEM;
	c->server = s;
	c->caller = (struct control_caller){ peer->uid, peer->gid, peer->pid, fd, &c->peer, privileged };
	c->budget = privileged ? -1 : budget_for(s, peer->uid);
	if (!privileged && c->budget < 0) {
		free(c);
		return -EUSERS;
	}
	c->in = vl_buffer_new(VL_MESSAGE_MAX);
	if (!c->in)
		goto fail;
	r = sd_event_add_io(s->event, &c->io, fd, EPOLLIN, on_client_io, c);
	if (r >= 0)
		r = sd_event_source_set_priority(c->io, CLIENT_PRIORITY);
	if (r < 0)
		goto fail;
	c->in_progress = c->out_progress = c->active = server_now(s);
	r = sd_event_add_time(s->event, &c->timer, CLOCK_MONOTONIC, c->active + s->cfg.idle_timeout_usec, 0,
			      on_client_timer, c);
	if (r < 0)
		goto fail;
	c->peer = *peer;
	*peer = (struct auth_peer){ .pidfd = -1 };
	if (c->budget >= 0)
		s->budgets[c->budget].clients++;
	c->unprivileged_slot = !privileged;
	s->unprivileged += !privileged;
	c->next = s->clients;
	if (c->next)
		c->next->prev = c;
	s->clients = c;
	s->stats.clients++;
	s->stats.accepted++;
	return 0;
fail:
	sd_event_source_disable_unref(c->io);
	vl_buffer_free(c->in);
	free(c);
	return r;
}

/* The reason a connection is turned away, as the answer to whatever the
 * client asks first (a stream socket keeps it past the close). Best
 * effort: a socket whose buffer is full gets none. */
static void refuse(int fd, const char *why)
{
	char msg[160];
	int n = snprintf(msg, sizeof(msg),
			 "{\"error\":\"io.coresched.LimitReached\",\"parameters\":{\"what\":\"%s (MaxClients=, "
			 "MaxClientsPerUser=)\"}}",
			 why);

	if (n > 0 && (size_t)n < sizeof(msg))
		(void)send(fd, msg, (size_t)n + 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Closing at once keeps the listening socket from staying readable. */
static void client_admit(struct control_server *s, int fd)
{
	struct auth_peer peer = { .uid = (uid_t)-1, .pidfd = -1 };
	const char *why = NULL;
	bool privileged = false;
	int r;

	if (auth_peer_snapshot(fd, &peer) < 0) {
		why = "no peer credentials";
	} else {
		/* keep one shared slot */
		unsigned reserved = s->cfg.reserved_clients < s->cfg.max_clients ? s->cfg.reserved_clients
										  : s->cfg.max_clients - 1;
		struct auth_slots slots = { s->cfg.max_clients, s->cfg.max_clients_per_uid, reserved };
		struct auth_census now = { s->stats.clients, s->unprivileged, 0 };

		privileged = server_privileged(s, &peer);
		if (!privileged)
			now.of_uid = clients_of_uid(s, peer.uid);
		why = auth_admit(&slots, &now, privileged);
		if (!why && (r = client_new(s, fd, &peer, privileged)) < 0)
			why = r == -EUSERS ? "too many users" : "out of memory";
	}
	if (!why)
		return;
	s->stats.rejected++;
	if (control_ratelimit(s))
		control_log(s, LOG_WARNING, "control: refusing client pid %d uid %u: %s",
			    (int)peer.pid, (unsigned)peer.uid, why);
	auth_peer_done(&peer);
	refuse(fd, why);
	close(fd);
}

static int on_accept_retry(sd_event_source *src, uint64_t usec, void *userdata)
{
	struct control_server *s = userdata;

	(void)src;
	(void)usec;
	return sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
}

/* Out of descriptors or memory: the pending connection stays queued and
 * the socket readable, so stop polling it for a while instead of spinning. */
static void server_pause_accept(struct control_server *s, int error)
{
	int r;

	if (control_ratelimit(s))
		control_log(s, LOG_ERR, "control: accept failed: %s, pausing", strerror(error));
	r = sd_event_source_set_enabled(s->listen_source, SD_EVENT_OFF);
	if (r >= 0 && !s->retry_source)
		r = sd_event_add_time_relative(s->event, &s->retry_source, CLOCK_MONOTONIC,
					       ACCEPT_RETRY_USEC, 0, on_accept_retry, s);
	else if (r >= 0)
		r = sd_event_source_set_time_relative(s->retry_source, ACCEPT_RETRY_USEC);
	if (r >= 0)
		r = sd_event_source_set_enabled(s->retry_source, SD_EVENT_ONESHOT);
	if (r < 0) /* without a retry timer, keep polling rather than go deaf */
		(void)sd_event_source_set_enabled(s->listen_source, SD_EVENT_ON);
}

static int on_listen(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	struct control_server *s = userdata;

	(void)src;
	(void)revents;
	for (int i = 0; i < ACCEPTS_PER_WAKEUP; i++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (cfd >= 0) {
			client_admit(s, cfd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO)
			continue;
		if (errno != EAGAIN)
			server_pause_accept(s, errno);
		break;
	}
	return 0;
}

static void config_defaults(struct control_config *c)
{
	if (!c->max_clients)
		c->max_clients = DEFAULT_MAX_CLIENTS;
	if (!c->max_clients_per_uid)
		c->max_clients_per_uid = DEFAULT_MAX_CLIENTS_PER_UID;
	if (!c->read_deadline_usec)
		c->read_deadline_usec = DEFAULT_READ_DEADLINE_USEC;
	if (!c->max_output_bytes)
		c->max_output_bytes = DEFAULT_MAX_OUTPUT_BYTES;
	if (!c->reserved_clients)
		c->reserved_clients = DEFAULT_RESERVED_CLIENTS;
	if (!c->idle_timeout_usec)
		c->idle_timeout_usec = DEFAULT_IDLE_TIMEOUT_USEC;
	if (!c->client_cost_rate)
		c->client_cost_rate = DEFAULT_CLIENT_COST_RATE;
	if (!c->client_cost_burst)
		c->client_cost_burst = DEFAULT_CLIENT_COST_BURST;
	if (!c->total_cost_rate)
		c->total_cost_rate = DEFAULT_TOTAL_COST_RATE;
	if (!c->total_cost_burst)
		c->total_cost_burst = DEFAULT_TOTAL_COST_BURST;
	if (!c->uid_cost_rate)
		c->uid_cost_rate = DEFAULT_UID_COST_RATE;
	if (!c->uid_cost_burst)
		c->uid_cost_burst = DEFAULT_UID_COST_BURST;
	if (!c->version)
		c->version = VERSION;
	if (!c->url)
		c->url = "";
}

static int server_listen(struct control_server *s, const struct control_config *cfg)
{
	bool ours = cfg->listen_fd <= 0;
	int fd = cfg->listen_fd, r;

	r = ours ? control_socket_bind(cfg->socket_path, &fd) : control_socket_adopt(fd);
	if (r < 0)
		return r;
	if (ours && !(s->bound_path = strdup(cfg->socket_path)))
		r = -ENOMEM;
	if (r >= 0)
		r = sd_event_add_io(s->event, &s->listen_source, fd, EPOLLIN, on_listen, s);
	/* A flood of connects costs the loop as requests do: after the events. */
	if (r >= 0)
		r = sd_event_source_set_priority(s->listen_source, CLIENT_PRIORITY);
	if (r < 0) {
		if (ours) { /* undo the bind; an adopted socket stays the caller's */
			close(fd);
			unlink(cfg->socket_path);
			free(s->bound_path);
			s->bound_path = NULL;
		}
		return r;
	}
	s->listen_fd = fd;
	return 0;
}

int control_new(sd_event *e, const struct control_config *cfg,
		const struct control_method *methods, size_t n_methods, void *userdata,
		struct control_server **ret)
{
	struct control_server *s;
	int r;

	if (!e || !cfg || (cfg->listen_fd <= 0 && !cfg->socket_path))
		return -EINVAL;
	for (size_t i = 0; i < n_methods; i++)
		if (!methods[i].fn || !vl_method_name_valid(methods[i].name))
			return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->event = sd_event_ref(e);
	s->listen_fd = -1;
	s->cfg = *cfg;
	config_defaults(&s->cfg);
	s->methods = methods;
	s->n_methods = n_methods;
	s->userdata = userdata;
	s->n_budgets = s->cfg.max_clients;
	s->budgets = calloc(s->n_budgets, sizeof(*s->budgets));
	r = s->budgets ? server_listen(s, cfg) : -ENOMEM;
	if (r < 0) {
		control_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

struct control_server *control_free(struct control_server *s)
{
	if (!s)
		return NULL;
	while (s->clients)
		client_free(s->clients);
	sd_event_source_disable_unref(s->listen_source);
	sd_event_source_disable_unref(s->retry_source);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->bound_path)
		unlink(s->bound_path);
	free(s->bound_path);
	sd_event_unref(s->event);
	free(s->budgets);
	free(s);
	return NULL;
}

int control_set_limits(struct control_server *s, unsigned max_clients, unsigned max_clients_per_uid,
		       uint64_t idle_timeout_usec)
{
	if (max_clients > s->n_budgets) {
		struct uid_budget *b = reallocarray(s->budgets, max_clients, sizeof(*b));

		if (!b)
			return -ENOMEM;
		memset(b + s->n_budgets, 0, (max_clients - s->n_budgets) * sizeof(*b));
		s->budgets = b;
		s->n_budgets = max_clients;
	}
	if (max_clients)
		s->cfg.max_clients = max_clients;
	if (max_clients_per_uid)
		s->cfg.max_clients_per_uid = max_clients_per_uid;
	if (idle_timeout_usec)
		s->cfg.idle_timeout_usec = idle_timeout_usec;
	/* Each client's next deadline, by the new timeout. Only the timer:
	 * this runs inside a client's own callback (a Reload). */
	for (struct client *c = s->clients; c; c = c->next) {
		const char *why;

		(void)sd_event_source_set_time(c->timer, client_due(c, &why));
	}
	return 0;
}

void control_get_stats(const struct control_server *s, struct control_stats *ret)
{
	*ret = s->stats;
}
