/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who may do what on the control socket. The socket is world-connectable,
 * so every decision about an unprivileged caller is one the kernel would
 * make itself: the caller is known by what the kernel recorded at connect
 * time (credentials, supplementary groups, a pidfd), never by a pid looked
 * up later; a target process is judged as ptrace_may_access() with
 * PTRACE_MODE_READ_REALCREDS judges it for PR_SCHED_CORE_SHARE_TO. Every
 * method has one row here: its privilege and its cost. The rest is pure
 * logic for the unit tests, except the two readers named below. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "conf.h"
#include "engine.h"

/* Linux 6.5; older headers lack it. */
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

/* Room for supplementary groups asked for first; a caller with more
 * (up to NGROUPS_MAX, 65536) gets a second, exact read. */
#define AUTH_MAX_GROUPS 256

/* The peer as the kernel recorded it at connect(). */
struct auth_peer {
	uid_t uid;       /* effective uid at connect (SO_PEERCRED) */
	gid_t gid;       /* effective gid at connect */
	pid_t pid;
	int pidfd;       /* of exactly the connecting process, or -1 */
	bool gone;       /* it had exited when the connection was accepted: pid may name another */
	bool pidns_foreign; /* in another pid namespace: the pids it names are not the daemon's */
	/* In the daemon's user namespace, read while its pidfd showed it
	 * alive; false also where that could not be told (gone, no pidfd). */
	bool userns_mine;
	bool userns_known;  /* else: which namespace it is in is not known */
	dev_t userns_dev;   /* its user namespace ... */
	ino_t userns_ino;
	uint64_t cap_prm;   /* ... and its permitted capabilities there, at connect */
	gid_t *groups;   /* supplementary (SO_PEERGROUPS), owned */
	size_t n_groups;
};

/* Reads the peer of a connected unix socket: SO_PEERCRED, SO_PEERGROUPS
 * and SO_PEERPIDFD, falling back to pidfd_open() of the peer pid on a
 * kernel without SO_PEERPIDFD (then a pid reused between connect and
 * accept would be named, a window the kernel's own pidfd closes). A peer
 * that has exited by then is marked gone, never looked up by its pid. */
int auth_peer_snapshot(int fd, struct auth_peer *ret);
void auth_peer_done(struct auth_peer *p);

/* The primary or a supplementary group. */
bool auth_in_group(const struct auth_peer *p, gid_t gid);
/* Root, or a member of [Daemon] ControlGroup=. */
bool auth_privileged(const struct auth_peer *p, const struct daemon_settings *d);
/* May the caller have the daemon parse a configuration directory it
 * names (CheckConfig's dir)? Root only: the daemon reads it as root, and
 * its errors quote the lines they are about, so a delegate (ControlGroup=)
 * could read a file it may not (a link to /etc/shadow) through them. */
bool auth_may_name_config_dir(const struct auth_peer *p);
/* AllowUsers= names the uid, or AllowGroups= one of its groups. */
bool auth_group_allows(const struct group *g, const struct auth_peer *p);

/* A target's credentials: real, effective, saved (and fs, unused). */
/* How deep user namespaces nest (the kernel's limit). */
#define AUTH_USERNS_DEPTH 32

struct auth_creds {
	uid_t uid[4];
	gid_t gid[4];
	uid_t proc_owner;  /* owner of /proc/PID/status: root when not dumpable */
	uint64_t cap_prm;  /* permitted capabilities; all when unknown */
	bool no_new_privs; /* NoNewPrivs: 1 (no exec gains privilege) */
	bool userns_other; /* in a user namespace other than the daemon's ... */
	uid_t userns_owner; /* ... which this uid owns */
	bool userns_known;  /* the namespace it is in: */
	dev_t userns_dev;
	ino_t userns_ino;
	/* Its namespace ([0]) and each parent in turn, up to and with the
	 * daemon's when n_userns_up reaches it: the kernel lets a caller act
	 * on a process of a namespace below its own only where it owns the
	 * one between (ns_capable()). */
	unsigned n_userns_up;
	struct auth_userns {
		dev_t dev;
		ino_t ino;
		uid_t owner; /* as the daemon's namespace sees the uid */
	} userns_up[AUTH_USERNS_DEPTH + 1];
};

/* The Uid: and Gid: lines of /proc/PID/status, all four numbers each.
 * -EBADMSG for anything else. */
int auth_parse_status(const char *text, struct auth_creds *ret);
/* Reads proc_root/PID/status and its owner. Called from inside
 * engine_place()'s authorize(), while the engine holds the target's pidfd,
 * so what it reads is the process acted on, and by the engine's may_act
 * (an unprivileged placement, judged again at an exec, an id change or a
 * repair). */
int auth_read_creds(const char *proc_root, pid_t pid, struct auth_creds *ret);
/* PTRACE_MODE_READ_REALCREDS for an unprivileged caller: its uid equals
 * the target's real, effective and saved uid, its gid the target's real,
 * effective and saved gid, the target is dumpable (its /proc files are
 * owned by the caller's uid, not by root), and it holds no permitted
 * capability (the caller is taken to hold none) unless in a user
 * namespace the caller owns. 0 or -EPERM. */
int auth_may_act_on(uid_t uid, gid_t gid, const struct auth_creds *t);
/* The same for an unprivileged peer as it connected, which may be in
 * another user namespace than the daemon (a rootless container's, a
 * sandbox's sharing the host's pids): the kernel lets such a caller act
 * only where its own namespace holds the target's capabilities
 * (cap_ptrace_access_check()), never on a process of the namespaces
 * above, the daemon's included, whatever its uid. One here may act only on
 * processes of its own user namespace whose permitted capabilities it
 * held at connect, or of a namespace below its own where it owns the
 * one between, as the kernel allows. Any caller, the daemon's own
 * namespace's included, may act on a process of another namespace only
 * so: not on one of its uid in a namespace root made (a service's
 * PrivateUsers=). A peer, or a target, whose namespace could not be read
 * is taken as in another, unknown one: it may act on no one. 0 or
 * -EPERM. */
int auth_peer_may_act_on(const struct auth_peer *p, const struct auth_creds *t);
/* May the (unprivileged) peer see pid's details (its program, its cookie)
 * through the daemon? Where the kernel would show them to it:
 * auth_peer_may_act_on() of pid's creds, read now. A program it started
 * that took other ids (setuid) is not its own, as the kernel counts. */
bool auth_may_see(const struct auth_peer *p, pid_t pid);

/* An explicit placement (assign, run, hook, or inherited from one), or a
 * clear (coresched clear, a trusted container), made by someone other
 * than uid: an unprivileged caller may not undo it. */
bool auth_placed_by_other(const struct task *t, uid_t uid);

enum auth_need {
	AUTH_ANYONE,     /* answered to everyone; views filtered for the unprivileged */
	AUTH_ALLOWED,    /* unprivileged: own processes into groups that allow them */
	AUTH_PRIVILEGED, /* root or ControlGroup= only */
	AUTH_ROOT,       /* uid 0 only: acts for another user, as a login does */
};

struct auth_method {
	const char *name;
	enum auth_need need;
	unsigned cost;       /* units charged to an unprivileged client per call */
	unsigned per_target; /* and per process the call names ("pids") */
};

/* The row for a full method name; NULL for names not in the table
 * (answered MethodNotFound at no more than the minimum cost, as is a
 * call that does not decode). */
const struct auth_method *auth_method(const char *name);
/* May a caller (uid; privileged: root or a member of ControlGroup=) call
 * the method name, which the daemon has? NULL if so; else what the call
 * needs, for the refusal ("root"). A method the table has no row for
 * needs root: one added without a row is refused, not open. */
const char *auth_call_needs(const char *name, uid_t uid, bool privileged);
/* The cost of a call: its row's, or 1 for an unknown name. */
unsigned auth_method_cost(const char *name);
/* And of one that names n_targets processes: each is read and acted on. */
unsigned auth_call_cost(const char *name, size_t n_targets);

/* Admission at accept. Unprivileged clients share max_clients minus
 * reserved slots, at most max_per_uid each; privileged ones may use every
 * slot, so they never wait on unprivileged ones. */
struct auth_slots {
	unsigned max_clients, max_per_uid, reserved;
};
struct auth_census {
	unsigned total, unprivileged, of_uid;
};
/* NULL to admit, else why not. */
const char *auth_admit(const struct auth_slots *l, const struct auth_census *now, bool privileged);

/* A token bucket of cost units: rate per second, up to burst. */
struct auth_bucket {
	uint64_t tokens_milli; /* thousandths of a unit */
	uint64_t last_usec;
	bool started;
};
/* Takes cost and returns 0, or takes nothing and returns how many
 * microseconds until it could. A cost above burst is charged as burst. */
uint64_t auth_bucket_take(struct auth_bucket *b, unsigned cost, unsigned rate, unsigned burst,
			  uint64_t now_usec);
