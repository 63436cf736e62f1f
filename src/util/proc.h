/* SPDX-License-Identifier: MIT */
/* /proc: the one list of its processes, the one parser of the fields of
 * /proc/PID/status prec reads (Tgid, PPid, whether the task has a user
 * address space) and the tgid reader. */
#ifndef PREC_UTIL_PROC_H
#define PREC_UTIL_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct prec_proc_status {
	int32_t tgid, ppid;    /* 0 when the line is missing */
	bool kthread;          /* no VmPeak: no user address space */
};

/* Parse text, the NUL-terminated contents of /proc/PID/status (whole for
 * kthread: VmPeak comes after Groups, which can be long). Returns 0, or
 * -ESRCH when it names no thread group (no Tgid > 0). Pure; any thread. */
int prec_proc__parse_status(const char *text, struct prec_proc_status *st);
/* The thread-group id of thread tid (/proc lists every thread at
 * /proc/TID, not only leaders), from the first lines of /proc/TID/status,
 * opened by descriptor (O_RDONLY | O_CLOEXEC) and read into a bounded
 * buffer on the stack: no allocation, no stdio. Returns the tgid or
 * -ESRCH (no such thread, or an unreadable file). Blocks on /proc only;
 * any thread. */
pid_t prec_proc__tgid(pid_t tid);

/* The processes /proc lists now (its numeric entries: thread-group ids),
 * in a malloc'd array, ascending. Returns the count or -errno. */
int prec_proc__pids(pid_t **out);

#endif
