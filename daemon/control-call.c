// SPDX-License-Identifier: GPL-2.0-or-later
#include "control-call.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "auth.h"

#define SERVICE_INTERFACE "org.varlink.service"

json_object *control_params_string(const char *key, const char *value)
{
	json_object *o = json_object_new_object();

	if (o)
		json_object_object_add(o, key, json_object_new_string(value));
	return o;
}

static int service_get_info(const struct control_routes *s, json_object **ret_reply)
{
	json_object *o = json_object_new_object(), *ifaces = json_object_new_array();

	if (!o || !ifaces) {
		json_object_put(o);
		json_object_put(ifaces);
		return -ENOMEM;
	}
	json_object_object_add(o, "vendor", json_object_new_string("coresched"));
	json_object_object_add(o, "product", json_object_new_string("coreschedd"));
	json_object_object_add(o, "version", json_object_new_string(s->version));
	json_object_object_add(o, "url", json_object_new_string(s->url));
	json_object_array_add(ifaces, json_object_new_string(SERVICE_INTERFACE));
	json_object_array_add(ifaces, json_object_new_string(CONTROL_INTERFACE));
	json_object_object_add(o, "interfaces", ifaces);
	*ret_reply = o;
	return 0;
}

static int service_describe(const struct control_routes *s, json_object *params,
			    json_object **ret_reply, struct control_error *ret_error)
{
	const char *text = NULL, *name;
	json_object *v;

	if (!json_object_object_get_ex(params, "interface", &v) ||
	    !json_object_is_type(v, json_type_string)) {
		ret_error->name = VL_ERROR_INVALID_PARAMETER;
		ret_error->params = control_params_string("parameter", "interface");
		return -EINVAL;
	}
	name = json_object_get_string(v);
	if (strcmp(name, SERVICE_INTERFACE) == 0)
		text = control_service_description;
	else if (strcmp(name, CONTROL_INTERFACE) == 0)
		text = s->interface_description;
	if (!text) {
		ret_error->name = VL_ERROR_INTERFACE_NOT_FOUND;
		ret_error->params = control_params_string("interface", name);
		return -ENOENT;
	}
	*ret_reply = control_params_string("description", text);
	return *ret_reply ? 0 : -ENOMEM;
}

static bool interface_known(const struct control_routes *s, const char *method)
{
	size_t len = (size_t)(strrchr(method, '.') - method);

	if (len == strlen(SERVICE_INTERFACE) && strncmp(method, SERVICE_INTERFACE, len) == 0)
		return true;
	for (size_t i = 0; i < s->n_methods; i++)
		if (strncmp(s->methods[i].name, method, len) == 0 && s->methods[i].name[len] == '.')
			return true;
	return false;
}

/* Runs a built-in or a handler; every outcome is a reply or an error. */
int control_call(const struct control_routes *s, const struct control_caller *caller,
		       const struct vl_call *call, json_object **ret_reply,
		       struct control_error *ret_error)
{
	if (call->more || call->upgrade) {
		ret_error->name = VL_ERROR_INVALID_PARAMETER;
		ret_error->params = control_params_string("parameter", call->more ? "more" : "upgrade");
		return -EOPNOTSUPP;
	}
	if (strcmp(call->method, SERVICE_INTERFACE ".GetInfo") == 0)
		return service_get_info(s, ret_reply);
	if (strcmp(call->method, SERVICE_INTERFACE ".GetInterfaceDescription") == 0)
		return service_describe(s, call->params, ret_reply, ret_error);
	for (size_t i = 0; i < s->n_methods; i++) {
		const char *needs;

		if (strcmp(s->methods[i].name, call->method) != 0)
			continue;
		needs = auth_call_needs(call->method, caller->uid, caller->privileged);
		if (needs) {
			const char *dot = strrchr(call->method, '.');
			char why[160];

			snprintf(why, sizeof(why), "%s needs %s", dot ? dot + 1 : call->method, needs);
			ret_error->name = CONTROL_ERROR_PERMISSION;
			ret_error->params = control_params_string("reason", why);
			return -EPERM;
		}
		return s->methods[i].fn(s->userdata, caller, call->params, ret_reply, ret_error);
	}
	if (interface_known(s, call->method)) {
		ret_error->name = VL_ERROR_METHOD_NOT_FOUND;
		ret_error->params = control_params_string("method", call->method);
	} else {
		size_t len = (size_t)(strrchr(call->method, '.') - call->method);
		char iface[256];

		snprintf(iface, sizeof(iface), "%.*s", (int)len, call->method);
		ret_error->name = VL_ERROR_INTERFACE_NOT_FOUND;
		ret_error->params = control_params_string("interface", iface);
	}
	return -ENOENT;
}

