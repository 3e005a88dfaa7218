// SPDX-License-Identifier: GPL-2.0-or-later
/* The sandbox filters and capability drop, each tried in a forked child so
 * the test process itself stays unconfined. A child reports what it saw as
 * a bit mask of failed checks in its exit status (0: all held). */
#include <errno.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox.h"
#include "unit.h"

static const char *self_exe;

/* Fork, run FN in the child, return its wait status. */
static int in_child(int (*fn)(void))
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		/* Children killed by SIGSYS on purpose leave no core files. */
		struct rlimit no_core = { 0, 0 };

		setrlimit(RLIMIT_CORE, &no_core);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

/* 0 when the child exited with 0; prints which checks failed otherwise. */
static int child_ok(int status)
{
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFEXITED(status))
		fprintf(stderr, "  child failed checks, mask 0x%x\n", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		fprintf(stderr, "  child killed by signal %d\n", WTERMSIG(status));
	return 0;
}

static int prctl_errno(unsigned long option, unsigned long cmd)
{
	unsigned long long cookie;

	if (syscall(SYS_prctl, option, cmd, 0UL, 0UL, (unsigned long)&cookie) < 0)
		return errno;
	return 0;
}

static int lock_child(void)
{
	char name[17];
	int bad = 0;

	if (sandbox_lock_sched_core() < 0)
		return 0x80;
	if (prctl_errno(PR_SCHED_CORE, PR_SCHED_CORE_CREATE) != EPERM ||
	    prctl_errno(PR_SCHED_CORE, PR_SCHED_CORE_SHARE_TO) != EPERM ||
	    prctl_errno(PR_SCHED_CORE, PR_SCHED_CORE_SHARE_FROM) != EPERM)
		bad |= 1;
	/* The kernel reads only the low 32 bits of the option and command. */
	if (prctl_errno(0xffffffff00000000UL | PR_SCHED_CORE, PR_SCHED_CORE_CREATE) != EPERM ||
	    prctl_errno(PR_SCHED_CORE, 0xffffffff00000000UL | PR_SCHED_CORE_SHARE_FROM) != EPERM)
		bad |= 2;
	/* Reading stays allowed: the kernel answers (EINVAL without core
	 * scheduling), not the filter. */
	if (prctl_errno(PR_SCHED_CORE, PR_SCHED_CORE_GET) == EPERM)
		bad |= 16;
	if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0)
		bad |= 4;
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		bad |= 8;
	return bad;
}

static void lock_refuses_sched_core(void)
{
	CHECK(child_ok(in_child(lock_child)));
}

/* The lock is meant for what "coresched run --lock" executes: it must
 * hold in the new image, here this test binary in its probe role. */
static int lock_exec_child(void)
{
	char *argv[] = { (char *)self_exe, (char *)"--prctl-errno", NULL };

	if (sandbox_lock_sched_core() < 0)
		return 0x80;
	execv(self_exe, argv);
	return 0x40;
}

static void lock_survives_exec(void)
{
	int status = in_child(lock_exec_child);

	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == EPERM);
}

static int enforce_child(void)
{
	char name[17];
	int bad = 0, fd;

	if (sandbox_seccomp(SANDBOX_ENFORCE) < 0)
		return 0x80;
	errno = 0;
	if (socket(AF_INET, SOCK_STREAM, 0) >= 0 || errno != ENOSYS)
		bad |= 1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		bad |= 2;
	close(fd);
	if ((fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		bad |= 4;
	close(fd);
	if (prctl(PR_GET_NAME, name, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0 || errno != ENOSYS)
		bad |= 8;
	/* A reload resolves user names: NSS must work under the filter. */
	if (!getpwnam("root"))
		bad |= 16;
	if (sandbox_syscall_count() < 50 || !strstr(sandbox_describe(), "seccomp=enforce"))
		bad |= 32;
	return bad;
}

static void enforce_allows_and_refuses(void)
{
	CHECK(child_ok(in_child(enforce_child)));
}

static int ptrace_child(void)
{
	if (sandbox_seccomp(SANDBOX_ENFORCE) < 0)
		return 0x80;
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	return 0;
}

static int execve_child(void)
{
	char *argv[] = { (char *)"true", NULL };

	if (sandbox_seccomp(SANDBOX_LOG) < 0)
		return 0x80;
	execv("/bin/true", argv);
	return 0;
}

/* The call that opens any file of a mounted file system by its handle,
 * whatever the directories around it allow. */
static int open_by_handle_child(void)
{
	if (sandbox_seccomp(SANDBOX_ENFORCE) < 0)
		return 0x80;
	syscall(SYS_open_by_handle_at, -1, NULL, 0);
	return 0;
}

static void forbidden_calls_kill(void)
{
	int status = in_child(ptrace_child);

	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);
	status = in_child(open_by_handle_child);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);
	/* Even in LOG mode, which only watches everything else. */
	status = in_child(execve_child);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS);
}

static int log_child(void)
{
	int fd;

	if (sandbox_seccomp(SANDBOX_LOG) < 0)
		return 0x80;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	close(fd);
	return strstr(sandbox_describe(), "seccomp=log") ? 0 : 2;
}

static void log_mode_lets_calls_through(void)
{
	CHECK(child_ok(in_child(log_child)));
}

static int thread_errno;
static pthread_barrier_t installed;

static void *late_thread(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&installed);
	errno = 0;
	if (socket(AF_INET, SOCK_STREAM, 0) < 0)
		thread_errno = errno;
	return NULL;
}

/* Holder threads exist before the filter goes in: it must reach them. */
static int tsync_child(void)
{
	pthread_t t;
	int r;

	pthread_barrier_init(&installed, NULL, 2);
	if (pthread_create(&t, NULL, late_thread, NULL) != 0)
		return 0x40;
	r = sandbox_seccomp(SANDBOX_ENFORCE);
	pthread_barrier_wait(&installed);
	pthread_join(t, NULL);
	if (r < 0)
		return 0x80;
	return thread_errno == ENOSYS ? 0 : 1;
}

static void filter_reaches_existing_threads(void)
{
	CHECK(child_ok(in_child(tsync_child)));
}

/* "CapEff:\t0000000000081000" -> the mask; UINT64_MAX when absent. */
static uint64_t status_mask(const char *key)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long v = UINT64_MAX;
	size_t n = strlen(key);

	if (!f)
		return UINT64_MAX;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

static int drop_child(void)
{
	const uint64_t kept = (1ULL << 19) | (1ULL << 12); /* CAP_SYS_PTRACE, CAP_NET_ADMIN */
	int bad = 0;

	if (sandbox_drop_caps() < 0)
		return 0x80;
	if (status_mask("CapEff") != kept || status_mask("CapPrm") != kept)
		bad |= 1;
	if (status_mask("CapBnd") != kept)
		bad |= 2;
	if (status_mask("CapInh") != 0 || status_mask("CapAmb") != 0)
		bad |= 4;
	if (status_mask("NoNewPrivs") != 1)
		bad |= 8;
	if (!strstr(sandbox_describe(), "caps=cap_net_admin,cap_sys_ptrace "))
		bad |= 16;
	return bad;
}

static void drop_caps_keeps_two(void)
{
	CHECK(child_ok(in_child(drop_child)));
}

static void *parked(void *arg)
{
	pause();
	return arg;
}

static int busy_child(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, parked, NULL) != 0)
		return 0x40;
	return sandbox_drop_caps() == -EBUSY ? 0 : 1;
}

static void drop_caps_refuses_threads(void)
{
	CHECK(child_ok(in_child(busy_child)));
}

static void mode_names(void)
{
	enum sandbox_mode m = SANDBOX_OFF;

	CHECK(sandbox_mode_from_string("log", &m) == 0 && m == SANDBOX_LOG);
	CHECK(sandbox_mode_from_string("enforce", &m) == 0 && m == SANDBOX_ENFORCE);
	CHECK(sandbox_mode_from_string("strict", &m) == -EINVAL && m == SANDBOX_ENFORCE);
	CHECK_STREQ(sandbox_mode_to_string(SANDBOX_OFF), "off");
	CHECK(sandbox_seccomp((enum sandbox_mode)7) == -EINVAL);
	CHECK(strstr(sandbox_describe(), "seccomp=off syscalls=0") != NULL);
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--prctl-errno") == 0)
		return prctl_errno(PR_SCHED_CORE, PR_SCHED_CORE_CREATE);
	self_exe = "/proc/self/exe";
	RUN(mode_names);
	RUN(lock_refuses_sched_core);
	RUN(lock_survives_exec);
	RUN(enforce_allows_and_refuses);
	RUN(forbidden_calls_kill);
	RUN(log_mode_lets_calls_through);
	RUN(filter_reaches_existing_threads);
	RUN(drop_caps_refuses_threads);
	if (geteuid() == 0)
		RUN(drop_caps_keeps_two);
	else
		printf("SKIP: unit/drop_caps_keeps_two: needs root\n");
	UNIT_EXIT();
}
