// SPDX-License-Identifier: MIT
// live_scan on a shard whose end a recorder is still writing: the whole
// chunks' totals (records, bytes, LOST sum and its time, first and last
// time) whatever follows them (a torn header, a chunk whose checksum does
// not hold yet, an O_DIRECT block's zero padding), and no error for it.
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/shard_gen.h"
#include "../lib/test.h"
#include "read/live_scan.h"
#include "store/store.h"

#define NAME "cpu000.shard"
#define LOST_SIZE 56u /* header, id, lost, sample_id: tid time cpu id */

struct seen {
	unsigned int chunks;
	uint64_t lost, lost_time, raw;
};

static void on_chunk(void *arg, const struct prec_live_chunk *c)
{
	struct seen *s = arg;

	s->chunks++;
	s->lost += c->lost;
	s->raw += c->raw_len;
	if (c->lost_time)
		s->lost_time = c->lost_time;
}

static void put_lost(uint8_t *p, uint64_t lost, uint64_t time)
{
	uint64_t w[7] = { (uint64_t)LOST_SIZE << 48 | 2, 1000, lost, 7ull << 32 | 7, time, 0, 1000 };

	memcpy(p, w, sizeof(w));
}

/* Two DATA chunks (10 samples; a LOST of 77 at 2000 and 3 samples) and a
 * MARKER. Returns the file size. */
static off_t write_shard(int dfd)
{
	static uint8_t a[10 * TEST_SAMPLE_SIZE], b[LOST_SIZE + 3 * TEST_SAMPLE_SIZE];
	struct prec_shard_writer_opts wo = { .cpu = 0, .copy = true };
	struct prec_shard_writer *w;
	struct stat st;

	for (int i = 0; i < 10; i++)
		test_put_sample(a + i * TEST_SAMPLE_SIZE, 1000 + (uint64_t)i);
	put_lost(b, 77, 2000);
	for (int i = 0; i < 3; i++)
		test_put_sample(b + LOST_SIZE + i * TEST_SAMPLE_SIZE, 2001 + (uint64_t)i);
	CHECK_EQ(prec_shard_writer__open(&w, dfd, NAME, &wo), 0);
	test_append_chunk(w, PREC_CHUNK_DATA, a, sizeof(a), 10, 1000, 1000, 0);
	test_append_chunk(w, PREC_CHUNK_DATA, b, sizeof(b), 4, 2000, 2000, 0);
	test_append_chunk(w, PREC_CHUNK_MARKER, NULL, 0, 0, 0, 2100, 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(fstatat(dfd, NAME, &st, 0), 0);
	return st.st_size;
}

static void scan_whole(int dfd, const struct prec_time_layout *tl, off_t size, bool torn)
{
	struct prec_live_totals t;
	struct seen s = { 0 };
	const char *why = NULL;

	CHECK_EQ(prec_live_scan__shard(dfd, NAME, tl, on_chunk, &s, &t, &why), 0);
	CHECK_EQ(t.chunks, 3);
	CHECK_EQ(t.records, 14);
	CHECK_EQ(t.raw_bytes, 10 * TEST_SAMPLE_SIZE + LOST_SIZE + 3 * TEST_SAMPLE_SIZE);
	CHECK_EQ(t.bytes, t.raw_bytes);
	CHECK_EQ(t.lost, 77);
	CHECK_EQ(t.first_time, 1000);
	CHECK_EQ(t.last_time, 2000);
	CHECK_EQ(t.end, (uint64_t)size);
	CHECK_EQ(t.torn, torn);
	CHECK_EQ(s.chunks, 2); /* DATA only */
	CHECK_EQ(s.lost, 77);
	CHECK_EQ(s.lost_time, 2000); /* the LOST record's own time */
	CHECK_EQ(s.raw, t.raw_bytes);
}

/* Two LOST records of 2^63 each in one chunk (hostile counts): the sum
 * stops at 2^64 - 1, where it wrapped to 0. */
static void lost_saturates(int dfd, const struct prec_time_layout *tl)
{
	static uint8_t c[2 * LOST_SIZE];
	struct prec_shard_writer_opts wo = { .cpu = 1, .copy = true };
	struct prec_shard_writer *w;
	struct prec_live_totals t;
	struct seen s = { 0 };
	const char *why = NULL;

	put_lost(c, 1ull << 63, 3000);
	put_lost(c + LOST_SIZE, 1ull << 63, 3001);
	CHECK_EQ(prec_shard_writer__open(&w, dfd, "cpu001.shard", &wo), 0);
	test_append_chunk(w, PREC_CHUNK_DATA, c, sizeof(c), 2, 3000, 3000, 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(prec_live_scan__shard(dfd, "cpu001.shard", tl, on_chunk, &s, &t, &why), 0);
	CHECK_EQ(t.lost, UINT64_MAX);
	CHECK_EQ(s.lost, UINT64_MAX);
	CHECK_EQ(unlinkat(dfd, "cpu001.shard", 0), 0);
}

/* Append len bytes of buf to the shard. */
static void append(int dfd, const void *buf, size_t len)
{
	int fd = openat(dfd, NAME, O_WRONLY | O_APPEND | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void cut(int dfd, off_t size)
{
	int fd = openat(dfd, NAME, O_WRONLY | O_CLOEXEC);

	CHECK(fd >= 0);
	CHECK_EQ(ftruncate(fd, size), 0);
	close(fd);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *dir = test_tmpdir("live_scan");
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct prec_time_layout tl;
	static uint8_t tail[8192];
	struct prec_live_totals t;
	const char *why = NULL;
	off_t size;
	int fd;

	CHECK(dfd >= 0);
	CHECK_EQ(prec_time_layout__init(&tl, TEST_SAMPLE_TYPE), 0);
	size = write_shard(dfd);
	scan_whole(dfd, &tl, size, false);
	lost_saturates(dfd, &tl);
	/* the first chunk's bytes again, as a next chunk half written:
	 * header cut short, then whole but its payload cut short, then
	 * header and payload all there but one byte not yet right */
	fd = openat(dfd, NAME, O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0);
	CHECK_EQ(pread(fd, tail, 64 + 10 * TEST_SAMPLE_SIZE, 64), 64 + 10 * TEST_SAMPLE_SIZE);
	close(fd);
	append(dfd, tail, 30);
	scan_whole(dfd, &tl, size, true);
	cut(dfd, size);
	append(dfd, tail, 64 + 100);
	scan_whole(dfd, &tl, size, true);
	cut(dfd, size);
	tail[64 + 5] ^= 1;
	append(dfd, tail, 64 + 10 * TEST_SAMPLE_SIZE);
	scan_whole(dfd, &tl, size, true);
	/* an O_DIRECT writer's padding: zeros to the block's end */
	cut(dfd, size);
	memset(tail, 0, sizeof(tail));
	append(dfd, tail, 4096);
	scan_whole(dfd, &tl, size, true);
	/* a shard whose header is not all on disk yet: nothing, no error */
	CHECK_EQ(unlinkat(dfd, NAME, 0), 0);
	fd = openat(dfd, NAME, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(write(fd, tail, 20), 20);
	close(fd);
	CHECK_EQ(prec_live_scan__shard(dfd, NAME, &tl, NULL, NULL, &t, &why), 0);
	CHECK(t.torn && !t.chunks && !t.records);
	/* a missing shard is an error, with its reason */
	CHECK_EQ(unlinkat(dfd, NAME, 0), 0);
	CHECK(prec_live_scan__shard(dfd, NAME, &tl, NULL, NULL, &t, &why) < 0 && why);
	printf("live_scan: whole chunks counted (14 records, 77 lost at 2000) past a torn header, a short payload, a bad checksum, zero padding; a header not yet written is empty; 2^63 + 2^63 lost stops at 2^64-1\n");
	close(dfd);
	test_rmdir(dir);
	free(dir);
	return 0;
}
