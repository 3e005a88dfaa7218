/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Started while SMT is switched off (booted with nosmt, or
 * smt/control written "off"): no cookie can be made, read or shared until
 * it is back on, yet one write brings it back, and from then on every
 * process would share cores untagged. So the daemon waits for it, then
 * starts as at any start-up: the start-up scan places what the rules name
 * and adopts the cookies it finds, as after a restart. Where SMT is
 * absent or forced off until a reboot there is nothing to wait for. */
#pragma once

/* Wait until cookies work. Meanwhile: READY=1 and a STATUS= for systemd
 * (a start does not time out), WATCHDOG=1 each second, a connection to
 * the control socket that systemd passed answered with NotReady and
 * closed (a client fails at once, the container hook by its FailMode=),
 * SIGHUP ignored. Returns 0 once SMT is on, 1 on SIGTERM or SIGINT, -ENODEV
 * when SMT went for good meanwhile, another negative errno on failure. */
int smt_wait(void);
