// SPDX-License-Identifier: GPL-2.0-or-later
/* A real control server on an sd-event loop in this process, driven by real
 * sockets: raw ones from this thread for hostile input, and client_call()
 * from a second thread for round trips (it blocks until the loop, which
 * runs here, answers). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "unit.h"
#include "varlink.h"

/* cli/ is linked into the CLI binary only; the test compiles it in. */
#include "../../cli/client.c"

static char tmpdir[] = "/tmp/test-control.XXXXXX";
static char sock_path[256];
static sd_event *event;
static struct control_server *server;
static int log_lines;
static char last_log[256];
static struct control_caller last_caller;
static bool callers_privileged; /* what the server is told about every peer */

static bool judge_peer(void *userdata, const struct auth_peer *peer)
{
	(void)userdata;
	(void)peer;
	return callers_privileged;
}

static void test_log(int level, const char *fmt, ...)
{
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	va_end(ap);
	log_lines++;
}

static bool method_ran; /* since the last before_answer */

static int method_echo(void *userdata, const struct control_caller *caller, json_object *params,
		       json_object **ret_reply, struct control_error *ret_error)
{
	json_object *o = json_object_new_object();

	(void)userdata;
	(void)ret_error;
	last_caller = *caller;
	method_ran = true;
	json_object_object_add(o, "echo", json_object_get(params));
	json_object_object_add(o, "uid", json_object_new_int64(caller->uid));
	json_object_object_add(o, "pid", json_object_new_int64(caller->pid));
	*ret_reply = o;
	return 0;
}

static int method_fail(void *userdata, const struct control_caller *caller, json_object *params,
		       json_object **ret_reply, struct control_error *ret_error)
{
	json_object *p = json_object_new_object();

	(void)userdata;
	(void)caller;
	(void)params;
	(void)ret_reply;
	json_object_object_add(p, "group", json_object_new_string("nope"));
	ret_error->name = "io.coresched.NoSuchGroup";
	ret_error->params = p;
	return -ENOENT;
}

static int method_boom(void *userdata, const struct control_caller *caller, json_object *params,
		       json_object **ret_reply, struct control_error *ret_error)
{
	(void)userdata;
	(void)caller;
	(void)params;
	(void)ret_reply;
	(void)ret_error;
	return -EIO;
}

/* before_answer: how often it ran, whether the method had run first, and
 * whether any answer was already queued to the caller then (SIOCOUTQ on
 * the server's end of the connection). */
static unsigned answers_hooked, hook_after_method, hook_saw_queued;

static void hook_before_answer(void *userdata)
{
	int queued = 0;

	(void)userdata;
	answers_hooked++;
	hook_after_method += method_ran;
	method_ran = false;
	if (last_caller.fd >= 0 && ioctl(last_caller.fd, SIOCOUTQ, &queued) == 0 && queued > 0)
		hook_saw_queued++;
}

static const struct control_method methods[] = {
	{ "io.coresched.Echo", method_echo },
	{ "io.coresched.Fail", method_fail },
	{ "io.coresched.Boom", method_boom },
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pump(int ms)
{
	int64_t end = mono_ms() + ms;

	while (mono_ms() < end)
		sd_event_run(event, 10 * 1000);
}

static struct control_stats stats(void)
{
	struct control_stats st;

	control_get_stats(server, &st);
	return st;
}

/* Lets the server notice closed clients, so tests don't see each other's. */
static void settle(void)
{
	for (int i = 0; i < 200 && stats().clients > 0; i++)
		sd_event_run(event, 10 * 1000);
}

static int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	strcpy(sa.sun_path, path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

static int raw_send(int fd, const void *data, size_t len)
{
	const char *p = data;
	int64_t end = mono_ms() + 5000;

	while (len > 0 && mono_ms() < end) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else {
			sd_event_run(event, 10 * 1000);
		}
	}
	return len == 0 ? 0 : -ETIMEDOUT;
}

/* 1 and a reply (*ret_name set for an error), 0 on EOF, -ETIMEDOUT. Reads
 * byte by byte so that the replies after this one stay in the socket. */
static int raw_reply(int fd, int timeout_ms, json_object **ret_params, char **ret_name)
{
	struct vl_buffer *b = vl_buffer_new(VL_REPLY_MAX);
	int64_t end = mono_ms() + timeout_ms;
	const char *msg;
	size_t len, room;
	char *p;
	int r = -ETIMEDOUT;

	*ret_name = NULL;
	*ret_params = NULL;
	while (mono_ms() < end) {
		if (vl_buffer_next(b, &msg, &len) > 0) {
			r = vl_decode_reply(msg, len, ret_params, ret_name) >= 0 ? 1 : -EBADMSG;
			break;
		}
		vl_buffer_space(b, &p, &room);
		ssize_t n = recv(fd, p, 1, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno == ECONNRESET)) {
			r = 0;
			break;
		}
		if (n > 0)
			vl_buffer_advance(b, (size_t)n);
		else
			sd_event_run(event, 5 * 1000);
	}
	vl_buffer_free(b);
	return r;
}

/* Whether the server closes fd within timeout_ms, discarding replies. */
static bool raw_closed(int fd, int timeout_ms)
{
	json_object *p;
	char *name;
	int r;

	while ((r = raw_reply(fd, timeout_ms, &p, &name)) == 1) {
		json_object_put(p);
		free(name);
	}
	return r == 0;
}

static const char *str_member(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static int64_t int_member(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : -1;
}

struct call_job {
	const char *method;
	json_object *params;
	int r;
	json_object *reply;
	char *error;
	int done;
};

static void *call_thread(void *arg)
{
	struct call_job *j = arg;
	int fd;

	j->r = client_connect(sock_path, 5000, &fd);
	if (j->r >= 0) {
		j->r = client_call(fd, j->method, j->params, 5000, &j->reply, &j->error);
		close(fd);
	}
	__atomic_store_n(&j->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* One client_call() round trip while this thread runs the server. */
static int call(const char *method, json_object *params, json_object **ret_reply,
		char **ret_error)
{
	struct call_job j = { .method = method, .params = params };
	pthread_t t;

	*ret_reply = NULL;
	*ret_error = NULL;
	if (pthread_create(&t, NULL, call_thread, &j) != 0)
		return -EAGAIN;
	while (!__atomic_load_n(&j.done, __ATOMIC_ACQUIRE))
		sd_event_run(event, 10 * 1000);
	pthread_join(t, NULL);
	*ret_reply = j.reply;
	*ret_error = j.error;
	settle();
	return j.r;
}

static void round_trip_reports_peer_credentials(void)
{
	json_object *p = json_object_new_object(), *reply, *echo;
	char *err;

	json_object_object_add(p, "word", json_object_new_string("hello"));
	CHECK(call("io.coresched.Echo", p, &reply, &err) == 0);
	CHECK(err == NULL);
	CHECK(json_object_object_get_ex(reply, "echo", &echo));
	CHECK_STREQ(str_member(echo, "word"), "hello");
	CHECK(int_member(reply, "uid") == (int64_t)getuid());
	CHECK(int_member(reply, "pid") == (int64_t)getpid());
	CHECK(last_caller.uid == getuid() && last_caller.pid == getpid());
	CHECK(last_caller.gid == getgid() && last_caller.fd >= 0);
	json_object_put(reply);
	json_object_put(p);
}

/* The hook runs once per answered call, after its method and before
 * its answer leaves. */
static void answer_waits_for_the_hook(void)
{
	json_object *reply;
	char *err;
	unsigned before = answers_hooked, after_method = hook_after_method, queued = hook_saw_queued;

	for (int i = 0; i < 20; i++) {
		CHECK(call("io.coresched.Echo", NULL, &reply, &err) == 0);
		json_object_put(reply);
		free(err);
	}
	CHECK(answers_hooked == before + 20);
	CHECK(hook_after_method == after_method + 20);
	CHECK(hook_saw_queued == queued);
}

static void handler_errors_reach_the_client(void)
{
	json_object *reply;
	char *err;

	CHECK(call("io.coresched.Fail", NULL, &reply, &err) == 1);
	CHECK_STREQ(err, "io.coresched.NoSuchGroup");
	CHECK_STREQ(str_member(reply, "group"), "nope");
	json_object_put(reply);
	free(err);

	/* A failure without a name still gets a well-formed error. */
	CHECK(call("io.coresched.Boom", NULL, &reply, &err) == 1);
	CHECK_STREQ(err, CONTROL_ERROR_INTERNAL);
	CHECK_STREQ(str_member(reply, "reason"), strerror(EIO));
	json_object_put(reply);
	free(err);
}

static void get_info(void)
{
	json_object *reply, *ifaces;
	char *err;

	CHECK(call("org.varlink.service.GetInfo", NULL, &reply, &err) == 0);
	CHECK_STREQ(str_member(reply, "vendor"), "coresched");
	CHECK_STREQ(str_member(reply, "product"), "coreschedd");
	CHECK_STREQ(str_member(reply, "version"), "9.9-test");
	CHECK(str_member(reply, "url") != NULL);
	CHECK(json_object_object_get_ex(reply, "interfaces", &ifaces));
	CHECK(json_object_array_length(ifaces) == 2);
	CHECK_STREQ(json_object_get_string(json_object_array_get_idx(ifaces, 0)),
		    "org.varlink.service");
	CHECK_STREQ(json_object_get_string(json_object_array_get_idx(ifaces, 1)), "io.coresched");
	json_object_put(reply);
}

static void get_interface_description(void)
{
	json_object *p = json_object_new_object(), *reply;
	char *err;

	json_object_object_add(p, "interface", json_object_new_string("io.coresched"));
	CHECK(call("org.varlink.service.GetInterfaceDescription", p, &reply, &err) == 0);
	CHECK_STREQ(str_member(reply, "description"), control_interface_description);
	json_object_put(reply);

	json_object_object_add(p, "interface", json_object_new_string("org.varlink.service"));
	CHECK(call("org.varlink.service.GetInterfaceDescription", p, &reply, &err) == 0);
	CHECK(strstr(str_member(reply, "description") ?: "", "interface org.varlink.service\n"));
	json_object_put(reply);

	json_object_object_add(p, "interface", json_object_new_string("com.example.Nope"));
	CHECK(call("org.varlink.service.GetInterfaceDescription", p, &reply, &err) == 1);
	CHECK_STREQ(err, VL_ERROR_INTERFACE_NOT_FOUND);
	CHECK_STREQ(str_member(reply, "interface"), "com.example.Nope");
	json_object_put(reply);
	free(err);
	json_object_put(p);
}

static void unknown_method(void)
{
	json_object *reply;
	char *err;

	CHECK(call("io.coresched.Nope", NULL, &reply, &err) == 1);
	CHECK_STREQ(err, VL_ERROR_METHOD_NOT_FOUND);
	CHECK_STREQ(str_member(reply, "method"), "io.coresched.Nope");
	json_object_put(reply);
	free(err);

	CHECK(call("com.example.Thing.Do", NULL, &reply, &err) == 1);
	CHECK_STREQ(err, VL_ERROR_INTERFACE_NOT_FOUND);
	CHECK_STREQ(str_member(reply, "interface"), "com.example.Thing");
	json_object_put(reply);
	free(err);
}

static void oneway_gets_no_reply_and_more_is_refused(void)
{
	static const char wire[] =
		"{\"method\":\"io.coresched.Echo\",\"parameters\":{\"n\":1},\"oneway\":true}\0"
		"{\"method\":\"io.coresched.Fail\",\"oneway\":true}\0"
		"{\"method\":\"io.coresched.Echo\",\"parameters\":{\"n\":2}}\0"
		"{\"method\":\"io.coresched.Echo\",\"more\":true}";
	int fd = raw_connect(sock_path);
	json_object *reply, *echo;
	char *err;

	CHECK(fd >= 0);
	CHECK(raw_send(fd, wire, sizeof(wire)) == 0);
	CHECK(raw_reply(fd, 2000, &reply, &err) == 1);
	CHECK(err == NULL);
	CHECK(json_object_object_get_ex(reply, "echo", &echo) && int_member(echo, "n") == 2);
	json_object_put(reply);
	CHECK(raw_reply(fd, 2000, &reply, &err) == 1);
	CHECK_STREQ(err, VL_ERROR_INVALID_PARAMETER);
	CHECK_STREQ(str_member(reply, "parameter"), "more");
	json_object_put(reply);
	free(err);
	close(fd);
	settle();
}

static void garbage_gets_error_and_close(void)
{
	static const char wire[] = "\x01\x02 not json {\0{\"method\":\"io.coresched.Echo\"}";
	uint64_t before = stats().protocol_errors;
	int fd = raw_connect(sock_path);
	json_object *reply;
	char *err;

	CHECK(raw_send(fd, wire, sizeof(wire)) == 0);
	CHECK(raw_reply(fd, 2000, &reply, &err) == 1);
	CHECK_STREQ(err, VL_ERROR_INVALID_PARAMETER);
	json_object_put(reply);
	free(err);
	/* The call after the garbage is not answered: the stream is closed. */
	CHECK(raw_closed(fd, 2000));
	CHECK(stats().protocol_errors == before + 1);
	close(fd);
	settle();

	CHECK(call("io.coresched.Echo", NULL, &reply, &err) == 0);
	json_object_put(reply);
}

static void oversized_message_is_closed(void)
{
	size_t len = VL_MESSAGE_MAX + 4096;
	char *wire = malloc(len);
	uint64_t before = stats().protocol_errors;
	int fd = raw_connect(sock_path);

	memset(wire, ' ', len);
	wire[0] = '{';
	CHECK(raw_send(fd, wire, len) == 0 || errno == EPIPE);
	CHECK(raw_closed(fd, 3000));
	CHECK(stats().protocol_errors == before + 1);
	free(wire);
	close(fd);
	settle();
}

static void unterminated_message_hits_deadline(void)
{
	uint64_t before = stats().dropped;
	int fd = raw_connect(sock_path);

	CHECK(raw_send(fd, "{\"method\":\"io.cores", 19) == 0);
	CHECK(raw_closed(fd, 5000));
	CHECK(stats().dropped == before + 1);
	close(fd);
	settle();
}

static void idle_client_is_dropped_after_the_idle_timeout(void)
{
	uint64_t before = stats().dropped;
	int fd = raw_connect(sock_path);
	json_object *reply;
	char *err;

	pump(400); /* twice the read deadline, with nothing half-sent: kept */
	CHECK(raw_send(fd, "{\"method\":\"io.coresched.Echo\"}", 31) == 0);
	CHECK(raw_reply(fd, 2000, &reply, &err) == 1 && err == NULL);
	json_object_put(reply);
	CHECK(stats().dropped == before);
	CHECK(raw_closed(fd, 3000)); /* idle for the idle timeout: dropped */
	CHECK(stats().dropped == before + 1);
	close(fd);
	settle();
}

/* Unprivileged peers share all but the reserved slots; a privileged one
 * still gets in when they hold every shared slot. */
static void privileged_caller_gets_a_reserved_slot(void)
{
	int fds[6], extra, root;
	json_object *reply;
	char *err;

	for (int i = 0; i < 6; i++) /* 2 uids' worth at 3 per uid: uid limit */
		fds[i] = raw_connect(sock_path);
	pump(50);
	CHECK(stats().clients == 3); /* one uid: 3 */
	extra = raw_connect(sock_path);
	CHECK(raw_closed(extra, 2000));
	callers_privileged = true;
	root = raw_connect(sock_path);
	CHECK(raw_send(root, "{\"method\":\"io.coresched.Echo\"}", 31) == 0);
	CHECK(raw_reply(root, 2000, &reply, &err) == 1 && err == NULL);
	json_object_put(reply);
	callers_privileged = false;
	close(root);
	close(extra);
	for (int i = 0; i < 6; i++)
		close(fds[i]);
	settle();
}

/* A client that pipelines many requests gets them answered over several
 * passes of the loop, not all in one callback. */
static void pipelined_requests_are_served_a_few_per_pass(void)
{
	static const char req[] = "{\"method\":\"io.coresched.Echo\",\"parameters\":{\"i\":1}}";
	char wire[sizeof(req) * 20];
	int fd = raw_connect(sock_path), got = 0;
	json_object *reply;
	char *e;

	for (int i = 0; i < 20; i++)
		memcpy(wire + i * sizeof(req), req, sizeof(req));
	pump(20);
	CHECK(send(fd, wire, sizeof(wire), MSG_NOSIGNAL) == (ssize_t)sizeof(wire));
	sd_event_run(event, 100 * 1000); /* the accept or the first read */
	sd_event_run(event, 100 * 1000);
	for (char c; recv(fd, &c, 1, MSG_DONTWAIT) == 1;)
		got += c == 0;
	CHECK(got > 0 && got < 20);
	while (got < 20 && raw_reply(fd, 2000, &reply, &e) == 1) {
		got++;
		json_object_put(reply);
		free(e);
	}
	CHECK(got == 20);
	close(fd);
	settle();
}

static void per_uid_limit_refuses_extra_clients(void)
{
	uint64_t rejected = stats().rejected;
	int fds[4], extra;
	json_object *reply;
	char *err;

	log_lines = 0;
	for (int i = 0; i < 3; i++)
		fds[i] = raw_connect(sock_path);
	pump(50);
	CHECK(stats().clients == 3);
	fds[3] = raw_connect(sock_path); /* the kernel accepts; the server closes */
	CHECK(fds[3] >= 0);
	CHECK(raw_closed(fds[3], 2000));
	CHECK(stats().rejected == rejected + 1);
	CHECK(log_lines > 0);
	for (int i = 0; i < 3; i++) {
		CHECK(raw_send(fds[i], "{\"method\":\"io.coresched.Echo\"}", 31) == 0);
		CHECK(raw_reply(fds[i], 2000, &reply, &err) == 1 && err == NULL);
		json_object_put(reply);
	}
	close(fds[0]);
	for (int i = 0; i < 100 && stats().clients > 2; i++)
		sd_event_run(event, 10 * 1000);
	extra = raw_connect(sock_path);
	CHECK(raw_send(extra, "{\"method\":\"io.coresched.Echo\"}", 31) == 0);
	CHECK(raw_reply(extra, 2000, &reply, &err) == 1 && err == NULL);
	json_object_put(reply);
	close(extra);
	for (int i = 1; i < 4; i++)
		close(fds[i]);
	settle();
}

static void client_that_never_reads_is_dropped(void)
{
	static const char req[] = "{\"method\":\"io.coresched.Echo\",\"parameters\":{\"pad\":"
				  "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}";
	uint64_t before = stats().dropped;
	int fd = raw_connect(sock_path), sent = 0;
	json_object *reply;
	char *err;

	for (; sent < 10000; sent++)
		if (raw_send(fd, req, sizeof(req)) < 0)
			break; /* EPIPE/ECONNRESET: dropped mid-flood */
	pump(100);
	CHECK(stats().dropped == before + 1);
	CHECK(strstr(last_log, "unread output") != NULL);
	CHECK(sent < 10000);
	CHECK(stats().clients == 0);

	CHECK(call("io.coresched.Echo", NULL, &reply, &err) == 0);
	CHECK(err == NULL);
	json_object_put(reply);
	close(fd);
	settle();
}

static void pipelined_requests_within_limit_are_answered(void)
{
	static const char req[] = "{\"method\":\"io.coresched.Echo\",\"parameters\":{\"i\":1}}";
	char *wire = malloc(sizeof(req) * 200);
	int fd = raw_connect(sock_path), got = 0;
	json_object *reply;
	char *err;

	for (int i = 0; i < 200; i++)
		memcpy(wire + i * sizeof(req), req, sizeof(req));
	CHECK(raw_send(fd, wire, sizeof(req) * 200) == 0);
	while (got < 200 && raw_reply(fd, 2000, &reply, &err) == 1) {
		got += err == NULL;
		json_object_put(reply);
		free(err);
	}
	CHECK(got == 200);
	free(wire);
	close(fd);
	settle();
}

/* A second server on the same loop, with small budgets: cost is what is
 * tested, and the first server's are too large to notice. */
struct budgets {
	unsigned client_rate, client_burst, uid_rate, uid_burst, total_rate, total_burst;
};

static struct control_server *budget_server(const char *name, struct budgets b, char *ret_path, size_t size)
{
	struct control_config cfg = {
		.socket_path = ret_path,
		.max_clients_per_uid = 8,
		.idle_timeout_usec = 10 * 1000 * 1000,
		.max_output_bytes = 4 * 1024 * 1024,
		.client_cost_rate = b.client_rate,
		.client_cost_burst = b.client_burst,
		.uid_cost_rate = b.uid_rate,
		.uid_cost_burst = b.uid_burst,
		.total_cost_rate = b.total_rate,
		.total_cost_burst = b.total_burst,
		.privileged = judge_peer,
		.interface_description = control_interface_description,
		.log = test_log,
	};
	struct control_server *s = NULL;

	snprintf(ret_path, size, "%s/%s", tmpdir, name);
	CHECK(control_new(event, &cfg, methods, sizeof(methods) / sizeof(methods[0]), NULL, &s) >= 0);
	return s;
}

/* Replies that arrive on fd within ms, discarded. */
static int replies_within(int fd, int ms)
{
	int64_t end = mono_ms() + ms;
	int got = 0;

	while (mono_ms() < end) {
		char buf[4096];
		ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

		for (ssize_t i = 0; i < n; i++)
			got += buf[i] == 0;
		if (n <= 0)
			sd_event_run(event, 10 * 1000);
	}
	return got;
}

/* A call that does not decode (a bad method name, parameters that are
 * not an object) is answered with an error and costs as an unknown
 * method: without that, an unprivileged client could keep the loop busy
 * parsing 64 KiB messages for nothing. */
static void calls_that_do_not_decode_are_charged(void)
{
	static const char bad[] = "{\"method\":\"nodots\"}";
	char path[256], wire[sizeof(bad) * 20];
	struct control_server *s = budget_server("charged", (struct budgets){ 1, 5, 1, 1000, 1, 1000 }, path,
							sizeof(path));
	int fd, got;

	for (int i = 0; i < 20; i++)
		memcpy(wire + i * sizeof(bad), bad, sizeof(bad));
	fd = raw_connect(path);
	CHECK(raw_send(fd, wire, sizeof(wire)) == 0);
	got = replies_within(fd, 500);
	/* the burst of 5, and at most one more at 1 per second */
	CHECK(got >= 5 && got <= 6);
	close(fd);
	control_free(s);
}

static int busy_dispatches;

static int on_busy(sd_event_source *src, int fd, uint32_t revents, void *userdata)
{
	(void)src, (void)fd, (void)revents, (void)userdata;
	busy_dispatches++;
	return 0; /* left readable: it stays pending, as a storm of events does */
}

/* Connections wait behind the process events as requests do: a flood of
 * connects (each costs an accept and the peer's credentials, charged to
 * no budget) must not take turns with the events. */
static void connections_wait_behind_the_events(void)
{
	uint64_t accepted = stats().accepted;
	sd_event_source *busy = NULL;
	int efd = eventfd(1, EFD_CLOEXEC | EFD_NONBLOCK), fd;

	CHECK(sd_event_add_io(event, &busy, efd, EPOLLIN, on_busy, NULL) >= 0);
	fd = raw_connect(sock_path);
	busy_dispatches = 0;
	for (int i = 0; i < 20; i++)
		sd_event_run(event, 10 * 1000);
	CHECK(busy_dispatches == 20);
	CHECK(stats().accepted == accepted);
	sd_event_source_disable_unref(busy);
	close(efd);
	pump(50);
	CHECK(stats().accepted == accepted + 1);
	close(fd);
	settle();
}

/* An Assign pays for every process it names: the second call naming 64
 * waits for the first's units to come back (10 per call whatever it
 * named, both would pass at once). */
static void a_call_pays_per_process_it_names(void)
{
	char path[256], wire[1024];
	struct control_server *s = budget_server("per-pid", (struct budgets){ 1, 100, 1000, 1000, 1000, 1000 }, path,
						 sizeof(path));
	int fd = raw_connect(path), n;

	n = snprintf(wire, sizeof(wire), "{\"method\":\"io.coresched.Assign\",\"parameters\":{\"group\":\"g\",\"pids\":[");
	for (int i = 0; i < 64; i++)
		n += snprintf(wire + n, sizeof(wire) - (size_t)n, "%s%d", i ? "," : "", i + 1);
	n += snprintf(wire + n, sizeof(wire) - (size_t)n, "]}}");
	CHECK(raw_send(fd, wire, (size_t)n + 1) == 0);
	CHECK(raw_send(fd, wire, (size_t)n + 1) == 0);
	CHECK(replies_within(fd, 500) == 1);
	close(fd);
	control_free(s);
}

/* One uid's clients share its budget: opening more connections does not
 * buy more. */
static void clients_of_one_uid_share_its_budget(void)
{
	static const char req[] = "{\"method\":\"io.coresched.Echo\"}";
	char path[256], wire[sizeof(req) * 5];
	struct control_server *s = budget_server("per-uid", (struct budgets){ 1, 5, 1, 8, 1, 1000 }, path,
						 sizeof(path));
	int fds[3], got = 0;

	for (int i = 0; i < 5; i++)
		memcpy(wire + i * sizeof(req), req, sizeof(req));
	for (int i = 0; i < 3; i++) {
		fds[i] = raw_connect(path);
		CHECK(raw_send(fds[i], wire, sizeof(wire)) == 0);
	}
	for (int i = 0; i < 3; i++)
		got += replies_within(fds[i], 300);
	/* 8 for the uid, and at most one more at 1 per second; 15 if each
	 * client had only its own 5 */
	CHECK(got >= 8 && got <= 9);
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	control_free(s);
}

/* A costly call waiting for the shared budget is served in its turn, not
 * starved by another client's stream of cheap calls that each fit the
 * trickle of units as it comes. */
static void a_costly_call_is_not_starved_by_cheap_ones(void)
{
	static const char cheap[] = "{\"method\":\"io.coresched.Echo\"}";
	static const char costly[] = "{\"method\":\"io.coresched.CheckConfig\"}";
	enum { BATCH = 200 };
	char path[256], *wire = malloc(sizeof(cheap) * BATCH);
	struct control_server *s = budget_server("turns", (struct budgets){ 100000, 100000, 100000, 100000, 200, 100 },
						 path, sizeof(path));
	int hog = raw_connect(path), victim = raw_connect(path), sent = 0, served = 0, answered = 0;
	int64_t end;

	for (int i = 0; i < BATCH; i++)
		memcpy(wire + i * sizeof(cheap), cheap, sizeof(cheap));
	CHECK(raw_send(hog, wire, sizeof(cheap) * BATCH) == 0);
	sent += BATCH;
	served += replies_within(hog, 200); /* the shared burst is spent */
	CHECK(raw_send(victim, costly, sizeof(costly)) == 0);
	/* the hog always has a second's worth of cheap calls queued */
	for (end = mono_ms() + 5000; !answered && mono_ms() < end; served += replies_within(hog, 50)) {
		if (sent - served < BATCH) {
			CHECK(raw_send(hog, wire, sizeof(cheap) * BATCH) == 0);
			sent += BATCH;
		}
		answered = replies_within(victim, 1);
	}
	CHECK(answered == 1);
	CHECK(served > 0);
	close(hog);
	close(victim);
	free(wire);
	control_free(s);
}

/* A reload's limits: a uid's extra client is admitted once the limit is
 * raised, and a connected client is dropped by the new, shorter idle
 * timeout, not the one it was accepted under. */
static void limits_change_on_reload(void)
{
	char path[256];
	struct control_server *s = budget_server("limits", (struct budgets){ 1000, 1000, 1000, 1000, 1000, 1000 },
						 path, sizeof(path));
	int fds[9], extra;
	json_object *reply;
	char *err;

	for (int i = 0; i < 8; i++) /* the per-uid limit of budget_server() */
		fds[i] = raw_connect(path);
	pump(50);
	fds[8] = raw_connect(path);
	CHECK(raw_closed(fds[8], 2000));
	close(fds[8]);
	CHECK(control_set_limits(s, 0, 9, 300 * 1000) == 0);
	extra = raw_connect(path);
	CHECK(raw_send(extra, "{\"method\":\"io.coresched.Echo\"}", 31) == 0);
	CHECK(raw_reply(extra, 2000, &reply, &err) == 1 && err == NULL);
	json_object_put(reply);
	/* accepted under a 10 s idle timeout, dropped after the new 0.3 s */
	CHECK(raw_closed(fds[0], 3000));
	close(extra);
	for (int i = 0; i < 8; i++)
		close(fds[i]);
	control_free(s);
}

static void socket_file_is_world_connectable(void)
{
	struct stat st;

	CHECK(stat(sock_path, &st) == 0);
	CHECK(S_ISSOCK(st.st_mode));
	CHECK((st.st_mode & 0777) == 0666);
}

static void live_socket_is_not_stolen(void)
{
	struct control_config cfg = { .socket_path = sock_path };
	struct control_server *second = NULL;

	CHECK(control_new(event, &cfg, methods, 3, NULL, &second) == -EADDRINUSE);
	CHECK(second == NULL);
}

static void stale_socket_is_replaced_and_activation_fd_works(void)
{
	char path[300];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct control_config cfg = { 0 };
	struct control_server *s = NULL;
	int fd, cfd;

	/* A socket file nobody listens on, as a crashed daemon leaves it. */
	snprintf(path, sizeof(path), "%s/stale.sock", tmpdir);
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0);
	close(fd);
	CHECK(client_connect(path, 1000, &cfd) == -ECONNREFUSED);
	cfg.socket_path = path;
	CHECK(control_new(event, &cfg, methods, 3, NULL, &s) == 0);
	cfd = raw_connect(path);
	CHECK(cfd >= 0);
	close(cfd);
	s = control_free(s);
	CHECK(access(path, F_OK) < 0 && errno == ENOENT);

	/* Handed a listening socket, the server uses it and leaves the path. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	CHECK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 8) == 0);
	cfg = (struct control_config){ .listen_fd = fd };
	CHECK(control_new(event, &cfg, methods, 3, NULL, &s) == 0);
	cfd = raw_connect(path);
	CHECK(raw_send(cfd, "{\"method\":\"io.coresched.Echo\"}", 31) == 0);
	{
		json_object *reply;
		char *err;

		CHECK(raw_reply(cfd, 2000, &reply, &err) == 1 && err == NULL);
		json_object_put(reply);
	}
	close(cfd);
	control_free(s);
	CHECK(access(path, F_OK) == 0);
	unlink(path);
}

static void connect_to_missing_daemon(void)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/none/io.coresched", tmpdir);
	CHECK(client_connect(path, 1000, &fd) == -ENOENT);
}

static void bad_method_tables_are_refused(void)
{
	static const struct control_method bad[] = { { "Echo", method_echo } };
	struct control_config cfg = { .socket_path = sock_path };
	struct control_server *s = NULL;

	CHECK(control_new(event, &cfg, bad, 1, NULL, &s) == -EINVAL);
	CHECK(s == NULL);
	CHECK(control_free(NULL) == NULL);
}

int main(void)
{
	struct control_config cfg = {
		.socket_path = sock_path,
		.max_clients_per_uid = 3,
		.read_deadline_usec = 200 * 1000,
		.idle_timeout_usec = 1000 * 1000,
		.client_cost_rate = 100000,
		.client_cost_burst = 100000,
		.total_cost_rate = 100000,
		.total_cost_burst = 100000,
		.privileged = judge_peer,
		.max_output_bytes = 16 * 1024,
		.version = "9.9-test",
		.interface_description = control_interface_description,
		.log = test_log,
		.before_answer = hook_before_answer,
	};
	int r;

	if (!mkdtemp(tmpdir))
		return 1;
	snprintf(sock_path, sizeof(sock_path), "%s/run/coresched/io.coresched", tmpdir);
	if (sd_event_new(&event) < 0)
		return 1;
	r = control_new(event, &cfg, methods, sizeof(methods) / sizeof(methods[0]), NULL, &server);
	if (r < 0) {
		fprintf(stderr, "control_new: %s\n", strerror(-r));
		return 1;
	}
	RUN(round_trip_reports_peer_credentials);
	RUN(handler_errors_reach_the_client);
	RUN(answer_waits_for_the_hook);
	RUN(get_info);
	RUN(get_interface_description);
	RUN(unknown_method);
	RUN(oneway_gets_no_reply_and_more_is_refused);
	RUN(garbage_gets_error_and_close);
	RUN(oversized_message_is_closed);
	RUN(unterminated_message_hits_deadline);
	RUN(per_uid_limit_refuses_extra_clients);
	RUN(client_that_never_reads_is_dropped);
	RUN(pipelined_requests_within_limit_are_answered);
	RUN(socket_file_is_world_connectable);
	RUN(live_socket_is_not_stolen);
	RUN(stale_socket_is_replaced_and_activation_fd_works);
	RUN(connect_to_missing_daemon);
	RUN(bad_method_tables_are_refused);
	RUN(pipelined_requests_are_served_a_few_per_pass);
	RUN(privileged_caller_gets_a_reserved_slot);
	RUN(idle_client_is_dropped_after_the_idle_timeout);
	RUN(calls_that_do_not_decode_are_charged);
	RUN(connections_wait_behind_the_events);
	RUN(a_call_pays_per_process_it_names);
	RUN(clients_of_one_uid_share_its_budget);
	RUN(a_costly_call_is_not_starved_by_cheap_ones);
	RUN(limits_change_on_reload);
	control_free(server);
	sd_event_unref(event);
	*strrchr(sock_path, '/') = '\0';
	rmdir(sock_path);
	*strrchr(sock_path, '/') = '\0';
	rmdir(sock_path);
	rmdir(tmpdir);
	UNIT_EXIT();
}
