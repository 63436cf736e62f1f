/* SPDX-License-Identifier: MIT */
/* The segment files of a shard written with --max-disk (format 1.2): how
 * they are named, and which of them a directory holds. */
#ifndef PREC_STORE_SHARD_SEGMENTS_H
#define PREC_STORE_SHARD_SEGMENTS_H

#include <stddef.h>
#include <stdint.h>

/* Room for a segment file's name: a shard's name and ".4294967295". */
#define PREC_SEGMENT_NAME_MAX 256

/* Segment file n (n >= 1) of shard name: "name.n" (decimal; segment 0 is
 * the shard's own file). Returns 0, or -ENAMETOOLONG when it does not fit
 * len bytes or NAME_MAX. */
int prec_shard_segments__name(char *buf, size_t len, const char *name, uint32_t n);

/* The lowest n above `above` for which dirfd holds "name.n" (any file
 * type: the caller opens it and checks). Returns 1 with *n, 0 when there
 * is none, or -errno. Reads the whole directory: for a reader that lost
 * its place (files dropped under it), not once per chunk. */
int prec_shard_segments__lowest(int dirfd, const char *name, uint32_t above, uint32_t *n);

#endif
