// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE /* statx */
/* A process's ids from its pidfd: PIDFD_GET_INFO (Linux 6.13) answers in
 * one ioctl of under a microsecond what /proc/PID/status makes the kernel
 * format some 1.4 KiB for (its memory figures take the process's mmap
 * lock): a third of a whole read's cost, paid per fork and exec. Whether
 * the kernel has it is asked once, of a pidfd of our own; on an older
 * kernel status is read from then on. */
#include "procinfo.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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
#define PIDFD_INFO_V0_CGROUPID 4ull
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

int procinfo_pidfd_ids(int pidfd, pid_t pid, uid_t *ret_uid, gid_t *ret_gid, uint64_t *ret_cgroupid)
{
	struct pidfd_info_v0 info = { .mask = PIDFD_INFO_V0_PID | PIDFD_INFO_V0_CREDS | PIDFD_INFO_V0_CGROUPID };

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
	if (ret_cgroupid)
		*ret_cgroupid = info.mask & PIDFD_INFO_V0_CGROUPID ? info.cgroupid : 0;
	ids_taken++;
	return 0;
}

int procinfo_pidfd_cgroupid(int pidfd, pid_t pid, uint64_t *ret)
{
	struct pidfd_info_v0 info = { .mask = PIDFD_INFO_V0_PID | PIDFD_INFO_V0_CGROUPID };

	if (pidfd_info_state <= 0)
		return -EOPNOTSUPP;
	if (ioctl(pidfd, PIDFD_GET_INFO_V0, &info) < 0)
		return -errno;
	if (!(info.mask & PIDFD_INFO_V0_PID) || pid <= 0 || info.pid != (uint32_t)pid || info.tgid != (uint32_t)pid)
		return -ESTALE;
	*ret = info.mask & PIDFD_INFO_V0_CGROUPID ? info.cgroupid : 0;
	return 0;
}

/* ---- cgroup paths by id --------------------------------------------------------
 * The ioctl also gives the process's cgroup (v2) as an id, which names one
 * cgroup for as long as the system runs (ids are not reused, and a v2
 * cgroup cannot be renamed). Reading /proc/PID/cgroup makes the kernel
 * build the path each time: the path of an id met before is kept here, so
 * that a read with a pidfd takes it from the id. A path is kept only once
 * the cgroup2 mount shows it is that id's (its directory's inode number is
 * the id, reached on that very mount): a process that moved between the
 * ioctl and the read, a path of another cgroup namespace's, a bind of a
 * subtree inside the mount, teach nothing. A slot
 * per id's hash, the newest kept: bounded, and a miss only costs the read
 * it saves. Not for threads: only the engine's thread reads with a pidfd. */

#define CGROUP_SLOTS 1024

struct cgroup_slot {
	uint64_t id;
	char *path;
};

static struct cgroup_slot cgroup_slots[CGROUP_SLOTS];
static struct {
	int state; /* 1 found, -1 none usable, 0 not looked for yet */
	char dir[PATH_MAX];
	dev_t dev;
	uint64_t mnt_id; /* mountinfo's first field, as statx's STATX_MNT_ID */
} cgroup_mount;
static unsigned long cgroups_by_id;

/* The cgroup2 mount whose root is the hierarchy's (its mountinfo root
 * "/"), as /proc/self/mountinfo lists it. */
static int find_cgroup_mount(void)
{
	char line[2 * PATH_MAX], root[PATH_MAX], dir[PATH_MAX];
	unsigned long long id;
	unsigned maj, min;
	struct statx stx;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	cgroup_mount.state = -1;
	while (f && fgets(line, sizeof(line), f)) {
		const char *sep = strstr(line, " - cgroup2 ");

		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ...; octal escapes in a
		 * mount point are not undone: such a mount is skipped. */
		if (!sep || sscanf(line, "%llu %*s %u:%u %4095s %4095s", &id, &maj, &min, root, dir) != 5 ||
		    strcmp(root, "/") != 0 || strchr(dir, '\\') ||
		    statx(AT_FDCWD, dir, AT_NO_AUTOMOUNT, STATX_INO | STATX_MNT_ID, &stx) < 0 ||
		    !(stx.stx_mask & STATX_MNT_ID) || stx.stx_mnt_id != id || stx.stx_dev_major != maj ||
		    stx.stx_dev_minor != min)
			continue; /* not that mount's root here (another mounted over it) */
		snprintf(cgroup_mount.dir, sizeof(cgroup_mount.dir), "%s", strcmp(dir, "/") == 0 ? "" : dir);
		cgroup_mount.dev = makedev(maj, min);
		cgroup_mount.mnt_id = id;
		cgroup_mount.state = 1;
		break;
	}
	if (f)
		fclose(f);
	return cgroup_mount.state;
}

static struct cgroup_slot *cgroup_slot(uint64_t id)
{
	return &cgroup_slots[(id * 0x9e3779b97f4a7c15ull) >> 54];
}

const char *procinfo_cgroup_by_id(uint64_t id)
{
	const struct cgroup_slot *s = cgroup_slot(id);

	if (!id || s->id != id || !s->path)
		return NULL;
	cgroups_by_id++;
	return s->path;
}

void procinfo_cgroup_learn(uint64_t id, const char *path)
{
	char full[PATH_MAX];
	struct cgroup_slot *s = cgroup_slot(id);
	struct statx stx;
	char *copy;

	if (!id || path[0] != '/' || strstr(path, "/..") || (s->id == id && s->path))
		return;
	if (cgroup_mount.state < 0 || (cgroup_mount.state == 0 && find_cgroup_mount() < 0))
		return;
	if ((size_t)snprintf(full, sizeof(full), "%s%s", cgroup_mount.dir, path) >= sizeof(full) ||
	    statx(AT_FDCWD, full, AT_NO_AUTOMOUNT, STATX_TYPE | STATX_INO | STATX_MNT_ID, &stx) < 0 ||
	    !S_ISDIR(stx.stx_mode) || !(stx.stx_mask & STATX_MNT_ID) || stx.stx_mnt_id != cgroup_mount.mnt_id ||
	    makedev(stx.stx_dev_major, stx.stx_dev_minor) != cgroup_mount.dev || stx.stx_ino != id)
		return; /* another cgroup's, or through another mount (a bind of a subtree) */
	copy = strdup(path);
	if (!copy)
		return;
	free(s->path);
	s->id = id;
	s->path = copy;
}

const char *procinfo_cgroup_mount(void)
{
	if (cgroup_mount.state == 0)
		(void)find_cgroup_mount();
	if (cgroup_mount.state < 0)
		return NULL;
	return cgroup_mount.dir[0] ? cgroup_mount.dir : "/";
}

unsigned long procinfo_cgroups_by_id(void)
{
	return cgroups_by_id;
}

int procinfo_pidfd_ids_supported(void)
{
	return pidfd_info_state ? pidfd_info_state : probe();
}

unsigned long procinfo_pidfd_ids_taken(void)
{
	return ids_taken;
}
