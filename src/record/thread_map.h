/* SPDX-License-Identifier: MIT */
/* The tasks -p, -t and -u name, as a list of thread ids in the order perf
 * 6.1's thread map has them (thread_map.c): the order its synthesis of
 * the tasks that exist at the start names them in. */
#ifndef PREC_RECORD_THREAD_MAP_H
#define PREC_RECORD_THREAD_MAP_H

#include <stdbool.h>
#include <sys/types.h>

/* Into *out (malloc'd, the caller frees it), the threads of ids in their
 * order: with processes (-p, -u) each id's /proc/ID/task in its listing's
 * order (a thread's id: its whole process), else (-t) the ids themselves.
 * A repeated id is repeated; a process gone has no thread. Returns how
 * many, or -ENOMEM. */
int prec_thread_map__new(const pid_t *ids, int nr, bool processes, pid_t **out);

#endif
