// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-keepcaps UID GID COMMAND...: run COMMAND as UID and GID (no
 * supplementary groups) still holding CAP_NET_RAW, as a service started
 * with User= and AmbientCapabilities= does: uid and gid all the user's,
 * dumpable, but with a capability the user lacks. Run as root. */
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <grp.h> is not needed for this one call. */
extern int setgroups(size_t size, const gid_t *list);

int main(int argc, char **argv)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	unsigned bit = 1u << CAP_NET_RAW;

	if (argc < 4) {
		fprintf(stderr, "usage: cs-keepcaps UID GID COMMAND...\n");
		return 2;
	}
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0 || setgroups(0, NULL) < 0 ||
	    setgid((gid_t)atoi(argv[2])) < 0 || setuid((uid_t)atoi(argv[1])) < 0) {
		perror("cs-keepcaps: setuid");
		return 2;
	}
	/* kept in the permitted set; inheritable and ambient carry it over exec */
	d[0].permitted = d[0].effective = d[0].inheritable = bit;
	if (syscall(SYS_capset, &h, d) < 0 || prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_RAW, 0, 0) < 0) {
		perror("cs-keepcaps: capabilities");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("cs-keepcaps: exec");
	return 127;
}
