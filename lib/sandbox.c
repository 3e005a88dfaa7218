// SPDX-License-Identifier: GPL-2.0-or-later
/* Capabilities and seccomp filters: coreschedd's own confinement and the
 * lock that "coresched run --lock" puts on a workload. */
#include "sandbox.h"

#include <errno.h>
#include <linux/capability.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sched_core.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* CAP_SYS_PTRACE: PR_SCHED_CORE on another user's or a non-dumpable task,
 * and /proc/PID/exe of any task. CAP_NET_ADMIN: the proc connector
 * subscription before Linux 6.6, and SO_RCVBUFFORCE. Everything the daemon
 * reads under /proc and /sys is world-readable and what it writes (its
 * socket, kernel.sched_schedstats) is owned by root, so neither
 * CAP_DAC_OVERRIDE nor CAP_DAC_READ_SEARCH is needed. */
static const int kept_caps[] = { CAP_SYS_PTRACE, CAP_NET_ADMIN };

static enum sandbox_mode installed_mode = SANDBOX_OFF;
static unsigned installed_count;

static uint64_t kept_mask(void)
{
	uint64_t m = 0;

	for (size_t i = 0; i < sizeof(kept_caps) / sizeof(kept_caps[0]); i++)
		m |= 1ULL << kept_caps[i];
	return m;
}

static int caps_get(uint64_t *ret_eff, uint64_t *ret_prm, uint64_t *ret_inh)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	*ret_eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*ret_prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*ret_inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static int caps_set(uint64_t eff, uint64_t prm)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {
		{ (uint32_t)eff, (uint32_t)prm, 0 },
		{ (uint32_t)(eff >> 32), (uint32_t)(prm >> 32), 0 },
	};

	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* Threads: line of /proc/self/status; 1 when it cannot be read. */
static unsigned thread_count(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned n = 1;

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %u", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Without CAP_SETPCAP the bounding set cannot shrink; no_new_privs then
 * keeps exec from raising anything, which is what the bound is for. */
static int shrink_bounding_set(uint64_t eff, uint64_t keep)
{
	if (!(eff & (1ULL << CAP_SETPCAP)))
		return 0;
	for (int cap = 0; cap < 64; cap++) {
		int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (r < 0)
			break; /* past the kernel's last capability */
		if (r == 1 && !(keep & (1ULL << cap)) && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return -errno;
	}
	return 0;
}

int sandbox_drop_caps(void)
{
	if (thread_count() > 1)
		return -EBUSY;
	return sandbox_keep_caps(kept_mask());
}

bool sandbox_has_cap(int cap)
{
	uint64_t eff = 0, prm, inh;

	return caps_get(&eff, &prm, &inh) == 0 && (eff & (1ULL << cap));
}

int sandbox_keep_caps(uint64_t keep)
{
	uint64_t eff, prm, inh;
	int r;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	r = caps_get(&eff, &prm, &inh);
	if (r < 0)
		return r;
	r = shrink_bounding_set(eff, keep);
	if (r < 0)
		return r;
	/* EINVAL: a kernel older than 4.3 has no ambient set to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	/* Already so (systemd's CapabilityBoundingSet= did it): no capset,
	 * which a unit's SystemCallFilter=~@privileged refuses. */
	if (eff == (eff & keep) && prm == (prm & keep) && inh == 0)
		return 0;
	return caps_set(eff & keep, prm & keep);
}

/* What the daemon calls, directly or through glibc, libsystemd (sd-event,
 * sd_notify, the journal) and NSS for user and group names on reload.
 * Names this architecture lacks are skipped. */
static const char *const allowed_syscalls[] = {
	/* memory */
	"brk", "mmap", "munmap", "mprotect", "mremap", "madvise",
	/* files and directories */
	"read", "write", "readv", "writev", "pread64", "pwrite64", "lseek",
	"open", "openat", "close", "close_range", "fstat", "newfstatat", "stat",
	"lstat", "statx", "statfs", "fstatfs", "getdents64", "readlink",
	"readlinkat", "access", "faccessat", "faccessat2", "fcntl", "dup",
	"dup2", "dup3", "pipe2", "rename", "renameat", "renameat2", "unlink", "utimensat",
	"unlinkat", "mkdir", "mkdirat", "chmod", "fchmod", "fchmodat", "umask",
	"fsync", "fdatasync", "ftruncate", "memfd_create", "getcwd", "ioctl",
	/* sockets (socket itself is filtered by family below) */
	"bind", "listen", "accept", "accept4", "connect", "getsockname",
	"getpeername", "getsockopt", "setsockopt", "sendto", "sendmsg",
	"recvfrom", "recvmsg", "recvmmsg", "shutdown",
	/* event loop */
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "timerfd_create", "timerfd_settime", "timerfd_gettime",
	"signalfd4", "eventfd2", "poll", "ppoll", "pselect6",
	/* time */
	"clock_gettime", "clock_getres", "gettimeofday", "nanosleep",
	"clock_nanosleep",
	/* threads and signals */
	"clone", "clone3", "futex", "set_robust_list", "rseq",
	"set_tid_address", "exit", "exit_group", "gettid", "getpid", "getppid",
	"tgkill", "wait4", "waitid", "rt_sigaction", "rt_sigprocmask", "rt_sigreturn",
	"sigaltstack", "sched_yield", "sched_getaffinity", "restart_syscall",
	/* identity and limits */
	"getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
	"getgroups", "capget", "prlimit64", "getrlimit", "getrandom", "uname",
	/* processes the daemon watches */
	"pidfd_open",
};

/* Never legitimate for the daemon: a call here means it was subverted. */
static const char *const killed_syscalls[] = {
	"ptrace", "process_vm_readv", "process_vm_writev", "execve", "execveat",
	"init_module", "finit_module", "delete_module", "mount", "umount2",
	"pivot_root", "kexec_load", "kexec_file_load", "open_by_handle_at",
};

/* Add RULES with ACTION; returns how many this architecture knows. */
static int add_all(scmp_filter_ctx ctx, uint32_t action, const char *const *names, size_t n)
{
	int count = 0;

	for (size_t i = 0; i < n; i++) {
		int nr = seccomp_syscall_resolve_name(names[i]);
		int r;

		if (nr == __NR_SCMP_ERROR)
			continue;
		r = seccomp_rule_add(ctx, action, nr, 0);
		if (r < 0)
			return r;
		count++;
	}
	return count;
}

/* prctl: only core scheduling, and thread names for debugging tools.
 * socket: only the control socket, sd_notify and the journal (AF_UNIX) and
 * the proc connector (AF_NETLINK). Allow rules compare the full 64 bits, so
 * junk in the upper half of an int argument is refused, not let through. */
static int add_filtered(scmp_filter_ctx ctx)
{
	static const int prctl_ops[] = { PR_SCHED_CORE, PR_SET_NAME, PR_GET_NAME };
	static const int families[] = { AF_UNIX, AF_NETLINK };
	int r;

	for (size_t i = 0; i < sizeof(prctl_ops) / sizeof(prctl_ops[0]); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 1, SCMP_A0(SCMP_CMP_EQ, prctl_ops[i]));
		if (r < 0)
			return r;
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, families[i]));
		if (r < 0)
			return r;
	}
	return 2; /* prctl and socket */
}

static int build_daemon_filter(scmp_filter_ctx ctx)
{
	int r, n;

	/* Holder threads exist by now: the filter must cover them too. */
	r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_LOG, 1);
	if (r == 0)
		r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
	if (r < 0)
		return r;
	n = add_all(ctx, SCMP_ACT_ALLOW, allowed_syscalls, sizeof(allowed_syscalls) / sizeof(allowed_syscalls[0]));
	if (n < 0)
		return n;
	r = add_filtered(ctx);
	if (r < 0)
		return r;
	n += r;
	r = add_all(ctx, SCMP_ACT_KILL_PROCESS, killed_syscalls, sizeof(killed_syscalls) / sizeof(killed_syscalls[0]));
	return r < 0 ? r : n;
}

int sandbox_seccomp(enum sandbox_mode mode)
{
	scmp_filter_ctx ctx;
	int r, n;

	if (mode == SANDBOX_OFF)
		return 0;
	if (mode != SANDBOX_ENFORCE && mode != SANDBOX_LOG)
		return -EINVAL;
	if (installed_mode != SANDBOX_OFF)
		return -EALREADY;
	/* ENOSYS rather than EPERM: glibc and libsystemd take ENOSYS as "the
	 * kernel lacks this" and fall back (clone3 to clone, for one). */
	ctx = seccomp_init(mode == SANDBOX_LOG ? SCMP_ACT_LOG : SCMP_ACT_ERRNO(ENOSYS));
	if (!ctx)
		return -ENOMEM;
	n = build_daemon_filter(ctx);
	r = n < 0 ? n : seccomp_load(ctx);
	seccomp_release(ctx);
	if (r < 0)
		return r;
	installed_mode = mode;
	installed_count = (unsigned)n;
	return 0;
}

int sandbox_mode_from_string(const char *s, enum sandbox_mode *ret_mode)
{
	static const char *const names[] = { "off", "enforce", "log" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (s && strcmp(s, names[i]) == 0) {
			*ret_mode = (enum sandbox_mode)i;
			return 0;
		}
	return -EINVAL;
}

const char *sandbox_mode_to_string(enum sandbox_mode mode)
{
	switch (mode) {
	case SANDBOX_OFF: return "off";
	case SANDBOX_ENFORCE: return "enforce";
	case SANDBOX_LOG: return "log";
	}
	return "unknown";
}

unsigned sandbox_syscall_count(void)
{
	return installed_count;
}

/* The kept capabilities by name, the rest as a count. */
static void describe_caps(char *buf, size_t size)
{
	uint64_t eff, prm, inh;
	size_t len = 0;
	int others = 0;

	if (caps_get(&eff, &prm, &inh) < 0) {
		snprintf(buf, size, "unknown");
		return;
	}
	buf[0] = '\0';
	for (int cap = 0; cap < 64; cap++) {
		if (!(eff & (1ULL << cap)))
			continue;
		if (cap != CAP_SYS_PTRACE && cap != CAP_NET_ADMIN) {
			others++;
			continue;
		}
		if (len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "," : "",
						cap == CAP_SYS_PTRACE ? "cap_sys_ptrace" : "cap_net_admin");
	}
	if (others && len < size)
		snprintf(buf + len, size - len, "%s%d-others", len ? "," : "", others);
	else if (!others && len == 0)
		snprintf(buf, size, "none");
}

const char *sandbox_describe(void)
{
	static char text[160];
	char caps[96];

	describe_caps(caps, sizeof(caps));
	snprintf(text, sizeof(text), "caps=%s seccomp=%s syscalls=%u", caps, sandbox_mode_to_string(installed_mode),
		 installed_count);
	return text;
}

/* A 32-bit program started from the workload must meet the same filter,
 * not be killed for its architecture. EEXIST: already the native one. */
static int add_compat_arches(scmp_filter_ctx ctx)
{
#if defined(__x86_64__) || defined(__aarch64__)
#if defined(__x86_64__)
	static const uint32_t arches[] = { SCMP_ARCH_X86, SCMP_ARCH_X32 };
#else
	static const uint32_t arches[] = { SCMP_ARCH_ARM };
#endif

	for (size_t i = 0; i < sizeof(arches) / sizeof(arches[0]); i++) {
		int r = seccomp_arch_add(ctx, arches[i]);

		if (r < 0 && r != -EEXIST)
			return r;
	}
#else
	(void)ctx;
#endif
	return 0;
}

int sandbox_lock_sched_core(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -ENOMEM;
	/* The kernel reads prctl's option, and core scheduling its command, as
	 * 32-bit: compare the low 32 bits, or 62 with junk in the upper half
	 * would slip past the rule. Every command but GET changes a cookie:
	 * reading one's own stays allowed. */
	const unsigned cmds[] = { PR_SCHED_CORE_CREATE, PR_SCHED_CORE_SHARE_TO, PR_SCHED_CORE_SHARE_FROM };

	r = add_compat_arches(ctx);
	for (size_t i = 0; r == 0 && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(prctl), 2,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffULL, PR_SCHED_CORE),
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffULL, cmds[i]));
	/* seccomp_load() sets no_new_privs first (the library's default),
	 * which lets an unprivileged user install the filter. */
	if (r == 0)
		r = seccomp_load(ctx);
	seccomp_release(ctx);
	return r;
}
