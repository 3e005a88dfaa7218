// SPDX-License-Identifier: GPL-2.0-or-later
/* pam_coresched: a login session starts with its user's core-scheduling
 * cookie. pam_sm_open_session runs in the process that opens the session,
 * which then either forks the user's process (sshd's monitor, login, su,
 * runuser: the fork model) or becomes it (systemd for PAMName=: the exec
 * model). The opener asks coreschedd to place it for the user; in the fork
 * model pthread_atfork() handlers hand the opener back to the rules right
 * after each fork it makes during the session, so the child keeps the
 * cookie it inherited and the opener does not. Only libc and libpam: a
 * login must not pull in the daemon's libraries. */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "pam-args.h"

#ifndef PR_SCHED_CORE
#define PR_SCHED_CORE 62
#endif
#define SC_GET 0
#define SC_CREATE 1
#define SC_SCOPE_TGID 1

#define REPLY_MAX 16384
/* Built with -fvisibility=hidden: only what PAM calls is exported. */
#define EXPORT __attribute__((visibility("default")))

/* The session this copy of the module placed, for the fork handlers.
 * One per process: a second session opened by the same process replaces
 * it (no application does that). */
static struct {
	bool armed;       /* the opener's forks are the session's */
	bool placed;      /* the opener is in the user's key now */
	bool create;      /* no daemon, fail=new: each child makes a cookie */
	bool registered;  /* pthread_atfork() done (undone at dlclose) */
	pid_t opener;
	uid_t uid;
	gid_t gid;
	int timeout_ms;
	char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
} S;

/* ---- a varlink call: one request, one NUL-terminated reply ---- */

/* CALL_LOST: the request went out in full but no answer came (timeout,
 * reset): the daemon may have acted on it all the same. CALL_UNREACHABLE
 * also for the answer NotReady (see NOT_READY). */
enum call_result { CALL_OK, CALL_ERROR, CALL_UNREACHABLE, CALL_LOST };

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A daemon that does not accept (stopped, or stuck with its backlog
 * full) blocks connect() on a unix socket with no end: the send timeout
 * bounds it (and the sends after it). */
static int connect_to(const char *path, int timeout_ms)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct timeval tv = { .tv_sec = timeout_ms / 1000, .tv_usec = (timeout_ms % 1000) * 1000 };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* *ret_errno of a call answered NotReady (a daemon that waits for SMT to be
 * switched on), which is as good as out of reach: connect_to() reports
 * EAGAIN as ETIMEDOUT, so no errno of a call is this one. */
#define NOT_READY EAGAIN

/* Sends req (with its NUL) and reads the reply into buf. */
static enum call_result call(const char *path, int timeout_ms, const char *req, char *buf, size_t size, int *ret_errno)
{
	long long deadline = now_ms() + timeout_ms;
	size_t len = strlen(req) + 1, off = 0;
	int fd = connect_to(path, timeout_ms);
	bool sent = false;
	char what[64];

	*ret_errno = 0;
	buf[0] = 0;
	if (fd < 0) {
		*ret_errno = -fd;
		return CALL_UNREACHABLE;
	}
	while (off < len) {
		ssize_t n = send(fd, req + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		/* Closed on us: what the daemon said before it closed (a
		 * refusal, NotReady) is still there to read. */
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			break;
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				errno = ETIMEDOUT;
			goto broken;
		}
		off += (size_t)n;
	}
	sent = off == len;
	for (off = 0;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		ssize_t n;

		if (left <= 0) {
			errno = ETIMEDOUT;
			goto broken;
		}
		if (poll(&p, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			goto broken;
		}
		if (!p.revents)
			continue;
		n = recv(fd, buf + off, size - 1 - off, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ECONNRESET;
			goto broken;
		}
		off += (size_t)n;
		buf[off] = 0;
		if (memchr(buf + off - (size_t)n, 0, (size_t)n))
			break;
		if (off == size - 1) {
			errno = EMSGSIZE;
			goto broken;
		}
	}
	close(fd);
	if (!pam_args_json_string(buf, "error", what, sizeof(what)))
		return CALL_OK;
	if (strcmp(what, "io.coresched.NotReady") != 0)
		return CALL_ERROR;
	*ret_errno = NOT_READY;
	return CALL_UNREACHABLE;
broken:
	*ret_errno = errno;
	close(fd);
	return sent ? CALL_LOST : CALL_UNREACHABLE;
}

static enum call_result open_session_call(char *buf, size_t size, int *ret_errno)
{
	char req[256];

	snprintf(req, sizeof(req), "{\"method\":\"io.coresched.OpenSession\",\"parameters\":{\"uid\":%u,\"gid\":%u}}",
		 (unsigned)S.uid, (unsigned)S.gid);
	return call(S.socket, S.timeout_ms, req, buf, size, ret_errno);
}

static enum call_result leave_session_call(char *buf, size_t size, int *ret_errno)
{
	return call(S.socket, S.timeout_ms, "{\"method\":\"io.coresched.LeaveSession\",\"parameters\":{}}", buf, size,
		    ret_errno);
}

/* ---- the fork model ---- */

/* Before each fork of the opener during the session: back into the
 * user's key if a fork before this took it out. */
static void before_fork(void)
{
	char buf[REPLY_MAX];
	int e;

	if (!S.armed || S.create || S.placed || getpid() != S.opener)
		return;
	switch (open_session_call(buf, sizeof(buf), &e)) {
	case CALL_OK:
		S.placed = pam_args_json_true(buf, "placed");
		break;
	case CALL_LOST: /* maybe placed: leave after the fork all the same */
		S.placed = true;
		break;
	default:
		break;
	}
}

/* In the opener, after the fork: the child has the cookie; the opener
 * goes back to what the rules say of it. */
static void after_fork_parent(void)
{
	char buf[REPLY_MAX];
	int e;

	if (!S.armed || !S.placed || getpid() != S.opener)
		return;
	if (leave_session_call(buf, sizeof(buf), &e) == CALL_OK)
		S.placed = false;
	else
		syslog(LOG_AUTHPRIV | LOG_WARNING,
		       "pam_coresched(%d): failed to hand the session opener back to the rules (%s), ignoring.",
		       (int)getpid(), e ? strerror(e) : buf);
}

/* In the child: it keeps what it inherited, or (no daemon, fail=new)
 * makes a cookie of its own; it never acts for the session again. */
static void after_fork_child(void)
{
	bool mine = S.armed && getppid() == S.opener;

	S.armed = false;
	S.placed = false;
	if (mine && S.create && prctl(PR_SCHED_CORE, SC_CREATE, 0, SC_SCOPE_TGID, 0) < 0)
		syslog(LOG_AUTHPRIV | LOG_WARNING, "pam_coresched(%d): failed to make a core-scheduling cookie: %s",
		       (int)getpid(), strerror(errno));
}

static int arm(pam_handle_t *pamh)
{
	int r;

	S.opener = getpid();
	if (!S.registered) {
		r = pthread_atfork(before_fork, after_fork_parent, after_fork_child);
		if (r) {
			pam_syslog(pamh, LOG_ERR, "Failed to register fork handlers: %s", strerror(r));
			return -r;
		}
		S.registered = true;
	}
	S.armed = true;
	return 0;
}

/* ---- the session ---- */

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t m = strlen(suffix);

	return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* " (deleted)": a program upgraded, not re-executed yet */
static bool is_program(const char *path, size_t n, const char *name)
{
	char deleted[64];

	snprintf(deleted, sizeof(deleted), "%s (deleted)", name);
	return ends_with(path, n, name) || ends_with(path, n, deleted);
}

/* PID 1's child that has not exec'd yet, and PID 1 is systemd: systemd
 * opening a PAMName= session for a service it is about to exec. Before
 * systemd 255 that child runs PID 1's own program; since, it runs
 * systemd-executor, which PID 1 spawns to set the service up. Only
 * systemd: in a container whose PID 1 is the opener's own program (sshd
 * -D), the monitor is such a child too, and must not keep the user's key. */
static bool opener_execs(void)
{
	char self[4096], init[4096];
	ssize_t a, b;

	if (getppid() != 1)
		return false;
	a = readlink("/proc/self/exe", self, sizeof(self) - 1);
	b = readlink("/proc/1/exe", init, sizeof(init) - 1);
	if (a <= 0 || b <= 0 || !is_program(init, (size_t)b, "/systemd"))
		return false;
	if (is_program(self, (size_t)a, "/systemd-executor"))
		return true;
	return a == b && memcmp(self, init, (size_t)a) == 0;
}

static int user_ids(pam_handle_t *pamh, uid_t *ret_uid, gid_t *ret_gid)
{
	const char *user = NULL;
	struct passwd *pw;

	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || !user || !*user) {
		pam_syslog(pamh, LOG_ERR, "No user name (PAM_USER)");
		return PAM_USER_UNKNOWN;
	}
	pw = pam_modutil_getpwnam(pamh, user);
	if (!pw) {
		pam_syslog(pamh, LOG_ERR, "Unknown user '%s'", user);
		return PAM_USER_UNKNOWN;
	}
	*ret_uid = pw->pw_uid;
	*ret_gid = pw->pw_gid;
	return PAM_SUCCESS;
}

/* No daemon, fail=new: a cookie of the session's own, made by the child
 * (fork model) or by the opener that becomes the service (exec model). */
static int fresh_cookie(pam_handle_t *pamh, const struct pam_args *a, bool execs)
{
	unsigned long long c = 0;

	if (prctl(PR_SCHED_CORE, SC_GET, 0, 0, &c) < 0) {
		pam_syslog(pamh, LOG_WARNING, "No core scheduling here (%s): the session runs without a cookie",
			   errno == EINVAL ? "the kernel lacks CONFIG_SCHED_CORE" :
			   errno == ENODEV ? "SMT is absent or off" : strerror(errno));
		return PAM_SUCCESS;
	}
	if (!execs) {
		S.create = true;
		return arm(pamh) < 0 && a->fail == PAM_FAIL_CLOSED ? PAM_SESSION_ERR : PAM_SUCCESS;
	}
	if (prctl(PR_SCHED_CORE, SC_CREATE, 0, SC_SCOPE_TGID, 0) < 0) {
		pam_syslog(pamh, LOG_WARNING, "Failed to make a core-scheduling cookie: %s", strerror(errno));
		return PAM_SUCCESS;
	}
	if (a->debug)
		pam_syslog(pamh, LOG_DEBUG, "PID %d has a core-scheduling cookie of its own", (int)getpid());
	return PAM_SUCCESS;
}

static const char *unreachable_why(int e)
{
	return e == NOT_READY ? "it waits for SMT to be switched on" : strerror(e);
}

static int unreachable(pam_handle_t *pamh, const struct pam_args *a, bool execs, int e)
{
	pam_syslog(pamh, a->fail == PAM_FAIL_CLOSED ? LOG_ERR : LOG_WARNING,
		   "coreschedd is not reachable at %s (%s): %s", a->socket, unreachable_why(e),
		   a->fail == PAM_FAIL_CLOSED ? "failing the session (fail=closed)" :
		   a->fail == PAM_FAIL_NEW ? "the session gets a cookie of its own (fail=new)" :
					     "the session runs without a cookie (fail=open)");
	if (a->fail == PAM_FAIL_CLOSED)
		return PAM_SESSION_ERR;
	if (a->fail == PAM_FAIL_NEW)
		return fresh_cookie(pamh, a, execs);
	return PAM_SUCCESS;
}

EXPORT int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pam_args a;
	char buf[REPLY_MAX], what[256], err[512];
	bool execs;
	int e, r;

	(void)flags;
	if (pam_args_parse(argc, argv, &a, err, sizeof(err)) < 0) {
		pam_syslog(pamh, LOG_ERR, "%s", err);
		return PAM_SESSION_ERR;
	}
	r = user_ids(pamh, &S.uid, &S.gid);
	if (r != PAM_SUCCESS)
		return a.fail == PAM_FAIL_CLOSED ? r : PAM_SUCCESS;
	S.armed = S.placed = S.create = false;
	S.timeout_ms = a.timeout_ms;
	snprintf(S.socket, sizeof(S.socket), "%s", a.socket);
	execs = a.model == PAM_MODEL_EXEC || (a.model == PAM_MODEL_AUTO && opener_execs());
	switch (open_session_call(buf, sizeof(buf), &e)) {
	case CALL_UNREACHABLE:
		return unreachable(pamh, &a, execs, e);
	case CALL_LOST:
		r = unreachable(pamh, &a, execs, e);
		if (execs)
			return r;
		/* The daemon may have placed the opener all the same, too late
		 * to answer: hand it back after its fork, or now when the
		 * session fails (a LeaveSession for an opener it did not place
		 * changes nothing). */
		if (r != PAM_SUCCESS || arm(pamh) < 0) {
			(void)leave_session_call(buf, sizeof(buf), &e);
			S.armed = false;
			return r != PAM_SUCCESS ? r : a.fail == PAM_FAIL_CLOSED ? PAM_SESSION_ERR : PAM_SUCCESS;
		}
		S.placed = true;
		return r;
	case CALL_ERROR:
		pam_args_json_string(buf, "error", what, sizeof(what));
		pam_syslog(pamh, a.fail == PAM_FAIL_CLOSED ? LOG_ERR : LOG_WARNING,
			   "coreschedd did not place the session of uid %u: %s%s", (unsigned)S.uid, what,
			   a.fail == PAM_FAIL_CLOSED ? ", failing the session (fail=closed)" : ", ignoring.");
		return a.fail == PAM_FAIL_CLOSED ? PAM_SESSION_ERR : PAM_SUCCESS;
	case CALL_OK:
		break;
	}
	S.placed = pam_args_json_true(buf, "placed");
	if (a.debug) {
		if (!pam_args_json_string(buf, "group", what, sizeof(what)))
			snprintf(what, sizeof(what), "(none)");
		pam_syslog(pamh, LOG_DEBUG, "Session of uid %u: group %s, %s model", (unsigned)S.uid, what,
			   execs ? "exec" : "fork");
	}
	if (!S.placed || execs)
		return PAM_SUCCESS; /* the opener becomes the user's: it keeps the key */
	if (arm(pamh) < 0) {
		(void)leave_session_call(buf, sizeof(buf), &e);
		S.placed = false;
		return a.fail == PAM_FAIL_CLOSED ? PAM_SESSION_ERR : PAM_SUCCESS;
	}
	return PAM_SUCCESS;
}

EXPORT int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	char buf[REPLY_MAX];
	int e;

	(void)pamh, (void)flags, (void)argc, (void)argv;
	/* An opener that never forked leaves the user's key now. */
	if (S.armed && S.placed && getpid() == S.opener)
		(void)leave_session_call(buf, sizeof(buf), &e);
	S.armed = S.placed = S.create = false;
	return PAM_SUCCESS;
}

/* fail=closed: refuse the login before it starts when the daemon that
 * would place it is not there: no connection (or one closed without a
 * word), or the answer of a daemon that waits for SMT (a socket systemd
 * holds takes the connection all the same). A call that is not answered
 * in time admits the login, as the
 * connection did before: a busy daemon's queue (its shared budget for
 * unprivileged callers) must not turn users away. */
EXPORT int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct pam_args a;
	char err[512], buf[REPLY_MAX];
	int e;

	(void)flags;
	if (pam_args_parse(argc, argv, &a, err, sizeof(err)) < 0) {
		pam_syslog(pamh, LOG_ERR, "%s", err);
		return PAM_SERVICE_ERR;
	}
	if (a.fail != PAM_FAIL_CLOSED)
		return PAM_IGNORE;
	if (call(a.socket, a.timeout_ms, "{\"method\":\"org.varlink.service.GetInfo\"}", buf, sizeof(buf), &e) !=
	    CALL_UNREACHABLE) /* answered, or late */
		return PAM_SUCCESS;
	pam_syslog(pamh, LOG_ERR, "coreschedd is not reachable at %s (%s): refusing the login (fail=closed)", a.socket,
		   unreachable_why(e));
	return PAM_PERM_DENIED;
}
