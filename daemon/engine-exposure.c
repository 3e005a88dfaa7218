// SPDX-License-Identifier: GPL-2.0-or-later
/* Exposure: the CPU time a process ran without its group's cookie before
 * the daemon gave it that cookie. Rules act on the exec event, after the
 * program started; a fork child the kernel gave 0 runs so until the
 * daemon corrects it. Counted once per process and exec, per group, with
 * the time read from the kernel as the cookie is applied (the process CPU
 * clock: the CPU time of all its threads since it started, exited threads
 * included); counters never go down while the group exists. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "engine-internal.h"
#include "engine-sys.h"
#include "hashmap.h"

struct exposure {
	char *group;
	uint64_t cpu_ns;
	uint64_t placements;
};

/* Whether cookie c belongs to a key of group (or is trusted group's 0). */
static bool cookie_of_group(const struct engine *e, sc_cookie c, const char *group)
{
	const struct key *k = c && c != COOKIE_UNKNOWN ? table_key_by_cookie(e, c) : NULL;

	return k && strcmp(k->group, group) == 0;
}

bool exposure_due(const struct engine *e, const struct task *t, const struct key *k)
{
	/* run -g and the hook place the launcher before it execs the
	 * program: what ran untagged was the launcher, not the workload. */
	/* A session's opener, placed for its user or going back to its own
	 * key, ran with a cookie a request gave it, not untagged. */
	return k && !k->trusted && !e->no_exposure && !(t->exposure_group && strcmp(t->exposure_group, k->group) == 0) &&
	       t->origin != ORIGIN_RUN && t->origin != ORIGIN_HOOK && t->origin != ORIGIN_SESSION &&
	       !cookie_of_group(e, t->cookie, k->group);
}

void exposure_count(struct engine *e, struct task *t, const struct key *k, bool due)
{
	struct exposure *x;
	uint64_t ns;

	exposure_settle(t, k);
	/* Read once the cookie is on: a read before it would lengthen the
	 * very window it measures. */
	if (!due || !k || !e->sys->cpu_ns || SYS(e, cpu_ns, t->pid, &ns) < 0)
		return; /* gone, or no clock to read: nothing known to add */
	if (!e->exposure && !(e->exposure = hashmap_new(true)))
		return;
	x = hashmap_get_str(e->exposure, k->group);
	if (!x) {
		x = calloc(1, sizeof(*x));
		if (!x || !(x->group = strdup(k->group)) || hashmap_put_str(e->exposure, k->group, x) < 0) {
			if (x)
				free(x->group);
			free(x);
			return;
		}
	}
	x->cpu_ns += ns;
	x->placements++;
	e->c.untagged_cpu_ns += ns;
	e->c.untagged_placements++;
}

void exposure_settle(struct task *t, const struct key *k)
{
	if (!k || k->trusted || (t->exposure_group && strcmp(t->exposure_group, k->group) == 0))
		return;
	free(t->exposure_group);
	t->exposure_group = strdup(k->group); /* out of memory: it may count again */
}

void exposure_forget(struct task *t)
{
	free(t->exposure_group);
	t->exposure_group = NULL;
}

static int cmp_exposure(const void *a, const void *b)
{
	return strcmp((*(struct exposure *const *)a)->group, (*(struct exposure *const *)b)->group);
}

size_t engine_exposures(const struct engine *e, struct engine_exposure *out, size_t max)
{
	size_t n = e->exposure ? hashmap_size(e->exposure) : 0;
	struct exposure **v = n ? calloc(n, sizeof(*v)) : NULL;

	if (!v)
		return 0;
	n = hashmap_values(e->exposure, (void **)v, n);
	qsort(v, n, sizeof(*v), cmp_exposure);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = (struct engine_exposure){ v[i]->group, v[i]->cpu_ns, v[i]->placements };
	free(v);
	return n < max ? n : max;
}

size_t engine_n_exposures(const struct engine *e)
{
	return e->exposure ? hashmap_size(e->exposure) : 0;
}

static void free_one(void *userdata, void *value)
{
	struct exposure *x = value;

	(void)userdata;
	free(x->group);
	free(x);
}

/* A reload: groups gone from the configuration take their counters along. */
void exposure_prune(struct engine *e)
{
	size_t n = e->exposure ? hashmap_size(e->exposure) : 0;
	struct exposure **v = n ? calloc(n, sizeof(*v)) : NULL;

	if (!v)
		return;
	n = hashmap_values(e->exposure, (void **)v, n);
	for (size_t i = 0; i < n; i++)
		if (!conf_find_group(e->conf, v[i]->group)) {
			hashmap_remove_str(e->exposure, v[i]->group);
			free_one(NULL, v[i]);
		}
	free(v);
}

void exposure_free(struct engine *e)
{
	if (!e->exposure)
		return;
	hashmap_foreach(e->exposure, free_one, NULL);
	e->exposure = hashmap_free(e->exposure);
}
