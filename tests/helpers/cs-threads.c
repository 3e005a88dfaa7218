// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-threads N [--leave ID]: a process with N extra threads that all sleep
 * until killed. Prints "ready" once every thread exists, so a test knows
 * when to look. With --leave, the main thread then exits (as pthread_exit)
 * and the first extra thread, once it has, sets its own uid and gid to ID
 * (the raw calls: one thread's ids, as the kernel keeps them per thread),
 * which the exited main thread's /proc/PID/status does not show. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long leave_id = -1;
static pid_t leader;

/* The state letter of the main thread. */
static char leader_state(void)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)leader);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void *sleeper(void *arg)
{
	if (arg && leave_id >= 0) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		while (leader_state() != 'Z')
			nanosleep(&ts, NULL);
		if (syscall(SYS_setresgid, leave_id, leave_id, leave_id) < 0 ||
		    syscall(SYS_setresuid, leave_id, leave_id, leave_id) < 0) {
			perror("cs-threads: setresuid");
			exit(1);
		}
	}
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;

	if (argc > 3 && strcmp(argv[2], "--leave") == 0)
		leave_id = atol(argv[3]);
	leader = getpid();
	for (int i = 0; i < n; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, sleeper, i == 0 ? (void *)1 : NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	if (leave_id >= 0)
		syscall(SYS_exit, 0); /* this thread alone, with no unwinding (pthread_exit's libgcc_s) */
	for (;;)
		pause();
}
