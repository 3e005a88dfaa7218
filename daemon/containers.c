// SPDX-License-Identifier: GPL-2.0-or-later
/* The container cgroup table (see containers.h): a fixed array, because
 * hooked containers are few and every exec looks it up. */
#include "containers.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procinfo.h"

#define CGROUP_ROOT "/sys/fs/cgroup"
#define MAX_CONTAINERS 1024

struct container_entry {
	char *cgroup;
	char *group;
	char *key;
	uint64_t seq;
};

static struct container_entry table[MAX_CONTAINERS];
/* Slots ever used: every exec looks the table up, and most machines hook
 * few containers or none, so the look-up stops here, not at 1024. */
static size_t table_used;
static uint64_t table_seq;

static void entry_clear(struct container_entry *en)
{
	free(en->cgroup);
	free(en->group);
	free(en->key);
	*en = (struct container_entry){};
}

/* Containers that ended took their cgroups with them. */
static void table_prune(void)
{
	char path[PROCINFO_PATH_MAX + sizeof(CGROUP_ROOT)];

	for (size_t i = 0; i < MAX_CONTAINERS; i++) {
		if (!table[i].cgroup)
			continue;
		snprintf(path, sizeof(path), CGROUP_ROOT "%s", table[i].cgroup);
		if (access(path, F_OK) < 0)
			entry_clear(&table[i]);
	}
}

/* The slot for cgroup: its own, a free one, or the oldest. */
static struct container_entry *table_slot(const char *cgroup)
{
	struct container_entry *free_slot = NULL, *oldest = &table[0];

	for (size_t i = 0; i < MAX_CONTAINERS; i++) {
		struct container_entry *en = &table[i];

		if (en->cgroup && strcmp(en->cgroup, cgroup) == 0)
			return en;
		if (!en->cgroup && !free_slot)
			free_slot = en;
		if (en->seq < oldest->seq)
			oldest = en;
	}
	return free_slot ? free_slot : oldest;
}

void containers_remember(const char *cgroup, const char *group, const char *key)
{
	struct container_entry *en, fresh = { strdup(cgroup), strdup(group), strdup(key), ++table_seq };

	if (!fresh.cgroup || !fresh.group || !fresh.key) {
		entry_clear(&fresh);
		return;
	}
	table_prune();
	en = table_slot(cgroup);
	entry_clear(en);
	*en = fresh;
	if ((size_t)(en - table) + 1 > table_used)
		table_used = (size_t)(en - table) + 1;
}

bool containers_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' || (n == 1 && b[0] == '/'));
}

int containers_lookup(const char *cgroup, const char **ret_group, const char **ret_key)
{
	const struct container_entry *best = NULL;

	if (!cgroup)
		return 0;
	for (size_t i = 0; i < table_used; i++) {
		const struct container_entry *en = &table[i];

		if (en->cgroup && containers_within(cgroup, en->cgroup) &&
		    (!best || strlen(en->cgroup) > strlen(best->cgroup)))
			best = en;
	}
	if (!best)
		return 0;
	*ret_group = best->group;
	*ret_key = best->key;
	return 1;
}
