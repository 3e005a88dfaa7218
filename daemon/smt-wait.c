// SPDX-License-Identifier: GPL-2.0-or-later
/* Waiting for SMT at start-up (see smt-wait.h). */
#define _GNU_SOURCE
#include "smt-wait.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <systemd/sd-daemon.h>
#include <unistd.h>

#include "log.h"
#include "sched_core.h"

/* As systemd's default TimeoutStartSec=. */
#define START_USEC (90ULL * 1000000)
#define NOT_READY "SMT is switched off: coreschedd waits for it to be switched on, and places nothing until then"

/* One client, polled ready: its first call gets the reason, whatever it
 * asked (a stream socket keeps it past the close); best effort. One a
 * poll, as the socket may block (systemd's, shared with it as it is). */
static void turn_away(int listen_fd)
{
	static const char reply[] = "{\"error\":\"io.coresched.NotReady\",\"parameters\":{\"reason\":\"" NOT_READY
				    "\"}}";
	int fd = accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	(void)send(fd, reply, sizeof(reply), MSG_DONTWAIT | MSG_NOSIGNAL); /* with its NUL */
	close(fd);
}

static uint64_t watchdog_usec; /* the unit's, while a longer one stands */

int smt_wait(bool take_listen_fd)
{
	struct pollfd p[2] = { { .fd = -1, .events = POLLIN }, { .fd = -1, .events = POLLIN } };
	struct signalfd_siginfo si;
	sigset_t ss;
	int r;

	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGHUP);
	p[0].fd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	if (p[0].fd < 0)
		return -errno;
	/* The socket systemd listens on, where methods_setup() takes it. */
	if (take_listen_fd && sd_listen_fds(0) == 1)
		p[1].fd = SD_LISTEN_FDS_START;
	log_notice("SMT is switched off: waiting for it to be switched on (/sys/devices/system/cpu/smt/control); "
		   "no process is placed until then");
	sd_notify(0, "READY=1\nSTATUS=Waiting for SMT to be switched on: no process is placed until then");
	for (;;) {
		r = poll(p, 2, 1000);
		if (r < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (r > 0 && (p[0].revents & POLLIN) && read(p[0].fd, &si, sizeof(si)) == sizeof(si) &&
		    si.ssi_signo != SIGHUP) {
			log_notice("Stopped while waiting for SMT");
			r = 1;
			break;
		}
		if (r > 0 && (p[1].revents & POLLIN))
			turn_away(p[1].fd);
		sd_notify(0, "WATCHDOG=1");
		r = sc_probe();
		if (r == 0) {
			log_notice("SMT is on: starting");
			/* The rest of the start-up (the scan of every process
			 * above all) runs after READY=1, under the watchdog:
			 * give it the time a start would have, until
			 * smt_wait_done(). */
			if (sd_watchdog_enabled(0, &watchdog_usec) > 0 && watchdog_usec < START_USEC)
				sd_notifyf(0, "WATCHDOG=1\nWATCHDOG_USEC=%llu\nSTATUS=SMT is on: starting",
					   (unsigned long long)START_USEC);
			else
				sd_notify(0, "STATUS=SMT is on: starting");
			break;
		}
		if (r != -ENODEV)
			break;
		if (!sc_smt_switchable())
			break; /* -ENODEV: forced off meanwhile */
	}
	close(p[0].fd);
	return r;
}

void smt_wait_done(void)
{
	if (watchdog_usec && watchdog_usec < START_USEC)
		sd_notifyf(0, "WATCHDOG=1\nWATCHDOG_USEC=%llu", (unsigned long long)watchdog_usec);
	watchdog_usec = 0;
}
