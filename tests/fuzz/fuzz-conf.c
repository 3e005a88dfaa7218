// SPDX-License-Identifier: GPL-2.0-or-later
/* Arbitrary text through the configuration loader. Whoever may write a
 * drop-in may not thereby crash the daemon that reads it. The first byte
 * picks how the rest arrives:
 *   0: a whole main file, from memory;
 *   1: a whole main file, from disk (NUL bytes reach the line reader);
 *   2: a main file and drop-ins, split at lines "---", written to two
 *      rules.d directories so names collide and precedence applies; a
 *      chunk that is exactly "/dev/null" becomes a masking symlink;
 *   3: one section body under [Daemon], [Container] or [Group fuzz].
 * A loaded configuration must keep the promises of conf.h and survive
 * printing and loading the printout unchanged; a rejected one must say
 * where and why, and hand back nothing.
 * fuzz-sources: daemon/conf-keys.c daemon/conf-words.c daemon/conf-ids.c daemon/rules.c daemon/rules-glob.c
 * fuzz-pkgs: inih */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"

#define MAX_CHUNKS 8
#define NAME "fuzz.conf"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz-conf.XXXXXX";
static char etc_dir[64], lib_dir[64], main_path[64];

static void remove_dirs(void)
{
	rmdir(etc_dir);
	rmdir(lib_dir);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	snprintf(etc_dir, sizeof(etc_dir), "%s/etc", dir);
	snprintf(lib_dir, sizeof(lib_dir), "%s/lib", dir);
	snprintf(main_path, sizeof(main_path), "%s/main.conf", dir);
	if (mkdir(etc_dir, 0700) < 0 || mkdir(lib_dir, 0700) < 0)
		abort();
	atexit(remove_dirs);
	return 0;
}

/* conf_print() without comment lines, which name files and lines. */
static char *print_settings(const struct conf *c)
{
	char *buf = NULL, *out, *q;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	if (!f)
		abort();
	conf_print(c, f);
	fclose(f);
	out = malloc(size + 1);
	if (!out)
		abort();
	q = out;
	for (char *line = buf, *end; *line; line = end) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		if (*line != '#') {
			memcpy(q, line, (size_t)(end - line));
			q += end - line;
		}
	}
	*q = '\0';
	free(buf);
	return out;
}

static void check_group(const struct conf *c, size_t i)
{
	const struct group *g = c->groups[i];
	unsigned mask = 0;

	if (!g || !g->name || !g->file || g->order != i || conf_find_group(c, g->name) != g)
		abort();
	if (i > 0 && c->groups[i - 1]->priority < g->priority)
		abort(); /* evaluation order is priority first */
	for (int k = 0; k < _MATCH_KIND_MAX; k++)
		if (g->n_match_words[k])
			mask |= 1u << k;
	if (mask != g->match_mask || g->priority < -1000 || g->priority > 1000)
		abort();
	if (g->trusted && g->per != PER_GROUP)
		abort();
	if (g->per == PER_CGROUP && !g->n_match_words[MATCH_CGROUP])
		abort();
	if (g->n_allow_uids + g->n_allow_gids > CONF_MAX_ALLOW)
		abort();
	for (size_t j = 0; j < g->n_match_words[MATCH_EXE]; j++)
		if (g->match_words[MATCH_EXE][j][0] != '/')
			abort();
}

/* What conf_print() shows must load back to the same configuration. */
static void check_reload(const char *printed)
{
	struct conf *again = NULL;
	char *error = NULL, *reprinted;

	if (conf_load_string(printed, NAME, &again, &error) < 0) {
		/* Many Match*= lines print as one, which may exceed the limit. */
		if (!error || !strstr(error, "line too long"))
			abort();
		free(error);
		return;
	}
	reprinted = print_settings(again);
	if (strcmp(printed, reprinted) != 0)
		abort();
	free(reprinted);
	conf_free(again);
}

static void check_loaded(const struct conf *c, const char *first_source)
{
	char *printed;

	if (!c || !c->index || c->n_groups > CONF_MAX_GROUPS || c->n_sources < 1)
		abort();
	if (strcmp(c->sources[0], first_source) != 0)
		abort();
	for (size_t i = 0; i < c->n_groups; i++)
		check_group(c, i);
	if (c->container.def == CONTAINER_GROUP &&
	    (!c->container.group || !conf_find_group(c, c->container.group)))
		abort();
	if (c->daemon.log_level < 3 || c->daemon.log_level > 7)
		abort();
	printed = print_settings(c);
	check_reload(printed);
	free(printed);
}

static void check_result(int r, struct conf *c, char *error, const char *first_source)
{
	if (r == 0) {
		if (error)
			abort();
		check_loaded(c, first_source);
		conf_free(c);
		return;
	}
	if (r != -EINVAL && r != -ENOMEM && r != -E2BIG && r != -ENOENT && r != -ENAMETOOLONG)
		abort();
	if (c != (struct conf *)1)
		abort(); /* nothing written on failure */
	if (!error || !*error)
		abort();
	free(error);
}

static char *text_of(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);

	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	return text;
}

static void load_text(const char *text)
{
	struct conf *c = (struct conf *)1;
	char *error = NULL;
	int r = conf_load_string(text, NAME, &c, &error);

	check_result(r, c, error, NAME);
}

static void write_file(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "we");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
}

static void load_files(const char *const *dirs)
{
	struct conf_paths paths = { main_path, dirs };
	struct conf *c = (struct conf *)1;
	char *error = NULL;
	int r = conf_load(&paths, &c, &error);

	check_result(r, c, error, main_path);
}

static const uint8_t *find_separator(const uint8_t *p, const uint8_t *end)
{
	static const char sep[] = "\n---\n";
	const uint8_t *s = memmem(p, (size_t)(end - p), sep, sizeof(sep) - 1);

	return s ? s : end;
}

/* Chunk i goes to etc/ (odd) or lib/ (even) under one of three names, so
 * later chunks may shadow or be shadowed by earlier ones. */
static void load_dropins(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "10-a.conf", "20-b.conf", "05-c.conf" };
	const char *const dirs[] = { etc_dir, lib_dir, NULL };
	char paths[MAX_CHUNKS][128];
	const uint8_t *p = data, *end = data + size, *s = find_separator(p, end);
	size_t n = 0;

	write_file(main_path, p, (size_t)(s - p));
	for (p = s; p < end && n < MAX_CHUNKS; n++) {
		p += 5;
		s = find_separator(p, end);
		snprintf(paths[n], sizeof(paths[n]), "%s/%s", dirs[n % 2 ? 0 : 1], names[n % 3]);
		unlink(paths[n]);
		if ((size_t)(s - p) == 9 && memcmp(p, "/dev/null", 9) == 0) {
			if (symlink("/dev/null", paths[n]) < 0)
				abort();
		} else {
			write_file(paths[n], p, (size_t)(s - p));
		}
		p = s;
	}
	load_files(dirs);
	for (size_t i = 0; i < n; i++)
		unlink(paths[i]);
	unlink(main_path);
}

static void load_section(uint8_t which, const uint8_t *data, size_t size)
{
	static const char *const headers[] = { "[Daemon]\n", "[Container]\n", "[Group fuzz]\n" };
	const char *h = headers[which % 3];
	size_t hlen = strlen(h);
	char *text = malloc(hlen + size + 1);

	if (!text)
		abort();
	memcpy(text, h, hlen);
	memcpy(text + hlen, data, size);
	text[hlen + size] = '\0';
	load_text(text);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const no_dirs[] = { NULL };
	char *text;

	if (size < 1)
		return 0;
	switch (data[0] % 4) {
	case 0:
		text = text_of(data + 1, size - 1);
		load_text(text);
		free(text);
		break;
	case 1:
		write_file(main_path, data + 1, size - 1);
		load_files(no_dirs);
		unlink(main_path);
		break;
	case 2:
		load_dropins(data + 1, size - 1);
		break;
	default:
		load_section(data[0] / 4, data + 1, size - 1);
		break;
	}
	return 0;
}
