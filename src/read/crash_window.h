/* SPDX-License-Identifier: MIT */
/* A --max-disk recording whose recorder died: what its final manifest
 * would have told the merge, found in the directory instead. */
#ifndef PREC_READ_CRASH_WINDOW_H
#define PREC_READ_CRASH_WINDOW_H

#include "store/store.h"

/* m, a start manifest (state RECORDING) of a --max-disk recording (its
 * MAX_DISK limit set; else nothing is done): lists carry.shard when the
 * directory holds it, and when a CPU shard's header says chunks were
 * dropped, gives each CPU shard the first record time of its first chunk
 * kept and counts a dropped segment, so that prec_merge__window() starts
 * the merge where every CPU has data, as for a finished recording. Reads
 * the first chunks of the CPU shards (blocks on the disk). Returns 0 or
 * -ENOMEM; a shard that cannot be read is left as it is (the merge says
 * why). */
int prec_crash_window__fill(int dirfd, struct prec_manifest *m);

#endif
