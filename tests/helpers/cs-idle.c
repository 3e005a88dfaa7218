// SPDX-License-Identifier: GPL-2.0-or-later
/* cs-idle SOCKET N SECONDS: open N connections to SOCKET, send nothing,
 * and after SECONDS sort them by what the server did: closed with its
 * LimitReached answer (refused at the door), closed without a word
 * (dropped as idle), or still open (kept). By what it said, not by when:
 * a loaded server may turn a connection away late. Prints
 * "refused=R dropped=D kept=K"; a connect that failed counts as refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX_CONN 256

enum fate { KEPT, REFUSED, DROPPED };

/* Everything the server sent, then whether it closed: its first answer
 * names the refusal (the rest of it is not needed). */
static enum fate fate_of(int fd)
{
	char buf[256], said[64] = "";
	size_t have = 0;
	ssize_t n;

	if (fd < 0)
		return REFUSED;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		size_t take = (size_t)n < sizeof(said) - 1 - have ? (size_t)n : sizeof(said) - 1 - have;

		memcpy(said + have, buf, take);
		have += take;
		said[have] = 0;
	}
	if (n != 0)
		return KEPT;
	return strstr(said, "io.coresched.LimitReached") ? REFUSED : DROPPED;
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
	sleep((unsigned)atoi(argv[3]));
	for (int i = 0; i < n; i++)
		switch (fate_of(fds[i])) {
		case REFUSED: refused++; break;
		case DROPPED: dropped++; break;
		case KEPT: break;
		}
	printf("refused=%d dropped=%d kept=%d\n", refused, dropped, n - refused - dropped);
	return 0;
}
