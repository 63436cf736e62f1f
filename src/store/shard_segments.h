/* SPDX-License-Identifier: MIT */
/* The segment files of a shard written with --max-disk (format 1.2): how
 * they are named, and which of them a directory holds. */
#ifndef PREC_STORE_SHARD_SEGMENTS_H
#define PREC_STORE_SHARD_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>

/* Room for a segment file's name: a shard's name and ".4294967295". */
#define PREC_SEGMENT_NAME_MAX 256
/* The last segment number (docs/format.md, "Segment files"): a writer
 * opens no file past it, a reader looks for none. */
#define PREC_SEGMENT_LAST UINT32_MAX

/* Segment file n (1 <= n <= PREC_SEGMENT_LAST) of shard name: "name.n"
 * (decimal; segment 0 is the shard's own file). Returns 0, -ERANGE for
 * n 0 (what a count past the last wraps to), or -ENAMETOOLONG when it
 * does not fit len bytes or NAME_MAX. */
int prec_shard_segments__name(char *buf, size_t len, const char *name, uint32_t n);

/* n if file is "name.n" with n a canonical decimal from 1 to
 * PREC_SEGMENT_LAST (no sign, no leading zero: one name per number),
 * else 0. */
uint32_t prec_shard_segments__number(const char *file, const char *name);

/* The numbers above `above` for which dirfd holds "name.n" (any file
 * type: the caller opens each and checks), ascending, in *out (malloc'd,
 * the caller frees it; NULL when there is none). Returns their count or
 * -errno. One read of the whole directory, so a search through them costs
 * the directory's size once whatever the numbers are: for a reader that
 * lost its place (files dropped under it), not once per chunk. */
int prec_shard_segments__list(int dirfd, const char *name, uint32_t above, uint32_t **out);

#endif
