// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-hold [nodump] SECONDS: sleep, first made not dumpable if asked. A
 * copy made setuid root stands in for sudo or passwd: real uid the user's,
 * effective and saved uid root. For tests of whom a user may place. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int i = 1;

	if (argc > 2 && strcmp(argv[1], "nodump") == 0) {
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
			perror("cs-hold: PR_SET_DUMPABLE");
			return 2;
		}
		i++;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: cs-hold [nodump] SECONDS\n");
		return 2;
	}
	sleep((unsigned)atoi(argv[i]));
	return 0;
}
