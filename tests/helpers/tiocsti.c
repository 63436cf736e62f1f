// SPDX-License-Identifier: MIT
// Attacker for tests/e2e/attack_workload.sh: a recorded workload that tries
// to type a command into the terminal of whoever started prec, with
// TIOCSTI on its stdin or on /dev/tty, after trying to make that terminal
// its controlling one (TIOCSCTTY). Prints what it found and what worked.
// Usage: tiocsti TEXT (backslash-n in TEXT is a newline)
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* "ok" or the errno's name, for the test to match on. */
static const char *res(int r, int e)
{
	if (r >= 0)
		return "ok";
	switch (e) {
	case EPERM: return "EPERM";
	case ENXIO: return "ENXIO";
	case EIO: return "EIO";
	case ENOTTY: return "ENOTTY";
	case EBADF: return "EBADF";
	default: return strerror(e);
	}
}

/* Each byte of text into fd's input queue. Returns how many went in. */
static int inject(int fd, const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; *p; p++) {
		char c = *p;
		int r;

		if (p[0] == '\\' && p[1] == 'n') {
			c = '\n';
			p++;
		}
		r = ioctl(fd, TIOCSTI, &c);
		if (r < 0) {
			printf("tiocsti %s: %s\n", what, res(r, errno));
			break;
		}
		n++;
	}
	printf("tiocsti %s: injected %d bytes\n", what, n);
	return n;
}

int main(int argc, char **argv)
{
	const char *text = argc > 1 ? argv[1] : "echo PWNED\\n";
	int tty, r, n;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("uid %d sid %d pgrp %d ppid %d\n", (int)getuid(), (int)getsid(0),
	       (int)getpgrp(), (int)getppid());
	r = tcgetpgrp(0);
	printf("stdin foreground pgrp: %s %d\n", res(r, errno), r);
	r = ioctl(0, TIOCSCTTY, 0);
	printf("tiocsctty stdin: %s\n", res(r, errno));
	tty = open("/dev/tty", O_RDWR | O_NOCTTY);
	printf("open /dev/tty: %s\n", res(tty, errno));
	n = inject(0, text, "stdin");
	if (!n && tty >= 0)
		n = inject(tty, text, "/dev/tty");
	return n ? 0 : 3;
}
