// SPDX-License-Identifier: GPL-2.0-or-later
/* A process's ids from its pidfd: PIDFD_GET_INFO (Linux 6.13) answers in
 * one ioctl of under a microsecond what /proc/PID/status makes the kernel
 * format some 1.4 KiB for (its memory figures take the process's mmap
 * lock): a third of a whole read's cost, paid per fork and exec. Whether
 * the kernel has it is asked once, of a pidfd of our own; on an older
 * kernel status is read from then on. */
#include "procinfo.h"

#include <errno.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* include/uapi/linux/pidfd.h of Linux 6.13, the first size of the
 * structure (PIDFD_INFO_SIZE_VER0, 64 bytes); Debian 12's headers lack
 * it. The kernel fills what the caller's size holds. */
struct pidfd_info_v0 {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid;
	uint32_t ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	uint32_t spare0;
};
#define PIDFD_INFO_V0_PID 1ull
#define PIDFD_INFO_V0_CREDS 2ull
#define PIDFD_GET_INFO_V0 _IOWR(0xFF, 11, struct pidfd_info_v0)

_Static_assert(sizeof(struct pidfd_info_v0) == 64, "PIDFD_INFO_SIZE_VER0");

/* 1 the kernel answers, -1 it does not, 0 not known yet. */
static int pidfd_info_state;
static unsigned long ids_taken;

/* Asked of a pidfd of our own: an fd a caller passes that is no pidfd
 * says ENOTTY too, and must not turn the ioctl off for good. Only the
 * kernel's answer on a pidfd decides: without one (EMFILE, say) the
 * question stays open, and this call is answered by status. */
static int probe(void)
{
	struct pidfd_info_v0 info = { .mask = PIDFD_INFO_V0_PID | PIDFD_INFO_V0_CREDS };
	int fd = (int)syscall(SYS_pidfd_open, getpid(), 0), r;

	if (fd < 0)
		return -1;
	r = ioctl(fd, PIDFD_GET_INFO_V0, &info) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 && (info.mask & PIDFD_INFO_V0_CREDS) && info.pid == (uint32_t)getpid())
		pidfd_info_state = 1;
	else if (r == -ENOTTY || r == -EINVAL || r == -ENOSYS || r == -EOPNOTSUPP || r == 0)
		pidfd_info_state = -1; /* 6.1: ENOTTY; 6.12: EINVAL; ENOSYS: a filter */
	return pidfd_info_state ? pidfd_info_state : -1;
}

int procinfo_pidfd_ids(int pidfd, pid_t pid, uid_t *ret_uid, gid_t *ret_gid)
{
	struct pidfd_info_v0 info = { .mask = PIDFD_INFO_V0_PID | PIDFD_INFO_V0_CREDS };

	if (pidfd_info_state < 0 || (pidfd_info_state == 0 && probe() < 0))
		return -EOPNOTSUPP;
	/* ESRCH: the process was reaped (a zombie still answers, with the
	 * ids it exited with, as its status does); ENOTTY: fd is no pidfd.
	 * The caller reads status. */
	if (ioctl(pidfd, PIDFD_GET_INFO_V0, &info) < 0)
		return -errno;
	/* The pidfd must name the process the caller reads: a main thread
	 * (pid == tgid) under pid in our pid namespace. Anything else (the
	 * fd is another process's) is no answer, and status is read. */
	if ((info.mask & (PIDFD_INFO_V0_PID | PIDFD_INFO_V0_CREDS)) != (PIDFD_INFO_V0_PID | PIDFD_INFO_V0_CREDS) ||
	    pid <= 0 || info.pid != (uint32_t)pid || info.tgid != (uint32_t)pid)
		return -ESTALE;
	*ret_uid = (uid_t)info.ruid;
	*ret_gid = (gid_t)info.rgid;
	ids_taken++;
	return 0;
}

int procinfo_pidfd_ids_supported(void)
{
	return pidfd_info_state ? pidfd_info_state : probe();
}

unsigned long procinfo_pidfd_ids_taken(void)
{
	return ids_taken;
}
