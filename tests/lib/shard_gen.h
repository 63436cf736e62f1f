/* SPDX-License-Identifier: MIT */
/* Test helper (tests/lib/shard_gen.c): shards made by hand, chunk by chunk,
 * for the merge's tests of exact times, AUX chunks and bad records. */
#ifndef PREC_TEST_SHARD_GEN_H
#define PREC_TEST_SHARD_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* The sample_type of test_put_sample()'s records: IDENTIFIER IP TID TIME
 * CPU, for prec_time_layout__init(). */
#define TEST_SAMPLE_TYPE 0x10087u
#define TEST_SAMPLE_SIZE 48u

/* A 48-byte SAMPLE at p with the time given. */
void test_put_sample(uint8_t *p, uint64_t time);

/* Append one chunk through the shard writer; any failure fails the test. */
void test_append_chunk(struct prec_shard_writer *w, enum prec_chunk_type type,
		       const void *buf, uint32_t len, uint32_t records, uint64_t first,
		       uint64_t wm, uint64_t aux_offset);

/* Shard cpu<cpu>.shard (made anew) holding samples at times[0..n), 1000 to
 * a chunk, each chunk's watermark its last time; added to m. */
void test_write_times(int dirfd, struct prec_manifest *m, int cpu, const uint64_t *times,
		      size_t n);

#endif
