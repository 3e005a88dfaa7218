/* SPDX-License-Identifier: GPL-2.0-or-later */
/* coreschedd's control socket: a varlink server on the daemon's sd-event
 * loop. It owns the wire (framing, limits, deadlines, built-in
 * org.varlink.service methods) and calls a table of handlers for the
 * io.coresched methods. Nothing a client does can block the loop: every
 * socket is non-blocking and every per-client resource has a limit. */
#pragma once

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

#include "auth.h"

#define CONTROL_INTERFACE "io.coresched"
#define CONTROL_ERROR_INTERNAL "io.coresched.InternalError"
#define CONTROL_ERROR_PERMISSION "io.coresched.PermissionDenied"

/* Who is calling, as the kernel recorded it at connect time (see
 * auth.h): authorization is by uid and groups, and Run acts on exactly
 * the connecting process through its pidfd. */
struct control_caller {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	int fd;
	const struct auth_peer *peer;
	bool privileged; /* judged again for each request */
};

struct control_error {
	const char *name;    /* static, e.g. "io.coresched.NoSuchGroup" */
	json_object *params; /* optional; ownership passes to the server */
};

/* Returns >= 0 with *ret_reply (parameters; NULL means {}; ownership
 * passes), or < 0 with ret_error->name set. A negative return without a
 * name is answered as io.coresched.InternalError with the errno text. */
typedef int (*control_handler)(void *userdata, const struct control_caller *caller,
			       json_object *params, json_object **ret_reply,
			       struct control_error *ret_error);

struct control_method {
	const char *name; /* full name: "io.coresched.Status" */
	control_handler fn;
};

/* Zero means the default for every number. */
struct control_config {
	const char *socket_path;       /* bound (0666) unless listen_fd > 0 */
	int listen_fd;                 /* already listening (socket activation); owned on success */
	unsigned max_clients;          /* default 64 */
	unsigned max_clients_per_uid;  /* unprivileged; default 16 */
	unsigned reserved_clients;     /* slots only privileged callers take; default 8 */
	uint64_t read_deadline_usec;   /* to finish a message or take a reply; default 5 s */
	uint64_t idle_timeout_usec;    /* with nothing owed either way; default 60 s */
	size_t max_output_bytes;       /* queued replies per client; default 1 MiB */
	/* Cost units (auth_method_cost()) an unprivileged client may spend per
	 * second and in one burst, all clients of one uid together, and all
	 * unprivileged clients together; defaults 50/100, 100/200 and 200/400.
	 * The shared budget serves waiting calls in the order they began to
	 * wait. Privileged callers are not charged. */
	unsigned client_cost_rate, client_cost_burst;
	unsigned uid_cost_rate, uid_cost_burst;
	unsigned total_cost_rate, total_cost_burst;
	/* Root or a delegate? NULL: uid 0 only. Asked at accept and before
	 * each request, so a reload that changes the answer takes effect. */
	bool (*privileged)(void *userdata, const struct auth_peer *peer);
	const char *version;           /* GetInfo; default VERSION */
	const char *url;               /* GetInfo; default "" */
	const char *interface_description; /* varlink IDL of io.coresched */
	void (*log)(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
	/* After a method ran and before its answer is queued (the server's
	 * userdata): what the answer reports must be done by then. */
	void (*before_answer)(void *userdata);
};

struct control_stats {
	unsigned clients;         /* connected now */
	uint64_t accepted;        /* connections served */
	uint64_t rejected;        /* closed at accept: over a client limit */
	uint64_t protocol_errors; /* undecodable or oversized messages */
	uint64_t dropped;         /* closed for a missed deadline, idleness or unread output */
	uint64_t throttled;       /* requests held back for their cost */
};

struct control_server;

int control_new(sd_event *e, const struct control_config *cfg,
		const struct control_method *methods, size_t n_methods, void *userdata,
		struct control_server **ret);
/* Closes every client; unlinks the socket only if control_new() bound it. */
struct control_server *control_free(struct control_server *s);

/* New limits, on a reload (0 keeps one): clients already connected stay,
 * those accepted from now on are admitted by the new numbers, and every
 * client's idle deadline is the new timeout from its last activity. */
int control_set_limits(struct control_server *s, unsigned max_clients, unsigned max_clients_per_uid,
		       uint64_t idle_timeout_usec);

void control_get_stats(const struct control_server *s, struct control_stats *ret);

/* Varlink IDL for GetInterfaceDescription (control-idl.c): io.coresched,
 * which the daemon passes in its config, and the built-in
 * org.varlink.service. */
extern const char control_interface_description[];
extern const char control_service_description[];
