/* SPDX-License-Identifier: MIT */
/* perf.data's compressed form on the way out: records gathered into a batch
 * and compressed, one zstd stream across the whole data section, into
 * PERF_RECORD_COMPRESSED records that perf 6.1 decompresses one at a time. */
#ifndef PREC_READ_ZSTD_OUT_H
#define PREC_READ_ZSTD_OUT_H

#include <stddef.h>
#include <stdint.h>

struct prec_zstd_out;

/* Levels --compression-level takes: zstd's, as perf record -z. */
#define PREC_ZSTD_LEVEL_MIN 1
#define PREC_ZSTD_LEVEL_MAX 22
#define PREC_ZSTD_LEVEL_DEFAULT 1

/* The largest COMPRESSED record __record() writes (a record's size field). */
#define PREC_ZSTD_RECORD_MAX 65535u

/* HEADER_COMPRESSED's mmap_len: perf 6.1 gives each COMPRESSED record this
 * much room to decompress into, so no record may hold more. */
#define PREC_ZSTD_MMAP_LEN 65536u

/* A compressor at level (PREC_ZSTD_LEVEL_MIN..MAX). Allocates everything it
 * will use. Returns 0, -EINVAL (level) or -ENOMEM. */
int prec_zstd_out__new(struct prec_zstd_out **out, int level);

/* Room left in the batch, in bytes. */
size_t prec_zstd_out__room(const struct prec_zstd_out *z);

/* Copy up to n bytes of the record stream into the batch. Returns how many
 * were taken: n, or the room left when that is less (the batch is full:
 * __record() it, then add the rest). No allocation. */
size_t prec_zstd_out__add(struct prec_zstd_out *z, const void *src, size_t n);

/* Compress the batch into one PERF_RECORD_COMPRESSED at dst (room for
 * PREC_ZSTD_RECORD_MAX bytes) and empty it. The stream is flushed, never
 * ended: the record decompresses, after the ones before it, to exactly the
 * batch's bytes. Returns the record's size, 0 when the batch was empty
 * (nothing written), or -EIO (zstd failed). No allocation. */
long prec_zstd_out__record(struct prec_zstd_out *z, void *dst);

/* Bytes taken in and COMPRESSED record bytes put out so far. */
void prec_zstd_out__totals(const struct prec_zstd_out *z, uint64_t *in, uint64_t *out);

/* The level, for HEADER_COMPRESSED. */
int prec_zstd_out__level(const struct prec_zstd_out *z);

/* NULL is fine. */
void prec_zstd_out__delete(struct prec_zstd_out *z);

#endif
