// SPDX-License-Identifier: MIT
// Test helper: shards made by hand, chunk by chunk, through the real shard
// writer, so that a test sets every time, watermark and AUX offset itself.
#include "shard_gen.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "test.h"

#define TIMES_PER_CHUNK 1000u

void test_put_sample(uint8_t *p, uint64_t time)
{
	uint64_t w[6] = { (uint64_t)TEST_SAMPLE_SIZE << 48 | 9, 1000, 0x401000,
			  7ull << 32 | 7, time, 0 };

	memcpy(p, w, sizeof(w)); /* type 9 (SAMPLE), size 48 */
}

void test_append_chunk(struct prec_shard_writer *w, enum prec_chunk_type type,
		       const void *buf, uint32_t len, uint32_t records, uint64_t first,
		       uint64_t wm, uint64_t aux_offset)
{
	struct prec_chunk_meta meta = { .type = type, .records = records,
		.first_time = first, .last_time = first, .watermark = wm,
		.aux_offset = aux_offset, .flags = type == PREC_CHUNK_AUX ? 1 : 0 };
	struct iovec iov = { (void *)buf, len };

	CHECK(prec_shard_writer__append(w, &meta, &iov, len ? 1 : 0) > 0);
}

void test_write_times(int dirfd, struct prec_manifest *m, int cpu, const uint64_t *times,
		      size_t n)
{
	static uint8_t data[TEST_SAMPLE_SIZE * TIMES_PER_CHUNK];
	struct prec_shard_writer_opts wo = { .cpu = cpu, .copy = true };
	struct prec_manifest_shard ms = { .cpu = cpu };
	struct prec_shard_writer *w;
	char name[32];

	snprintf(name, sizeof(name), "cpu%03d.shard", cpu);
	ms.name = name;
	CHECK_EQ(prec_manifest__add_shard(m, &ms), 0);
	unlinkat(dirfd, name, 0);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, name, &wo), 0);
	for (size_t at = 0; at < n; at += TIMES_PER_CHUNK) {
		size_t k = n - at < TIMES_PER_CHUNK ? n - at : TIMES_PER_CHUNK;

		for (size_t i = 0; i < k; i++)
			test_put_sample(data + TEST_SAMPLE_SIZE * i, times[at + i]);
		test_append_chunk(w, PREC_CHUNK_DATA, data, (uint32_t)(TEST_SAMPLE_SIZE * k),
				  (uint32_t)k, times[at], times[at + k - 1], 0);
	}
	CHECK_EQ(prec_shard_writer__close(w), 0);
}
