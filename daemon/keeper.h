/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The schedstats keeper: a child process that keeps CAP_SYS_ADMIN, the one
 * capability the kernel asks for on writes to kernel.sched_schedstats, so
 * the daemon itself can give it up. It can do nothing but write "0" or "1"
 * to that one file, and when the daemon goes away (even by SIGKILL) it puts
 * back the value it found. Every int function returns 0 or a negative errno. */
#pragma once

#include <stdbool.h>

/* Fork the keeper for the sysctl file at path. Call it while the daemon
 * still holds CAP_SYS_ADMIN and before any thread exists. -EPERM: no
 * CAP_SYS_ADMIN to keep (the switch stays the service manager's job). */
int keeper_start(const char *path);
/* Whether the keeper runs and looks after path. */
bool keeper_handles(const char *path);
/* Write value ("0\n" or "1\n") through the keeper; its errno on failure. */
int keeper_write(const char *value);
/* Close the channel: the keeper restores what it changed and exits. */
void keeper_stop(void);
