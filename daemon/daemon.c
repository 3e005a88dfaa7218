// SPDX-License-Identifier: GPL-2.0-or-later
/* Loading and swapping the configuration: shared by start-up, SIGHUP and
 * the Reload method. */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "control.h"
#include "daemon.h"
#include "log.h"
#include "stats.h"

int daemon_load_config(const char *dir, struct conf **ret, char **ret_error)
{
	struct stat st;

	/* A directory named (--config-dir, CheckConfig's dir) must be there:
	 * one this process cannot see (a typo, or a path its unit hides:
	 * PrivateTmp=, ProtectHome=) is not an empty configuration. The
	 * built-in paths may be missing: the defaults then. */
	if (dir) {
		int r = stat(dir, &st) < 0 ? -errno : S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;

		if (r < 0) {
			if (asprintf(ret_error, "%s: %s, as coreschedd sees it", dir, strerror(-r)) < 0)
				*ret_error = NULL;
			return r;
		}
	}
	return conf_load_dir(dir, ret, ret_error);
}

void daemon_log_warning(void *userdata, const char *message)
{
	(void)userdata;
	log_warning("%s", message);
}

int daemon_reload(struct daemon *d, char **ret_error)
{
	struct conf *c = NULL;
	int r = daemon_load_config(d->config_dir, &c, ret_error);

	if (r < 0) {
		log_error("Reload failed, keeping the old configuration: %s", *ret_error ? *ret_error : strerror(-r));
		return r;
	}
	log_set_max_level(c->daemon.log_level);
	conf_warnings(c, daemon_log_warning, NULL);
	if (!d->dry_run_forced && c->daemon.dry_run != d->dry_run)
		log_warning("DryRun=%s takes effect at the next start; until then %s, ignoring.",
			    c->daemon.dry_run ? "yes" : "no",
			    d->dry_run ? "nothing is applied (dry run)" : "cookies are applied");
	if (c->daemon.time_slice_usec != d->time_slice_usec)
		log_warning("TimeSliceUSec=%u takes effect at the next start; until then the daemon keeps %s, ignoring.",
			    c->daemon.time_slice_usec, d->time_slice_usec ? "the slice it asked for" : "the kernel's slice");
	if (c->daemon.receive_buffer != d->receive_buffer)
		log_warning("ReceiveBuffer=%u takes effect at the next start; until then the socket keeps %u%s, ignoring.",
			    c->daemon.receive_buffer, d->receive_buffer, d->receive_buffer ? "" : " (the kernel's default)");
	conf_free(engine_set_conf(d->engine, c));
	stats_reconfigure(d->stats, c);
	if (d->control && control_set_limits(d->control, c->daemon.max_clients, c->daemon.max_clients_per_uid,
					     (uint64_t)c->daemon.idle_timeout_sec * 1000000u) < 0)
		log_warning("Out of memory for MaxClients=%u; the control socket keeps its old limits, ignoring.",
			    c->daemon.max_clients);
	log_notice("Configuration reloaded: %zu groups from %zu files", c->n_groups, c->n_sources);
	return 0;
}
