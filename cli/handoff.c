// SPDX-License-Identifier: GPL-2.0-or-later
/* The front end's way to what it does not do itself. /usr/bin/coresched
 * links libc only, so that get, new, copy and run start as fast as a
 * plain launcher; the daemon functions, --lock (libseccomp) and run -g
 * (json-c) are the full command line's, which it executes with the
 * arguments it was given. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "cli.h"

#ifndef CLI_FULL_PATH
#define CLI_FULL_PATH "/usr/libexec/coresched/coresched-cli"
#endif
/* CLI_FULL_PATH relative to the front end's directory as installed. */
#ifndef CLI_FULL_REL
#define CLI_FULL_REL "../libexec/coresched/coresched-cli"
#endif
#define CLI_FULL_NAME "coresched-cli"

static char **saved_argv;

int cli_handoff_init(int argc, char **argv)
{
	saved_argv = calloc((size_t)argc + 1, sizeof(*saved_argv));
	if (!saved_argv)
		return -ENOMEM;
	memcpy(saved_argv, argv, (size_t)argc * sizeof(*argv));
	return 0;
}

/* execv() dir/name (name alone when dir is NULL); returns the errno when
 * it fails, with the path tried in path. */
static int try_exec(char path[static PATH_MAX], const char *dir, const char *name)
{
	if ((size_t)snprintf(path, PATH_MAX, "%s%s%s", dir ? dir : "", dir ? "/" : "", name) >= PATH_MAX)
		return ENAMETOOLONG;
	execv(path, saved_argv);
	return errno;
}

int cli_handoff(int argc, char **argv)
{
	char self[PATH_MAX], path[PATH_MAX], *slash;
	ssize_t n;
	int err = ENOENT;

	(void)argc;
	(void)argv;
	fflush(stdout);
	/* Beside the front end first (a build tree), then where the install
	 * layout puts it relative to the front end (an unpacked package, a
	 * DESTDIR), then where it was installed. Only a missing file moves
	 * on to the next place. Set-user-ID or with file capabilities, only
	 * where it was installed: a hard link of it in a directory of the
	 * caller's would otherwise run the caller's program as its owner. */
	n = getauxval(AT_SECURE) ? -1 : readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			err = try_exec(path, self, CLI_FULL_NAME);
			if (err == ENOENT || err == ENOTDIR)
				err = try_exec(path, self, CLI_FULL_REL);
		}
	}
	if (err == ENOENT || err == ENOTDIR)
		err = try_exec(path, NULL, CLI_FULL_PATH);
	fprintf(stderr, "coresched: cannot execute the full command line %s: %s\n", path, strerror(err));
	return EXIT_FAILURE;
}
