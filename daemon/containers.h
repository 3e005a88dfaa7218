/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cgroups of hooked containers and where their processes belong. A
 * `runc exec` into a container is a child of the runtime, not of the
 * container's init: it inherits the runtime's cookie and can be recognised
 * only by the cgroup it joins. The hook's method fills the table; the
 * engine looks each exec up in it. */
#pragma once

#include <stdbool.h>

/* The table's bound: a user-triggered hook must not grow the daemon
 * without limit, and no host runs this many containers at once. */
#define CONTAINERS_MAX 65536

/* Remember that processes in cgroup (an absolute path, and below it) belong
 * to group/key, replacing cgroup's earlier placement. When the table needs
 * room, entries of cgroups that no longer exist are dropped; a live entry
 * is never dropped. 0, -EINVAL (cgroup not absolute), -ENOSPC (CONTAINERS_MAX
 * live entries: nothing changed) or -ENOMEM (nothing changed). */
int containers_remember(const char *cgroup, const char *group, const char *key);
/* The placement of the container whose cgroup is cgroup or an ancestor of
 * it (longest match): 1 with *ret_group and *ret_key (valid until the next
 * containers_remember() or containers_clear()), 0 when no container claims
 * it. O(depth of cgroup), whatever the table's size. */
int containers_lookup(const char *cgroup, const char **ret_group, const char **ret_key);
/* No container is remembered: no cgroup places a process. */
bool containers_none(void);
/* Whether cgroup path a is b or below it. */
bool containers_within(const char *a, const char *b);
/* Forget every entry (daemon shutdown, tests). The cgroup root is kept. */
void containers_clear(void);
/* Where the cgroup v2 hierarchy is, for telling live cgroups from gone
 * ones: dir itself if it holds cgroup.controllers, else dir/unified (hybrid
 * v1+v2 systems), else nowhere and nothing is ever pruned. Defaults to
 * /sys/fs/cgroup, detected on first need; tests pass a directory of their
 * own. */
void containers_set_root(const char *dir);
