/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Applying cookies. SHARE_TO pushes the *caller's* cookie, so a key's
 * cookie lives in a holder: a parked daemon thread that carries it. The
 * main thread pulls a holder's cookie (SHARE_FROM) when it does not already
 * carry it, then pushes it to the target's thread group: one or two
 * syscalls per assignment, no cross-thread hand-off. */
#pragma once

#include <sys/types.h>

#include "sched_core.h"

struct holder;

/* Must run on the main thread before any assignment: makes sure the daemon
 * itself carries cookie 0 and starts the cookie-0 holder used to clear. */
int cookie_init(void);
void cookie_finalize(void);

/* A holder with a fresh cookie (CREATE), or one that adopts the cookie a
 * live task already carries (SHARE_FROM tid). */
int holder_new(struct holder **ret);
int holder_new_adopt(pid_t tid, struct holder **ret);
struct holder *holder_free(struct holder *h);
sc_cookie holder_cookie(const struct holder *h);
pid_t holder_tid(const struct holder *h);
unsigned cookie_live_holders(void);

/* Push h's cookie (NULL: cookie 0) to every thread of pid. */
int cookie_assign(const struct holder *h, pid_t pid);
/* A fresh cookie of its own for pid's thread group (Per=process). */
int cookie_create(pid_t pid);
/* The cookie of one thread. */
int cookie_get(pid_t tid, sc_cookie *ret);
