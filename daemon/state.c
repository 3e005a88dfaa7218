// SPDX-License-Identifier: GPL-2.0-or-later
/* The file lives in the runtime directory and names processes by pid and
 * start time, so it means nothing after a reboot: it is never fsync'ed.
 * Only the rename has to be atomic, against a daemon killed mid-write. */
#include "state.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hashmap.h"
#include "procinfo.h"

#define HEADER                                                                                   \
	"# coreschedd explicit placements: PID START ORIGIN GROUP KEY [COOKIE [PLACER_UID:GID]]\n" \
	"# and who placed members that left a key: placers GROUP KEY PRIVILEGED [UID:GID [UID:GID]]\n" \
	"# and processes that outgrew a placement: unowned PID START\n"
#define PLACERS "placers "
#define UNOWNED "unowned "

static const enum origin stored_origins[] = { ORIGIN_ASSIGN, ORIGIN_RUN, ORIGIN_HOOK, ORIGIN_INHERITED, ORIGIN_STICKY,
					      ORIGIN_SESSION };

static bool origin_stored(enum origin o)
{
	for (size_t i = 0; i < sizeof(stored_origins) / sizeof(stored_origins[0]); i++)
		if (stored_origins[i] == o)
			return true;
	return false;
}

/* A key may hold anything a client sent; a field holds no space, no '%'
 * and nothing unprintable, and "-" stands for the empty key. */
static bool raw_ok(unsigned char c)
{
	return c > ' ' && c < 0x7f && c != '%';
}

static int escape_key(const char *key, char *buf, size_t size)
{
	size_t n = 0;

	if (!*key)
		return snprintf(buf, size, "-") < (int)size ? 1 : -ENAMETOOLONG;
	for (const unsigned char *p = (const unsigned char *)key; *p; p++) {
		bool raw = raw_ok(*p) && !(*p == '-' && p == (const unsigned char *)key && !p[1]);

		if (n + (raw ? 1 : 3) >= size)
			return -ENAMETOOLONG;
		if (raw)
			buf[n++] = (char)*p;
		else
			n += (size_t)snprintf(buf + n, size - n, "%%%02X", *p);
	}
	buf[n] = '\0';
	return (int)n;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)tolower((unsigned char)c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int unescape_key(const char *s, char *buf, size_t size)
{
	size_t n = 0;

	if (strcmp(s, "-") == 0) {
		buf[0] = '\0';
		return 0;
	}
	for (; *s; n++) {
		int hi, lo;

		if (n + 1 >= size)
			return -EBADMSG;
		if (*s != '%') {
			if (!raw_ok((unsigned char)*s))
				return -EBADMSG;
			buf[n] = *s++;
			continue;
		}
		hi = hex(s[1]);
		lo = hi < 0 ? -1 : hex(s[2]);
		if (lo < 0 || (hi == 0 && lo == 0))
			return -EBADMSG;
		buf[n] = (char)(hi * 16 + lo);
		s += 3;
	}
	buf[n] = '\0';
	return 0;
}

static bool group_ok(const char *g)
{
	size_t n = strspn(g, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-");

	return n >= 1 && n < STATE_GROUP_MAX && g[n] == '\0';
}

int state_format(const struct state_entry *en, char *buf, size_t size)
{
	char key[3 * MATCH_KEY_MAX];
	int n;

	if (en->pid <= 0 || !origin_stored(en->origin) || !group_ok(en->group))
		return -EINVAL;
	n = escape_key(en->key, key, sizeof(key));
	if (n < 0)
		return n;
	if (en->placer && en->placer_gid != STATE_GID_UNKNOWN)
		n = snprintf(buf, size, "%d %" PRIu64 " %s %s %s %" PRIx64 " %u:%u\n", (int)en->pid, en->start,
			     origin_to_string(en->origin), en->group, key, en->cookie, (unsigned)en->placer,
			     (unsigned)en->placer_gid);
	else if (en->placer)
		n = snprintf(buf, size, "%d %" PRIu64 " %s %s %s %" PRIx64 " %u\n", (int)en->pid, en->start,
			     origin_to_string(en->origin), en->group, key, en->cookie, (unsigned)en->placer);
	else if (en->cookie)
		n = snprintf(buf, size, "%d %" PRIu64 " %s %s %s %" PRIx64 "\n", (int)en->pid, en->start,
			     origin_to_string(en->origin), en->group, key, en->cookie);
	else
		n = snprintf(buf, size, "%d %" PRIu64 " %s %s %s\n", (int)en->pid, en->start,
			     origin_to_string(en->origin), en->group, key);
	return n >= 0 && (size_t)n < size ? n : -ENAMETOOLONG;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -EBADMSG;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static int parse_origin(const char *s, enum origin *ret)
{
	for (size_t i = 0; i < sizeof(stored_origins) / sizeof(stored_origins[0]); i++)
		if (strcmp(s, origin_to_string(stored_origins[i])) == 0) {
			*ret = stored_origins[i];
			return 0;
		}
	return -EBADMSG;
}

/* min to seven fields, one space apart; the missing ones NULL. */
static int split(char *s, char *field[7], size_t min)
{
	size_t n = 0;

	for (char *p = s;; p++) {
		if (n == 7)
			return -EBADMSG;
		field[n++] = p;
		p = strchr(p, ' ');
		if (!p)
			break;
		*p = '\0';
	}
	for (size_t i = 0; i < n; i++)
		if (!*field[i])
			return -EBADMSG;
	for (size_t i = n; i < 7; i++)
		field[i] = NULL;
	return n >= min ? 0 : -EBADMSG;
}

/* The cookie the process carried when the line was written, in hex. */
static int parse_cookie(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!s) {
		*ret = 0; /* written by an older daemon: not known */
		return 0;
	}
	if (!isxdigit((unsigned char)*s))
		return -EBADMSG;
	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno || *end)
		return -EBADMSG;
	*ret = v;
	return 0;
}

static int parse_ids(char *s, uid_t *uid, gid_t *gid);

int state_parse(const char *line, struct state_entry *ret)
{
	char copy[STATE_LINE_MAX], *f[7];
	uint64_t placer = 0;
	gid_t placer_gid = STATE_GID_UNKNOWN;
	struct state_entry en = {};
	size_t len = strlen(line);
	uint64_t pid;

	if (len && line[len - 1] == '\n')
		len--;
	if (len == 0 || len >= sizeof(copy))
		return -EBADMSG;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (split(copy, f, 5) < 0 || parse_u64(f[0], INT_MAX, &pid) < 0 || pid == 0 ||
	    parse_u64(f[1], UINT64_MAX, &en.start) < 0 || parse_origin(f[2], &en.origin) < 0 || !group_ok(f[3]) ||
	    unescape_key(f[4], en.key, sizeof(en.key)) < 0 || parse_cookie(f[5], &en.cookie) < 0 ||
	    (f[6] && !strchr(f[6], ':') && parse_u64(f[6], UINT32_MAX - 1, &placer) < 0))
		return -EBADMSG;
	if (f[6] && strchr(f[6], ':')) {
		uid_t uid;

		if (parse_ids(f[6], &uid, &placer_gid) < 0 || uid == 0)
			return -EBADMSG;
		placer = uid;
	}
	en.placer = (uid_t)placer;
	en.placer_gid = placer_gid;
	en.pid = (pid_t)pid;
	memcpy(en.group, f[3], strlen(f[3]) + 1);
	*ret = en;
	return 0;
}

int state_format_placers(const struct state_placers *p, char *buf, size_t size)
{
	char key[3 * MATCH_KEY_MAX];
	int n, m;

	if (!group_ok(p->group) || p->placers.n > 2)
		return -EINVAL;
	n = escape_key(p->key, key, sizeof(key));
	if (n < 0)
		return n;
	n = snprintf(buf, size, PLACERS "%s %s %d", p->group, key, p->placers.privileged ? 1 : 0);
	for (unsigned i = 0; n >= 0 && (size_t)n < size && i < p->placers.n; i++) {
		m = snprintf(buf + n, size - (size_t)n, " %u:%u", (unsigned)p->placers.uid[i], (unsigned)p->placers.gid[i]);
		n = m < 0 ? m : n + m;
	}
	if (n >= 0 && (size_t)n + 1 < size) {
		buf[n++] = '\n';
		buf[n] = '\0';
		return n;
	}
	return -ENAMETOOLONG;
}

/* "UID:GID", the uid below (uid_t)-1; a gid of (gid_t)-1 is one not known
 * (a placer an older daemon's line named), which acts on nothing. */
static int parse_ids(char *s, uid_t *uid, gid_t *gid)
{
	char *colon = strchr(s, ':');
	uint64_t u, g;

	if (!colon)
		return -EBADMSG;
	*colon = '\0';
	if (parse_u64(s, UINT32_MAX - 1, &u) < 0 || parse_u64(colon + 1, UINT32_MAX, &g) < 0)
		return -EBADMSG;
	*uid = (uid_t)u;
	*gid = (gid_t)g;
	return 0;
}

int state_parse_placers(const char *line, struct state_placers *ret)
{
	char copy[STATE_LINE_MAX], *f[7];
	struct state_placers p = {};
	size_t len = strlen(line);

	if (len && line[len - 1] == '\n')
		len--;
	if (len <= strlen(PLACERS) || len >= sizeof(copy) || strncmp(line, PLACERS, strlen(PLACERS)) != 0)
		return -EBADMSG;
	memcpy(copy, line, len);
	copy[len] = '\0';
	/* "placers", GROUP, KEY, PRIVILEGED and up to two ids */
	if (split(copy, f, 4) < 0 || f[6] || !group_ok(f[1]) || unescape_key(f[2], p.key, sizeof(p.key)) < 0 ||
	    (strcmp(f[3], "0") != 0 && strcmp(f[3], "1") != 0))
		return -EBADMSG;
	p.placers.privileged = f[3][0] == '1';
	for (unsigned i = 4; i < 6 && f[i]; i++) {
		uid_t uid;
		gid_t gid;

		if (parse_ids(f[i], &uid, &gid) < 0 || uid == 0)
			return -EBADMSG; /* root is no bound placer */
		p.placers.uid[p.placers.n] = uid;
		p.placers.gid[p.placers.n++] = gid;
	}
	if (p.placers.n == 2 && p.placers.uid[0] == p.placers.uid[1] && p.placers.gid[0] == p.placers.gid[1])
		return -EBADMSG; /* two are kept only when distinct */
	memcpy(p.group, f[1], strlen(f[1]) + 1);
	*ret = p;
	return 0;
}

static int parse_unowned(const char *line, struct state_unowned *ret)
{
	char copy[STATE_LINE_MAX], *f[7];
	uint64_t pid;
	size_t len = strlen(line);

	if (len && line[len - 1] == '\n')
		len--;
	if (len >= sizeof(copy) || strncmp(line, UNOWNED, strlen(UNOWNED)) != 0)
		return -EBADMSG;
	memcpy(copy, line, len);
	copy[len] = '\0';
	if (split(copy, f, 3) < 0 || f[3] || parse_u64(f[1], INT_MAX, &pid) < 0 || pid == 0 ||
	    parse_u64(f[2], UINT64_MAX, &ret->start) < 0)
		return -EBADMSG;
	ret->pid = (pid_t)pid;
	return 0;
}

static int write_all(FILE *f, const struct state_file *sf)
{
	char line[STATE_LINE_MAX];
	size_t n = sf->n, np = sf->n_placers;

	if (fputs(HEADER, f) < 0)
		return -EIO;
	for (size_t i = 0; i < n + np; i++) {
		int r = i < n ? state_format(&sf->entries[i], line, sizeof(line))
			      : state_format_placers(&sf->placers[i - n], line, sizeof(line));

		if (r < 0)
			return r;
		if (fputs(line, f) < 0)
			return -EIO;
	}
	for (size_t i = 0; i < sf->n_unowned; i++)
		if (sf->unowned[i].pid <= 0 ||
		    fprintf(f, UNOWNED "%d %" PRIu64 "\n", (int)sf->unowned[i].pid, sf->unowned[i].start) < 0)
			return sf->unowned[i].pid <= 0 ? -EINVAL : -EIO;
	return 0;
}

int state_save(const char *path, const struct state_file *sf)
{
	char tmp[PROCINFO_PATH_MAX];
	FILE *f;
	int fd, r;

	uint64_t rnd = 0;

	/* A fresh name each time, never an existing file or a link someone
	 * planted: the directory may not be ours alone. */
	if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
		rnd ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&rnd;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%016" PRIx64 ".tmp", path, rnd) >= sizeof(tmp))
		return -ENAMETOOLONG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	r = write_all(f, sf);
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

static int append(struct state_file *sf, const struct state_entry *en, size_t *cap)
{
	if (sf->n == *cap) {
		size_t want = *cap ? *cap * 2 : 16;
		struct state_entry *v = realloc(sf->entries, want * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sf->entries = v;
		*cap = want;
	}
	sf->entries[sf->n++] = *en;
	return 0;
}

static int append_placers(struct state_file *sf, const struct state_placers *p, size_t *cap)
{
	if (sf->n_placers == *cap) {
		size_t want = *cap ? *cap * 2 : 4;
		struct state_placers *v = realloc(sf->placers, want * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sf->placers = v;
		*cap = want;
	}
	sf->placers[sf->n_placers++] = *p;
	return 0;
}

static int append_unowned(struct state_file *sf, const struct state_unowned *u, size_t *cap)
{
	if (sf->n_unowned == *cap) {
		size_t want = *cap ? *cap * 2 : 4;
		struct state_unowned *v = realloc(sf->unowned, want * sizeof(*v));

		if (!v)
			return -ENOMEM;
		sf->unowned = v;
		*cap = want;
	}
	sf->unowned[sf->n_unowned++] = *u;
	return 0;
}

static void note_bad(struct state_file *sf, unsigned line)
{
	if (!sf->n_bad++)
		sf->first_bad = line;
}

/* A second entry for a process, a PID with the same start time (the
 * daemon writes one line per process; a second is an edit by hand): the
 * first line stands, the later is counted. Lines of one PID with other
 * start times are other processes, all but the live one gone. */
static void process_id(const struct state_entry *en, char *buf, size_t size)
{
	snprintf(buf, size, "%d %" PRIu64, (int)en->pid, en->start);
}

static bool repeated(struct state_file *sf, const struct hashmap *seen, const struct state_entry *en, unsigned no)
{
	char id[48];
	uintptr_t first;

	process_id(en, id, sizeof(id));
	first = (uintptr_t)hashmap_get_str(seen, id);
	if (first && !sf->n_dup++) {
		sf->first_dup = no;
		sf->first_dup_of = (unsigned)first;
	}
	return first;
}

static int remember(struct hashmap *seen, const struct state_entry *en, unsigned no)
{
	char id[48];

	process_id(en, id, sizeof(id));
	return hashmap_put_str(seen, id, (void *)(uintptr_t)no);
}

/* Comments are skipped; a malformed line (state_parse() rejects over-long
 * ones too) is counted and skipped: every entry is checked against a live
 * process anyway, so one bad line need not cost the others. */
static int read_lines(FILE *f, struct state_file *sf)
{
	struct state_entry en;
	struct state_placers pl;
	struct state_unowned un;
	struct hashmap *seen = hashmap_new(true);
	char *line = NULL;
	size_t size = 0, cap = 0, cap_placers = 0, cap_unowned = 0;
	unsigned no = 0;
	int r = seen ? 0 : -ENOMEM;

	while (r == 0 && getline(&line, &size, f) >= 0) {
		no++;
		if (line[0] == '#')
			continue;
		if (strncmp(line, PLACERS, strlen(PLACERS)) == 0) {
			if (state_parse_placers(line, &pl) < 0 || sf->n_placers >= STATE_ENTRIES_MAX)
				note_bad(sf, no);
			else
				r = append_placers(sf, &pl, &cap_placers);
		} else if (strncmp(line, UNOWNED, strlen(UNOWNED)) == 0) {
			if (parse_unowned(line, &un) < 0 || sf->n_unowned >= STATE_ENTRIES_MAX)
				note_bad(sf, no);
			else
				r = append_unowned(sf, &un, &cap_unowned);
		} else if (state_parse(line, &en) < 0)
			note_bad(sf, no);
		else if (repeated(sf, seen, &en, no))
			continue;
		else if (sf->n >= STATE_ENTRIES_MAX)
			note_bad(sf, no);
		else if ((r = remember(seen, &en, no)) == 0)
			r = append(sf, &en, &cap);
	}
	if (r == 0 && ferror(f))
		r = -EIO;
	free(line);
	hashmap_free(seen);
	return r;
}

/* Why a file in place of the state file is not read, or NULL. */
static const char *refusal(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "it is a directory, not a file";
	if (S_ISFIFO(st->st_mode))
		return "it is a FIFO, not a file";
	if (!S_ISREG(st->st_mode))
		return "it is not a regular file";
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return "it is owned by neither root nor the daemon's user";
	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return "it is writable by its group or by others";
	return NULL;
}

int state_load(const char *path, struct state_file **ret, const char **why)
{
	struct state_file *sf;
	const char *no;
	FILE *f;
	int r, flags;

	struct stat st;
	int fd;

	if (why)
		*why = NULL;
	/* Placements are trusted input: only a file of root's or ours that
	 * no one else can write. Opened non-blocking and checked first: a
	 * FIFO would hold the start-up until someone writes to it. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		r = -errno;
		if (why)
			*why = r == -ELOOP ? "it is a symbolic link, which is not followed" : strerror(-r);
		return r;
	}
	if (fstat(fd, &st) < 0 || (flags = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		r = -errno;
		close(fd);
		if (why)
			*why = strerror(-r);
		return r;
	}
	no = refusal(&st);
	if (no) {
		close(fd);
		if (why)
			*why = no;
		return -EPERM;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		if (why)
			*why = strerror(ENOMEM);
		return -ENOMEM;
	}
	sf = calloc(1, sizeof(*sf));
	if (!sf) {
		fclose(f);
		if (why)
			*why = strerror(ENOMEM);
		return -ENOMEM;
	}
	r = read_lines(f, sf);
	fclose(f);
	if (r < 0) {
		state_file_free(sf);
		if (why)
			*why = strerror(-r);
		return r;
	}
	*ret = sf;
	return 0;
}

struct state_file *state_file_free(struct state_file *f)
{
	if (!f)
		return NULL;
	free(f->entries);
	free(f->placers);
	free(f->unowned);
	free(f);
	return NULL;
}

size_t state_prune(struct state_file *f, const char *proc_root)
{
	size_t kept = 0, dropped;

	for (size_t i = 0; i < f->n; i++) {
		uint64_t start;

		if (procinfo_start_time(proc_root, f->entries[i].pid, &start) == 0 && start == f->entries[i].start)
			f->entries[kept++] = f->entries[i];
	}
	dropped = f->n - kept;
	f->n = kept;
	return dropped;
}
