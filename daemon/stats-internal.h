/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared between stats.c (lifecycle, timer, output) and stats-account.c
 * (the per-key accumulators a sample updates). Nothing else includes it. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "forceidle.h"
#include "hashmap.h"
#include "stats.h"

/* One (group,key) series. Lives in stats->accs by id, not in the engine's
 * key, so that its totals survive the key's release and re-creation. */
struct stats_acc {
	char *id;                /* "group/key" */
	char *group;
	char *key;               /* the label: "" for Per=process keys, summed */
	struct fi_account *fa;
	struct fi_totals prev_tasks; /* fa's task totals already folded in */
	struct fi_totals prev_cg;    /* fa's cgroup totals already folded in */
	uint64_t forceidle_ns;   /* reported totals: never go down */
	uint64_t cpu_ns;
	unsigned n_tasks;        /* members at the last sample */
	uint64_t last_live;      /* last sample in which a live key used it */
	bool sampled;            /* has had a sample since accounting started */
	bool cg_prev;            /* the previous sample read its cgroup */
};

struct stats {
	sd_event *event;
	sd_event_source *timer;
	struct engine *engine;
	char *proc_root;
	char *cgroup_root;
	char *sysctl_path;
	char *metrics_file;
	unsigned interval_sec;
	bool accounting;
	bool schedstats;         /* the kernel switch is on (by us or already) */
	bool restore_schedstats; /* we turned it on: turn it off again */
	int metrics_error;       /* last write failure logged, 0 after a success */
	bool dry_run;            /* the daemon applies nothing */

	struct hashmap *accs;    /* id -> struct stats_acc */
	struct hashmap *keys;    /* (uintptr_t)struct key * -> struct stats_key */
	struct hashmap *seen;    /* task id -> struct stats_seen */
	struct fi_threads threads; /* one process's threads: reused by each read */
	struct hashmap *groups;  /* name -> struct stats_group */
	uint64_t n_samples;
	uint64_t n_acct_samples; /* samples since accounting was turned on */
	uint64_t acct_start_ticks; /* boot-time clock ticks when it was turned on */
	uint64_t prev_sample_ticks; /* ... at the previous accounting sample */

	struct fi_cg_sample host;
	bool has_host;
	double host_share;       /* of the last interval; 0 until two samples */
};

/* Monotonic assignments per group: key counters restart with the key. */
struct stats_group {
	char *name;
	uint64_t assignments;
};

int stats_account_init(struct stats *s);
/* Update every accumulator from the given keys and their member tasks;
 * per-task and cgroup counters only while accounting is on. */
int stats_account_sample(struct stats *s, struct key *const *keys, size_t n_keys, struct task *const *tasks,
			 size_t n_tasks);
void stats_account_done(struct stats *s);
/* Accounting was switched off: forget the tasks so that turning it on
 * again starts from fresh baselines instead of charging the gap. */
void stats_account_reset(struct stats *s);
/* The final reading of a placed task whose exit event came in. */
void stats_account_task_exit(struct stats *s, const struct task *t);
/* Values of a map sorted by their first field (a char * name), for output
 * in a stable order. Returns a malloc'd array (caller frees) or NULL. */
void **stats_sorted_values(const struct hashmap *m, size_t *ret_n);
