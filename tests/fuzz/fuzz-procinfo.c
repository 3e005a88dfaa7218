// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary text through the /proc parsers. Each gets a NUL-ended
 * heap copy of exactly the input, so any read past it is caught; results
 * that claim success are checked for what they promise. The first byte
 * also picks a small cgroup path buffer to reach the too-long path. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* fuzz-sources: daemon/procinfo-pidfd.c */
#include "procinfo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_stat(const char *text)
{
	struct procinfo p;
	int r;

	memset(&p, 0, sizeof(p));
	r = procinfo_parse_stat(text, &p);
	if (r == 0) {
		if (p.pid <= 0 || p.ppid < 0 || memchr(p.comm, '\0', sizeof(p.comm)) == NULL)
			abort();
		if (p.kernel_thread != 0 && p.kernel_thread != 1)
			abort();
	} else if (r != -EBADMSG) {
		abort();
	}
}

static void check_status(const char *text)
{
	uid_t uid = 12345;
	gid_t gid = 12345;
	int r;

	r = procinfo_parse_status(text, &uid, &gid);
	if (r != 0 && (r != -EBADMSG || uid != 12345 || gid != 12345))
		abort();
}

static void check_tgid(const char *text)
{
	pid_t tgid = 12345;
	int r = procinfo_parse_tgid(text, &tgid);

	if (r == 0 ? tgid <= 0 : (r != -EBADMSG || tgid != 12345))
		abort();
}

static int child_positive(void *userdata, pid_t pid)
{
	(void)userdata;
	if (pid <= 0)
		abort();
	return 0;
}

static void check_children(const char *text)
{
	int r = procinfo_parse_children(text, child_positive, NULL);

	if (r != 0 && r != -EBADMSG)
		abort();
}

static void check_cgroup(const char *text, size_t size)
{
	char *path = malloc(size);
	int r;

	if (!path)
		return;
	memset(path, 'x', size);
	r = procinfo_parse_cgroup(text, path, size, NULL);
	if (r > 0 && (path[0] != '/' || strlen(path) != (size_t)r))
		abort();
	if (r == 0 && path[0] != '\0')
		abort();
	if (r < 0 && r != -EBADMSG && r != -ENAMETOOLONG)
		abort();
	free(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	check_stat(text);
	check_status(text);
	check_tgid(text);
	check_children(text);
	check_cgroup(text, PROCINFO_PATH_MAX);
	check_cgroup(text, size ? (size_t)data[0] % 16 + 1 : 1);
	free(text);
	return 0;
}
