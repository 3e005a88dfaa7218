/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The daemon's shared state, for the control methods and stats. */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "conf.h"
#include "engine.h"

struct daemon {
	sd_event *event;
	struct engine *engine;
	struct control_server *control;
	struct stats *stats;
	const char *config_dir;       /* --config-dir, or NULL for the built-in paths */
	char **sources;               /* of the live configuration */
	int procmon_fd;
	unsigned receive_buffer;      /* ReceiveBuffer= as the socket was opened with (start-up only) */
	unsigned time_slice_usec;     /* TimeSliceUSec= as asked for at start-up (0: not asked) */
	bool resync_pending;          /* events were lost: drain the socket, then rescan */
	uint64_t resync_end_usec;     /* when the last rescan after a loss ended */
	uint64_t resync_warned_usec;  /* when rescans back to back were last logged */
	/* Numbers missing from the kernel's (procmon_receive() -ENOMSG): one
	 * rescan at once, then one when missing_next_usec is reached, by
	 * missing_source. */
	sd_event_source *missing_source;
	uint64_t missing_next_usec;   /* no rescan for them before (monotonic) */
	/* Events procmon holds after a pass of the loop: taken in the next. */
	sd_event_source *pending_source;
	uint64_t missing_logged_usec; /* when they were last logged */
	unsigned long long missing_unlogged; /* found since */
	bool seccomp_on;
	/* A dry run (--dry-run or DryRun=, fixed at start-up): the engine's
	 * kernel is dry_sys, which applies nothing; NULL otherwise. */
	bool dry_run;
	bool dry_run_forced;          /* by --dry-run: DryRun= cannot undo it */
	struct engine_sys *real_sys, *dry_sys;
	unsigned long long started_usec;
	/* After a pass of the loop that changed recorded placements: one
	 * write of the state file for all of them. Off otherwise, so that a
	 * pass that changed none (most process events) costs no second. */
	sd_event_source *flush_source;
};

/* Parse and validate the configuration at dir (NULL: the built-in paths). */
int daemon_load_config(const char *dir, struct conf **ret, char **ret_error);
/* conf_warning_fn that logs each warning. */
void daemon_log_warning(void *userdata, const char *message);
/* Load and swap in a new configuration; on failure the old one stays and
 * *ret_error says why (file:line). */
int daemon_reload(struct daemon *d, char **ret_error);
