/* SPDX-License-Identifier: MIT */
/* The command `prec record` runs (workload.c): forked stopped before
 * exec, started once the events are open. */
#ifndef PREC_RECORD_WORKLOAD_H
#define PREC_RECORD_WORKLOAD_H

#include <stdbool.h>
#include <sys/types.h>

struct prec_workload {
	pid_t pid;
	int go_fd;             /* write end: one byte starts the exec */
	int err_fd;            /* read end: the child's exec errno, or EOF */
	int status;            /* waitpid status once exited */
	bool exited;
};

/* The command's name until its exec: perf's (docs/events.md). */
#define PREC_WORKLOAD_COMM "perf-exec"

/* Fork the command, stopped before exec until start(), named
 * PREC_WORKLOAD_COMM meanwhile (the calling thread's name is put back
 * after the fork). The command is
 * killed when the thread that called this (prec's main thread) dies, even
 * by SIGKILL. Returns 0, -ENOENT when the command is not found in PATH
 * (nothing forked), or -errno. */
int prec_workload__prepare(struct prec_workload *w, char *const argv[]);
/* The same, the command to run as user (uid, gid; supplementary groups
 * from the group database), switched to in the child after the start
 * byte, before exec; prec keeps its privileges. The command runs in a
 * session of its own (no controlling terminal: the caller's terminal
 * signals reach prec only), with the environment reset: TERM, COLORTERM,
 * PATH, LANG, LC_*, TZ and DISPLAY kept, HOME, USER, LOGNAME and SHELL
 * from user's password entry, nothing else. A failed switch is reported
 * by start() like an exec error; -ENOENT when user has no entry. */
int prec_workload__prepare_as(struct prec_workload *w, char *const argv[],
			      const char *user, uid_t uid, gid_t gid);
/* Let the child exec. Returns 0, or the exec's -errno. */
int prec_workload__start(struct prec_workload *w);
/* Reap the child if it exited; block when wait. Returns 1 if exited. */
int prec_workload__reap(struct prec_workload *w, bool wait);
/* Whether the child exited, without reaping it: 1 once it is a zombie,
 * whose /proc/PID still names it (its comm) until reap(). */
int prec_workload__exited(const struct prec_workload *w);
/* Shell-like exit code: status, or 128 + signal. */
int prec_workload__exit_code(const struct prec_workload *w);
/* The signal that killed the reaped child, 0 if it exited (or was not
 * reaped). */
int prec_workload__term_signal(const struct prec_workload *w);
/* Kill an unstarted child (closing the go pipe), or signal a started one;
 * reap it. */
void prec_workload__abort(struct prec_workload *w);

#endif
