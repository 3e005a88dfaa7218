// SPDX-License-Identifier: GPL-2.0-or-later
/* coreschedd: set-up calls in order, then the event loop. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "containers.h"
#include "cookie.h"
#include "daemon.h"
#include "engine.h"
#include "engine-sys.h"
#include "keeper.h"
#include "log.h"
#include "methods.h"
#include "procmon.h"
#include "sandbox.h"
#include "sched_core.h"
#include "slice.h"
#include "smt-wait.h"
#include "stats.h"

#define EXIT_NO_SCHED_CORE 3
#define EXIT_NO_SMT 4
#define EVENT_BATCH 256
#define DRAIN_BATCH 4096 /* datagrams discarded per pass after a loss */

static const char *arg_config_dir;
static int arg_check_config;
static int arg_dry_run;
static const char *arg_socket;
static enum sandbox_mode arg_seccomp = SANDBOX_ENFORCE;

static void usage(FILE *f)
{
	fprintf(f, "Usage: coreschedd [options]\n"
		   "Assign core-scheduling cookies to processes from policy.\n\n"
		   "  -c, --config-dir DIR   read DIR/coreschedd.conf and DIR/rules.d/ only\n"
		   "  -n, --check-config     parse the configuration, print it normalized, exit\n"
		   "      --dry-run          decide and record as usual, but apply no cookie\n"
		   "                         (runs without core scheduling or SMT)\n"
		   "  -s, --socket PATH      control socket (default " RUNSTATEDIR "/coresched/io.coresched)\n"
		   "      --seccomp=MODE     enforce (default), log (allow and log calls off\n"
		   "                         the list) or off\n"
		   "  -h, --help             show this help\n"
		   "  -V, --version          show the version\n"
		   "\nExit status: 0 clean stop, 1 error, 2 bad usage, 3 kernel lacks\n"
		   "CONFIG_SCHED_CORE, 4 SMT absent or forced off: smt/control neither on nor\n"
		   "off, or unreadable (never in a dry run);\n"
		   "SMT switched off at start-up (smt/control: off, or on with siblings\n"
		   "offline) is waited for.\n");
}

static int parse_argv(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config-dir", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, 'n' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "socket", required_argument, NULL, 's' },
		{ "seccomp", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{}
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:ns:hV", opts, NULL)) >= 0)
		switch (c) {
		case 'c': arg_config_dir = optarg; break;
		case 'n': arg_check_config = 1; break;
		case 'D': arg_dry_run = 1; break;
		case 's':
			if (optarg[0] != '/') {
				fprintf(stderr, "coreschedd: --socket: '%s' is not an absolute path\n", optarg);
				return -EINVAL;
			}
			arg_socket = optarg;
			break;
		case 'S':
			if (sandbox_mode_from_string(optarg, &arg_seccomp) < 0) {
				fprintf(stderr, "coreschedd: --seccomp: '%s' is not enforce, log or off\n", optarg);
				return -EINVAL;
			}
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': printf("coreschedd %s\n", VERSION); exit(0);
		default: usage(stderr); return -EINVAL;
		}
	if (optind < argc) {
		fprintf(stderr, "coreschedd: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

static void notify_status(struct daemon *d)
{
	const struct engine_counters *c = engine_counters(d->engine);

	sd_notifyf(0, "STATUS=%s%zu tasks, %zu keys, %u holders, %llu assignments, %llu repairs%s",
		   d->dry_run ? "Dry run, nothing applied: " : "", engine_n_tasks(d->engine), engine_n_keys(d->engine),
		   d->dry_run ? engine_sys_dry_holders(d->dry_sys) : cookie_live_holders(),
		   (unsigned long long)c->assignments, (unsigned long long)c->repairs,
		   engine_smt_off(d->engine) ? ", SMT off" : "");
}

static void on_proc_event(void *userdata, const struct procmon_event *ev)
{
	engine_on_event(userdata, ev);
}

static uint64_t monotonic_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000ULL;
}

/* The kernel's report of a loss within a second of the last rescan's end:
 * the events of one rescan overflow the buffer, and rescans follow back
 * to back while the load lasts. Said once a minute at most. The clock is
 * read now, not the loop's (the start of its pass, before the rescan). */
static void note_back_to_back(struct daemon *d)
{
	uint64_t now = monotonic_usec();

	if (d->resync_end_usec && now < d->resync_end_usec + 1000000ULL &&
	    (!d->resync_warned_usec || now >= d->resync_warned_usec + 60000000ULL)) {
		char buffer[32] = "the kernel's default buffer";

		if (d->receive_buffer)
			snprintf(buffer, sizeof(buffer), "ReceiveBuffer=%u", d->receive_buffer);
		log_warning("Events were lost again within a second of a rescan: %s holds less than this load "
			    "brings during one rescan, so rescans follow one another; raise ReceiveBuffer= (it takes "
			    "effect at the next start)",
			    buffer);
		d->resync_warned_usec = now;
	}
}

/* How often numbers missing from the kernel's rescan, at most: after a
 * second, and after four times as long as the last such rescan took,
 * from its end, so that acks to other programs' subscriptions (which any
 * user may send, as fast as it likes) keep the daemon rescanning a fifth
 * of the time at most, however many processes there are. */
#define MISSING_RESCAN_USEC 1000000ULL
#define MISSING_RESCAN_SPAN 4
#define MISSING_LOG_USEC 60000000ULL

/* A rescan about to run covers the one set for missing numbers. */
static void missing_rescan_cancel(struct daemon *d)
{
	if (d->missing_source)
		(void)sd_event_source_set_enabled(d->missing_source, SD_EVENT_OFF);
}

static void rescan_for_missing(struct daemon *d)
{
	uint64_t start = monotonic_usec(), end, wait;

	missing_rescan_cancel(d);
	(void)engine_resync(d->engine);
	end = monotonic_usec();
	wait = (end - start) * MISSING_RESCAN_SPAN;
	d->missing_next_usec = end + (wait > MISSING_RESCAN_USEC ? wait : MISSING_RESCAN_USEC);
}

static int on_missing_due(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s;
	(void)usec;
	rescan_for_missing(userdata);
	return 0;
}

/* A number missing from the kernel's count of its messages: nothing
 * queued was lost (no drain), and the events from the message that
 * showed it on wait in procmon until the loss is noted. The missing one
 * was an event the kernel could not allocate, or an ack to another
 * program's subscription, which this socket does not take (the kernel
 * does not send it from Linux 6.6, the socket's filter drops it on any
 * kernel: procmon_open()): a rescan at once, unless the last one for missing
 * numbers ended too lately (rescan_for_missing()); then the loss is
 * noted and the rescan comes when that time is up, whatever else goes
 * missing meanwhile. Logged at the first, then once a minute at most,
 * with the count. */
static void note_missing(struct daemon *d)
{
	uint64_t now = monotonic_usec();

	d->missing_unlogged++;
	if (!d->missing_logged_usec || now >= d->missing_logged_usec + MISSING_LOG_USEC) {
		log_notice("%llu message(s) missing from the kernel's numbering of process events%s: an event the "
			   "kernel could not allocate (it reports no such loss), or its answer to another program's "
			   "subscription, which this daemon does not take; rescanning "
			   "at most once a second, and a fifth of the time, while they go on",
			   d->missing_unlogged, d->missing_logged_usec ? " in the last minute" : "");
		d->missing_logged_usec = now;
		d->missing_unlogged = 0;
	}
	if (now >= d->missing_next_usec || !d->missing_source) {
		rescan_for_missing(d);
		return;
	}
	engine_note_loss(d->engine);
	if (sd_event_source_get_enabled(d->missing_source, NULL) > 0)
		return; /* the rescan is set already */
	if (sd_event_source_set_time(d->missing_source, d->missing_next_usec) < 0 ||
	    sd_event_source_set_enabled(d->missing_source, SD_EVENT_ONESHOT) < 0)
		rescan_for_missing(d);
}

/* After a loss: empty the socket's queue, which ends the kernel's silent
 * dropping (procmon_drain()), then rescan. False while datagrams remain
 * after a bounded pass: the next POLLIN comes back here, and control
 * requests are served in between. */
static bool drain_then_resync(struct daemon *d, int fd)
{
	int r = procmon_drain(fd, DRAIN_BATCH);

	if (r == 0)
		return false;
	if (r < 0)
		log_errno(LOG_WARNING, r, "Failed to empty the process event queue: %m, rescanning anyway.");
	d->resync_pending = false;
	(void)engine_resync(d->engine);
	d->resync_end_usec = monotonic_usec();
	missing_rescan_cancel(d); /* it stands for a rescan due for missing numbers too */
	return true;
}

static int on_procmon(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	struct daemon *d = userdata;
	unsigned rounds = 0;
	int r;

	(void)s;
	(void)revents;
	if (d->resync_pending && !drain_then_resync(d, fd))
		return 0;
	/* procmon may hold events back (a batch limit, events that came with
	 * the subscription ack): take them too, boundedly. */
	do {
		r = procmon_receive(fd, EVENT_BATCH, on_proc_event, d->engine);
		if (r == -ENOMSG) { /* the events taken were handled: go on */
			note_missing(d);
			r = 1;
		}
	} while (r > 0 && procmon_pending(fd) && ++rounds < 16);
	/* Held events left (after the last round, a loss noted before them):
	 * the socket may not poll readable again for them. */
	if (r > 0 && procmon_pending(fd) && d->pending_source)
		(void)sd_event_source_set_enabled(d->pending_source, SD_EVENT_ONESHOT);
	/* The queue found empty: every event stamped before the start-up
	 * walk ended has been taken. */
	else if ((r == -EAGAIN || (r >= 0 && r < EVENT_BATCH)) && !procmon_pending(fd))
		engine_caught_up(d->engine);
	if (r == -ENOBUFS || r == -EBADMSG || r == -EMSGSIZE) {
		if (r == -ENOBUFS) /* the others are messages that could not be decoded */
			note_back_to_back(d);
		d->resync_pending = true;
		(void)drain_then_resync(d, fd);
	} else if (r < 0 && r != -EAGAIN && r != -EINTR)
		log_errno(LOG_WARNING, r, "Failed to receive process events: %m, ignoring.");
	return 0;
}

static int on_pending(sd_event_source *s, void *userdata)
{
	struct daemon *d = userdata;

	(void)s;
	return on_procmon(NULL, d->procmon_fd, 0, d);
}

static int on_reconcile(sd_event_source *s, uint64_t usec, void *userdata)
{
	static uint64_t next_reconcile; /* the 1 s ticks below come in between */
	static unsigned scheduled_sec;  /* the ReconcileSec= next_reconcile was set by */
	struct daemon *d = userdata;
	unsigned sec = engine_conf(d->engine)->daemon.reconcile_sec;

	if (next_reconcile == 0) /* the start-up scan just ran */
		next_reconcile = usec + (uint64_t)sec * 1000000ULL;
	/* A reload that shortens the period: the next reconcile is due
	 * within the new one, not at the end of the old. */
	if (sec != scheduled_sec && usec + (uint64_t)sec * 1000000ULL < next_reconcile)
		next_reconcile = usec + (uint64_t)sec * 1000000ULL;
	scheduled_sec = sec;
	if (sec != 0 && usec >= next_reconcile) {
		(void)engine_scan(d->engine, false, true);
		next_reconcile = usec + (uint64_t)sec * 1000000ULL - 100000;
	}
	/* Every second: SMT and sched_ext changes, retries of failed
	 * placements, the state file's deferred records. */
	engine_tick(d->engine);
	/* ...and where the last batch was a full one, and nothing came since. */
	if (!d->resync_pending && engine_awaits_empty_queue(d->engine) && procmon_empty(d->procmon_fd))
		engine_caught_up(d->engine);
	notify_status(d);
	sd_event_source_set_time(s, usec + 1000000ULL);
	sd_event_source_set_enabled(s, SD_EVENT_ON);
	return 0;
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
	char *error = NULL;

	(void)s;
	(void)si;
	(void)daemon_reload(userdata, &error);
	free(error);
	return 0;
}

/* 0: cookies work (or a dry run); 1: stopped while waiting for SMT; else
 * minus the exit status. *waited: SMT was waited for. */
static int setup_kernel(const struct daemon *d, bool *waited)
{
	int r;

	/* Not even a probe: a dry run makes no core-scheduling call at all. */
	if (d->dry_run) {
		log_notice("Dry run: processes are matched, grouped and recorded as usual, "
			   "but no cookie is applied; core scheduling and SMT are not needed.");
		return 0;
	}
	r = sc_probe();

	if (r == -EINVAL) {
		fprintf(stderr, "coreschedd: %s\n", sc_strerror(r));
		return -EXIT_NO_SCHED_CORE;
	}
	/* Switched off, it comes back with one write: wait for it (a stop
	 * meanwhile is a clean one). Absent or forced off, it will not. */
	if (r == -ENODEV && sc_smt_switchable()) {
		*waited = true;
		r = smt_wait(!arg_socket);
	}
	if (r == 1)
		return 1;
	if (r == -ENODEV) {
		fputs("coreschedd: core scheduling is unavailable: SMT is absent or forced off\n", stderr);
		return -EXIT_NO_SMT;
	}
	if (r < 0) {
		log_errno(LOG_ERR, r, "Failed to probe core scheduling: %m");
		return -1;
	}
	return 0;
}

/* The configuration may have changed during the wait for SMT: read it
 * again, as a start would. One that no longer loads leaves the one read
 * before in force, with the error logged. */
static void reread_config(struct daemon *d, struct conf **conf)
{
	struct conf *c = NULL;
	char *error = NULL;

	if (daemon_load_config(arg_config_dir, &c, &error) < 0) {
		log_error("%s; keeping the configuration read before the wait for SMT",
			  error ? error : "Failed to load the configuration");
		free(error);
		return;
	}
	conf_free(*conf);
	*conf = c;
	log_set_max_level(c->daemon.log_level);
	conf_warnings(c, daemon_log_warning, NULL); /* a load, as a reload warns */
	d->dry_run = arg_dry_run || c->daemon.dry_run;
}

/* Before any thread: capabilities are per thread. What needs
 * CAP_SYS_ADMIN later (the schedstats switch) goes to the keeper first. */
static int setup_privileges(void)
{
	int r = keeper_start(STATS_SCHEDSTATS_SYSCTL);

	if (r < 0 && r != -EPERM && r != -ENOENT)
		log_errno(LOG_WARNING, r, "Failed to start the schedstats keeper: %m; "
			  "forced-idle accounting needs kernel.sched_schedstats=1 set by hand.");
	r = sandbox_drop_caps();
	if (r < 0)
		log_errno(LOG_ERR, r, "Failed to drop capabilities: %m");
	return r;
}

/* CAP_NET_ADMIN serves only the subscription, made once (a loss is
 * answered with a rescan, never a new subscription): give it up before
 * the first thread, so no thread keeps it. Where a unit's system call
 * filter refuses capset() the bounding set already holds it: go on. */
static void drop_net_admin(void)
{
	int r = sandbox_keep_caps(1ULL << CAP_SYS_PTRACE);

	if (r < 0)
		log_errno(LOG_WARNING, r, "Failed to drop CAP_NET_ADMIN after subscribing: %m, ignoring.");
}

static void print_warning(void *userdata, const char *message)
{
	(void)userdata;
	fprintf(stderr, "coreschedd: warning: %s\n", message);
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The engine over the real kernel, or in a dry run over one that keeps
 * cookies in memory and reads everything else from the real one. */
static int setup_engine(struct daemon *d)
{
	if (!d->dry_run)
		return engine_new("/proc", &d->engine);
	d->real_sys = engine_sys_linux_new("/proc");
	d->dry_sys = d->real_sys ? engine_sys_dry_new(d->real_sys) : NULL;
	if (!d->dry_sys)
		return -ENOMEM;
	return engine_new_sys(d->dry_sys, getpid(), &d->engine);
}

static int setup_loop(struct daemon *d)
{
	uint64_t now;
	int r;

	/* A loop of its own, not the thread's default one: sd-event checks
	 * the thread of a default loop (gettid()) at every iteration, one
	 * system call per wake-up of the event path. */
	r = sd_event_new(&d->event);
	if (r < 0)
		return r;
	sd_event_add_signal(d->event, NULL, SIGTERM, NULL, NULL);
	sd_event_add_signal(d->event, NULL, SIGINT, NULL, NULL);
	sd_event_add_signal(d->event, NULL, SIGHUP, on_sighup, d);
	r = sd_event_add_io(d->event, NULL, d->procmon_fd, EPOLLIN, on_procmon, d);
	if (r < 0)
		return r;
	r = sd_event_add_time(d->event, &d->missing_source, CLOCK_MONOTONIC, UINT64_MAX, 0, on_missing_due, d);
	if (r < 0)
		return r;
	(void)sd_event_source_set_enabled(d->missing_source, SD_EVENT_OFF);
	r = sd_event_add_defer(d->event, &d->pending_source, on_pending, d);
	if (r < 0)
		return r;
	(void)sd_event_source_set_enabled(d->pending_source, SD_EVENT_OFF);
	/* Events before the reconcile timer: isolation first, housekeeping after. */
	sd_event_now(d->event, CLOCK_MONOTONIC, &now);
	r = sd_event_add_time(d->event, NULL, CLOCK_MONOTONIC,
			      now + 1000000ULL, 100000, on_reconcile, d);
	if (r < 0)
		return r;
	(void)sd_event_set_watchdog(d->event, true);
	return 0;
}

/* The event loop's short slice (slice.h), read back from the kernel: the
 * threads made from here on inherit it (unless the unit sets
 * reset-on-fork). */
static void request_slice(unsigned usec)
{
	uint64_t ns;
	int r;

	if (!usec) {
		log_debug("TimeSliceUSec=0: keeping the kernel's time slice");
		return;
	}
	r = slice_request((uint64_t)usec * 1000, &ns);
	if (r == -EOPNOTSUPP)
		log_info("Keeping the scheduling policy it was started under: a time slice of its own is only for SCHED_OTHER and SCHED_BATCH");
	else if (r < 0)
		log_errno(LOG_INFO, r, "Keeping the kernel's time slice: asking for %u us failed: %m", usec);
	else if (ns != (uint64_t)usec * 1000)
		log_info("Keeping the kernel's time slice: it does not take one of %u us (Linux 6.12 and later do)", usec);
	else
		log_debug("Time slice: %" PRIu64 " us", ns / 1000);
}

/* Where the ids (and cgroup) of each process come from, said once: a
 * pidfd's answer costs a fraction of formatting the process's status. */
static void report_id_source(void)
{
	const char *mnt;

	if (procinfo_pidfd_ids_supported() > 0) {
		log_info("Process ids are read through pidfds (PIDFD_GET_INFO)");
		if ((mnt = procinfo_cgroup_mount()))
			log_info("Cgroup paths are known by their ids, as the cgroup2 mount at %s shows them", mnt);
		else
			log_info("Cgroup paths are read from /proc/PID/cgroup: no cgroup2 mount of the whole hierarchy");
	} else
		log_info("Process ids are read from /proc/PID/status: the kernel has no PIDFD_GET_INFO (Linux 6.13)");
}

int main(int argc, char **argv)
{
	struct daemon d = { .procmon_fd = -1 };
	struct conf *conf = NULL;
	const char *lock_path;
	char *error = NULL;
	bool waited = false;
	int lock_fd, r;
	sigset_t ss;

	if (parse_argv(argc, argv) < 0)
		return 2;
	/* Before any thread exists: holders inherit the mask, and a signal
	 * must reach only the event loop's signalfd. */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	log_setup();
	d.config_dir = arg_config_dir;
	if (daemon_load_config(arg_config_dir, &conf, &error) < 0) {
		fprintf(stderr, "%s\n", error ? error : "coreschedd: failed to load the configuration");
		free(error);
		return 1;
	}
	if (arg_check_config) {
		conf_warnings(conf, print_warning, NULL);
		conf_print(conf, stdout);
		conf_free(conf);
		return 0;
	}
	/* Before anything is read or written: a second daemon beside the
	 * socket would scan, place and rewrite the state file, then find
	 * the socket taken. */
	lock_fd = methods_lock_instance(arg_socket, &lock_path);
	if (lock_fd < 0) {
		if (lock_fd == -EBUSY)
			log_error("Another coreschedd holds %s: one daemon serves a socket's directory; not starting",
				  lock_path);
		else
			log_errno(LOG_ERR, lock_fd, "Failed to take %s: %m", lock_path);
		conf_free(conf);
		return 1;
	}
	log_set_max_level(conf->daemon.log_level);
	conf_warnings(conf, daemon_log_warning, NULL);
	d.dry_run = arg_dry_run || conf->daemon.dry_run;
	d.dry_run_forced = arg_dry_run;
	r = setup_kernel(&d, &waited);
	if (r != 0) {
		conf_free(conf);
		return r == 1 ? 0 : r == -1 ? 1 : -r;
	}
	if (waited)
		reread_config(&d, &conf);
	if (setup_privileges() < 0) {
		conf_free(conf);
		return 1;
	}
	raise_fd_limit();
	/* Subscribe first, then scan: nothing falls between. */
	d.receive_buffer = conf->daemon.receive_buffer;
	d.procmon_fd = procmon_open(d.receive_buffer);
	if (d.procmon_fd < 0) {
		log_errno(LOG_ERR, d.procmon_fd, "Failed to subscribe to process events: %m");
		conf_free(conf);
		return 1;
	}
	drop_net_admin();
	d.time_slice_usec = conf->daemon.time_slice_usec;
	request_slice(d.time_slice_usec);
	report_id_source();
	/* The holders are the daemon's first threads: after the drops. A dry
	 * run has none. */
	r = d.dry_run ? 0 : cookie_init();
	if (r < 0) {
		log_errno(LOG_ERR, r, "Failed to set up cookie holders: %m");
		conf_free(conf);
		return 1;
	}
	if (setup_engine(&d) < 0) {
		log_error("Failed to set up the engine");
		return 1;
	}
	engine_set_conf(d.engine, conf);
	/* Explicit placements recorded before a restart are restored inside
	 * the adoption scan, before any rule decides for those tasks. */
	(void)engine_set_state_file(d.engine, methods_state_file(arg_socket, d.dry_run));
	(void)engine_scan(d.engine, true, false);
	if (setup_loop(&d) < 0 || stats_new(d.event, d.engine, &d.stats) < 0) {
		log_error("Failed to set up the event loop");
		return 1;
	}
	stats_set_dry_run(d.stats, d.dry_run);
	/* Before the control socket appears, so that whoever sees it sees a
	 * confined daemon: everything from here on (the socket, events,
	 * reloads, resyncs, stats, control) runs under the filter, holder
	 * threads included. */
	r = sandbox_seccomp(arg_seccomp);
	if (r < 0) {
		log_errno(LOG_ERR, r, "Failed to install the seccomp filter: %m");
		return 1;
	}
	d.seccomp_on = arg_seccomp != SANDBOX_OFF;
	if (methods_setup(&d, arg_socket) < 0) {
		log_error("Failed to set up the control socket");
		return 1;
	}
	(void)on_procmon(NULL, d.procmon_fd, 0, &d); /* what came with the ack */
	log_notice("Started%s: %zu processes tracked, %zu keys; %s", d.dry_run ? " (dry run: nothing is applied)" : "",
		   engine_n_tasks(d.engine), engine_n_keys(d.engine), sandbox_describe());
	sd_notify(0, "READY=1");
	smt_wait_done();
	notify_status(&d);
	r = sd_event_loop(d.event);
	sd_notify(0, "STOPPING=1");
	d.missing_source = sd_event_source_disable_unref(d.missing_source);
	d.pending_source = sd_event_source_disable_unref(d.pending_source);
	methods_finalize(&d);
	d.stats = stats_free(d.stats);
	keeper_stop(); /* after stats_free, which switches schedstats back through it */
	d.engine = engine_free(d.engine);
	d.dry_sys = engine_sys_dry_free(d.dry_sys);
	d.real_sys = engine_sys_linux_free(d.real_sys);
	containers_clear();
	cookie_finalize();
	close(d.procmon_fd);
	sd_event_unref(d.event);
	close(lock_fd); /* the next daemon may start */
	return r < 0 ? 1 : 0;
}
