// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-pidat PID COMMAND...: execute COMMAND as process PID, a pid that was
 * just freed, and exit 0 once it runs (it is left to run). First by
 * clone3() with set_tid (root; any kernel since 5.5); failing that, round
 * the pid space: pid_max is lowered to PID + 1 for the while (root only),
 * so that the next lap ends at PID, and children that exit at once use up
 * the pids before it (ns_last_pid needs CONFIG_CHECKPOINT_RESTORE, which
 * the test kernel lacks). Exit status 1 when PID was still taken after two
 * laps, 2 on a set-up error. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PID_MAX_PATH "/proc/sys/kernel/pid_max"

static long read_pid_max(void)
{
	FILE *f = fopen(PID_MAX_PATH, "r");
	long v = -1;

	if (f && fscanf(f, "%ld", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static int write_pid_max(long v)
{
	FILE *f = fopen(PID_MAX_PATH, "w");
	int r;

	if (!f)
		return -errno;
	r = fprintf(f, "%ld\n", v) < 0 ? -EIO : 0;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	return r;
}

/* 1: COMMAND runs as target; 0: set_tid did not give it (try the laps). */
static int by_set_tid(pid_t target, char **cmd)
{
	struct clone_args args = { .exit_signal = SIGCHLD, .set_tid = (uint64_t)(uintptr_t)&target, .set_tid_size = 1 };
	long r = syscall(SYS_clone3, &args, sizeof(args));

	if (r == 0) {
		execvp(cmd[0], cmd);
		perror("cs-pidat: exec");
		_exit(127);
	}
	return r == target;
}

int main(int argc, char **argv)
{
	long target, old_max;
	pid_t prev = 0;
	int rc = 1, laps = 0;

	if (argc < 3 || (target = strtol(argv[1], NULL, 10)) <= 1) {
		fprintf(stderr, "usage: cs-pidat PID COMMAND...\n");
		return 2;
	}
	if (by_set_tid((pid_t)target, argv + 2))
		return 0;
	old_max = read_pid_max();
	if (old_max <= target) {
		fprintf(stderr, "cs-pidat: pid %ld is not below pid_max %ld\n", target, old_max);
		return 2;
	}
	/* The kernel keeps pid_max above 300; below that a whole lap it is. */
	if (target + 1 > 300 && write_pid_max(target + 1) < 0)
		fprintf(stderr, "cs-pidat: cannot lower pid_max: %s, going round all of it\n", strerror(errno));
	/* Two laps without it: someone else holds it. */
	while (laps < 2) {
		pid_t p = fork();

		if (p < 0) {
			perror("cs-pidat: fork");
			rc = 2;
			break;
		}
		if (p == 0) {
			if (getpid() != target)
				_exit(0);
			execvp(argv[2], argv + 2);
			perror("cs-pidat: exec");
			_exit(127);
		}
		if (p == target) {
			rc = 0;
			break;
		}
		(void)waitpid(p, NULL, 0);
		if (p < prev)
			laps++;
		prev = p;
	}
	if (write_pid_max(old_max) < 0 && read_pid_max() != old_max) {
		fprintf(stderr, "cs-pidat: cannot restore pid_max %ld\n", old_max);
		rc = 2;
	}
	if (rc == 1)
		fprintf(stderr, "cs-pidat: pid %ld stayed taken\n", target);
	return rc;
}
