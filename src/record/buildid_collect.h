/* SPDX-License-Identifier: MIT */
/* A recording's build-ids collected at its close (buildid_collect.c):
 * from the maps its drainers saw, the files' notes (read once per file),
 * the early reader's answers and the vDSO, into the manifest; and perf's
 * build-id cache filled from the final table. Main thread, off the drain
 * path. */
#ifndef PREC_RECORD_BUILDID_COLLECT_H
#define PREC_RECORD_BUILDID_COLLECT_H

#include "record/buildid_reader.h"
#include "record/drainer.h"
#include "record/drainer_pool.h"
#include "store/store.h"

/* The maps each CPU index's drainer saw in the epoch being closed: what
 * the drainers handed over, hand[0..nr) (NULL: none); cpus[i]: index i's
 * CPU number, for messages. */
struct prec_seen_maps {
	int nr;
	const int *cpus;
	const struct prec_drainer_handover *hand;
};

/* Every seen map's build-id into m: the kernel's (MMAP2 with one), the
 * early reader's (NULL: none), else the file's notes, read once per file
 * (device, inode) through its first path, only where that path still
 * names the mapped file, within prec_buildid_workers__resolve()'s deadline. A
 * file that could not be read as the one mapped is counted in
 * m->buildids_unread. Then, when a [vdso] was mapped (or m has its id
 * already), its build-id into m and its image as dirfd/vdso.so for `prec
 * archive`; a failure there is warned about (dir names dirfd). Last, the
 * pairs the drainers' own tables had no room for counted with those m
 * dropped, in m->buildids_dropped. */
void prec_buildid_collect__manifest(struct prec_manifest *m, const struct prec_seen_maps *seen,
				    struct prec_buildid_reader *early, int dirfd, const char *dir);
/* perf's build-id cache filled as `perf record` fills it, from m's final
 * table, each file checked against the device and inode it was mapped
 * as: after the manifest (a crash here loses nothing), within a bound. */
void prec_buildid_collect__fill_cache(const struct prec_manifest *m,
				      const struct prec_seen_maps *seen);

#endif
