/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Forced-idle accounting per group key: samples on a timer, keeps
 * monotonic totals, writes the Prometheus textfile, answers Stats. */
#pragma once

#include <json-c/json.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "engine.h"

struct stats;

/* Starts sampling per the engine's configuration ([Daemon]
 * ForceIdleAccounting=, StatsIntervalSec=, MetricsFile=); turns
 * kernel.sched_schedstats on when accounting is wanted and it is off. */
int stats_new(sd_event *e, struct engine *engine, struct stats **ret);
/* Restores kernel.sched_schedstats if stats_new() changed it. */
struct stats *stats_free(struct stats *s);
void stats_reconfigure(struct stats *s, const struct conf *c);
/* Take a sample now (tests, and the Stats method's fresh figures). */
int stats_sample(struct stats *s);
/* {"schedstats": bool, "accounting": bool, "host": {...}, "keys": [...]} */
json_object *stats_to_json(struct stats *s);
