// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-sandbox-probe [enforce|log]: confine a child the way coreschedd
 * confines itself (capabilities dropped first, a thread started, then the
 * filter), try allowed and forbidden calls in it and print one KEY=RESULT
 * line each; RESULT is "ok" or the errno name. Last, the child calls
 * ptrace, and the parent prints how the child ended. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "sched_core.h"

static const char *result(int r)
{
	static char buf[32];

	if (r >= 0)
		return "ok";
	switch (-r) {
	case ENOSYS: return "ENOSYS";
	case EPERM: return "EPERM";
	case EINVAL: return "EINVAL";
	case EBUSY: return "EBUSY";
	case ENODEV: return "ENODEV";
	}
	snprintf(buf, sizeof(buf), "errno%d", -r);
	return buf;
}

static int try_socket(int family, int type)
{
	int fd = socket(family, type | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static void print_status_line(const char *key)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, strlen(key)) == 0 && line[strlen(key)] == ':')
			printf("%s=%s", key, line + strlen(key) + 1 + strspn(line + strlen(key) + 1, " \t"));
	if (f)
		fclose(f);
}

static pthread_barrier_t installed;
static int thread_result;

static void *late_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&installed);
	thread_result = try_socket(AF_INET, SOCK_STREAM);
	return NULL;
}

static int probe(enum sandbox_mode mode)
{
	sc_cookie c;
	pthread_t t;
	int r;

	printf("drop-caps=%s\n", result(sandbox_drop_caps()));
	print_status_line("CapEff");
	print_status_line("CapBnd");
	print_status_line("NoNewPrivs");
	pthread_barrier_init(&installed, NULL, 2);
	if (pthread_create(&t, NULL, late_thread, NULL) != 0)
		return 1;
	r = sandbox_seccomp(mode);
	pthread_barrier_wait(&installed);
	pthread_join(t, NULL);
	printf("seccomp=%s\n", result(r));
	print_status_line("Seccomp");
	printf("describe=%s\n", sandbox_describe());
	printf("thread-socket-inet=%s\n", result(thread_result));
	printf("socket-inet=%s\n", result(try_socket(AF_INET, SOCK_STREAM)));
	printf("socket-unix=%s\n", result(try_socket(AF_UNIX, SOCK_STREAM)));
	printf("socket-netlink=%s\n", result(try_socket(AF_NETLINK, SOCK_DGRAM)));
	printf("sched-core-create=%s\n", result(sc_create(0, SC_SCOPE_THREAD)));
	printf("sched-core-get=%s\n", result(sc_get(1, &c)));
	fflush(stdout);
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	printf("ptrace=survived\n");
	return 0;
}

int main(int argc, char **argv)
{
	enum sandbox_mode mode = SANDBOX_ENFORCE;
	int status;
	pid_t pid;

	if (argc > 2 || (argc == 2 && sandbox_mode_from_string(argv[1], &mode) < 0)) {
		fprintf(stderr, "usage: cs-sandbox-probe [enforce|log]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	pid = fork();
	if (pid == 0) {
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core); /* the SIGSYS is expected */
		_exit(probe(mode));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 1;
	if (WIFSIGNALED(status))
		printf("end=signal-%s\n", WTERMSIG(status) == SIGSYS ? "SIGSYS" : "other");
	else
		printf("end=exit-%d\n", WEXITSTATUS(status));
	return 0;
}
