/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The control socket's listening end: bound by the daemon or handed over
 * by systemd socket activation. Private to control.c. */
#pragma once

/* Creates the parent directory (0755), replaces a stale socket left by a
 * dead daemon (-EADDRINUSE when a live one answers there, -EEXIST when the
 * path is not a socket), binds, makes it 0666 and listens; non-blocking. */
int control_socket_bind(const char *path, int *ret_fd);
/* The directories above path, made as control_socket_bind() makes them
 * (0755) where missing. */
int control_socket_make_dir(const char *path);
/* Checks fd is a listening AF_UNIX stream socket and makes it non-blocking. */
int control_socket_adopt(int fd);
