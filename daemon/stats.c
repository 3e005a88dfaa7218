// SPDX-License-Identifier: GPL-2.0-or-later
/* The forced-idle accounting service: the kernel switch it depends on, the
 * timer that samples, and the two outputs (the Prometheus textfile and the
 * Stats reply). The accumulators themselves are stats-account.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keeper.h"
#include "log.h"
#include "procinfo.h"
#include "stats-internal.h"

#define USEC_PER_SEC 1000000ULL
#define NS_PER_SEC 1e9

/* ---- kernel.sched_schedstats ---- */

static int sysctl_read(const char *path, char *ret_value)
{
	char buf[8];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n <= 0)
		return n < 0 ? (int)n : -ENODATA;
	*ret_value = buf[0];
	return 0;
}

/* The kernel takes this write only with CAP_SYS_ADMIN, which the daemon
 * gives up after start-up: the keeper holds it for this one file. */
static int sysctl_write(const char *path, const char *value)
{
	size_t len = strlen(value);
	ssize_t n;
	int fd;

	if (keeper_handles(path))
		return keeper_write(value);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, value, len);
	if (n < 0)
		n = -errno;
	if (close(fd) < 0 && n >= 0)
		n = -errno;
	return n < 0 ? (int)n : (size_t)n == len ? 0 : -EIO;
}

/* Without the switch the kernel keeps no forced-idle counters at all. */
static void schedstats_enable(struct stats *s)
{
	char v = 0;
	int r = sysctl_read(s->sysctl_path, &v);

	if (r < 0) {
		log_errno(LOG_WARNING, r, "Cannot read %s: %m; forced-idle times will read 0, ignoring.",
			  s->sysctl_path);
		s->schedstats = false;
		return;
	}
	if (v != '0') {
		s->schedstats = true;
		return;
	}
	r = sysctl_write(s->sysctl_path, "1\n");
	if (r < 0) {
		log_errno(LOG_WARNING, r, "Failed to turn on %s: %m; forced-idle times will read 0, ignoring.",
			  s->sysctl_path);
		s->schedstats = false;
		return;
	}
	log_info("Turned on %s for forced-idle accounting; it is turned off again at exit", s->sysctl_path);
	s->schedstats = true;
	s->restore_schedstats = true;
}

/* Whether the kernel counts forced idle now: the switch as it is, not as
 * the daemon last left it (an administrator may have turned it off since);
 * where it cannot be read, what the daemon last found. */
static bool schedstats_now(const struct stats *s)
{
	char v = 0;

	return sysctl_read(s->sysctl_path, &v) == 0 ? v != '0' : s->schedstats;
}

static void schedstats_restore(struct stats *s)
{
	int r;

	if (!s->restore_schedstats)
		return;
	s->restore_schedstats = false;
	s->schedstats = false;
	r = sysctl_write(s->sysctl_path, "0\n");
	if (r < 0)
		log_errno(LOG_WARNING, r, "Failed to turn %s off again: %m, ignoring.", s->sysctl_path);
	else
		log_info("Turned %s off again", s->sysctl_path);
}

/* ---- timer ---- */

static int timer_arm(struct stats *s);

static int on_timer(sd_event_source *source, uint64_t usec, void *userdata)
{
	struct stats *s = userdata;

	(void)source;
	(void)usec;
	(void)stats_sample(s);
	(void)timer_arm(s);
	return 0;
}

/* Samples are wanted for accounting and for the textfile (which also
 * carries the engine's counters); with neither, the timer sleeps. */
static int timer_arm(struct stats *s)
{
	uint64_t usec = (uint64_t)s->interval_sec * USEC_PER_SEC;
	bool want = s->accounting || s->metrics_file;
	int r;

	if (!s->event)
		return 0;
	if (!s->timer) {
		if (!want)
			return 0;
		return sd_event_add_time_relative(s->event, &s->timer, CLOCK_MONOTONIC, usec, usec / 10, on_timer,
						  s);
	}
	if (!want)
		return sd_event_source_set_enabled(s->timer, SD_EVENT_OFF);
	r = sd_event_source_set_time_relative(s->timer, usec);
	if (r < 0)
		return r;
	return sd_event_source_set_enabled(s->timer, SD_EVENT_ONESHOT);
}

static void on_task_exit(void *userdata, const struct task *t)
{
	stats_account_task_exit(userdata, t);
}

/* ---- configuration ---- */

static int apply_conf(struct stats *s, const struct conf *c)
{
	bool accounting = c && c->daemon.force_idle_accounting;
	char *metrics = NULL;

	if (c && c->daemon.metrics_file && !(metrics = strdup(c->daemon.metrics_file)))
		return -ENOMEM;
	free(s->metrics_file);
	s->metrics_file = metrics;
	s->metrics_error = 0;
	s->interval_sec = c && c->daemon.stats_interval_sec ? c->daemon.stats_interval_sec : 10;
	if (accounting && !s->accounting) {
		schedstats_enable(s);
		stats_account_reset(s); /* marks when accounting began */
	} else if (!accounting && s->accounting) {
		schedstats_restore(s);
		stats_account_reset(s);
	}
	s->accounting = accounting;
	return 0;
}

void stats_reconfigure(struct stats *s, const struct conf *c)
{
	int r;

	if (!s)
		return;
	r = apply_conf(s, c);
	if (r >= 0)
		r = timer_arm(s);
	if (r < 0)
		log_errno(LOG_WARNING, r, "Failed to apply the new statistics settings: %m, ignoring.");
}

int stats_new_with_roots(sd_event *e, struct engine *engine, const char *proc_root, const char *cgroup_root,
			 const char *sysctl_path, struct stats **ret)
{
	struct stats *s = calloc(1, sizeof(*s));
	int r;

	if (!s)
		return -ENOMEM;
	s->engine = engine;
	s->event = e ? sd_event_ref(e) : NULL;
	if (!(s->proc_root = strdup(proc_root)) || !(s->cgroup_root = strdup(cgroup_root)) ||
	    !(s->sysctl_path = strdup(sysctl_path))) {
		stats_free(s);
		return -ENOMEM;
	}
	r = stats_account_init(s);
	if (r >= 0)
		r = apply_conf(s, engine_conf(engine));
	if (r >= 0)
		engine_set_exit_hook(engine, on_task_exit, s);
	if (r >= 0)
		r = timer_arm(s);
	if (r < 0) {
		stats_free(s);
		return r;
	}
	*ret = s;
	return 0;
}

int stats_new(sd_event *e, struct engine *engine, struct stats **ret)
{
	/* The cgroup2 mount wherever it is: /sys/fs/cgroup/unified on a
	 * hybrid host, whose /sys/fs/cgroup holds v1 hierarchies. */
	const char *cgroup_root = procinfo_cgroup_mount();

	return stats_new_with_roots(e, engine, "/proc", cgroup_root ? cgroup_root : "/sys/fs/cgroup",
				    STATS_SCHEDSTATS_SYSCTL, ret);
}

void stats_set_dry_run(struct stats *s, bool dry_run)
{
	if (s)
		s->dry_run = dry_run;
}

struct stats *stats_free(struct stats *s)
{
	if (!s)
		return NULL;
	if (s->engine)
		engine_set_exit_hook(s->engine, NULL, NULL);
	schedstats_restore(s);
	sd_event_source_disable_unref(s->timer);
	sd_event_unref(s->event);
	stats_account_done(s);
	free(s->proc_root);
	free(s->cgroup_root);
	free(s->sysctl_path);
	free(s->metrics_file);
	free(s);
	return NULL;
}

/* ---- Prometheus textfile ---- */

static int add_key_series(struct fi_metrics *m, const struct stats_acc *a)
{
	const char *labels[] = { "group", a->group, "key", a->key, NULL };
	int r;

	r = fi_metrics_add(m, "coresched_forced_idle_seconds_total",
			   "Time sibling CPUs were forced idle while this key's tasks ran.", "counter", labels,
			   (double)a->forceidle_ns / NS_PER_SEC);
	if (r >= 0)
		r = fi_metrics_add(m, "coresched_cpu_seconds_total", "CPU time of this key's tasks.", "counter",
				   labels, (double)a->cpu_ns / NS_PER_SEC);
	if (r >= 0)
		r = fi_metrics_add(m, "coresched_group_tasks", "Processes in this key now.", "gauge", labels,
				   a->n_tasks);
	return r;
}

static int add_group_series(struct fi_metrics *m, const struct stats_group *g)
{
	return fi_metrics_add(m, "coresched_assignments_total", "Cookie assignments made for this group.",
			      "counter", (const char *[]){ "group", g->name, NULL }, (double)g->assignments);
}

/* What each group's members ran before they had its cookie. */
static int add_exposure_series(struct stats *s, struct fi_metrics *m)
{
	size_t n = engine_n_exposures(s->engine);
	struct engine_exposure *x = n ? calloc(n, sizeof(*x)) : NULL;
	int r = n && !x ? -ENOMEM : 0;

	n = x ? engine_exposures(s->engine, x, n) : 0;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		const char *labels[] = { "group", x[i].group, NULL };

		r = fi_metrics_add(m, "coresched_untagged_cpu_seconds_total",
				   "CPU time processes ran without this group's cookie before the daemon gave it.",
				   "counter", labels, (double)x[i].cpu_ns / NS_PER_SEC);
		if (r >= 0)
			r = fi_metrics_add(m, "coresched_untagged_placements_total",
					   "Processes given this group's cookie after they had run without it.", "counter",
					   labels, (double)x[i].placements);
	}
	free(x);
	return r;
}

static int add_daemon_series(struct stats *s, struct fi_metrics *m)
{
	const struct engine_counters *c = engine_counters(s->engine);
	int r;

	r = fi_metrics_add(m, "coresched_events_lost_total", "Times process events were lost.", "counter", NULL,
			   (double)c->lost);
	if (r >= 0)
		r = fi_metrics_add(m, "coresched_resyncs_total", "Full rescans after lost events.", "counter", NULL,
				   (double)c->resyncs);
	if (r >= 0)
		r = fi_metrics_add(m, "coresched_repairs_total", "Cookies put back after a process left them.",
				   "counter", NULL, (double)c->repairs);
	/* The kernel's counter since boot, as last read: with no reading
	 * (accounting off, or the root cgroup's cpu.stat unreadable) there is
	 * no value, and a 0 would be a counter going down. */
	if (r >= 0 && s->has_host && s->host.has_forceidle)
		r = fi_metrics_add(m, "coresched_host_forced_idle_seconds_total",
				   "Forced-idle time of the whole host since boot.", "counter", NULL,
				   (double)s->host.forceidle_ns / NS_PER_SEC);
	if (r >= 0)
		r = fi_metrics_add(m, "coresched_dry_run",
				   "1 in a dry run: groups and assignments are the daemon's plan, nothing is applied.",
				   "gauge", NULL, s->dry_run ? 1 : 0);
	if (r >= 0)
		r = fi_metrics_add(m, "coresched_info", "The running coreschedd.", "gauge",
				   (const char *[]){ "version", VERSION, NULL }, 1);
	return r;
}

static int metrics_build(struct stats *s, struct fi_metrics *m)
{
	size_t na = 0, ng = 0;
	void **accs = stats_sorted_values(s->accs, &na), **groups = stats_sorted_values(s->groups, &ng);
	int r = accs && groups ? 0 : -ENOMEM;

	for (size_t i = 0; r >= 0 && i < na; i++)
		r = add_key_series(m, accs[i]);
	for (size_t i = 0; r >= 0 && i < ng; i++)
		r = add_group_series(m, groups[i]);
	if (r >= 0)
		r = add_exposure_series(s, m);
	if (r >= 0)
		r = add_daemon_series(s, m);
	free(accs);
	free(groups);
	return r;
}

static void metrics_write(struct stats *s)
{
	struct fi_metrics *m = fi_metrics_new();
	const char *text;
	int r = m ? metrics_build(s, m) : -ENOMEM;

	if (r >= 0)
		r = (text = fi_metrics_text(m)) ? fi_metrics_write(s->metrics_file, text) : -ENOMEM;
	fi_metrics_free(m);
	if (r >= 0) {
		s->metrics_error = 0;
		return;
	}
	/* Every interval would repeat it: say it once per distinct failure. */
	if (r != s->metrics_error)
		log_errno(LOG_WARNING, r, "Failed to write %s: %m, ignoring.", s->metrics_file);
	s->metrics_error = r;
}

/* ---- sampling ---- */

int stats_sample_keys(struct stats *s, struct key *const *keys, size_t n_keys, struct task *const *tasks,
		      size_t n_tasks)
{
	int r = stats_account_sample(s, keys, n_keys, tasks, n_tasks);

	if (s->metrics_file)
		metrics_write(s);
	return r;
}

int stats_sample(struct stats *s)
{
	size_t nk = engine_n_keys(s->engine), nt = engine_n_tasks(s->engine);
	struct key **keys = calloc(nk + 1, sizeof(*keys));
	struct task **tasks = calloc(nt + 1, sizeof(*tasks));
	int r = -ENOMEM;

	if (keys && tasks) {
		nk = engine_keys(s->engine, keys, nk);
		nt = engine_tasks(s->engine, tasks, nt);
		r = stats_sample_keys(s, keys, nk, tasks, nt);
	}
	free(keys);
	free(tasks);
	return r;
}

/* ---- the Stats reply ---- */

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 0;
}

static json_object *host_to_json(const struct stats *s)
{
	json_object *o = json_object_new_object();
	int64_t forceidle = s->has_host ? (int64_t)s->host.forceidle_ns : 0;
	int64_t usage = s->has_host ? (int64_t)s->host.usage_ns : 0;

	json_object_object_add(o, "forced_idle_ns", json_object_new_int64(forceidle));
	json_object_object_add(o, "usage_ns", json_object_new_int64(usage));
	json_object_object_add(o, "share", json_object_new_double(s->host_share));
	return o;
}

static json_object *acc_to_json(const struct stats_acc *a)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "group", json_object_new_string(a->group));
	json_object_object_add(o, "key", json_object_new_string(a->key));
	json_object_object_add(o, "tasks", json_object_new_int64(a->n_tasks));
	json_object_object_add(o, "forced_idle_ns", json_object_new_int64((int64_t)a->forceidle_ns));
	json_object_object_add(o, "cpu_ns", json_object_new_int64((int64_t)a->cpu_ns));
	json_object_object_add(o, "ratio", json_object_new_double(ratio(a->forceidle_ns, a->cpu_ns)));
	return o;
}

json_object *stats_to_json(struct stats *s)
{
	json_object *o = json_object_new_object(), *keys = json_object_new_array();
	size_t n = 0;
	void **accs = stats_sorted_values(s->accs, &n);

	for (size_t i = 0; accs && i < n; i++)
		json_object_array_add(keys, acc_to_json(accs[i]));
	free(accs);
	json_object_object_add(o, "schedstats", json_object_new_boolean(schedstats_now(s)));
	json_object_object_add(o, "accounting", json_object_new_boolean(s->accounting));
	json_object_object_add(o, "interval_sec", json_object_new_int64(s->interval_sec));
	json_object_object_add(o, "host", host_to_json(s));
	json_object_object_add(o, "keys", keys);
	return o;
}
