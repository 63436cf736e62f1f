/* SPDX-License-Identifier: MIT */
/* A forked child that holds no descriptor of its parent's (child.c): for
 * work that may wait for ever on a file system (a FUSE server that hangs),
 * so that the wait holds only the child. It still maps every page its
 * parent had at the fork: fork it from a small process (the build-id
 * workers' spawner, buildid_workers.c). */
#ifndef PREC_UTIL_CHILD_H
#define PREC_UTIL_CHILD_H

#include <sys/types.h>

/* fork(); in the child (returns 0): named name (comm, from birth: the
 * forking thread takes the name for the fork and its own back), every
 * signal blocked but SIGKILL and SIGSTOP (the terminal's ^C is the
 * parent's), every descriptor closed but keep, 0 to 2 (but keep) on
 * /dev/null. The child must end with _exit() and may use only what glibc
 * makes safe after a fork of a process with threads (no logging: nobody
 * reads its stderr). Returns the child's pid in the parent, or -errno. */
pid_t prec_child__fork(const char *name, int keep);

#endif
