/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The io.coresched varlink methods: the daemon's side of the CLI. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <sys/types.h>

struct daemon;
struct control_caller;
struct control_error;

/* Listen on socket_path (NULL: the default, or a socket passed by systemd)
 * and register every method. */
int methods_setup(struct daemon *d, const char *socket_path);
void methods_finalize(struct daemon *d);
/* Where the explicit placements are kept across restarts: beside the
 * control socket (NULL: the default one), in the runtime directory. A dry
 * run keeps its own file: its cookies are not the kernel's, and a real
 * daemon's placements must survive a dry run in between. */
const char *methods_state_file(const char *socket_path, bool dry_run);
/* One daemon per directory of its socket (the state files' and the
 * socket's): a lock file there, coreschedd.lock, held for the daemon's
 * life. Returns its fd, -EBUSY when another process holds it (*ret_path
 * says where), or another negative errno. */
int methods_lock_instance(const char *socket_path, const char **ret_path);

/* The error NAME with one parameter, FIELD: VALUE (owned by the error);
 * returns -EINVAL. */
int methods_fail(struct control_error *err, const char *name, const char *field, json_object *value);
/* io.coresched.AssignFailed: pid could not be placed, for reason r;
 * returns -EIO. */
int methods_assign_failed(struct control_error *err, pid_t pid, int r);
/* io.coresched.NotSupported for a caller in another pid namespace, whose
 * pids name other processes here (returns -EINVAL); 0 for one in the
 * daemon's. */
int methods_foreign_pids(const struct control_caller *c, struct control_error *err);


/* io.coresched.AssignContainer (methods-container.c): place a container's
 * init per [Container] and its annotations; u is the struct daemon. */
int methods_container(void *u, const struct control_caller *c, json_object *p, json_object **ret,
		      struct control_error *err);
/* io.coresched.OpenSession and LeaveSession (methods-session.c): place a
 * login session's opener for a user, and hand it back to the rules. */
int methods_open_session(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			 struct control_error *err);
int methods_leave_session(void *u, const struct control_caller *c, json_object *p, json_object **ret,
			  struct control_error *err);
