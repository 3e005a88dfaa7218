/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Forced-idle accounting per group key: samples on a timer, keeps
 * monotonic totals, writes the Prometheus textfile, answers Stats. */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "engine.h"

struct stats;

/* The kernel switch forced-idle accounting needs (CAP_SYS_ADMIN to write). */
#define STATS_SCHEDSTATS_SYSCTL "/proc/sys/kernel/sched_schedstats"

/* Starts sampling per the engine's configuration ([Daemon]
 * ForceIdleAccounting=, StatsIntervalSec=, MetricsFile=); turns
 * kernel.sched_schedstats on when accounting is wanted and it is off. */
int stats_new(sd_event *e, struct engine *engine, struct stats **ret);
/* The same with the roots injected: /proc, the cgroup v2 mount and the
 * kernel.sched_schedstats file. e may be NULL: no timer (tests). */
int stats_new_with_roots(sd_event *e, struct engine *engine, const char *proc_root, const char *cgroup_root,
			 const char *sysctl_path, struct stats **ret);
/* A dry run: the metrics say that the groups and assignments they count
 * are a plan, nothing applied (coresched_dry_run 1). */
void stats_set_dry_run(struct stats *s, bool dry_run);
/* Restores kernel.sched_schedstats if stats_new() changed it. */
struct stats *stats_free(struct stats *s);
void stats_reconfigure(struct stats *s, const struct conf *c);
/* Take a sample now (tests, and the Stats method's fresh figures). */
int stats_sample(struct stats *s);
/* The sample on explicit key and task lists; stats_sample() passes the
 * engine's. Tests use it for keys a kernel without core scheduling cannot
 * create. */
int stats_sample_keys(struct stats *s, struct key *const *keys, size_t n_keys, struct task *const *tasks,
		      size_t n_tasks);
/* {"schedstats": bool, "accounting": bool, "host": {...}, "keys": [...]} */
json_object *stats_to_json(struct stats *s);
