/* SPDX-License-Identifier: MIT */
/* A --kcore recording's kcore_dir, copied beside a merged perf.data
 * (perf's directory layout: FILE/data, FILE/kcore_dir/), kcore_dir.c. */
#ifndef PREC_READ_KCORE_DIR_H
#define PREC_READ_KCORE_DIR_H

#include "store/store.h"

#define PREC_KCORE_DIR PREC_MANIFEST_KCORE_DIR
/* perf's name for the perf.data inside its directory layout */
#define PREC_PERF_DIR_DATA "data"

/* Copy from/kcore_dir's kallsyms, modules and kcore into to/kcore_dir
 * (made 0700, files 0400 as perf makes them), all by descriptor: each
 * source a regular file not reached through a symlink. kcore must be
 * kcore_bytes long (the manifest's KCORE size) when opened and when
 * copied: else -EBADMSG with its size in *got. *what names the file that
 * failed (NULL: the directory). Returns 0 or -errno (nothing said).
 * Blocks on the copy; any thread. */
int prec_kcore_dir__copy(int from, int to, uint64_t kcore_bytes, const char **what,
			 uint64_t *got);

/* Before a merge: is from/kcore_dir/kcore, a regular file, kcore_bytes
 * long? Returns 0, -EBADMSG with its size in *got, or -errno (the copy
 * names it then). */
int prec_kcore_dir__check(int from, uint64_t kcore_bytes, uint64_t *got);

#endif
