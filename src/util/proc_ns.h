/* SPDX-License-Identifier: MIT */
/* A task's namespaces as PERF_RECORD_NAMESPACES carries them: for each of
 * the kernel's namespace kinds, the device and inode of its nsfs file. */
#ifndef PREC_UTIL_PROC_NS_H
#define PREC_UTIL_PROC_NS_H

#include <stdint.h>

/* The kinds, in the kernel's order (NET_NS_INDEX ... CGROUP_NS_INDEX of
 * linux/perf_event.h): the record's array is indexed by them. */
#define PREC_PROC_NS_NR 7

struct prec_proc_ns {
	uint64_t dev, ino;     /* 0, 0: the kind is not there to read */
};

/* Fill ns[0..PREC_PROC_NS_NR) for the task whose /proc directory
 * (/proc/PID or /proc/PID/task/TID) is open at taskfd: the st_dev and
 * st_ino of its ns/<kind> link followed, the values perf's synthesis
 * puts in the record. A kind that cannot be read (a kernel without it,
 * the task gone meanwhile) stays 0, 0, as perf leaves it. Returns how
 * many kinds were read. Reads nothing but the kernel's own links under
 * taskfd; no allocation; any thread. */
int prec_proc_ns__read(int taskfd, struct prec_proc_ns ns[PREC_PROC_NS_NR]);

#endif
