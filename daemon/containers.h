/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The cgroups of hooked containers and where their processes belong. A
 * `runc exec` into a container is a child of the runtime, not of the
 * container's init: it inherits the runtime's cookie and can be recognised
 * only by the cgroup it joins. The hook's method fills the table; the
 * engine looks each exec up in it. */
#pragma once

#include <stdbool.h>

/* Remember that processes in cgroup (and below) belong to group/key.
 * Entries of cgroups that no longer exist are dropped first; past the
 * table's size the oldest entry goes. Out of memory: nothing is kept. */
void containers_remember(const char *cgroup, const char *group, const char *key);
/* The placement of the container whose cgroup is cgroup or an ancestor of
 * it (longest match): 1 with *ret_group and *ret_key (valid until the next
 * containers_remember()), 0 when no container claims it. */
int containers_lookup(const char *cgroup, const char **ret_group, const char **ret_key);
/* Whether cgroup path a is b or below it. */
bool containers_within(const char *a, const char *b);
