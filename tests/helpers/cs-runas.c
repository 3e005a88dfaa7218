// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-runas UID GID COMMAND...: drop to UID/GID (no supplementary groups
 * beyond GID) and exec COMMAND. For tests that need an unprivileged user. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	gid_t gid;
	uid_t uid;

	if (argc < 4) {
		fprintf(stderr, "usage: cs-runas UID GID COMMAND...\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	gid = (gid_t)atoi(argv[2]);
	if (setgroups(1, &gid) < 0 || setgid(gid) < 0 || setuid(uid) < 0) {
		perror("cs-runas");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("cs-runas: exec");
	return 127;
}
