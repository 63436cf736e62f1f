/* SPDX-License-Identifier: MIT */
/* Mapped files' build-ids read by child processes under a deadline
 * (buildid_workers.c). A process, not a thread: a file system that never
 * answers (a FUSE server that took the read and hangs, a hard NFS mount)
 * holds its reader in a wait even SIGKILL cannot end, and a process
 * whose thread waits so is never reaped, so the recorder would never
 * exit; a child left there holds only itself. */
#ifndef PREC_UTIL_BUILDID_WORKERS_H
#define PREC_UTIL_BUILDID_WORKERS_H

#include <stddef.h>

#include "util/buildid.h"

/* Fork the first worker now, while this process is small: a worker lives
 * as long as its parent, and each page the parent had at the fork is
 * copied once when the parent writes it. Optional (resolve forks one when
 * none is idle); call before the big allocations. Returns 0 or -errno. */
int prec_buildid_workers__start(void);
/* The idle workers ended and waited for, so that their time is counted
 * in ours and none outlives us; the killed ones reaped if they have died.
 * Any thread, once no call runs. */
void prec_buildid_workers__stop(void);
/* prec_buildid__read_mapped() of every reqs[i] into reqs[i].ret and .id,
 * in worker processes; returns within RESOLVE_TOTAL_MS
 * (buildid_workers.c) whatever the files do: a file not done by then gets
 * -ETIMEDOUT, and a worker still in it is killed and left (reaped later,
 * or by init once this process has gone). Any thread (one at a time). */
void prec_buildid_workers__resolve(struct prec_buildid_req *reqs, size_t nr);
/* resolve() with its own deadline of total_ms (a recording's periodic
 * read, which must not hold its thread long: the files that did not
 * answer get -ETIMEDOUT and are read again at the stop). */
void prec_buildid_workers__resolve_within(struct prec_buildid_req *reqs, size_t nr,
					  unsigned int total_ms);

#endif
