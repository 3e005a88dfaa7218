// SPDX-License-Identifier: GPL-2.0-or-later
/* The io.coresched methods. Reading is open to every local user (an
 * unprivileged caller sees only its own processes); changing state needs
 * root or [Daemon] ControlGroup=, except that a user may put their own
 * processes into a group whose AllowUsers=/AllowGroups= admit them. */
#include "methods.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "control.h"
#include "control-socket.h"
#include "cookie.h"
#include "daemon.h"
#include "engine-sys.h"
#include "log.h"
#include "procinfo.h"
#include "sandbox.h"
#include "stats.h"
#include "window.h"

#define ERR(name) "io.coresched." name
#define MAX_LIST 65536
/* The processes an unprivileged ListProcesses reads the credentials of,
 * at most (ListProcesses's cost in auth.c is set by it). */
#define LIST_CHECKS_MAX 512
/* An unprivileged Assign: each pid costs a /proc read and a prctl. */
#define MAX_UNPRIVILEGED_PIDS 64
#define NAME_CACHE 64

static unsigned long long config_generation = 1;

static json_object *jstr(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static json_object *jcookie(sc_cookie c)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, c);
	return json_object_new_string(buf);
}

int methods_fail(struct control_error *err, const char *name, const char *field, json_object *value)
{
	err->name = name;
	err->params = json_object_new_object();
	json_object_object_add(err->params, field, value);
	return -EINVAL;
}

static int denied(struct control_error *err, const char *why)
{
	return methods_fail(err, ERR("PermissionDenied"), "reason", jstr(why));
}

/* A request that names processes by pid, from a caller in another pid
 * namespace (a container's): the daemon would read the pids in its own
 * and act on other processes than the caller means. */
int methods_foreign_pids(const struct control_caller *c, struct control_error *err)
{
	if (!c->peer->pidns_foreign)
		return 0;
	return methods_fail(err, ERR("NotSupported"), "reason",
			    jstr("the caller is in another pid namespace, whose pids name other processes here; "
				 "name processes from the daemon's (the host's) namespace, or use coresched run"));
}

static bool peer_privileged(void *u, const struct auth_peer *p)
{
	struct daemon *d = u;

	return auth_privileged(p, &engine_conf(d->engine)->daemon);
}

/* User names for one reply: one look-up per uid, not per row. */
struct names {
	uid_t uid[NAME_CACHE];
	char *name[NAME_CACHE];
	size_t n;
};

static void names_done(struct names *nc)
{
	for (size_t i = 0; i < nc->n; i++)
		free(nc->name[i]);
	nc->n = 0;
}

static const char *user_name(struct names *nc, uid_t uid)
{
	struct passwd *pw;

	for (size_t i = 0; i < nc->n; i++)
		if (nc->uid[i] == uid)
			return nc->name[i];
	pw = getpwuid(uid);
	if (nc->n == NAME_CACHE)
		return pw ? pw->pw_name : NULL;
	nc->uid[nc->n] = uid;
	nc->name[nc->n] = pw ? strdup(pw->pw_name) : NULL;
	return nc->name[nc->n++];
}

static json_object *task_json(struct names *nc, const struct task *t)
{
	json_object *o = json_object_new_object();
	const char *user = user_name(nc, t->uid);

	json_object_object_add(o, "pid", json_object_new_int(t->pid));
	json_object_object_add(o, "uid", json_object_new_int((int)t->uid));
	json_object_object_add(o, "user", user ? jstr(user) : NULL);
	json_object_object_add(o, "comm", jstr(t->comm));
	json_object_object_add(o, "exe", jstr(t->exe));
	json_object_object_add(o, "cgroup", jstr(t->cgroup));
	json_object_object_add(o, "cgroup_cut", json_object_new_boolean(t->cgroup_cut));
	json_object_object_add(o, "group", t->key ? jstr(t->key->group) : NULL);
	json_object_object_add(o, "key", t->key ? jstr(t->key->name) : NULL);
	json_object_object_add(o, "cookie", jcookie(t->cookie));
	json_object_object_add(o, "origin", jstr(origin_to_string(t->origin)));
	return o;
}

/* What an unprivileged caller may see of a key: how many of its own
 * processes are in it, and whether anyone else's are too. */
struct key_view {
	const struct key *k;
	unsigned own, others;
};

static int view_cmp(const void *a, const void *b)
{
	const struct key *x = ((const struct key_view *)a)->k, *y = ((const struct key_view *)b)->k;

	return x < y ? -1 : x > y;
}

static const struct key_view *view_find(const struct key_view *v, size_t n, const struct key *k)
{
	struct key_view want = { .k = k };

	return k ? bsearch(&want, v, n, sizeof(*v), view_cmp) : NULL;
}

/* One pass over the tasks; *ret sorted by key for view_find(). */
static int views_build(struct engine *e, uid_t uid, struct key_view **ret, size_t *ret_n)
{
	static struct key *keys[MAX_LIST];
	static struct task *tasks[MAX_LIST];
	size_t nk = engine_keys(e, keys, MAX_LIST), nt = engine_tasks(e, tasks, MAX_LIST);
	struct key_view *v = calloc(nk ? nk : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nk; i++)
		v[i].k = keys[i];
	qsort(v, nk, sizeof(*v), view_cmp);
	for (size_t i = 0; i < nt; i++) {
		struct key_view *kv = (struct key_view *)view_find(v, nk, tasks[i]->key);

		if (kv && tasks[i]->uid == uid)
			kv->own++;
		else if (kv)
			kv->others++;
	}
	*ret = v;
	*ret_n = nk;
	return 0;
}

/* Forced-idle figures: everything for the privileged; for anyone else
 * only the keys that hold nothing but the caller's own processes, so that
 * no one else's CPU time shows. Never a fresh sample for them: the last
 * periodic one. */
static json_object *stats_view(struct daemon *d, const struct control_caller *c)
{
	json_object *o = stats_to_json(d->stats), *all = NULL, *mine;
	struct key_view *v = NULL;
	size_t n = 0;

	if (!o || c->privileged)
		return o;
	mine = json_object_new_array();
	if (!mine || views_build(d->engine, c->uid, &v, &n) < 0) {
		json_object_put(mine);
		json_object_put(o);
		return NULL;
	}
	json_object_object_get_ex(o, "keys", &all);
	for (size_t i = 0; i < json_object_array_length(all); i++) {
		json_object *e = json_object_array_get_idx(all, i), *g = NULL, *k = NULL;

		json_object_object_get_ex(e, "group", &g);
		json_object_object_get_ex(e, "key", &k);
		for (size_t j = 0; j < n; j++)
			if (v[j].own > 0 && v[j].others == 0 && strcmp(v[j].k->group, json_object_get_string(g)) == 0 &&
			    strcmp(v[j].k->name, json_object_get_string(k)) == 0) {
				json_object_array_add(mine, json_object_get(e));
				break;
			}
	}
	free(v);
	json_object_object_add(o, "keys", mine);
	return o;
}

/* Per group: what each group's members ran without its cookie. Group
 * totals mix every user's processes: for the privileged only. */
static json_object *exposure_view(struct daemon *d, const struct control_caller *c)
{
	json_object *arr = json_object_new_array();
	size_t n = c->privileged ? engine_n_exposures(d->engine) : 0;
	struct engine_exposure *x = n ? calloc(n, sizeof(*x)) : NULL;

	n = x ? engine_exposures(d->engine, x, n) : 0;
	for (size_t i = 0; arr && i < n; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "group", jstr(x[i].group));
		json_object_object_add(o, "untagged_placements", json_object_new_int64((int64_t)x[i].placements));
		json_object_object_add(o, "untagged_cpu_ns", json_object_new_int64((int64_t)x[i].cpu_ns));
		json_object_array_add(arr, o);
	}
	free(x);
	return arr;
}

/* The untagged windows so far: their count and where they end. */
static json_object *window_view(const struct window_hist *h)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "placements", json_object_new_int64((int64_t)h->n));
	json_object_object_add(o, "mean_usec", json_object_new_int64(h->n ? (int64_t)(h->sum_us / h->n) : 0));
	json_object_object_add(o, "p50_usec", json_object_new_int64((int64_t)window_quantile(h, 0.50)));
	json_object_object_add(o, "p90_usec", json_object_new_int64((int64_t)window_quantile(h, 0.90)));
	json_object_object_add(o, "p99_usec", json_object_new_int64((int64_t)window_quantile(h, 0.99)));
	json_object_object_add(o, "max_usec", json_object_new_int64((int64_t)h->max_us));
	return o;
}

static int m_status(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		    struct control_error *err)
{
	struct daemon *d = u;
	const struct engine_counters *n = engine_counters(d->engine);
	const struct conf *conf = engine_conf(d->engine);
	json_object *o = json_object_new_object(), *src = json_object_new_array(), *cnt = json_object_new_object();
	struct control_stats cs = {};
	struct timespec ts;
	sc_cookie ck;
	/* A dry run makes no core-scheduling call, not even this probe. */
	int smt = d->dry_run ? 0 : sc_get(0, &ck);

	(void)p, (void)err;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	control_get_stats(d->control, &cs);
	for (size_t i = 0; i < conf->n_sources; i++)
		json_object_array_add(src, jstr(conf->sources[i]));
	json_object_object_add(o, "version", jstr(VERSION));
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "uptime_usec", json_object_new_int64(
		(int64_t)((unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000 - d->started_usec)));
	json_object_object_add(o, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(o, "core_scheduling", d->dry_run ? NULL : json_object_new_boolean(smt != -EINVAL));
	json_object_object_add(o, "smt", d->dry_run ? NULL : json_object_new_boolean(smt == 0 && !engine_smt_off(d->engine)));
	json_object_object_add(o, "config_dir", jstr(d->config_dir ? d->config_dir : SYSCONFDIR "/coresched"));
	json_object_object_add(o, "config_sources", src);
	json_object_object_add(o, "config_generation", json_object_new_int64((int64_t)config_generation));
	json_object_object_add(o, "groups", json_object_new_int((int)conf->n_groups));
	json_object_object_add(o, "tracked_processes", json_object_new_int((int)engine_n_tasks(d->engine)));
	json_object_object_add(o, "live_cookies", json_object_new_int((int)(d->dry_run ? engine_sys_dry_holders(d->dry_sys)
											      : cookie_live_holders())));
	json_object_object_add(o, "keys", json_object_new_int((int)engine_n_keys(d->engine)));
	json_object_object_add(o, "clients", json_object_new_int((int)cs.clients));
	json_object_object_add(o, "seccomp", json_object_new_boolean(d->seccomp_on));
	json_object_object_add(o, "confinement", jstr(sandbox_describe()));
#define C(f) json_object_object_add(cnt, #f, json_object_new_int64((int64_t)n->f))
	C(events); C(execs); C(forks); C(exits); C(lost); C(resyncs); C(reconciles);
	C(assignments); C(repairs); C(errors); C(vanished); C(foreign); C(keys_created); C(keys_released);
	C(untagged_placements); C(untagged_cpu_ns);
#undef C
	json_object_object_add(o, "counters", cnt);
	json_object_object_add(o, "exposure", exposure_view(d, c));
	json_object_object_add(o, "window", window_view(engine_window(d->engine)));
	if (d->stats)
		json_object_object_add(o, "stats", stats_view(d, c));
	*ret = o;
	return 0;
}

static int m_list_groups(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			 struct control_error *err)
{
	struct daemon *d = u;
	const struct conf *conf = engine_conf(d->engine);
	struct key_view *v;
	size_t n;
	json_object *arr, *o;
	char src[4200];

	(void)p, (void)err;
	if (views_build(d->engine, c->uid, &v, &n) < 0)
		return -ENOMEM;
	arr = json_object_new_array();
	for (size_t i = 0; i < conf->n_groups; i++) {
		const struct group *g = conf->groups[i];
		bool any = false;

		snprintf(src, sizeof(src), "%s:%u", g->file, g->line);
		for (size_t j = 0; j <= n; j++) {
			const struct key *k = j < n ? v[j].k : NULL;
			/* the unprivileged see keys their own processes are in */
			unsigned tasks = !k ? 0 : c->privileged ? k->n_tasks : v[j].own;

			if (k ? strcmp(k->group, g->name) != 0 || (!c->privileged && v[j].own == 0) : any)
				continue;
			any = true;
			o = json_object_new_object();
			json_object_object_add(o, "name", jstr(g->name));
			json_object_object_add(o, "key", k ? jstr(k->name) : NULL);
			json_object_object_add(o, "tasks", json_object_new_int((int)tasks));
			json_object_object_add(o, "cookie", k ? jcookie(k->cookie) : NULL);
			json_object_object_add(o, "trusted", json_object_new_boolean(g->trusted));
			json_object_object_add(o, "per", jstr(per_mode_to_string(g->per)));
			json_object_object_add(o, "source", jstr(src));
			json_object_object_add(o, "assignments", json_object_new_int64(k ? (int64_t)k->assignments : 0));
			json_object_array_add(arr, o);
		}
	}
	free(v);
	*ret = json_object_new_object();
	json_object_object_add(*ret, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(*ret, "groups", arr);
	return 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/* The pids filter, sorted once: a look-up per task is a binary search, not
 * a walk of the request (a 64 KiB request holds some 30,000 pids). */
static int *sorted_pids(json_object *a, size_t *ret_n)
{
	size_t n = json_object_array_length(a);
	int *v = malloc((n + 1) * sizeof(*v));

	for (size_t i = 0; v && i < n; i++)
		v[i] = json_object_get_int(json_object_array_get_idx(a, i));
	if (v)
		qsort(v, n, sizeof(*v), cmp_int);
	*ret_n = v ? n : 0;
	return v;
}

/* Whether v holds a pid (an int within 1..INT_MAX, as JSON carries it). */
static bool json_pid(json_object *v)
{
	int64_t x;

	if (!json_object_is_type(v, json_type_int))
		return false;
	x = json_object_get_int64(v);
	return x > 0 && x <= INT_MAX;
}

/* An array of pids, each within 1..INT_MAX. */
static bool json_pids(json_object *a)
{
	if (!json_object_is_type(a, json_type_array))
		return false;
	for (size_t i = 0; i < json_object_array_length(a); i++)
		if (!json_pid(json_object_array_get_idx(a, i)))
			return false;
	return true;
}

/* The parameters of ListProcesses: each of the right type, or the name
 * of the one that is not. */
static const char *list_params_bad(json_object *pids, json_object *user, json_object *group)
{
	if (pids && !json_pids(pids))
		return "pids";
	if (user && (!json_object_is_type(user, json_type_int) || json_object_get_int64(user) < 0 ||
		     json_object_get_int64(user) > UINT32_MAX - 1))
		return "user";
	if (group && !json_object_is_type(group, json_type_string))
		return "group";
	return NULL;
}

static int m_list_processes(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			    struct control_error *err)
{
	static struct task *tasks[MAX_LIST];
	struct daemon *d = u;
	size_t n = engine_tasks(d->engine, tasks, MAX_LIST), checked = 0;
	json_object *pids = NULL, *user = NULL, *group = NULL, *arr;
	bool all = c->privileged, truncated = false;
	struct names nc = { .n = 0 };
	const char *bad;
	size_t np = 0;
	int *pv = NULL;

	json_object_object_get_ex(p, "pids", &pids);
	json_object_object_get_ex(p, "user", &user);
	json_object_object_get_ex(p, "group", &group);
	if ((bad = list_params_bad(pids, user, group)))
		return methods_fail(err, "org.varlink.service.InvalidParameter", "parameter", jstr(bad));
	if (group && !conf_find_group(engine_conf(d->engine), json_object_get_string(group)))
		return methods_fail(err, ERR("NoSuchGroup"), "group", jstr(json_object_get_string(group)));
	if (pids && methods_foreign_pids(c, err) < 0)
		return -EINVAL;
	if (pids && !(pv = sorted_pids(pids, &np)))
		return -ENOMEM;
	arr = json_object_new_array();
	for (size_t i = 0; i < n; i++) {
		const struct task *t = tasks[i];
		int pid = t->pid;

		if ((!all && t->uid != c->uid) || (pids && !bsearch(&pid, pv, np, sizeof(*pv), cmp_int)) ||
		    (user && t->uid != (uid_t)json_object_get_int64(user)) ||
		    (group && (!t->key || strcmp(t->key->group, json_object_get_string(group)) != 0)))
			continue;
		/* An unprivileged caller's rows each cost a read of the
		 * process's credentials: at most LIST_CHECKS_MAX a call. */
		if (!all && checked++ >= LIST_CHECKS_MAX) {
			truncated = true;
			break;
		}
		if (!all && !auth_may_see(c->peer, pid))
			continue;
		json_object_array_add(arr, task_json(&nc, t));
	}
	free(pv);
	names_done(&nc);
	*ret = json_object_new_object();
	json_object_object_add(*ret, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(*ret, "processes", arr);
	if (truncated)
		json_object_object_add(*ret, "truncated", json_object_new_boolean(true));
	return 0;
}

static int get_pid(json_object *p, const char *field, pid_t *ret)
{
	json_object *v;

	if (!json_object_object_get_ex(p, field, &v) || !json_pid(v))
		return -EINVAL;
	*ret = json_object_get_int(v);
	return 0;
}

static void explain_one(void *userdata, const struct group *g, bool matched, const char *reason)
{
	json_object *o = json_object_new_object();
	char src[4200];

	snprintf(src, sizeof(src), "%s:%u", g->file, g->line);
	json_object_object_add(o, "group", jstr(g->name));
	json_object_object_add(o, "source", jstr(src));
	json_object_object_add(o, "matched", json_object_new_boolean(matched));
	json_object_object_add(o, "reason", jstr(reason));
	json_object_array_add(userdata, o);
}

static int m_explain(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		     struct control_error *err)
{
	struct daemon *d = u;
	const struct conf *conf = engine_conf(d->engine);
	struct procinfo pi;
	struct match_result m;
	struct match_input in;
	json_object *o, *rules;
	const struct task *t = NULL;
	sc_cookie now = 0, want = 0;
	pid_t pid, tgid;
	int matched, pidfd, r;

	if (get_pid(p, "pid", &pid) < 0)
		return methods_fail(err, "org.varlink.service.InvalidParameter", "parameter", jstr("pid"));
	if (methods_foreign_pids(c, err) < 0)
		return -EINVAL;
	/* One process throughout: the pidfd is opened before the reads, and
	 * the process must still hold it after them and after its cookie is
	 * read (a pid reused in between would show one process's program
	 * judged by another's creds, or another's cookie). A thread's id
	 * names its process. */
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0 && (errno == EINVAL || errno == ENOENT) && procinfo_tgid("/proc", pid, &tgid) >= 0 &&
	    tgid != pid && tgid > 0) {
		pid = tgid;
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	}
	if (pidfd < 0 && errno != ESRCH && errno != EINVAL && errno != ENOENT)
		return -errno; /* out of descriptors, say: not the process's doing */
	r = pidfd < 0 ? -ESRCH : procinfo_read_pidfd("/proc", pid, pidfd, &pi);
	if (r >= 0 && !c->privileged && (pi.uid != c->uid || !auth_may_see(c->peer, pid)))
		r = -EPERM;
	if (r >= 0) {
		t = engine_task(d->engine, pid);
		if (t && t->start != pi.start_time)
			t = NULL; /* an earlier process's, under the pid: not yet dropped */
		(void)engine_cookie_get(d->engine, pid, &now); /* a dry run's planned one */
	}
	if (pidfd >= 0 && procinfo_pidfd_exited(pidfd))
		r = -ESRCH;
	if (pidfd >= 0)
		close(pidfd);
	if (r == -EPERM)
		return denied(err, "an unprivileged caller may explain only its own processes (every uid and gid "
				   "its own, dumpable, holding no capabilities, as the kernel requires to read them)");
	if (r < 0)
		return methods_fail(err, ERR("NoSuchProcess"), "pid", json_object_new_int(pid));
	in = (struct match_input){ pi.exe, pi.comm, pi.uid, pi.gid, pi.cgroup };
	rules = json_object_new_array();
	rules_explain(conf, &in, explain_one, rules);
	matched = rules_match(conf, &in, &m);
	if (t && t->key)
		want = t->key->cookie;
	o = json_object_new_object();
	json_object_object_add(o, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "comm", jstr(pi.comm));
	json_object_object_add(o, "exe", jstr(pi.exe));
	json_object_object_add(o, "uid", json_object_new_int((int)pi.uid));
	json_object_object_add(o, "gid", json_object_new_int((int)pi.gid));
	json_object_object_add(o, "cgroup", jstr(pi.cgroup));
	json_object_object_add(o, "cgroup_cut", json_object_new_boolean(pi.cgroup_cut));
	json_object_object_add(o, "rules", rules);
	json_object_object_add(o, "rule_group", matched > 0 ? jstr(m.group->name) : NULL);
	json_object_object_add(o, "group", t && t->key ? jstr(t->key->group) : NULL);
	json_object_object_add(o, "key", t && t->key ? jstr(t->key->name) : NULL);
	json_object_object_add(o, "origin", jstr(t ? origin_to_string(t->origin) : "untracked"));
	json_object_object_add(o, "cookie", jcookie(now));
	json_object_object_add(o, "expected_cookie", t && t->origin == ORIGIN_FOREIGN ? NULL : jcookie(want));
	/* An unsettled process is one whose placement failed (no key could be
	 * made, say): cookie 0 is not what the rules want, though no key says
	 * otherwise. */
	json_object_object_add(o, "agrees",
			       json_object_new_boolean(t && (t->origin == ORIGIN_FOREIGN || (now == want && !t->unsettled))));
	*ret = o;
	return 0;
}

/* {pid, error}: one process that could not be placed, and why. */
static json_object *pid_error(pid_t pid, const char *why)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "error", jstr(why));
	return o;
}

/* Why pid could not be placed. A thread id is the usual cause of EINVAL
 * (ENOENT on newer kernels) from pidfd_open(), which would otherwise read
 * as a kernel without core scheduling, or as a missing group. */
static const char *place_error(pid_t pid, int r, char *buf, size_t size)
{
	pid_t tgid;

	if ((r == -EINVAL || r == -ENOENT) && procinfo_tgid("/proc", pid, &tgid) >= 0 && tgid != pid) {
		snprintf(buf, size, "%d is a thread of process %d: name the process", (int)pid, (int)tgid);
		return buf;
	}
	if (r == -EDQUOT)
		return "the process's user holds its share of MaxKeys= (a quarter of those not kept for root)";
	return r == -ENOENT ? "no such group" : sc_strerror(r);
}

static int pid_failure(json_object *failed, pid_t pid, int r, const char *why)
{
	char buf[128];

	json_object_array_add(failed, pid_error(pid, why ? why : place_error(pid, r, buf, sizeof(buf))));
	return 0;
}

int methods_assign_failed(struct control_error *err, pid_t pid, int r)
{
	char buf[128];

	err->name = ERR("AssignFailed");
	err->params = pid_error(pid, place_error(pid, r, buf, sizeof(buf)));
	return -EIO;
}

struct place_ctx {
	const struct control_caller *c;
	const struct conf *conf;
	const struct engine *engine;
	int pidfd;       /* Run: the caller's own, which must still be it */
	const char *why; /* set with -EPERM */
};

/* What `coresched run -g` started in a Lock=yes group, or its descendants:
 * their seccomp filter keeps them from changing their cookie, and the
 * daemon must not do it for them at their own request. */
static bool locked_member(const struct conf *conf, const struct task *t)
{
	const struct group *g;

	if (!t || !t->key || (t->origin != ORIGIN_RUN && t->origin != ORIGIN_INHERITED && t->origin != ORIGIN_STICKY))
		return false;
	g = conf_find_group(conf, t->key->group);
	return g && g->lock;
}

/* The process itself when the daemon knows it, else its nearest ancestor
 * it knows (a process forked or exec'd so recently that its events wait
 * in the queue): a seccomp filter passes to every descendant. */
static const struct task *known_self_or_ancestor(const struct engine *e, pid_t pid, const struct task *current)
{
	struct procinfo pi;

	if (current)
		return current;
	for (unsigned depth = 0; depth < 64 && pid > 1; depth++) {
		const struct task *t;

		if (procinfo_read("/proc", pid, &pi) < 0)
			return NULL;
		t = engine_task(e, pid);
		if (t && t->start == pi.start_time)
			return t;
		pid = pi.ppid;
	}
	return NULL;
}

/* engine_place() calls this with the target's pidfd open, after reading
 * it and before changing anything: the kernel's own test for
 * PR_SCHED_CORE_SHARE_TO, which the daemon's CAP_SYS_PTRACE would skip,
 * and no undoing of another user's explicit placement. */
static int authorize(void *userdata, pid_t pid, const struct task *current)
{
	struct place_ctx *x = userdata;
	struct auth_creds cr;
	int r;

	if (x->pidfd >= 0 && procinfo_pidfd_exited(x->pidfd))
		return -ESRCH; /* the caller is gone: its pid may name another */
	if (x->c->privileged)
		return 0;
	r = auth_read_creds("/proc", pid, &cr);
	if (r < 0)
		return r;
	if (auth_peer_may_act_on(x->c->peer, &cr) < 0) {
		x->why = "an unprivileged caller may place only its own processes, with every uid and gid "
			 "its own, dumpable, holding no capabilities and in its own user namespace or one it made, as "
			 "the kernel requires";
		return -EPERM;
	}
	if (auth_placed_by_other(current, x->c->uid)) {
		x->why = "the process was placed (or cleared) explicitly by another user";
		return -EPERM;
	}
	if (locked_member(x->conf, known_self_or_ancestor(x->engine, pid, current))) {
		x->why = "the process runs locked in its group (Lock=yes): only a privileged caller may move it";
		return -EPERM;
	}
	return 0;
}

static int place(struct daemon *d, const struct control_caller *c, json_object *p, json_object *pids,
		 enum origin origin, json_object **ret, struct control_error *err)
{
	const struct conf *conf = engine_conf(d->engine);
	json_object *jg = NULL, *jk = NULL, *jo = NULL, *ok, *failed;
	struct place_ctx x = { .c = c, .conf = conf, .engine = d->engine, .pidfd = pids ? -1 : c->peer->pidfd };
	struct engine_place rq = { .pidfd = x.pidfd, .origin = origin, .placer = c->uid, .placer_gid = c->gid,
				   .bound = !c->privileged, .authorize = authorize, .userdata = &x, .why = &x.why };
	const struct group *g;
	const struct task *t = NULL;

	if (!json_object_object_get_ex(p, "group", &jg) || !json_object_is_type(jg, json_type_string))
		return methods_fail(err, "org.varlink.service.InvalidParameter", "parameter", jstr("group"));
	g = conf_find_group(conf, json_object_get_string(jg));
	if (!g)
		return methods_fail(err, ERR("NoSuchGroup"), "group", jstr(json_object_get_string(jg)));
	if (!c->privileged && !auth_group_allows(g, c->peer))
		return denied(err, "the group does not allow this user (AllowUsers=/AllowGroups=)");
	/* An explicit key or origin is for the container hook: privileged. */
	json_object_object_get_ex(p, "key", &jk);
	json_object_object_get_ex(p, "origin", &jo);
	if ((jk || jo) && !c->privileged)
		return denied(err, "key= and origin= need privilege");
	rq.group = g->name;
	if (jk)
		rq.key = json_object_get_string(jk);
	if (jo && strcmp(json_object_get_string(jo), "hook") == 0)
		rq.origin = ORIGIN_HOOK;
	ok = json_object_new_array();
	failed = json_object_new_array();
	for (size_t i = 0; i < (pids ? json_object_array_length(pids) : 1); i++) {
		int r;

		rq.pid = pids ? json_object_get_int(json_object_array_get_idx(pids, i)) : c->pid;
		x.why = NULL;
		/* Run: a caller gone before it was accepted is no one's to place */
		r = rq.pid > 0 && (pids || !c->peer->gone) ? engine_place(d->engine, &rq) : -ESRCH;
		if (r == -EPERM && x.why && !pids) {
			json_object_put(ok);
			json_object_put(failed);
			return denied(err, x.why);
		}
		if (r < 0) {
			char why[256];

			snprintf(why, sizeof(why), "permission denied: %s", x.why ? x.why : "");
			pid_failure(failed, rq.pid, r, r == -EPERM && x.why ? why : NULL);
			continue;
		}
		json_object_array_add(ok, json_object_new_int(rq.pid));
		t = engine_task(d->engine, rq.pid);
	}
	if (!pids && json_object_array_length(failed) > 0) {
		json_object *f = json_object_array_get_idx(failed, 0);

		json_object_get(f);
		json_object_put(ok);
		json_object_put(failed);
		err->name = ERR("AssignFailed");
		err->params = f;
		return -EIO;
	}
	*ret = json_object_new_object();
	json_object_object_add(*ret, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(*ret, "group", jstr(g->name));
	json_object_object_add(*ret, "key", t && t->key ? jstr(t->key->name) : NULL);
	json_object_object_add(*ret, "cookie", t ? jcookie(t->cookie) : NULL);
	json_object_object_add(*ret, "assigned", ok);
	json_object_object_add(*ret, "failed", failed);
	json_object_object_add(*ret, "lock", json_object_new_boolean(g->lock));
	return 0;
}

static int m_assign(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		    struct control_error *err)
{
	json_object *pids = NULL;

	if (!json_object_object_get_ex(p, "pids", &pids) || !json_pids(pids) ||
	    json_object_array_length(pids) > (c->privileged ? 4096 : MAX_UNPRIVILEGED_PIDS))
		return methods_fail(err, "org.varlink.service.InvalidParameter", "parameter", jstr("pids"));
	if (methods_foreign_pids(c, err) < 0)
		return -EINVAL;
	return place(u, c, p, pids, ORIGIN_ASSIGN, ret, err);
}

/* coresched run --group: the caller is the process to place, exactly the
 * one that connected (its pidfd from connect time); it execs the command
 * once we answer. */
static int m_run(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		 struct control_error *err)
{
	return place(u, c, p, NULL, ORIGIN_RUN, ret, err);
}

static int m_clear(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		   struct control_error *err)
{
	struct daemon *d = u;
	json_object *pids = NULL, *ok = json_object_new_array(), *failed = json_object_new_array();

	if (!json_object_object_get_ex(p, "pids", &pids) || !json_pids(pids)) {
		json_object_put(ok);
		json_object_put(failed);
		return methods_fail(err, "org.varlink.service.InvalidParameter", "parameter", jstr("pids"));
	}
	if (methods_foreign_pids(c, err) < 0) {
		json_object_put(ok);
		json_object_put(failed);
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(pids); i++) {
		pid_t pid = json_object_get_int(json_object_array_get_idx(pids, i));
		struct engine_place rq = { .pid = pid, .pidfd = -1, .origin = ORIGIN_NONE, .placer = c->uid,
					   .placer_gid = c->gid, .bound = !c->privileged };
		int r = engine_place(d->engine, &rq);

		if (r < 0)
			pid_failure(failed, pid, r, NULL);
		else
			json_object_array_add(ok, json_object_new_int(pid));
	}
	*ret = json_object_new_object();
	json_object_object_add(*ret, "dry_run", json_object_new_boolean(d->dry_run));
	json_object_object_add(*ret, "cleared", ok);
	json_object_object_add(*ret, "failed", failed);
	return 0;
}

static int config_error(struct control_error *err, const char *msg)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, jstr(msg));
	return methods_fail(err, ERR("ConfigError"), "errors", a);
}

static int m_reload(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		    struct control_error *err)
{
	struct daemon *d = u;
	char *error = NULL;
	int r;

	(void)c; /* the table's row: privileged only (auth_call_needs()) */
	(void)p;
	r = daemon_reload(d, &error);
	if (r < 0) {
		r = config_error(err, error ? error : strerror(-r));
		free(error);
		return r;
	}
	config_generation++;
	*ret = json_object_new_object();
	json_object_object_add(*ret, "config_generation", json_object_new_int64((int64_t)config_generation));
	json_object_object_add(*ret, "groups", json_object_new_int((int)engine_conf(d->engine)->n_groups));
	return 0;
}

static void add_warning(void *userdata, const char *message)
{
	json_object_array_add(userdata, jstr(message));
}

static int m_check_config(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			  struct control_error *err)
{
	struct daemon *d = u;
	json_object *jd = NULL, *errors = json_object_new_array(), *warnings = json_object_new_array();
	struct conf *conf = NULL;
	char *error = NULL;
	int r;

	json_object_object_get_ex(p, "dir", &jd);
	if (jd && !auth_may_name_config_dir(c->peer)) {
		json_object_put(errors);
		json_object_put(warnings);
		return denied(err, "checking another directory needs root: the daemon reads it as root and quotes "
				   "what it finds (check your own with coreschedd --check-config --config-dir DIR)");
	}
	r = daemon_load_config(jd ? json_object_get_string(jd) : d->config_dir, &conf, &error);
	if (r < 0)
		json_object_array_add(errors, jstr(error ? error : strerror(-r)));
	else
		conf_warnings(conf, add_warning, warnings);
	free(error);
	conf_free(conf);
	*ret = json_object_new_object();
	json_object_object_add(*ret, "ok", json_object_new_boolean(r >= 0));
	json_object_object_add(*ret, "errors", errors);
	json_object_object_add(*ret, "warnings", warnings);
	return 0;
}

static int m_stats(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		   struct control_error *err)
{
	struct daemon *d = u;

	(void)p;
	if (!d->stats)
		return methods_fail(err, ERR("NotSupported"), "reason", jstr("forced-idle accounting is off"));
	/* A fresh sample (and a rewrite of the metrics file) for the privileged only. */
	if (c->privileged)
		(void)stats_sample(d->stats);
	*ret = stats_view(d, c);
	return *ret ? 0 : -ENOMEM;
}

static const struct control_method methods[] = {
	{ "io.coresched.Status", m_status },
	{ "io.coresched.ListGroups", m_list_groups },
	{ "io.coresched.ListProcesses", m_list_processes },
	{ "io.coresched.Explain", m_explain },
	{ "io.coresched.Assign", m_assign },
	{ "io.coresched.Run", m_run },
	{ "io.coresched.Clear", m_clear },
	{ "io.coresched.Reload", m_reload },
	{ "io.coresched.CheckConfig", m_check_config },
	{ "io.coresched.Stats", m_stats },
	{ "io.coresched.AssignContainer", methods_container },
	{ "io.coresched.OpenSession", methods_open_session },
	{ "io.coresched.LeaveSession", methods_leave_session },
};

static void control_log(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_full(level, "%s", buf);
}

#define DEFAULT_SOCKET RUNSTATEDIR "/coresched/io.coresched"

const char *methods_state_file(const char *socket_path, bool dry_run)
{
	static char path[4096];
	const char *sock = socket_path ? socket_path : DEFAULT_SOCKET;
	const char *slash = strrchr(sock, '/');
	int dir_len = slash ? (int)(slash - sock) : 1;

	snprintf(path, sizeof(path), "%.*s/coreschedd%s.state", dir_len, slash ? sock : ".", dry_run ? ".dry-run" : "");
	return path;
}

int methods_lock_instance(const char *socket_path, const char **ret_path)
{
	static char path[4096];
	const char *sock = socket_path ? socket_path : DEFAULT_SOCKET;
	const char *slash = strrchr(sock, '/');
	int dir_len = slash ? (int)(slash - sock) : 1;
	int fd;

	snprintf(path, sizeof(path), "%.*s/coreschedd.lock", dir_len, slash ? sock : ".");
	*ret_path = path;
	fd = control_socket_make_dir(path);
	if (fd < 0)
		return fd;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = errno == EWOULDBLOCK ? -EBUSY : -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* After a pass of the loop that changed recorded placements: one write
 * for all of them, before the loop waits again. A defer source, off until
 * the file falls behind and ONESHOT: a post source enabled during a pass
 * would not run after it (sd-event marks post sources pending before the
 * pass's callback runs, and only those already on), but after the next
 * one, which may be the tick a second later. */
static int on_flush(sd_event_source *s, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	engine_state_flush(d->engine);
	return 0;
}

/* A placement the answer reports is on disk before the caller learns of
 * it (root's and the hook's: the others wait for the tick). */
static void before_answer(void *userdata)
{
	struct daemon *d = userdata;

	engine_state_flush(d->engine);
}

static void on_state_behind(void *userdata)
{
	struct daemon *d = userdata;

	if (d->flush_source && sd_event_source_set_enabled(d->flush_source, SD_EVENT_ONESHOT) < 0)
		engine_state_flush(d->engine); /* no pass to wait for: now */
}

int methods_setup(struct daemon *d, const char *socket_path)
{
	const struct conf *conf = engine_conf(d->engine);
	struct control_config cfg = {
		.socket_path = socket_path ? socket_path : DEFAULT_SOCKET,
		.max_clients = conf->daemon.max_clients,
		.max_clients_per_uid = conf->daemon.max_clients_per_uid,
		.idle_timeout_usec = (uint64_t)conf->daemon.idle_timeout_sec * 1000000u,
		.privileged = peer_privileged,
		.version = VERSION,
		.interface_description = control_interface_description,
		.log = control_log,
		.before_answer = before_answer,
	};
	struct timespec ts;
	int r;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	d->started_usec = (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
	r = engine_set_state_file(d->engine, methods_state_file(socket_path, d->dry_run));
	if (r < 0)
		return r;
	r = sd_event_add_defer(d->event, &d->flush_source, on_flush, d);
	if (r < 0)
		return r;
	r = sd_event_source_set_enabled(d->flush_source, SD_EVENT_OFF);
	if (r < 0)
		return r;
	engine_set_state_hook(d->engine, on_state_behind, d);
	/* Socket activation: systemd passes the listening socket as fd 3. */
	if (!socket_path && sd_listen_fds(0) == 1)
		cfg.listen_fd = SD_LISTEN_FDS_START;
	return control_new(d->event, &cfg, methods, sizeof(methods) / sizeof(methods[0]), d, &d->control);
}

void methods_finalize(struct daemon *d)
{
	d->control = control_free(d->control);
	engine_set_state_hook(d->engine, NULL, NULL);
	d->flush_source = sd_event_source_disable_unref(d->flush_source);
}
