// SPDX-License-Identifier: MIT
// A forked child that holds no descriptor of its parent's (a
// stream's pipe whose reader waits for its end, a shard, an event, a
// terminal) and no signal of the terminal's, for as long as a read on a
// hung file system holds it. See child.h.
#include "util/child.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void close_all_but(int keep)
{
	DIR *d;
	struct dirent *e;

	if ((keep == 0 || !syscall(SYS_close_range, 0u, (unsigned int)keep - 1, 0u)) &&
	    !syscall(SYS_close_range, (unsigned int)keep + 1, ~0u, 0u))
		return;
	/* a kernel before 5.9: the open ones, by /proc */
	d = opendir("/proc/self/fd");
	if (!d)
		_exit(127);
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);

		if (e->d_name[0] != '.' && fd != keep && fd != dirfd(d))
			close(fd);
	}
	closedir(d);
}

/* 0, 1 and 2 (but keep) on /dev/null: a stray write to stderr goes
 * nowhere, not into a file the child opened there. */
static void null_stdio(void)
{
	for (int i = 0; i < 3; i++) {
		int fd = open("/dev/null", O_RDWR | O_NOCTTY);

		if (fd > 2) {
			close(fd);
			break;
		}
	}
}

pid_t prec_child__fork(const char *name, int keep)
{
	char own[16] = "";
	sigset_t all;
	pid_t pid;
	int err;

	prctl(PR_GET_NAME, own, 0, 0, 0);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	pid = fork();
	if (pid == 0) {
		sigfillset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		close_all_but(keep);
		null_stdio();
		return 0;
	}
	err = errno;
	prctl(PR_SET_NAME, own, 0, 0, 0);
	return pid < 0 ? -err : pid;
}
