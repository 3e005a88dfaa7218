/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The OCI runtime state that a runtime writes to a hook's stdin, reduced to
 * what the container hook decides on. Pure logic, no syscalls, so unit
 * tests and the fuzzer call it directly. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#define OCI_ID_MAX 1024            /* bytes of "id" */
#define OCI_STATE_MAX (1024 * 1024) /* bytes of state JSON the hook reads */

/* The annotations the hook understands. */
#define OCI_ANNOTATION_POLICY "io.coresched.policy"
#define OCI_ANNOTATION_GROUP "io.coresched.group"
#define OCI_ANNOTATION_CRI_SANDBOX "io.kubernetes.cri.sandbox-id"
#define OCI_ANNOTATION_CRIO_SANDBOX "io.kubernetes.cri-o.SandboxID"

struct oci_state {
	char *id;      /* never NULL after a successful parse */
	pid_t pid;     /* > 0 */
	char *status;  /* NULL when absent */
	char *bundle;  /* NULL when absent */
	char *policy;  /* io.coresched.policy, NULL when absent */
	char *group;   /* io.coresched.group, NULL when absent */
	char *sandbox; /* the pod's sandbox id (containerd's name first), or NULL */
};

/* Parses len bytes of state JSON into *ret. On failure returns -EINVAL and
 * sets *ret_error to a malloc'd message naming the field ("pid: must be a
 * positive integer"); -ENOMEM without a message. */
int ocihook_parse_state(const char *json, size_t len, struct oci_state *ret, char **ret_error);
/* Frees what a successful parse allocated; safe on a zeroed struct. */
void ocihook_state_done(struct oci_state *s);
