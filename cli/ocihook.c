// SPDX-License-Identifier: GPL-2.0-or-later
/* coresched oci-hook: an OCI runtime hook (createRuntime, or the deprecated
 * prestart) that gives a container its cookie while its init is created
 * but has not yet exec'd the entrypoint, so nothing in the container ever
 * runs untagged. The daemon decides ([Container] and the annotations);
 * without it, fail mode open falls back to a fresh cookie of its own and
 * closed refuses the container. Runtimes show a hook's stderr and abort on
 * a non-zero exit; on success the hook prints nothing. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "client.h"
#include "ocistate.h"

#define PREFIX "coresched oci-hook: "
#define DEFAULT_TIMEOUT_MS 2000

struct hook_args {
	int timeout_ms;
	bool fail_open;
};

/* Outcomes of the fallback without the daemon. */
enum { TAGGED, UNTAGGED };

static int hook_usage(FILE *f, int status)
{
	fprintf(f, "Usage: coresched oci-hook [--timeout MS] [--fail-mode open|closed]\n\n"
		   "Run by an OCI runtime at createRuntime with the container state on stdin:\n"
		   "gives the container's init its cookie before the entrypoint starts.\n\n"
		   "Options:\n"
		   " --timeout MS              wait at most MS for coreschedd (default %d)\n"
		   " --fail-mode open|closed   without coreschedd, open gives the container a\n"
		   "                           fresh cookie, closed (default) refuses it\n"
		   " -h, --help                display this help\n",
		   DEFAULT_TIMEOUT_MS);
	return status;
}

static int parse_args(int argc, char **argv, struct hook_args *a)
{
	static const struct option opts[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ "fail-mode", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	char *end;
	long v;
	int c;

	*a = (struct hook_args){ .timeout_ms = DEFAULT_TIMEOUT_MS };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || v < 0 || v > INT_MAX)
				return cli_usage_error("invalid timeout '%s' (milliseconds)", optarg);
			a->timeout_ms = (int)v;
			break;
		case 'f':
			if (strcmp(optarg, "open") != 0 && strcmp(optarg, "closed") != 0)
				return cli_usage_error("unsupported fail mode '%s' (open or closed)", optarg);
			a->fail_open = strcmp(optarg, "open") == 0;
			break;
		case 'h':
			exit(hook_usage(stdout, 0));
		default:
			return cli_getopt_error(c, argv);
		}
	}
	if (optind < argc)
		return cli_usage_error("oci-hook takes no arguments; the state comes on stdin");
	return 0;
}

/* All of stdin, NUL-terminated; -EMSGSIZE past OCI_STATE_MAX. */
static int read_stdin(char **ret, size_t *ret_len)
{
	size_t len = 0, size = 0;
	char *buf = NULL, *p;
	ssize_t n;

	for (;;) {
		if (len + 1 >= size) {
			if (size > OCI_STATE_MAX) {
				free(buf);
				return -EMSGSIZE;
			}
			size = size ? size * 2 : 4096;
			p = realloc(buf, size);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
		n = read(STDIN_FILENO, buf + len, size - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

static json_object *request(const struct oci_state *s)
{
	json_object *p = json_object_new_object();

	json_object_object_add(p, "pid", json_object_new_int(s->pid));
	json_object_object_add(p, "id", json_object_new_string(s->id));
	if (s->sandbox)
		json_object_object_add(p, "sandbox", json_object_new_string(s->sandbox));
	if (s->group)
		json_object_object_add(p, "group", json_object_new_string(s->group));
	if (s->policy)
		json_object_object_add(p, "policy", json_object_new_string(s->policy));
	return p;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_reply(const struct oci_state *s, json_object *params, sc_cookie *ret)
{
	json_object *v;
	const char *c;
	char *end;

	if (!json_object_object_get_ex(params, "cookie", &v) || !(c = json_object_get_string(v)) ||
	    strncmp(c, "0x", 2) != 0) {
		fprintf(stderr, PREFIX "container %s: coreschedd answered without a cookie\n", s->id);
		return 1;
	}
	*ret = strtoull(c + 2, &end, 16);
	/* A dry run applied nothing: there is no cookie to read back. */
	if (json_object_object_get_ex(params, "dry_run", &v) && json_object_get_boolean(v)) {
		fprintf(stderr, PREFIX "container %s: coreschedd is in a dry run: placement recorded, "
			"no cookie applied\n", s->id);
		return 2;
	}
	return 0;
}

/* Root of the host: uid 0 in the initial user namespace, whose uid_map
 * maps every uid to itself ("0 0 4294967295"). */
static bool host_root(void)
{
	unsigned inside, outside, count;
	bool whole = false;
	FILE *f;

	if (geteuid() != 0)
		return false;
	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return true; /* no user namespaces in this kernel */
	whole = fscanf(f, "%u %u %u", &inside, &outside, &count) == 3 && inside == 0 && outside == 0 &&
		count == 4294967295u;
	fclose(f);
	return whole;
}

/* One round trip, connect included, within timeout_ms: 0 placed (the
 * daemon's cookie in *ret), 1 refused (said why on stderr), 2 recorded by
 * a daemon in a dry run, or a negative errno when the daemon could not be
 * reached (-EACCES: it refuses a hook not run as root). */
static int ask_daemon(const struct oci_state *s, int timeout_ms, sc_cookie *ret)
{
	int64_t deadline = now_ms() + timeout_ms;
	json_object *params = NULL, *p;
	char *ename = NULL;
	int fd, r;

	r = client_connect(NULL, timeout_ms, &fd);
	if (r < 0)
		return r;
	p = request(s);
	r = client_call(fd, "io.coresched.AssignContainer", p,
			(int)(deadline > now_ms() ? deadline - now_ms() : 0), &params, &ename);
	json_object_put(p);
	close(fd);
	/* A name that cannot be sent is a refusal, not a daemon out of reach
	 * (which FailMode=open would let start untagged). The state's names
	 * are checked already; this is the last guard. */
	if (r == -EILSEQ) {
		fprintf(stderr, PREFIX "container %s: a name in its state is not UTF-8\n", s->id);
		return 1;
	}
	if (r < 0)
		return r;
	/* A hook run as a user (a rootless engine reads the same hooks.d, and
	 * runs it as that user, or as root of a user namespace of its own):
	 * the daemon places containers for root and ControlGroup= only, and
	 * for this hook it is as good as out of reach. */
	if (r == 1 && !host_root() && ename && strcmp(ename, "io.coresched.PermissionDenied") == 0) {
		free(ename);
		json_object_put(params);
		return -EACCES;
	}
	/* Waiting for SMT to be switched on: as good as out of reach. */
	if (r == 1 && ename && strcmp(ename, "io.coresched.NotReady") == 0) {
		free(ename);
		json_object_put(params);
		return -EAGAIN;
	}
	if (r == 1) {
		fprintf(stderr, PREFIX "coreschedd refused to place container %s: %s %s\n", s->id, ename,
			json_object_to_json_string_ext(params, JSON_C_TO_STRING_PLAIN));
		free(ename);
		json_object_put(params);
		return 1;
	}
	r = parse_reply(s, params, ret);
	json_object_put(params);
	return r;
}

static const char *unreachable_reason(int r, int timeout_ms, char *buf, size_t size)
{
	if (r == -ENOENT || r == -ECONNREFUSED)
		return "coreschedd is not running";
	if (r == -EAGAIN)
		return "coreschedd waits for SMT to be switched on";
	if (r == -ETIMEDOUT)
		snprintf(buf, size, "coreschedd did not answer within %d ms", timeout_ms);
	else if (r == -EACCES)
		snprintf(buf, size, "coreschedd places containers for root and members of ControlGroup= only, and this hook "
			 "runs as uid %u%s "
			 "(a rootless engine)", (unsigned)geteuid(), geteuid() == 0 ? " of a user namespace" : "");
	else
		snprintf(buf, size, "coreschedd could not be reached (%s)", strerror(-r));
	return buf;
}

/* The daemon is out of reach: isolation by a cookie of the container's
 * own when failing open (no pod sharing, no group: only the daemon knows
 * those), refusal when closed. A trusted container needs nothing, and
 * nor does any on a kernel where no cookie can isolate it (no core
 * scheduling, or no SMT for good): refusing there would protect nothing and stop
 * every container on a machine that merely has the package installed.
 * SMT switched off at run time (or siblings taken offline) comes back with
 * one write, and a container started untagged would then share cores
 * untagged: fail mode decides there. */
static int without_daemon(const struct oci_state *s, const struct hook_args *a, int why)
{
	char buf[256];
	const char *reason = unreachable_reason(why, a->timeout_ms, buf, sizeof(buf));
	int r;

	if (s->policy && strcmp(s->policy, "trusted") == 0)
		return UNTAGGED;
	r = sc_probe();
	if (r == -EINVAL || (r == -ENODEV && !sc_smt_switchable())) {
		fprintf(stderr, PREFIX "%s, and %s: no cookie could isolate container %s; starting it untagged\n",
			reason, r == -EINVAL ? "this kernel has no core scheduling (CONFIG_SCHED_CORE)" : "SMT is absent or forced off",
			s->id);
		return UNTAGGED;
	}
	if (!a->fail_open) {
		fprintf(stderr, PREFIX "%s and fail mode is closed: refusing to start container %s untagged\n",
			reason, s->id);
		return -EHOSTUNREACH;
	}
	r = sc_create(s->pid, SC_SCOPE_THREAD_GROUP);
	if (r < 0) {
		fprintf(stderr, PREFIX "%s and a cookie of its own failed (%s): fail mode is open, "
			"starting container %s untagged\n", reason, sc_strerror(r), s->id);
		return UNTAGGED;
	}
	return TAGGED;
}

/* Read the cookie back from the kernel: the container must start as placed. */
static int verify(const struct oci_state *s, bool have_reply, sc_cookie want)
{
	sc_cookie c;
	int r = sc_get(s->pid, &c);

	if (r < 0) {
		fprintf(stderr, PREFIX "container %s: cannot read the cookie of PID %d: %s\n", s->id, s->pid,
			sc_strerror(r));
		return EXIT_FAILURE;
	}
	if (have_reply ? c != want : c == 0) {
		fprintf(stderr, PREFIX "container %s: PID %d has cookie 0x%" PRIx64 ", expected %s\n", s->id,
			s->pid, c, have_reply ? "the daemon's" : "a cookie of its own");
		return EXIT_FAILURE;
	}
	return 0;
}

static int check_state(const struct oci_state *s)
{
	if (s->policy && strcmp(s->policy, "trusted") != 0 && strcmp(s->policy, "isolate") != 0) {
		fprintf(stderr, PREFIX "container %s: annotation " OCI_ANNOTATION_POLICY
			"='%s' is neither 'isolate' nor 'trusted'\n", s->id, s->policy);
		return EXIT_FAILURE;
	}
	if (kill(s->pid, 0) < 0 && errno == ESRCH) {
		fprintf(stderr, PREFIX "container %s: PID %d does not exist\n", s->id, s->pid);
		return EXIT_FAILURE;
	}
	return 0;
}

static int run_hook(const struct oci_state *s, const struct hook_args *a)
{
	sc_cookie want = 0;
	int r = check_state(s);

	if (r != 0)
		return r;
	r = ask_daemon(s, a->timeout_ms, &want);
	if (r == 1)
		return EXIT_FAILURE;
	if (r == 2)
		return 0;
	if (r == 0)
		return verify(s, true, want);
	r = without_daemon(s, a, r);
	if (r < 0)
		return EXIT_FAILURE;
	return r == TAGGED ? verify(s, false, 0) : 0;
}

int cli_cmd_oci_hook(int argc, char **argv)
{
	struct hook_args a;
	struct oci_state s;
	char *buf = NULL, *error = NULL;
	size_t len = 0;
	int r;

	r = parse_args(argc, argv, &a);
	if (r != 0)
		return r;
	r = read_stdin(&buf, &len);
	if (r < 0) {
		fprintf(stderr, PREFIX "cannot read the container state from stdin: %s\n",
			r == -EMSGSIZE ? "longer than 1 MiB" : strerror(-r));
		return EXIT_FAILURE;
	}
	r = ocihook_parse_state(buf, len, &s, &error);
	free(buf);
	if (r < 0) {
		fprintf(stderr, PREFIX "invalid container state on stdin: %s\n", error ? error : strerror(-r));
		free(error);
		return EXIT_FAILURE;
	}
	r = run_hook(&s, &a);
	ocihook_state_done(&s);
	return r;
}
