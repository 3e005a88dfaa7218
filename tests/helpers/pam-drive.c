// SPDX-License-Identifier: GPL-2.0-or-later
/* pam-drive [-c CONFDIR] [-a] [-x] SERVICE USER [CMD...]: an application
 * that opens a PAM session the way login and su do (open, fork the user's
 * process, wait, close), so that a test can watch a session module from
 * both sides of the fork. -c reads the service file from CONFDIR instead
 * of /etc/pam.d; -a runs the account stack first; -x is the exec model:
 * no fork, this process runs CMD itself after opening the session. Prints
 *
 *     acct: PAM-RESULT           (with -a)
 *     open: PAM-RESULT
 *     opener-cookie: 0x...       (after the fork, from the parent; ! ERRNO when unreadable)
 *
 * CMD runs as root; its output follows. Exits 0 when the session opened
 * (and CMD, if any, exited 0), 1 when account refused it, 2 when the
 * session failed to open, 3 on a usage error, else CMD's status. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <security/pam_appl.h>

static int no_conv(int n, const struct pam_message **msg, struct pam_response **resp, void *data)
{
	(void)n, (void)msg, (void)resp, (void)data;
	return PAM_CONV_ERR;
}

static void print_cookie(const char *what)
{
	unsigned long long c = 0;

	if (prctl(62, 0, 0, 0, &c) < 0)
		printf("%s: !%s\n", what, strerror(errno));
	else
		printf("%s: 0x%llx\n", what, c);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *confdir = NULL;
	struct pam_conv conv = { no_conv, NULL };
	pam_handle_t *h = NULL;
	int opt, acct = 0, exec_model = 0, r, status = 0;
	pid_t pid;

	while ((opt = getopt(argc, argv, "+c:ax")) != -1) {
		if (opt == 'c')
			confdir = optarg;
		else if (opt == 'a')
			acct = 1;
		else if (opt == 'x')
			exec_model = 1;
		else
			return 3;
	}
	if (argc - optind < 2) {
		fprintf(stderr, "usage: pam-drive [-c CONFDIR] [-a] [-x] SERVICE USER [CMD...]\n");
		return 3;
	}
	r = pam_start_confdir(argv[optind], argv[optind + 1], &conv, confdir, &h);
	if (r != PAM_SUCCESS) {
		fprintf(stderr, "pam_start: %s\n", pam_strerror(h, r));
		return 3;
	}
	if (acct) {
		r = pam_acct_mgmt(h, 0);
		printf("acct: %s\n", pam_strerror(h, r));
		if (r != PAM_SUCCESS && r != PAM_IGNORE) {
			pam_end(h, r);
			return 1;
		}
	}
	r = pam_open_session(h, 0);
	printf("open: %s\n", pam_strerror(h, r));
	fflush(stdout);
	if (r != PAM_SUCCESS) {
		pam_end(h, r);
		return 2;
	}
	if (exec_model && argc - optind > 2) {
		execvp(argv[optind + 2], argv + optind + 2);
		perror(argv[optind + 2]);
		return 127;
	}
	pid = fork();
	if (pid < 0)
		return 3;
	if (pid == 0) {
		if (argc - optind > 2)
			execvp(argv[optind + 2], argv + optind + 2);
		_exit(argc - optind > 2 ? 127 : 0);
	}
	print_cookie("opener-cookie");
	if (waitpid(pid, &status, 0) < 0)
		status = 0;
	r = pam_close_session(h, 0);
	pam_end(h, r);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
