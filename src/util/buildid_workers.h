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

/* Fork the spawner and the first worker now, while this process is
 * small: every worker is the spawner's fork, and maps only the pages it
 * had. Optional (resolve starts them when it needs them); call before
 * the big allocations and before any thread. Returns 0 or -errno. */
int prec_buildid_workers__start(void);
/* The idle workers ended and the spawner with them, once it has reaped
 * those, so that their time is counted in ours and none outlives us but
 * those in hung reads. Any thread, once no call runs. */
void prec_buildid_workers__stop(void);
/* prec_buildid__read_mapped() of every reqs[i] into reqs[i].ret and .id,
 * in worker processes; returns within RESOLVE_TOTAL_MS
 * (buildid_workers.c) whatever the files do: a file not done by then gets
 * -ETIMEDOUT, and a worker still in it is killed and left (reaped by the
 * spawner, or by init once we have gone); until it dies, the files of
 * its device get -ETIMEDOUT at once. Returns 0, or -errno when no worker
 * could be had (each file's ret says so too; -EDEADLK: too many workers
 * are still in hung reads), said in a warning. Any thread (one at a
 * time). */
int prec_buildid_workers__resolve(struct prec_buildid_req *reqs, size_t nr);
/* resolve() with its own deadline of total_ms (a recording's periodic
 * read, which must not hold its thread long: the files that did not
 * answer get -ETIMEDOUT and are read again at the stop). */
int prec_buildid_workers__resolve_within(struct prec_buildid_req *reqs, size_t nr,
					 unsigned int total_ms);

#endif
