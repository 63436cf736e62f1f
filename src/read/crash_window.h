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

/* m, any recording whose merge starts at a --max-disk window
 * (prec_merge__window() not 0; after prec_crash_window__fill() for one
 * that did not finish): does every CPU shard's first_time agree with the
 * shard? A shard's first_time is the earliest time of its kept chunks,
 * so its first chunk with a time cannot be earlier, and a shard with no
 * timed chunk has none: a manifest that says otherwise would start the
 * window after records the shard holds, and the merge would drop them
 * without a word. Reads the first chunks of the CPU shards; a shard that
 * cannot be read to its first timed chunk, is another recording's or
 * CPU's, or ends short of the chunks the manifest counts, is left to the
 * merge (which says why). Returns 0, or -EBADMSG with why (len bytes) naming the
 * shard, its first_time and its first record's time. */
int prec_crash_window__check(int dirfd, const struct prec_manifest *m, char *why,
			     size_t len);

/* The window and carry a reader (cmd: "merge", "dump", "archive") takes
 * from the recording in dir, not being written: prec_crash_window__fill()
 * then prec_crash_window__check(). Returns 0, or -errno after one line,
 * "CMD DIR: manifest: WHY". */
int prec_crash_window__take(int dirfd, struct prec_manifest *m, const char *cmd,
			    const char *dir);

#endif
