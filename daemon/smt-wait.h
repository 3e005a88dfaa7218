/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Started while SMT is switched off (booted with nosmt, or
 * smt/control written "off"): no cookie can be made, read or shared until
 * it is back on, yet one write brings it back, and from then on every
 * process would share cores untagged. So the daemon waits for it, then
 * starts as at any start-up: the start-up scan places what the rules name
 * and adopts the cookies it finds, as after a restart. Where SMT is
 * absent or forced off until a reboot there is nothing to wait for. */
#pragma once

#include <stdbool.h>

/* Wait until cookies work. Meanwhile: READY=1 and a STATUS= for systemd
 * (a start does not time out), WATCHDOG=1 each second, with
 * take_listen_fd a connection to the control socket that systemd passed
 * answered with NotReady and closed (a client fails at once, the container
 * hook and the PAM module by their fail modes), SIGHUP ignored (the caller
 * reads the configuration again). Once SMT is on, the watchdog allows 90 s
 * until smt_wait_done(), for the start-up that follows. Returns 0 once SMT
 * is on, 1 on SIGTERM or SIGINT, -ENODEV when smt/control no longer says
 * SMT can be switched on, another negative errno on failure. */
int smt_wait(bool take_listen_fd);

/* Start-up done: the unit's watchdog time again. */
void smt_wait_done(void);
