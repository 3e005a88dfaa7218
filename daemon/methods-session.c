// SPDX-License-Identifier: GPL-2.0-or-later
/* io.coresched.OpenSession and LeaveSession: the daemon's side of
 * pam_coresched. A login opens the session in a process that then forks
 * (or becomes) the user's: that process, the caller, is placed in the key
 * the rules give the user, so that what it forks starts with the user's
 * cookie; LeaveSession hands it back to the rules once the session child
 * exists. The caller is the process that connected (its pidfd from
 * connect time), never a pid in the request. */
#include "methods.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "control.h"
#include "daemon.h"
#include "log.h"

#define ERR(name) "io.coresched." name
#define INVALID "org.varlink.service.InvalidParameter"

static int get_id(json_object *p, const char *field, unsigned *ret)
{
	json_object *v;
	int64_t n;

	if (!json_object_object_get_ex(p, field, &v) || !json_object_is_type(v, json_type_int))
		return -EINVAL;
	n = json_object_get_int64(v);
	if (n < 0 || n >= UINT32_MAX) /* (uid_t)-1 is no one */
		return -EINVAL;
	*ret = (unsigned)n;
	return 0;
}

static json_object *reply(struct engine *e, pid_t pid)
{
	const struct task *t = engine_task(e, pid);
	json_object *o = json_object_new_object();
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, t ? t->cookie : 0);
	json_object_object_add(o, "group", t && t->key ? json_object_new_string(t->key->group) : NULL);
	json_object_object_add(o, "key", t && t->key ? json_object_new_string(t->key->name) : NULL);
	json_object_object_add(o, "cookie", json_object_new_string(buf));
	json_object_object_add(o, "origin", json_object_new_string(t ? origin_to_string(t->origin) : "none"));
	return o;
}

static int place_failed(struct control_error *err, pid_t pid, int r)
{
	if (r == -ENOENT || r == -ESRCH)
		return methods_fail(err, ERR("NoSuchProcess"), "pid", json_object_new_int(pid));
	return methods_assign_failed(err, pid, r);
}

/* An opener placed explicitly (coresched assign or run -g, the container
 * hook, or a child of one of those) stays where it was put, as the shell
 * it forks would without the module: a session, which root's su or sudo
 * opens at any user's request, does not undo another's placement. Called
 * by engine_place() with the caller as the table knows it, and again as
 * the fork child it is when it was new to the table. */
static int keep_explicit(void *userdata, pid_t pid, const struct task *current)
{
	(void)userdata, (void)pid;
	if (current && current->origin != ORIGIN_SESSION && engine_origin_explicit(current->origin))
		return -EALREADY;
	return 0;
}

/* The user as the rules see a process of theirs whose program is not
 * known yet: by uid and primary gid; exe, comm and cgroup unknown. */
int methods_open_session(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			 struct control_error *err)
{
	struct daemon *d = u;
	struct engine_place rq = { .pid = c->pid, .pidfd = c->peer->pidfd, .origin = ORIGIN_SESSION,
				   .placer = c->uid, .authorize = keep_explicit };
	struct match_input in = { NULL, NULL, 0, 0, NULL };
	struct match_result m;
	unsigned uid, gid;
	int r;

	if (get_id(p, "uid", &uid) < 0)
		return methods_fail(err, INVALID, "parameter", json_object_new_string("uid"));
	if (get_id(p, "gid", &gid) < 0)
		return methods_fail(err, INVALID, "parameter", json_object_new_string("gid"));
	if (c->peer->gone)
		return place_failed(err, c->pid, -ESRCH);
	if (c->peer->pidfd < 0)
		return methods_fail(err, ERR("NotSupported"), "reason",
			    json_object_new_string("the caller's pidfd is unknown (a kernel before 5.3)"));
	in.uid = uid;
	in.gid = gid;
	if (rules_match(engine_conf(d->engine), &in, &m) <= 0) {
		/* No group claims the user: the session runs as its opener does. */
		*ret = reply(d->engine, c->pid);
		json_object_object_add(*ret, "placed", json_object_new_boolean(false));
		return 0;
	}
	if (m.group->per == PER_CGROUP)
		return methods_fail(err, ERR("NotSupported"), "reason",
			    json_object_new_string("a Per=cgroup group cannot hold a session: its cgroup is not made yet"));
	rq.group = m.group->name;
	rq.session_uid = uid;
	/* Per=user: the user's uid, not the opener's; Per=process: the
	 * opener's own key, so each session has a cookie of its own. */
	rq.key = m.group->per == PER_PROCESS ? NULL : m.key;
	r = engine_place(d->engine, &rq);
	if (r == -EALREADY) {
		log_info("Session of uid %u opened by PID %d: left in the group it was placed in", uid, c->pid);
		*ret = reply(d->engine, c->pid);
		json_object_object_add(*ret, "placed", json_object_new_boolean(false));
		return 0;
	}
	if (r < 0)
		return place_failed(err, c->pid, r);
	log_info("Session of uid %u opened by PID %d: group %s", uid, c->pid, m.group->name);
	*ret = reply(d->engine, c->pid);
	json_object_object_add(*ret, "placed", json_object_new_boolean(true));
	return 0;
}

/* The opener forked the session's process: it goes back to what the rules
 * say of it. What it forked before this keeps the session's key (the
 * engine's fork children inherit what their parent was when they forked). */
int methods_leave_session(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			  struct control_error *err)
{
	struct daemon *d = u;
	struct engine_place rq = { .pid = c->pid, .pidfd = c->peer->pidfd, .origin = ORIGIN_NONE,
				   .placer = c->uid, .rules = true };
	const struct task *t = engine_task(d->engine, c->pid);
	int r;

	(void)p;
	if (c->peer->gone)
		return place_failed(err, c->pid, -ESRCH);
	if (c->peer->pidfd < 0)
		return methods_fail(err, ERR("NotSupported"), "reason",
			    json_object_new_string("the caller's pidfd is unknown (a kernel before 5.3)"));
	if (t && t->origin != ORIGIN_SESSION) {
		/* Placed since by someone else, or never: nothing to undo. */
		*ret = reply(d->engine, c->pid);
		return 0;
	}
	r = engine_place(d->engine, &rq);
	if (r < 0)
		return place_failed(err, c->pid, r);
	*ret = reply(d->engine, c->pid);
	return 0;
}
