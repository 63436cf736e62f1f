// SPDX-License-Identifier: MIT
// Merge iterator on shards made by hand, chunk by chunk: AUX chunks come
// out at their first_time (or watermark) with their bytes, offset and flags
// intact, and are corruption in a recording without an AUX event; records
// no kernel writes, in a chunk whose checksum is right, make the chunk
// corrupt; format 1.0's chunks bigger than today's buffer are read in parts
// and come out sorted and whole.
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/shard_gen.h"
#include "../lib/test.h"
#include "read/internal.h"
#include "store/store.h"

#define MS 1000000ull
#define T0 (1000 * MS)

/* Big, so that holding it across a chunk fills much of a window. */
static uint8_t aux[PREC_CHUNK_MAX_PAYLOAD * 3 / 4];

/* Samples at 3, 2, 1 ms (reversed), an AUX chunk at 5 ms held across the
 * next chunk (its bound is 6 ms - slack), samples at 7-9 ms, a marker, and
 * a second AUX chunk with no first_time: placed at its watermark, 30 ms. */
static void write_aux_shard(int dirfd, struct prec_manifest *m)
{
	static uint8_t data[TEST_SAMPLE_SIZE * 3];
	struct prec_shard_writer_opts wo = { .cpu = 0, .copy = true };
	struct prec_manifest_shard ms0 = { .name = "cpu000.shard", .cpu = 0 };
	struct prec_shard_writer *w;

	for (size_t i = 0; i < sizeof(aux); i++)
		aux[i] = (uint8_t)(i * 7 + 1);
	CHECK_EQ(prec_time_layout__init(&m->time_layout, TEST_SAMPLE_TYPE), 0);
	CHECK_EQ(prec_manifest__add_shard(m, &ms0), 0);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "cpu000.shard", &wo), 0);
	for (int i = 0; i < 3; i++)
		test_put_sample(data + TEST_SAMPLE_SIZE * i, T0 + (uint64_t)(3 - i) * MS);
	test_append_chunk(w, PREC_CHUNK_DATA, data, sizeof(data), 3, T0 + MS, T0 + 4 * MS, 0);
	test_append_chunk(w, PREC_CHUNK_AUX, aux, sizeof(aux), 0, T0 + 5 * MS, T0 + 6 * MS, 4096);
	for (int i = 0; i < 3; i++)
		test_put_sample(data + TEST_SAMPLE_SIZE * i, T0 + (uint64_t)(7 + i) * MS);
	test_append_chunk(w, PREC_CHUNK_DATA, data, sizeof(data), 3, T0 + 7 * MS, T0 + 10 * MS, 0);
	test_append_chunk(w, PREC_CHUNK_MARKER, NULL, 0, 0, 0, T0 + 20 * MS, 0);
	test_append_chunk(w, PREC_CHUNK_AUX, aux, 5000, 0, 0, T0 + 30 * MS, 4096 + sizeof(aux));
	CHECK_EQ(prec_shard_writer__close(w), 0);
}

static void test_aux(const char *tmp)
{
	static const uint64_t want[] = { T0 + 1 * MS, T0 + 2 * MS, T0 + 3 * MS, T0 + 5 * MS,
					 T0 + 7 * MS, T0 + 8 * MS, T0 + 9 * MS, T0 + 30 * MS };
	struct prec_manifest *m = prec_manifest__new();
	struct prec_merge_rec r;
	struct prec_merge *mg;
	unsigned int n = 0, naux = 0;
	int dirfd = open(tmp, O_RDONLY | O_DIRECTORY);

	printf("  AUX chunks\n");
	CHECK(m && dirfd >= 0);
	write_aux_shard(dirfd, m);
	m->auxtrace_type = 1; /* as an intel_pt recording's */
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, NULL), 0);
	while (prec_merge__next(mg, &r) > 0) {
		CHECK(n < sizeof(want) / sizeof(want[0]));
		CHECK_EQ(r.time, want[n]);
		if (!r.rec) {
			CHECK_EQ(r.aux_len, naux ? 5000 : sizeof(aux));
			CHECK_EQ(r.aux_offset, naux ? 4096 + sizeof(aux) : 4096);
			CHECK_EQ(r.aux_flags, 1);
			CHECK(!memcmp(r.aux, aux, r.aux_len));
			naux++;
		}
		n++;
	}
	CHECK_EQ(n, sizeof(want) / sizeof(want[0]));
	CHECK_EQ(naux, 2);
	CHECK_EQ(prec_merge__forced(mg), 0);
	prec_merge__close(mg);

	/* Without an AUX event the AUX chunk is corrupt: the chunk before it
	 * comes out, nothing after it. */
	m->auxtrace_type = 0;
	n = 0;
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, NULL), 0);
	while (prec_merge__next(mg, &r) > 0) {
		CHECK(r.rec);
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK_EQ(prec_merge__errors(mg), 1);
	prec_merge__close(mg);
	prec_manifest__delete(m);
	unlinkat(dirfd, "cpu000.shard", 0);
	close(dirfd);
}

/* Records no kernel writes, in a chunk whose checksum is right: the chunk
 * is corrupt (logged once), nothing of it or after it comes out, the good
 * chunk before it does. */
static void test_bad_record(const char *tmp, uint32_t type, uint16_t size)
{
	static uint8_t data[48 * 2];
	const uint64_t t0 = 1000000000ull;
	struct prec_shard_writer_opts wo = { .cpu = 0, .copy = true };
	struct prec_manifest_shard ms0 = { .name = "cpu000.shard", .cpu = 0 };
	struct prec_manifest *m = prec_manifest__new();
	struct prec_shard_writer *w;
	struct prec_merge_rec r;
	struct prec_merge *mg;
	unsigned int n = 0;
	int dirfd = open(tmp, O_RDONLY | O_DIRECTORY);

	printf("  a record of type %u, size %u\n", type, size);
	CHECK(m && dirfd >= 0);
	CHECK_EQ(prec_time_layout__init(&m->time_layout, TEST_SAMPLE_TYPE), 0);
	CHECK_EQ(prec_manifest__add_shard(m, &ms0), 0);
	unlinkat(dirfd, "cpu000.shard", 0);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "cpu000.shard", &wo), 0);
	test_put_sample(data, t0);
	test_put_sample(data + 48, t0 + 1);
	test_append_chunk(w, PREC_CHUNK_DATA, data, 48, 1, t0, t0, 0);
	memset(data + 48, 0, 48);
	memcpy(data + 48, &type, 4);
	memcpy(data + 48 + 6, &size, 2);
	test_append_chunk(w, PREC_CHUNK_DATA, data, 48 + size, 2, t0, t0 + 1, 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, NULL), 0);
	while (prec_merge__next(mg, &r) > 0)
		n++;
	CHECK_EQ(n, 1);
	CHECK_EQ(prec_merge__errors(mg), 1);
	prec_merge__close(mg);
	prec_manifest__delete(m);
	close(dirfd);
}

/* Append DATA chunk seq of n 48-byte records to fd by hand (the writer
 * refuses chunks over PREC_CHUNK_MAX_PAYLOAD); record k of the shard is at
 * t0 + k us, every 7th 1.5 us early: inversions the window must fix. */
static void old_chunk(int fd, uint32_t seq, uint32_t n, uint64_t t0)
{
	static uint8_t buf[64 + PREC_CHUNK_READ_MAX];
	struct prec_chunk_header h = { .magic = PREC_CHUNK_MAGIC,
		.type = PREC_CHUNK_DATA, .header_size = 64, .payload_len = 48 * n,
		.raw_len = 48 * n, .records = n, .seq = seq };

	for (uint32_t i = 0; i < n; i++) {
		uint64_t k = (uint64_t)seq * n + i;
		uint64_t t = t0 + k * 1000 - (k % 7 ? 0 : 1500);

		test_put_sample(buf + 64 + 48 * i, t);
		if (!h.first_time || t < h.first_time)
			h.first_time = t;
		if (t > h.last_time)
			h.last_time = t;
	}
	h.watermark = t0 + ((uint64_t)seq + 1) * n * 1000;
	memcpy(buf, &h, 64);
	h.checksum = prec_crc32c(prec_crc32c(0, buf, 64), buf + 64, h.payload_len);
	memcpy(buf, &h, 64);
	CHECK_EQ(write(fd, buf, 64 + h.payload_len), (ssize_t)(64 + h.payload_len));
}

static void test_old_chunks(const char *tmp)
{
	const uint32_t n = PREC_CHUNK_READ_MAX / 48, nchunk = 3;
	struct prec_shard_writer_opts wo = { .cpu = 0 };
	struct prec_manifest_shard ms0 = { .name = "old000.shard", .cpu = 0 };
	struct prec_manifest *m = prec_manifest__new();
	struct prec_shard_writer *w;
	struct prec_merge_rec r;
	struct prec_merge *mg;
	uint64_t last = 0, count = 0;
	int dirfd = open(tmp, O_RDONLY | O_DIRECTORY), fd;

	CHECK(m && dirfd >= 0 && 48 * n > PREC_CHUNK_MAX_PAYLOAD);
	CHECK_EQ(prec_time_layout__init(&m->time_layout, TEST_SAMPLE_TYPE), 0);
	CHECK_EQ(prec_manifest__add_shard(m, &ms0), 0);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, ms0.name, &wo), 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	fd = openat(dirfd, ms0.name, O_WRONLY | O_APPEND);
	CHECK(fd >= 0);
	for (uint32_t i = 0; i < nchunk; i++)
		old_chunk(fd, i, n, 1000000000ull);
	close(fd);
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, NULL), 0);
	while (prec_merge__next(mg, &r) > 0) {
		CHECK(r.rec && r.rec_len == 48 && r.time >= last);
		last = r.time;
		count++;
	}
	CHECK_EQ(count, (uint64_t)n * nchunk);
	CHECK_EQ(prec_merge__errors(mg), 0);
	CHECK_EQ(prec_merge__forced(mg), 0);
	prec_merge__close(mg);
	prec_manifest__delete(m);
	close(dirfd);
}
int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *tmp = test_tmpdir("merge_handmade");

	test_aux(tmp);
	test_bad_record(tmp, 0, 16);                 /* no such type */
	test_bad_record(tmp, 70, 16);                /* perf's, not the kernel's */
	test_bad_record(tmp, PERF_RECORD_SAMPLE, 8); /* no room for its time */
	test_bad_record(tmp, PERF_RECORD_SAMPLE, 32); /* time would be past its end */
	test_old_chunks(tmp);
	test_rmdir(tmp);
	free(tmp);
	printf("ok\n");
	return 0;
}
