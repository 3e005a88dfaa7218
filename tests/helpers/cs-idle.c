// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-idle SOCKET N SECONDS: open N connections to SOCKET and send nothing.
 * Half a second in, count those the server closed at once (refused); at
 * the end, those it closed since (dropped as idle). Prints
 * "refused=R dropped=D kept=K". */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CONN 256

/* Closed by the server: the end of the stream, past anything it said
 * first (a refused client is told why). */
static int closed(int fd)
{
	char buf[256];
	ssize_t n;

	if (fd < 0)
		return 1;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		;
	return n == 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fds[MAX_CONN], n, refused = 0, dropped = 0;

	if (argc != 4 || (n = atoi(argv[2])) <= 0 || n > MAX_CONN) {
		fprintf(stderr, "usage: cs-idle SOCKET N SECONDS\n");
		return 2;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", argv[1]);
	for (int i = 0; i < n; i++) {
		fds[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fds[i] >= 0 && connect(fds[i], (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	usleep(500 * 1000);
	for (int i = 0; i < n; i++)
		if (closed(fds[i])) {
			refused++;
			if (fds[i] >= 0)
				close(fds[i]);
			fds[i] = -1;
		}
	sleep((unsigned)atoi(argv[3]));
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0 && closed(fds[i]))
			dropped++;
	printf("refused=%d dropped=%d kept=%d\n", refused, dropped, n - refused - dropped);
	return 0;
}
