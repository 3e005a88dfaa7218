/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The io.coresched varlink methods: the daemon's side of the CLI. */
#pragma once

struct daemon;

/* Listen on socket_path (NULL: the default, or a socket passed by systemd)
 * and register every method. */
int methods_setup(struct daemon *d, const char *socket_path);
void methods_finalize(struct daemon *d);
