// SPDX-License-Identifier: GPL-2.0-or-later
/* The control socket's authorization: the kernel's credential test, group
 * membership with supplementary groups, the method table, admission and
 * the cost buckets. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "auth.h"
#include "unit.h"

/* <grp.h> would clash with the configuration's struct group. */
extern int setgroups(size_t size, const gid_t *list);

static const char status_text[] = "Name:\tsudo\nUmask:\t0022\nState:\tS (sleeping)\n"
				   "Uid:\t1000\t0\t0\t0\nGid:\t1000\t1000\t1000\t1000\nGroups:\t50 1000\n";

static struct auth_creds creds(uid_t r, uid_t e, uid_t s, gid_t g, uid_t owner)
{
	return (struct auth_creds){ .uid = { r, e, s, e }, .gid = { g, g, g, g }, .proc_owner = owner };
}

static void parse_status_reads_every_id(void)
{
	struct auth_creds c;

	CHECK(auth_parse_status(status_text, &c) == 0);
	CHECK(c.uid[0] == 1000 && c.uid[1] == 0 && c.uid[2] == 0 && c.uid[3] == 0);
	CHECK(c.gid[0] == 1000 && c.gid[2] == 1000);
	CHECK(auth_parse_status("Uid:\t1\t2\t3\t4\nGid:\t5\t6\t7\t8\n", &c) == 0);
	CHECK(c.uid[0] == 1 && c.uid[3] == 4 && c.gid[0] == 5 && c.gid[3] == 8);
	CHECK(auth_parse_status("Name:\tx\nUid:\t1\t2\n", &c) == -EBADMSG);
	CHECK(auth_parse_status("Uid:\t1\t2\t3\t4\nGid:\t-1\t2\t3\t4\n", &c) == -EBADMSG);
	CHECK(auth_parse_status("", &c) == -EBADMSG);
	/* permitted capabilities: read, or all when the line is missing */
	CHECK(auth_parse_status(status_text, &c) == 0 && c.cap_prm == UINT64_MAX);
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nCapInh:\t0000000000000000\n"
				"CapPrm:\t0000000000002000\nCapEff:\t0000000000000000\n", &c) == 0);
	CHECK(c.cap_prm == 0x2000);
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nCapPrm:\t0000000000000000\n", &c) == 0);
	CHECK(c.cap_prm == 0);
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nCapPrm:\tzz\n", &c) == 0);
	CHECK(c.cap_prm == UINT64_MAX);
	/* A status cut inside the line (longer than the read): not "none". */
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nCapPrm:\t0000", &c) == 0);
	CHECK(c.cap_prm == UINT64_MAX);
	/* no_new_privs: only where the kernel says 1 */
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nNoNewPrivs:\t1\n", &c) == 0 && c.no_new_privs);
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\nNoNewPrivs:\t0\n", &c) == 0 && !c.no_new_privs);
	CHECK(auth_parse_status("Uid:\t1\t1\t1\t1\nGid:\t1\t1\t1\t1\n", &c) == 0 && !c.no_new_privs);
}

/* ptrace_may_access(PTRACE_MODE_READ_REALCREDS) as the kernel does it. */
static void kernel_credential_test(void)
{
	struct auth_creds c = creds(1000, 1000, 1000, 1000, 1000);

	CHECK(auth_may_act_on(1000, 1000, &c) == 0);
	c = creds(1000, 0, 0, 1000, 0); /* setuid root, started by the user */
	CHECK(auth_may_act_on(1000, 1000, &c) == -EPERM);
	c = creds(1000, 1000, 0, 1000, 1000); /* saved uid root */
	CHECK(auth_may_act_on(1000, 1000, &c) == -EPERM);
	c = creds(1000, 1000, 1000, 1000, 0); /* not dumpable: /proc/PID is root's */
	CHECK(auth_may_act_on(1000, 1000, &c) == -EPERM);
	c = creds(1000, 1000, 1000, 1000, 1000);
	c.gid[1] = 42; /* setgid */
	CHECK(auth_may_act_on(1000, 1000, &c) == -EPERM);
	c = creds(1000, 1000, 1000, 1000, 1000);
	c.uid[3] = 7; /* the fs uid is not part of it */
	CHECK(auth_may_act_on(1000, 1000, &c) == 0);
	CHECK(auth_may_act_on(1001, 1000, &c) == -EPERM);
	c = creds(1000, 1000, 1000, 1000, 1000);
	c.cap_prm = 1u << 13; /* CAP_NET_RAW kept across setuid, or a file capability */
	CHECK(auth_may_act_on(1000, 1000, &c) == -EPERM);
	c.userns_other = true; /* held in a user namespace someone else owns */
	c.userns_owner = 1001;
	CHECK(auth_may_act_on(1000, 1000, &c) == -EPERM);
	c.userns_owner = 1000; /* ... or one the caller owns (a rootless container) */
	CHECK(auth_may_act_on(1000, 1000, &c) == 0);
	CHECK(auth_may_act_on(1000, 1001, &c) == -EPERM);
}

/* A target in namespace ino (device 4), below the namespaces of ups in
 * turn (the last the daemon's, ino 1), each made by its owner. */
static void in_userns(struct auth_creds *c, ino_t ino, uid_t owner, const ino_t *ups, const uid_t *owners, unsigned n)
{
	c->userns_known = true;
	c->userns_dev = 4;
	c->userns_ino = ino;
	c->userns_other = ino != 1;
	c->userns_owner = owner;
	c->n_userns_up = 0;
	c->userns_up[c->n_userns_up++] = (struct auth_userns){ 4, ino, owner };
	for (unsigned i = 0; i < n; i++)
		c->userns_up[c->n_userns_up++] = (struct auth_userns){ 4, ups[i], owners[i] };
}

/* A caller in another user namespace (a sandbox's sharing the host's
 * pids): the kernel lets it act only on processes of its own namespace
 * whose capabilities it holds (cap_ptrace_access_check()), or of one
 * below it that it made (ns_capable()), never on one above it, of its own
 * uid or not. */
static void peer_in_another_user_namespace(void)
{
	static const ino_t host_up[] = { 1 }, sandbox_up[] = { 2, 1 };
	static const uid_t host_owner[] = { (uid_t)-1 }, sandbox_owner[] = { 1000, (uid_t)-1 };
	struct auth_peer host_peer = { .uid = 1000, .gid = 1000, .pidfd = -1, .userns_mine = true,
				       .userns_known = true, .userns_dev = 4, .userns_ino = 1 };
	struct auth_peer sandbox = { .uid = 1000, .gid = 1000, .pidfd = -1, .userns_known = true,
				     .userns_dev = 4, .userns_ino = 2 };
	struct auth_peer unknown = { .uid = 1000, .gid = 1000, .pidfd = -1 };
	struct auth_creds host = creds(1000, 1000, 1000, 1000, 1000), inside, nested;

	in_userns(&host, 1, (uid_t)-1, NULL, NULL, 0);
	inside = host;
	in_userns(&inside, 2, 1000, host_up, host_owner, 1);
	CHECK(auth_peer_may_act_on(&host_peer, &host) == 0);
	CHECK(auth_peer_may_act_on(&sandbox, &host) == -EPERM);
	CHECK(auth_peer_may_act_on(&unknown, &host) == -EPERM); /* gone, no pidfd: not known */
	CHECK(auth_peer_may_act_on(&sandbox, &inside) == 0);
	CHECK(auth_peer_may_act_on(&unknown, &inside) == -EPERM);
	inside.cap_prm = 1u << 21; /* CAP_SYS_ADMIN there, which the caller lacks */
	CHECK(auth_peer_may_act_on(&sandbox, &inside) == -EPERM);
	sandbox.cap_prm = ~0ull; /* its root, with every capability there */
	CHECK(auth_peer_may_act_on(&sandbox, &inside) == 0);
	/* From the namespace above, its owner may (ns_capable()). */
	CHECK(auth_peer_may_act_on(&host_peer, &inside) == 0);
	/* And ids are judged first, wherever the caller is. */
	inside.uid[1] = 0;
	CHECK(auth_peer_may_act_on(&sandbox, &inside) == -EPERM);
	/* One of the caller's uid, holding nothing, in a namespace root made
	 * (a service's PrivateUsers=): the kernel refuses the caller. */
	inside = host;
	in_userns(&inside, 2, 0, host_up, host_owner, 1);
	CHECK(auth_peer_may_act_on(&host_peer, &inside) == -EPERM);
	/* A namespace the sandbox made inside its own (a rootless engine's
	 * container with a mapping of its own): the sandbox may, as may the
	 * host caller that made the sandbox's; made by root, neither. */
	nested = host;
	in_userns(&nested, 3, 1000, sandbox_up, sandbox_owner, 2);
	CHECK(auth_peer_may_act_on(&sandbox, &nested) == 0);
	CHECK(auth_peer_may_act_on(&host_peer, &nested) == 0);
	nested.userns_up[0].owner = 0;
	CHECK(auth_peer_may_act_on(&sandbox, &nested) == -EPERM);
	/* A namespace beside the sandbox's: no. */
	nested = host;
	in_userns(&nested, 5, 1000, host_up, host_owner, 1);
	CHECK(auth_peer_may_act_on(&sandbox, &nested) == -EPERM);
	/* A chain cut short (its parent could not be read): not known. */
	nested = host;
	in_userns(&nested, 3, 1000, NULL, NULL, 0);
	CHECK(auth_peer_may_act_on(&sandbox, &nested) == -EPERM);
}

static void supplementary_groups_count(void)
{
	gid_t groups[] = { 50, 77 };
	struct auth_peer p = { .uid = 1001, .gid = 1001, .pidfd = -1, .groups = groups, .n_groups = 2 };
	gid_t allow_staff[] = { 50 }, allow_other[] = { 60 };
	uid_t allow_user[] = { 1001 };
	struct group g = { .allow_gids = allow_staff, .n_allow_gids = 1 };
	struct daemon_settings d = { .has_control_gid = true, .control_gid = 77 };

	CHECK(auth_in_group(&p, 1001));
	CHECK(auth_in_group(&p, 77));
	CHECK(!auth_in_group(&p, 4));
	CHECK(auth_group_allows(&g, &p));
	g.allow_gids = allow_other;
	CHECK(!auth_group_allows(&g, &p));
	g.allow_uids = allow_user;
	g.n_allow_uids = 1;
	CHECK(auth_group_allows(&g, &p));
	CHECK(auth_privileged(&p, &d));
	d.control_gid = 4;
	CHECK(!auth_privileged(&p, &d));
	d.has_control_gid = false;
	p.uid = 0;
	CHECK(auth_privileged(&p, &d));
}

/* A peer in more supplementary groups than the first read has room for
 * is judged on all of them, the last as the first. 0 or the child's
 * failing step. */
static int many_groups_child(void)
{
	enum { N = AUTH_MAX_GROUPS + 44 };
	gid_t g[N];
	struct auth_peer p;
	int sv[2];

	for (int i = 0; i < N; i++)
		g[i] = 20000 + (gid_t)i;
	if (setgroups(N, g) < 0)
		return 1;
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0 || auth_peer_snapshot(sv[0], &p) < 0)
		return 2;
	if (p.n_groups != N || !auth_in_group(&p, 20000 + N - 1) || !auth_in_group(&p, 20000))
		return 3;
	auth_peer_done(&p);
	return 0;
}

static void many_supplementary_groups_all_count(void)
{
	int status = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(many_groups_child());
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The same on a real process: uid 1000 in 2000 groups, no capabilities.
 * Its status runs to about 14 KiB before CapPrm:. */
static void real_target_in_many_groups_holds_no_capabilities(void)
{
	static gid_t gids[2000];
	struct auth_creds c = { 0 };
	int fds[2], status;
	pid_t pid;
	char b = 0;

	for (size_t i = 0; i < sizeof(gids) / sizeof(gids[0]); i++)
		gids[i] = (gid_t)(100000 + i);
	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		/* dumpable again after the change of credentials, as a login's processes are */
		if (setgroups(sizeof(gids) / sizeof(gids[0]), gids) < 0 || setgid(1000) < 0 || setuid(1000) < 0 ||
		    prctl(PR_SET_DUMPABLE, 1) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	CHECK(pid > 0 && read(fds[0], &b, 1) == 1);
	CHECK(pid > 0 && auth_read_creds("/proc", pid, &c) == 0);
	CHECK(c.uid[0] == 1000 && c.uid[1] == 1000 && c.gid[0] == 1000 && c.cap_prm == 0);
	CHECK(auth_may_act_on(1000, 1000, &c) == 0);
	close(fds[0]);
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
}

static void explicit_placements_of_others_are_kept(void)
{
	struct key k = { .group = "g", .name = "" };
	struct task t = { .origin = ORIGIN_ASSIGN, .key = &k, .placer = 0 };

	CHECK(auth_placed_by_other(&t, 1000));
	CHECK(!auth_placed_by_other(&t, 0));
	t.placer = 1000;
	CHECK(!auth_placed_by_other(&t, 1000));
	t.placer = 0;
	t.origin = ORIGIN_HOOK;
	CHECK(auth_placed_by_other(&t, 1000));
	t.origin = ORIGIN_INHERITED;
	CHECK(auth_placed_by_other(&t, 1000));
	t.origin = ORIGIN_RULE; /* policy, not a person's decision */
	CHECK(!auth_placed_by_other(&t, 1000));
	t.origin = ORIGIN_ASSIGN;
	t.key = NULL;
	CHECK(!auth_placed_by_other(&t, 1000));
	CHECK(!auth_placed_by_other(NULL, 1000));
}

/* The one decision on who may call what: the table's row, and root for
 * a method it has no row for (one added without a row is closed). */
static void call_needs_follow_the_rows(void)
{
	CHECK(auth_call_needs("io.coresched.Status", 1000, false) == NULL);
	CHECK(auth_call_needs("io.coresched.Assign", 1000, false) == NULL);
	CHECK(auth_call_needs("io.coresched.Reload", 1000, false) != NULL);
	CHECK(auth_call_needs("io.coresched.Reload", 1000, true) == NULL);
	CHECK(auth_call_needs("io.coresched.OpenSession", 1000, true) != NULL);
	CHECK(auth_call_needs("io.coresched.OpenSession", 0, true) == NULL);
	CHECK(auth_call_needs("io.coresched.Unlisted", 1000, true) != NULL);
	CHECK(strcmp(auth_call_needs("io.coresched.Unlisted", 1000, true), "root") == 0);
	CHECK(auth_call_needs("io.coresched.Unlisted", 0, true) == NULL);
}

static void every_method_is_classified(void)
{
	static const char *const open[] = { "io.coresched.Status", "io.coresched.ListGroups",
					     "io.coresched.ListProcesses", "io.coresched.Stats",
					     "io.coresched.Explain", "io.coresched.CheckConfig" };
	static const char *const priv[] = { "io.coresched.Reload", "io.coresched.Clear",
					    "io.coresched.AssignContainer" };

	for (size_t i = 0; i < sizeof(open) / sizeof(open[0]); i++)
		CHECK(auth_method(open[i]) && auth_method(open[i])->need == AUTH_ANYONE);
	for (size_t i = 0; i < sizeof(priv) / sizeof(priv[0]); i++)
		CHECK(auth_method(priv[i]) && auth_method(priv[i])->need == AUTH_PRIVILEGED);
	CHECK(auth_method("io.coresched.Assign")->need == AUTH_ALLOWED);
	CHECK(auth_method("io.coresched.Run")->need == AUTH_ALLOWED);
	/* a login acts for another user: root alone, not ControlGroup= */
	CHECK(auth_method("io.coresched.OpenSession")->need == AUTH_ROOT);
	CHECK(auth_method("io.coresched.LeaveSession")->need == AUTH_ROOT);
	CHECK(auth_method("io.coresched.Nope") == NULL);
	CHECK(auth_method_cost("io.coresched.Nope") == 1);
	CHECK(auth_method_cost("io.coresched.CheckConfig") > auth_method_cost("io.coresched.ListProcesses"));
	CHECK(auth_method_cost("io.coresched.ListProcesses") > auth_method_cost("io.coresched.Status"));
	/* a call pays for each process it names: 64 take a client's whole burst */
	CHECK(auth_call_cost("io.coresched.Assign", 64) >= 100);
	CHECK(auth_call_cost("io.coresched.Assign", 2) > auth_call_cost("io.coresched.Assign", 1));
	CHECK(auth_call_cost("io.coresched.Status", 64) == auth_method_cost("io.coresched.Status"));
	CHECK(auth_call_cost("io.coresched.Nope", 64) == 1);
}

static void admission_reserves_slots_for_the_privileged(void)
{
	struct auth_slots l = { .max_clients = 64, .max_per_uid = 8, .reserved = 8 };
	struct auth_census n = { .total = 0, .unprivileged = 0, .of_uid = 0 };

	CHECK(auth_admit(&l, &n, false) == NULL);
	n = (struct auth_census){ 10, 10, 8 };
	CHECK(auth_admit(&l, &n, false) != NULL); /* per uid */
	CHECK(auth_admit(&l, &n, true) == NULL);
	n = (struct auth_census){ 56, 56, 0 }; /* 7 users x 8: the shared slots are full */
	CHECK(strstr(auth_admit(&l, &n, false), "unprivileged") != NULL);
	CHECK(auth_admit(&l, &n, true) == NULL);
	n = (struct auth_census){ 63, 56, 0 };
	CHECK(auth_admit(&l, &n, true) == NULL);
	n = (struct auth_census){ 64, 56, 0 };
	CHECK(auth_admit(&l, &n, true) != NULL);
}

static void bucket_charges_and_refills(void)
{
	struct auth_bucket b = { 0 };
	uint64_t t = 1000000;

	CHECK(auth_bucket_take(&b, 60, 50, 100, t) == 0);
	CHECK(auth_bucket_take(&b, 40, 50, 100, t) == 0);
	/* empty: 10 units at 50/s is 200 ms */
	CHECK(auth_bucket_take(&b, 10, 50, 100, t) == 200000);
	CHECK(auth_bucket_take(&b, 10, 50, 100, t + 100000) == 100000);
	CHECK(auth_bucket_take(&b, 10, 50, 100, t + 200000) == 0);
	/* a cost above the burst is charged as the burst, so it can pass */
	CHECK(auth_bucket_take(&b, 1000, 50, 100, t + 10000000) == 0);
	/* many small steps add up: no time is lost to rounding */
	b = (struct auth_bucket){ 0 };
	CHECK(auth_bucket_take(&b, 100, 50, 100, t) == 0);
	for (int i = 1; i <= 1000; i++)
		(void)auth_bucket_take(&b, 0, 50, 100, t + (uint64_t)i * 10);
	CHECK(auth_bucket_take(&b, 1, 50, 100, t + 20000) == 0);
}

/* A target in hundreds of groups: its status's Groups: line runs past
 * the first pages, CapPrm: comes after it, and is still read (an empty
 * set here). A status cut inside CapPrm: still reads as every one. */
static void read_creds_after_long_groups(void)
{
	char dir[] = "/tmp/cs-auth-XXXXXX", path[128];
	struct auth_creds c = { 0 };
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof(path), "%s/42", dir);
	CHECK(mkdir(path, 0755) == 0);
	snprintf(path, sizeof(path), "%s/42/status", dir);
	f = fopen(path, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("Name:\tw\nUid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nGroups:\t", f);
	for (int g = 100000; g < 103000; g++)
		fprintf(f, "%d ", g);
	fputs("\nNSpid:\t42\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"
	      "NoNewPrivs:\t1\n", f);
	CHECK(fclose(f) == 0);
	CHECK(auth_read_creds(dir, 42, &c) == 0);
	CHECK(c.uid[0] == 1000 && c.gid[2] == 1000 && c.cap_prm == 0 && c.no_new_privs);
	f = fopen(path, "w");
	if (f) {
		fputs("Uid:\t1000\t1000\t1000\t1000\nGid:\t1000\t1000\t1000\t1000\nCapPrm:\t0000", f);
		fclose(f);
	}
	CHECK(auth_read_creds(dir, 42, &c) == 0 && c.cap_prm == UINT64_MAX);
	unlink(path);
	snprintf(path, sizeof(path), "%s/42", dir);
	rmdir(path);
	rmdir(dir);
}

/* The kernel's word on no_new_privs, read as the daemon reads it: a child
 * that set it says so, its parent (which did not) says what its own
 * status says. */
static void no_new_privs_read_from_kernel(void)
{
	struct auth_creds c;
	int fds[2], st;
	char ok = 0;
	pid_t pid;

	CHECK(pipe(fds) == 0);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0;
		(void)!write(fds[1], &ok, 1);
		pause();
		_exit(0);
	}
	close(fds[1]);
	CHECK(pid > 0 && read(fds[0], &ok, 1) == 1 && ok);
	CHECK(auth_read_creds("/proc", pid, &c) == 0 && c.no_new_privs);
	CHECK(auth_read_creds("/proc", getpid(), &c) == 0 && c.no_new_privs == (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1));
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	close(fds[0]);
}

int main(void)
{
	RUN(no_new_privs_read_from_kernel);
	RUN(call_needs_follow_the_rows);
	RUN(parse_status_reads_every_id);
	RUN(read_creds_after_long_groups);
	RUN(kernel_credential_test);
	RUN(peer_in_another_user_namespace);
	RUN(supplementary_groups_count);
	if (geteuid() == 0)
		RUN(many_supplementary_groups_all_count);
	else
		printf("SKIP: unit/many_supplementary_groups_all_count: needs root to set the groups\n");
	if (geteuid() == 0)
		RUN(real_target_in_many_groups_holds_no_capabilities);
	else
		printf("SKIP: unit/real_target_in_many_groups_holds_no_capabilities: needs root to set the groups\n");
	RUN(explicit_placements_of_others_are_kept);
	RUN(every_method_is_classified);
	RUN(admission_reserves_slots_for_the_privileged);
	RUN(bucket_charges_and_refills);
	UNIT_EXIT();
}
