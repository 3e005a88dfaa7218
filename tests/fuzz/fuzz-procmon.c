// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary bytes as one datagram from the proc connector socket. The
 * decoder must never read outside the buffer (the sanitizers watch), must
 * report exactly the events it passed on, and must not depend on where the
 * buffer sits in memory. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procmon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct tally {
	int calls;
	uint64_t sum; /* of every field, to compare two decodes */
};

static void count(void *userdata, const struct procmon_event *ev)
{
	struct tally *t = userdata;

	if (ev->kind > PROCMON_EXIT)
		abort();
	if (ev->kind != PROCMON_FORK && (ev->parent_pid != 0 || ev->parent_tgid != 0))
		abort();
	t->calls++;
	t->sum = t->sum * 31 + (uint64_t)ev->kind + (uint64_t)(uint32_t)ev->pid +
		 ((uint64_t)(uint32_t)ev->tgid << 8) + ((uint64_t)(uint32_t)ev->parent_pid << 16) +
		 ((uint64_t)(uint32_t)ev->parent_tgid << 24) + ev->timestamp_ns;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tally a = { 0 }, b = { 0 };
	unsigned char *odd;
	int r1, r2;

	r1 = procmon_decode(data, size, count, &a);
	if (r1 < 0 ? r1 != -EBADMSG : r1 != a.calls)
		abort();

	/* The same bytes one byte off any alignment: same answer. */
	odd = malloc(size + 1);
	if (!odd)
		return 0;
	memcpy(odd + 1, data, size);
	r2 = procmon_decode(odd + 1, size, count, &b);
	free(odd);
	if (r1 != r2 || a.calls != b.calls || a.sum != b.sum)
		abort();
	return 0;
}
