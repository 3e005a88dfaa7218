// SPDX-License-Identifier: GPL-2.0-or-later
/* io.coresched.AssignContainer: the daemon's side of `coresched oci-hook`.
 * The hook knows the container (id, sandbox, annotations); the daemon knows
 * the policy ([Container]). Each call places the container's init and
 * remembers the init's cgroup, because a `runc exec` into the container is
 * a child of the runtime, not of the init: it inherits the runtime's
 * cookie and can only be recognised by the cgroup it joins. */
#include "log.h"
#include "methods.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "containers.h"
#include "control.h"
#include "daemon.h"
#include "errmsg.h"
#include "procinfo.h"

#define ERR(name) "io.coresched." name
#define INVALID "org.varlink.service.InvalidParameter"
/* Default=isolate puts each container under its own key of this group;
 * the shipped rules.d defines it without Match*= keys. */
#define CONTAINER_GROUP_DEFAULT "containers"

enum plan_kind { PLAN_TRUSTED, PLAN_GROUP, PLAN_ISOLATE };

struct plan {
	enum plan_kind kind;
	const char *group;
	char key[MATCH_KEY_MAX]; /* "" lets the group's Per= name the key */
};

struct request {
	pid_t pid;
	const char *id, *sandbox, *group, *policy;
};

static int invalid(struct control_error *err, const char *field)
{
	return methods_fail(err, INVALID, "parameter", json_object_new_string(field));
}

/* Optional string parameter: absent and null both give NULL. A name
 * becomes a key: one with a NUL inside, a control character or U+FFFD
 * (what the parser put for a lone surrogate) could stand for another. */
static int opt_string(json_object *p, const char *field, const char **ret)
{
	json_object *v;

	*ret = NULL;
	if (!json_object_object_get_ex(p, field, &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_string) || json_object_get_string_len(v) == 0 ||
	    !sc_name_printable(json_object_get_string(v), (size_t)json_object_get_string_len(v)))
		return -EINVAL;
	*ret = json_object_get_string(v);
	return 0;
}

/* Returns 0, or the name of the offending parameter. */
static const char *parse_request(json_object *p, struct request *rq)
{
	json_object *v;
	int64_t pid;

	if (!json_object_object_get_ex(p, "pid", &v) || !json_object_is_type(v, json_type_int))
		return "pid";
	pid = json_object_get_int64(v);
	if (pid <= 0 || pid > INT32_MAX)
		return "pid";
	rq->pid = (pid_t)pid;
	if (opt_string(p, "id", &rq->id) < 0 || !rq->id)
		return "id";
	if (opt_string(p, "sandbox", &rq->sandbox) < 0)
		return "sandbox";
	if (opt_string(p, "group", &rq->group) < 0)
		return "group";
	if (opt_string(p, "policy", &rq->policy) < 0)
		return "policy";
	return NULL;
}

/* Annotations first (trusted, then a named group, then isolate), then
 * [Container] Default=. Returns 0, or the name of the offending parameter. */
static const char *make_plan(const struct container_settings *cs, const struct request *rq, struct plan *ret)
{
	enum container_default def = cs->def;
	int n;

	if (rq->policy && strcmp(rq->policy, "trusted") == 0)
		def = CONTAINER_TRUSTED;
	else if (rq->group)
		def = CONTAINER_GROUP;
	else if (rq->policy && strcmp(rq->policy, "isolate") == 0)
		def = CONTAINER_ISOLATE;
	else if (rq->policy)
		return "policy";
	*ret = (struct plan){ .kind = def == CONTAINER_TRUSTED ? PLAN_TRUSTED :
				      def == CONTAINER_GROUP ? PLAN_GROUP : PLAN_ISOLATE };
	if (ret->kind == PLAN_GROUP) {
		ret->group = rq->group ? rq->group : cs->group;
		return NULL;
	}
	if (ret->kind == PLAN_TRUSTED)
		return NULL;
	ret->group = CONTAINER_GROUP_DEFAULT;
	n = rq->sandbox ? snprintf(ret->key, sizeof(ret->key), "pod:%s", rq->sandbox)
			: snprintf(ret->key, sizeof(ret->key), "container:%s", rq->id);
	if (n < 0 || (size_t)n >= sizeof(ret->key))
		return rq->sandbox ? "sandbox" : "id";
	return NULL;
}

static json_object *jcookie(sc_cookie c)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, c);
	return json_object_new_string(buf);
}

static const char *policy_name(enum plan_kind k)
{
	return k == PLAN_TRUSTED ? "trusted" : k == PLAN_GROUP ? "group" : "isolate";
}

static int apply(struct engine *e, const struct plan *pl, pid_t pid, uid_t placer, struct control_error *err)
{
	struct engine_place rq = { .pid = pid, .pidfd = -1, .origin = ORIGIN_HOOK, .placer = placer };
	int r;

	if (pl->kind != PLAN_TRUSTED) {
		rq.group = pl->group;
		rq.key = *pl->key ? pl->key : NULL;
	} else {
		rq.origin = ORIGIN_NONE;
	}
	r = engine_place(e, &rq);
	if (r >= 0)
		return 0;
	if (r == -ENOENT)
		return methods_fail(err, ERR("NoSuchGroup"), "group", json_object_new_string(pl->group));
	if (r == -ESRCH)
		return methods_fail(err, ERR("NoSuchProcess"), "pid", json_object_new_int(pid));
	return methods_assign_failed(err, pid, r);
}

/* Only a cgroup of the container's own is a safe key: the root, or the
 * runtime's cgroup (the caller's), would capture unrelated processes. */
static void remember(const struct task *t, pid_t caller)
{
	struct procinfo *pi;
	int r;

	/* A cut path stands for an ancestor of the container's cgroup, which
	 * its siblings share: not the container's to claim. */
	if (!t || !t->key || !t->cgroup || !*t->cgroup || t->cgroup_cut || strcmp(t->cgroup, "/") == 0)
		return;
	pi = malloc(sizeof(*pi));
	/* The caller's cgroup unread ("") or cut (an ancestor of its own) may
	 * lie under t's. */
	if (pi && procinfo_read("/proc", caller, pi) >= 0 && *pi->cgroup && !pi->cgroup_cut &&
	    !containers_within(pi->cgroup, t->cgroup) &&
	    (r = containers_remember(t->cgroup, t->key->group, t->key->name)) < 0)
		/* The container keeps its cookie; only a later `runc exec`
		 * into it goes unrecognised. */
		log_warning("Failed to track container cgroup %s: %s; processes exec'd into it will be placed by "
			    "the rules, ignoring.", t->cgroup, strerror(-r));
	free(pi);
}

int methods_container(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		      struct control_error *err)
{
	struct daemon *d = u;
	const struct task *t;
	struct request rq = {};
	struct plan pl;
	const char *bad;
	int r;

	/* The state's pid is the runtime's view (runtime-spec): a runtime in
	 * a pid namespace of its own (a container's) names another process
	 * here than its container's init. */
	r = methods_foreign_pids(c, err);
	if (r < 0)
		return r;
	bad = parse_request(p, &rq);
	if (!bad)
		bad = make_plan(&engine_conf(d->engine)->container, &rq, &pl);
	if (bad)
		return invalid(err, bad);
	r = apply(d->engine, &pl, rq.pid, c->uid, err);
	if (r < 0)
		return r;
	t = engine_task(d->engine, rq.pid);
	if (pl.kind != PLAN_TRUSTED)
		remember(t, c->pid);
	*ret = json_object_new_object();
	json_object_object_add(*ret, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(*ret, "group", t && t->key ? json_object_new_string(t->key->group) : NULL);
	json_object_object_add(*ret, "key", t && t->key ? json_object_new_string(t->key->name) : NULL);
	json_object_object_add(*ret, "cookie", jcookie(t ? t->cookie : 0));
	json_object_object_add(*ret, "policy", json_object_new_string(policy_name(pl.kind)));
	return 0;
}
