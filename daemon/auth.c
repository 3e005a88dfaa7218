// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* struct ucred */
#include "auth.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procinfo.h"

/* One row per method: the privilege it needs and what it costs an
 * unprivileged client. Costs are relative: a cheap query is 1, a walk
 * over every tracked task 10, a configuration parse (NSS enumeration
 * included) 100; placing a process (a pidfd, several /proc reads, the
 * target's credentials, prctl) costs about what a walk of a few hundred
 * tasks does, so a call pays for each process it names. */
static const struct auth_method methods[] = {
	{ "org.varlink.service.GetInfo", AUTH_ANYONE, 1, 0 },
	{ "org.varlink.service.GetInterfaceDescription", AUTH_ANYONE, 1, 0 },
	{ "io.coresched.Status", AUTH_ANYONE, 4, 0 },
	{ "io.coresched.Stats", AUTH_ANYONE, 5, 0 },
	{ "io.coresched.Explain", AUTH_ANYONE, 5, 0 },
	{ "io.coresched.ListGroups", AUTH_ANYONE, 10, 0 },
	/* An unprivileged caller's list reads the credentials of up to 512
	 * of its processes (a /proc read each): about a parse's worth. */
	{ "io.coresched.ListProcesses", AUTH_ANYONE, 80, 0 },
	{ "io.coresched.CheckConfig", AUTH_ANYONE, 100, 0 },
	{ "io.coresched.Run", AUTH_ALLOWED, 10, 0 },
	{ "io.coresched.Assign", AUTH_ALLOWED, 2, 2 },
	{ "io.coresched.Clear", AUTH_PRIVILEGED, 2, 2 },
	{ "io.coresched.Reload", AUTH_PRIVILEGED, 100, 0 },
	{ "io.coresched.AssignContainer", AUTH_PRIVILEGED, 5, 0 },
	{ "io.coresched.OpenSession", AUTH_ROOT, 5, 0 },
	{ "io.coresched.LeaveSession", AUTH_ROOT, 5, 0 },
};

const struct auth_method *auth_method(const char *name)
{
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return &methods[i];
	return NULL;
}

const char *auth_call_needs(const char *name, uid_t uid, bool privileged)
{
	const struct auth_method *m = auth_method(name);
	enum auth_need need = m ? m->need : AUTH_ROOT;

	if (need == AUTH_ROOT && uid != 0)
		return "root";
	if (need == AUTH_PRIVILEGED && !privileged)
		return "root or a member of ControlGroup=";
	return NULL;
}

unsigned auth_method_cost(const char *name)
{
	const struct auth_method *m = auth_method(name);

	return m ? m->cost : 1;
}

unsigned auth_call_cost(const char *name, size_t n_targets)
{
	const struct auth_method *m = auth_method(name);
	uint64_t c = m ? m->cost + (uint64_t)m->per_target * n_targets : 1;

	return c > UINT32_MAX ? UINT32_MAX : (unsigned)c;
}

/* ---- the caller ---- */

static int peer_groups(int fd, struct auth_peer *p)
{
	socklen_t len = AUTH_MAX_GROUPS * sizeof(gid_t);
	gid_t *g = NULL;
	int r;

	/* Twice at most: the kernel says how much room more groups need. */
	for (int i = 0; i < 2; i++) {
		gid_t *n = realloc(g, len ? len : sizeof(gid_t));

		if (!n) {
			free(g);
			return -ENOMEM;
		}
		g = n;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
			p->groups = g;
			p->n_groups = len / sizeof(gid_t);
			return 0;
		}
		if (errno != ERANGE || len > NGROUPS_MAX * sizeof(gid_t))
			break;
	}
	r = errno;
	free(g);
	/* ENOPROTOOPT: a kernel before 4.13; judged on the primary group. */
	return r == ENOPROTOOPT ? 0 : -r;
}

/* Is theirs (a stat of a process's /proc/PID/ns/KIND) another namespace
 * of that kind than the daemon's own? False when that cannot be told. */
static bool ns_other_than_mine(const char *kind, const struct stat *theirs)
{
	struct stat mine;
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/ns/%s", kind);
	return stat(path, &mine) == 0 && (mine.st_ino != theirs->st_ino || mine.st_dev != theirs->st_dev);
}

/* The peer is in another pid namespace than the daemon: the pids in its
 * requests name other processes than it means. Read while its pidfd
 * shows it alive, so that the namespace read was its own; false when that
 * cannot be told. */
static bool peer_pidns_foreign(pid_t pid, int pidfd)
{
	struct stat theirs;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &theirs) < 0 || procinfo_pidfd_exited(pidfd))
		return false;
	return ns_other_than_mine("pid", &theirs);
}

static void read_userns(const char *proc_root, pid_t pid, struct auth_creds *c);

/* The peer's user namespace and capabilities, read while its pidfd shows
 * it alive (so that what was read was its own). */
static void peer_userns(struct auth_peer *p)
{
	struct auth_creds cr;

	if (p->pidfd < 0 || auth_read_creds("/proc", p->pid, &cr) < 0 || procinfo_pidfd_exited(p->pidfd) ||
	    !cr.userns_known)
		return;
	p->userns_known = true;
	p->userns_mine = !cr.userns_other;
	p->userns_dev = cr.userns_dev;
	p->userns_ino = cr.userns_ino;
	p->cap_prm = cr.cap_prm;
}

int auth_peer_snapshot(int fd, struct auth_peer *ret)
{
	struct auth_peer p = { .pidfd = -1 };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int r;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return -errno;
	p.uid = cred.uid;
	p.gid = cred.gid;
	p.pid = cred.pid;
	r = peer_groups(fd, &p);
	if (r < 0)
		return r;
	len = sizeof(p.pidfd);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &p.pidfd, &len) < 0) {
		p.pidfd = -1;
		/* EINVAL: the kernel has the peer's pid and the process has
		 * exited; its number may name another process by now. */
		if (errno == EINVAL)
			p.gone = true;
		else if (errno != ENOPROTOOPT) {
			r = -errno;
			auth_peer_done(&p);
			return r;
		} else if (p.pid > 0) {
			p.pidfd = (int)syscall(SYS_pidfd_open, p.pid, 0);
			p.gone = p.pidfd < 0 && errno == ESRCH; /* exited already */
		}
	}
	if (p.pidfd >= 0)
		(void)fcntl(p.pidfd, F_SETFD, FD_CLOEXEC);
	/* Newer kernels give a pidfd even of a peer already reaped (it reads
	 * as exited): gone as well. */
	if (p.pidfd >= 0 && procinfo_pidfd_exited(p.pidfd)) {
		close(p.pidfd);
		p.pidfd = -1;
		p.gone = true;
	}
	p.pidns_foreign = p.pidfd >= 0 && peer_pidns_foreign(p.pid, p.pidfd);
	peer_userns(&p);
	*ret = p;
	return 0;
}

void auth_peer_done(struct auth_peer *p)
{
	if (p->pidfd >= 0)
		close(p->pidfd);
	p->pidfd = -1;
	free(p->groups);
	p->groups = NULL;
	p->n_groups = 0;
}

bool auth_in_group(const struct auth_peer *p, gid_t gid)
{
	if (p->gid == gid)
		return true;
	for (size_t i = 0; i < p->n_groups; i++)
		if (p->groups[i] == gid)
			return true;
	return false;
}

bool auth_privileged(const struct auth_peer *p, const struct daemon_settings *d)
{
	return p->uid == 0 || (d->has_control_gid && auth_in_group(p, d->control_gid));
}

bool auth_may_name_config_dir(const struct auth_peer *p)
{
	return p->uid == 0;
}

bool auth_group_allows(const struct group *g, const struct auth_peer *p)
{
	for (size_t i = 0; i < g->n_allow_uids; i++)
		if (g->allow_uids[i] == p->uid)
			return true;
	for (size_t i = 0; i < g->n_allow_gids; i++)
		if (auth_in_group(p, g->allow_gids[i]))
			return true;
	return false;
}

/* ---- the target ---- */

static int parse_ids(const char *line, unsigned long v[4])
{
	char *end;

	for (int i = 0; i < 4; i++) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line < '0' || *line > '9')
			return -EBADMSG;
		errno = 0;
		v[i] = strtoul(line, &end, 10);
		if (errno || v[i] > UINT32_MAX)
			return -EBADMSG;
		line = end;
	}
	return 0;
}

/* The CapPrm: line; every capability when it is missing or unreadable,
 * or cut short: the kernel ends it with a newline, and a status longer
 * than the buffer read (many groups come before it) may end inside it,
 * where "0000" would read as no capability at all. */
static uint64_t parse_cap_prm(const char *text)
{
	const char *l = strstr(text, "\nCapPrm:");
	unsigned long long v;
	char *end;

	if (!l)
		return UINT64_MAX;
	l += 8;
	while (*l == ' ' || *l == '\t')
		l++;
	if (!((*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f')))
		return UINT64_MAX;
	errno = 0;
	v = strtoull(l, &end, 16);
	return errno || *end != '\n' ? UINT64_MAX : (uint64_t)v;
}

int auth_parse_status(const char *text, struct auth_creds *ret)
{
	unsigned long u[4], g[4];
	const char *ul = strstr(text, "\nUid:"), *gl = strstr(text, "\nGid:");

	if (strncmp(text, "Uid:", 4) == 0)
		ul = text - 1;
	if (!ul || !gl || parse_ids(ul + 5, u) < 0 || parse_ids(gl + 5, g) < 0)
		return -EBADMSG;
	for (int i = 0; i < 4; i++) {
		ret->uid[i] = (uid_t)u[i];
		ret->gid[i] = (gid_t)g[i];
	}
	ret->cap_prm = parse_cap_prm(text);
	ret->no_new_privs = strstr(text, "\nNoNewPrivs:\t1") != NULL;
	return 0;
}

/* Whether pid lives in a user namespace other than the daemon's, and
 * whose uid owns it (as the daemon's namespace sees that uid); and the
 * namespaces from its up to the daemon's, each with its owner. */
static void read_userns(const char *proc_root, pid_t pid, struct auth_creds *c)
{
	char path[256];
	struct stat theirs, mine;
	uid_t owner;
	int fd;

	c->userns_other = false;
	c->userns_known = false;
	c->n_userns_up = 0;
	snprintf(path, sizeof(path), "%s/%d/ns/user", proc_root, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &theirs) == 0) {
		c->userns_known = true;
		c->userns_dev = theirs.st_dev;
		c->userns_ino = theirs.st_ino;
	}
	if (c->userns_known && ns_other_than_mine("user", &theirs) && ioctl(fd, NS_GET_OWNER_UID, &owner) == 0) {
		c->userns_other = true;
		c->userns_owner = owner;
	}
	if (c->userns_known && stat("/proc/self/ns/user", &mine) == 0)
		for (struct stat st = theirs; c->n_userns_up <= AUTH_USERNS_DEPTH;) {
			struct auth_userns *u = &c->userns_up[c->n_userns_up++];
			int parent;

			u->dev = st.st_dev;
			u->ino = st.st_ino;
			u->owner = (uid_t)-1;
			if (st.st_dev == mine.st_dev && st.st_ino == mine.st_ino)
				break;
			if (ioctl(fd, NS_GET_OWNER_UID, &u->owner) < 0)
				break;
			parent = ioctl(fd, NS_GET_PARENT);
			if (parent < 0)
				break;
			close(fd);
			fd = parent;
			if (fstat(fd, &st) < 0)
				break;
		}
	close(fd);
}

/* The status lines auth_parse_status() reads, each whole, from a status
 * of any length: its Groups: line alone can run to hundreds of KiB (the
 * kernel allows 65536 groups), and a read of the first few KiB would end
 * before CapPrm: for a user in a few hundred groups, who could then never
 * be judged to hold no capabilities. Other lines are skipped unread. */
#define STATUS_READ_MAX (4u << 20)

static bool wanted_line(const char *l, size_t n)
{
	return (n >= 4 && (memcmp(l, "Uid:", 4) == 0 || memcmp(l, "Gid:", 4) == 0)) ||
	       (n >= 7 && memcmp(l, "CapPrm:", 7) == 0) || (n >= 11 && memcmp(l, "NoNewPrivs:", 11) == 0);
}

static int read_status_lines(int fd, char *out, size_t size)
{
	char chunk[4096], line[256];
	size_t used = 0, len = 0, total = 0;
	bool skip = false; /* inside a line too long to be one we want */
	ssize_t n;

	out[0] = '\0';
	while ((n = read(fd, chunk, sizeof(chunk))) > 0 && (total += (size_t)n) <= STATUS_READ_MAX)
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				if (len < sizeof(line))
					line[len++] = chunk[i];
				else
					skip = true;
				continue;
			}
			if (!skip && wanted_line(line, len) && used + len + 2 < size) {
				out[used++] = '\n'; /* so that each reads as "\nUid:" */
				memcpy(out + used, line, len);
				used += len;
				out[used] = '\0';
			}
			len = 0;
			skip = false;
		}
	if (n < 0)
		return -errno;
	/* A last line without its newline is left out: cut short. */
	return 0;
}

int auth_read_creds(const char *proc_root, pid_t pid, struct auth_creds *ret)
{
	char path[256], buf[1024];
	struct auth_creds c;
	struct stat st;
	int fd, r;

	snprintf(path, sizeof(path), "%s/%d/status", proc_root, (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	/* The kernel gives a non-dumpable task's files (not its directory,
	 * which stays the euid's for ps) to root. */
	r = fstat(fd, &st) < 0 ? -errno : read_status_lines(fd, buf, sizeof(buf));
	close(fd);
	if (r < 0)
		return r == -ENOENT ? -ESRCH : r;
	/* Each kept line ends where the next begins: the parser wants the
	 * CapPrm: value's newline. */
	if (strlen(buf) + 1 < sizeof(buf))
		strcat(buf, "\n");
	r = auth_parse_status(buf, &c);
	if (r < 0)
		return r;
	c.proc_owner = st.st_uid;
	read_userns(proc_root, pid, &c);
	*ret = c;
	return 0;
}

int auth_may_act_on(uid_t uid, gid_t gid, const struct auth_creds *t)
{
	for (int i = 0; i < 3; i++)
		if (t->uid[i] != uid || t->gid[i] != gid)
			return -EPERM;
	if (t->proc_owner != uid)
		return -EPERM;
	/* cap_ptrace_access_check(): the target's permitted capabilities
	 * within the caller's (an unprivileged caller has none), unless the
	 * caller owns the user namespace the target holds them in. */
	if (t->cap_prm != 0 && !(t->userns_other && t->userns_owner == uid))
		return -EPERM;
	return 0;
}

int auth_peer_may_act_on(const struct auth_peer *p, const struct auth_creds *t)
{
	if (auth_may_act_on(p->uid, p->gid, t) < 0 || !p->userns_known || !t->userns_known)
		return -EPERM;
	/* cap_ptrace_access_check(): in the caller's own namespace, what the
	 * target holds must be within what it held (in the daemon's, none:
	 * auth_may_act_on()) ... */
	if (p->userns_dev == t->userns_dev && p->userns_ino == t->userns_ino)
		return p->userns_mine || !(t->cap_prm & ~p->cap_prm) ? 0 : -EPERM;
	/* ... and below it, the namespace between must be the caller's
	 * (cap_capable(): its parent the caller's, its owner the caller's
	 * euid). */
	for (unsigned i = 1; i < t->n_userns_up; i++)
		if (t->userns_up[i].dev == p->userns_dev && t->userns_up[i].ino == p->userns_ino)
			return t->userns_up[i - 1].owner == p->uid ? 0 : -EPERM;
	return -EPERM; /* above it, beside it, or not known */
}

bool auth_may_see(const struct auth_peer *p, pid_t pid)
{
	struct auth_creds cr;

	return auth_read_creds("/proc", pid, &cr) == 0 && auth_peer_may_act_on(p, &cr) == 0;
}

bool auth_placed_by_other(const struct task *t, uid_t uid)
{
	return t && ((t->key && engine_origin_explicit(t->origin)) || t->cleared) && t->placer != uid;
}

/* ---- capacity and cost ---- */

const char *auth_admit(const struct auth_slots *l, const struct auth_census *now, bool privileged)
{
	unsigned shared = l->max_clients > l->reserved ? l->max_clients - l->reserved : 1;

	if (now->total >= l->max_clients)
		return "too many clients";
	if (privileged)
		return NULL;
	if (now->unprivileged >= shared)
		return "too many unprivileged clients";
	if (now->of_uid >= l->max_per_uid)
		return "too many clients for its uid";
	return NULL;
}

uint64_t auth_bucket_take(struct auth_bucket *b, unsigned cost, unsigned rate, unsigned burst,
			  uint64_t now_usec)
{
	uint64_t want = (uint64_t)(cost < burst ? cost : burst) * 1000, cap = (uint64_t)burst * 1000;

	if (!b->started) {
		b->started = true;
		b->tokens_milli = cap;
		b->last_usec = now_usec;
	}
	if (now_usec > b->last_usec) {
		uint64_t add = (now_usec - b->last_usec) * rate / 1000;

		if (add > 0) { /* else keep the time: frequent calls must not lose it */
			b->tokens_milli = b->tokens_milli + add > cap ? cap : b->tokens_milli + add;
			b->last_usec = now_usec;
		}
	}
	if (b->tokens_milli >= want) {
		b->tokens_milli -= want;
		return 0;
	}
	return rate ? ((want - b->tokens_milli) * 1000 + rate - 1) / rate : UINT64_MAX;
}
