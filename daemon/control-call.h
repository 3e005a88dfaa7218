/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routing one decoded call of the control socket: the built-in
 * org.varlink.service methods, the privilege check of auth's method
 * table, then the handler. Private to control.c. */
#pragma once

#include "control.h"
#include "varlink.h"

struct control_routes {
	const struct control_method *methods;
	size_t n_methods;
	void *userdata;
	const char *version, *url, *interface_description;
};

/* Every outcome is a reply or an error, as for a handler. */
int control_call(const struct control_routes *s, const struct control_caller *caller,
		 const struct vl_call *call, json_object **ret_reply, struct control_error *ret_error);
json_object *control_params_string(const char *key, const char *value);
