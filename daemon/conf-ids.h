/* SPDX-License-Identifier: GPL-2.0-or-later */
/* User and group names to numbers, for the configuration loader. Apart from
 * conf.h because <grp.h> has its own struct group. */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* A decimal id, 0..4294967294 ((uid_t)-1 means "none" to the kernel). */
int conf_ids_parse(const char *s, uint32_t *ret);
/* A user name or a uid: 0, -EINVAL for a malformed number, -ENOENT. */
int conf_ids_user(const char *s, uint32_t *ret);
/* A group name or a gid: 0, -EINVAL for a malformed number, -ENOENT. */
int conf_ids_group(const char *s, uint32_t *ret);
/* The uids of a group's members: those listed in it and those whose
 * primary group it is (duplicates possible). -ENOENT for no such group. */
int conf_ids_members(const char *group, uint32_t **ret_uids, size_t *ret_n);
