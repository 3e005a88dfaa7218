// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-runas UID GID[,GID...] COMMAND...: drop to UID and the first GID,
 * with the GIDs listed as the only supplementary groups, and exec COMMAND.
 * For tests that need an unprivileged user. */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	gid_t gids[32];
	size_t n = 0;
	uid_t uid;

	if (argc < 4) {
		fprintf(stderr, "usage: cs-runas UID GID COMMAND...\n");
		return 2;
	}
	uid = (uid_t)atoi(argv[1]);
	for (char *p = argv[2], *end; *p && n < 32; p = *end ? end + 1 : end) {
		gids[n++] = (gid_t)strtoul(p, &end, 10);
		if (end == p)
			break;
	}
	if (n == 0 || setgroups(n, gids) < 0 || setgid(gids[0]) < 0 || setuid(uid) < 0) {
		perror("cs-runas");
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("cs-runas: exec");
	return 127;
}
