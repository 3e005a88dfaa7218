// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-argv: a stand-in for an OCI runtime. Writes its argv, argv[0]
 * included, NUL-separated to $CS_ARGV_OUT and its stdin to $CS_STDIN_OUT,
 * then exits with $CS_EXIT (default 0). A script could not show argv[0]. */
#include <stdio.h>
#include <stdlib.h>

static int save_argv(const char *path, int argc, char **argv)
{
	FILE *f = fopen(path, "we");
	int i;

	if (!f)
		return -1;
	for (i = 0; i < argc; i++)
		fprintf(f, "%s%c", argv[i], '\0');
	return fclose(f);
}

static int save_stdin(const char *path)
{
	FILE *f = fopen(path, "we");
	char buf[4096];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0)
		fwrite(buf, 1, n, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	const char *out = getenv("CS_ARGV_OUT"), *in = getenv("CS_STDIN_OUT"), *rc = getenv("CS_EXIT");

	if (!out || save_argv(out, argc, argv) < 0 || (in && save_stdin(in) < 0)) {
		perror("cs-argv: CS_ARGV_OUT or CS_STDIN_OUT");
		return 125;
	}
	return rc ? atoi(rc) : 0;
}
