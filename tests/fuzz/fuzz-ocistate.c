// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary bytes as the OCI state on the hook's stdin. A runtime is
 * trusted, but the annotations in it come from whoever wrote the pod or
 * container spec. An accepted state must meet every promise of the
 * header; a rejected one must say why. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ocistate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_string(const char *s, size_t max)
{
	if (s && strlen(s) > max)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_state s = {};
	char *error = NULL;
	int r;

	r = ocihook_parse_state((const char *)data, size, &s, &error);
	if (r == 0) {
		if (error || !s.id || !*s.id || strlen(s.id) > OCI_ID_MAX || s.pid <= 0)
			abort();
		check_string(s.policy, OCI_ID_MAX);
		check_string(s.group, OCI_ID_MAX);
		check_string(s.sandbox, OCI_ID_MAX);
		ocihook_state_done(&s);
		if (s.id || s.bundle)
			abort();
		return 0;
	}
	if (r != -EINVAL && r != -ENOMEM)
		abort();
	if (r == -EINVAL && (!error || !*error))
		abort();
	if (s.id || s.pid)
		abort(); /* nothing written on failure */
	free(error);
	return 0;
}
