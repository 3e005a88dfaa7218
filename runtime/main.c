// SPDX-License-Identifier: GPL-2.0-or-later
/* coresched-runtime: an OCI runtime that is runc (or another runtime) plus
 * coresched's container hook, for engines that read no hooks.d (Docker,
 * containerd). For create, run and restore it adds `coresched oci-hook`
 * to the bundle's config.json at createRuntime, then executes the real
 * runtime with the same arguments; every other command goes straight
 * through. A config.json it cannot read or parse stops the container: the
 * runtime is not executed. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "runtime.h"

#define EXIT_NOT_FOUND 127 /* the runtime cannot be found or executed */

/* The runtime's --log and --log-format: errors go there too, because
 * containerd reports the last error of that log rather than stderr. */
static const struct runtime_args *log_to;

static void log_line(const char *msg)
{
	const int flags = JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE;
	char when[32], *quoted = NULL, *line = NULL;
	time_t now = time(NULL);
	json_object *o;
	int fd;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	if (log_to->log_json) {
		o = json_object_new_object();
		json_object_object_add(o, "level", json_object_new_string("error"));
		json_object_object_add(o, "msg", json_object_new_string(msg));
		json_object_object_add(o, "time", json_object_new_string(when));
		if (asprintf(&line, "%s\n", json_object_to_json_string_ext(o, flags)) < 0)
			line = NULL;
		json_object_put(o);
	} else {
		/* A JSON string is also a valid Go-quoted one for a text log. */
		o = json_object_new_string(msg);
		quoted = strdup(json_object_to_json_string_ext(o, flags));
		json_object_put(o);
		if (!quoted || asprintf(&line, "time=\"%s\" level=error msg=%s\n", when, quoted) < 0)
			line = NULL;
	}
	fd = line ? open(log_to->log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
	if (fd >= 0) {
		ssize_t n = write(fd, line, strlen(line));

		(void)n; /* stderr has it already */
		close(fd);
	}
	free(quoted);
	free(line);
}

/* One error: on stderr and in the runtime's log. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char msg[2048] = RUNTIME_PREFIX;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg + strlen(RUNTIME_PREFIX), sizeof(msg) - strlen(RUNTIME_PREFIX), fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", msg);
	if (log_to && log_to->log)
		log_line(msg);
}

/* All of path, NUL-terminated, at most max bytes (-EFBIG beyond). */
static int read_file(const char *path, size_t max, char **ret, size_t *ret_len, struct stat *ret_st)
{
	size_t len = 0;
	char *buf;
	ssize_t n;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, ret_st) < 0 || !(buf = malloc(max + 2))) {
		r = -errno;
		close(fd);
		return r;
	}
	while ((n = read(fd, buf + len, max + 1 - len)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || (len += (size_t)n) > max) {
			r = n < 0 ? -errno : -EFBIG;
			free(buf);
			close(fd);
			return r;
		}
	}
	close(fd);
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

/* Runtime= of the configuration file, or runc when it has none. */
static int load_conf(char **ret_runtime)
{
	const char *path = getenv("CORESCHED_RUNTIME_CONF") ?: RUNTIME_CONF;
	char *text = NULL, *error = NULL, *runtime = NULL;
	struct stat st;
	size_t len;
	int r;

	r = read_file(path, RUNTIME_CONF_MAX, &text, &len, &st);
	if (r == -ENOENT)
		r = 0, len = 0;
	else if (r < 0) {
		say("cannot read %s: %s", path, r == -EFBIG ? "longer than 64 KiB" : strerror(-r));
		return r;
	}
	r = conf_parse(text ? text : "", len, path, &runtime, &error);
	free(text);
	if (r < 0) {
		say("%s", error ? error : strerror(-r));
		free(error);
		return r;
	}
	*ret_runtime = runtime ? runtime : strdup(RUNTIME_DEFAULT);
	return *ret_runtime ? 0 : -ENOMEM;
}

static bool is_self(const char *path)
{
	struct stat a, b;

	return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/* The runtime's path: Runtime= itself when it holds a slash, else the
 * first executable of that name in PATH that is not this program (it may
 * be installed as "runc" ahead of the real one). */
static int find_runtime(const char *runtime, char **ret)
{
	const char *path = getenv("PATH") ?: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
	const char *p, *end;
	char *cand;

	if (strchr(runtime, '/')) {
		if (access(runtime, X_OK) < 0)
			return -errno;
		if (is_self(runtime))
			return -ELOOP;
		*ret = strdup(runtime);
		return *ret ? 0 : -ENOMEM;
	}
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (asprintf(&cand, "%.*s/%s", (int)(end - p), end == p ? "." : p, runtime) < 0)
			return -ENOMEM;
		if (access(cand, X_OK) == 0 && !is_self(cand)) {
			*ret = cand;
			return 0;
		}
		free(cand);
	}
	return -ENOENT;
}

/* coresched sits beside this program, as make install puts them both. */
static int hook_path(char **ret)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	return asprintf(ret, "%s/coresched", self) < 0 ? -ENOMEM : 0;
}

/* Replaces path by text through a temporary file in the same directory,
 * with path's mode and owner: the runtime sees the old file or the new. */
static int write_atomic(const char *path, const char *text, const struct stat *st)
{
	size_t len = strlen(text), off = 0;
	char *tmp;
	ssize_t n;
	int fd, r = 0;

	if (asprintf(&tmp, "%s.coresched-XXXXXX", path) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		free(tmp);
		return r;
	}
	if (fchmod(fd, st->st_mode & 07777) < 0 || fchown(fd, st->st_uid, st->st_gid) < 0)
		r = -errno;
	while (r == 0 && off < len) {
		n = write(fd, text + off, len - off);
		if (n < 0 && errno != EINTR)
			r = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	free(tmp);
	return r;
}

/* [Container] Lock= and FailMode= of coreschedd's configuration
 * (CORESCHED_CONFIG_DIR: another directory, for tests). A configuration
 * that does not load locks and fails closed: the safe side, and the daemon
 * refuses it as well. */
static struct spec_policy container_policy(void)
{
	struct spec_policy p = { .lock = true, .fail_open = false };
	struct conf *c = NULL;
	char *error = NULL;

	if (conf_load_dir(getenv("CORESCHED_CONFIG_DIR"), &c, &error) < 0) {
		say("warning: %s; locking the container's cookie as [Container] Lock=yes would, fail mode closed",
		    error ? error : "cannot load coreschedd's configuration");
		free(error);
		return p;
	}
	p.lock = c->container.lock;
	p.fail_open = c->container.fail_open;
	conf_free(c);
	return p;
}

/* 0 when config.json holds the hook (added or already there), else 1
 * after saying why. */
static int add_hook(const char *bundle)
{
	char *path = NULL, *text = NULL, *out = NULL, *error = NULL, *hook = NULL;
	struct spec_policy policy = container_policy();
	struct stat st;
	size_t len;
	int r;

	if (asprintf(&path, "%s/config.json", bundle && *bundle ? bundle : ".") < 0)
		return 1;
	r = read_file(path, SPEC_MAX, &text, &len, &st);
	if (r < 0)
		say("cannot read %s: %s", path, r == -EFBIG ? "longer than 16 MiB" : strerror(-r));
	else if ((r = hook_path(&hook)) < 0)
		say("cannot find its own path: %s", strerror(-r));
	else if ((r = spec_add_hook(text, len, path, hook, &policy, &out, &error)) < 0)
		say("%s", error ? error : strerror(-r));
	else if (r == 0 && (r = write_atomic(path, out, &st)) < 0)
		say("cannot write %s: %s", path, strerror(-r));
	free(path);
	free(text);
	free(out);
	free(error);
	free(hook);
	return r < 0;
}

int main(int argc, char **argv)
{
	struct runtime_args a;
	char *runtime = NULL, *exe = NULL;
	int r;

	args_parse(argc, argv, &a);
	log_to = &a;
	if (load_conf(&runtime) < 0)
		return EXIT_FAILURE;
	r = find_runtime(runtime, &exe);
	if (r < 0) {
		say("cannot find the runtime '%s': %s", runtime,
			r == -ELOOP ? "that is coresched-runtime itself" :
			r == -ENOENT && !strchr(runtime, '/') ? "not in PATH" : strerror(-r));
		free(runtime);
		return EXIT_NOT_FOUND;
	}
	if (a.add_hook && add_hook(a.bundle) != 0) {
		free(runtime);
		free(exe);
		return EXIT_FAILURE;
	}
	argv[0] = runtime;
	execv(exe, argv);
	say("cannot execute %s: %s", exe, strerror(errno));
	free(runtime);
	free(exe);
	return EXIT_NOT_FOUND;
}
