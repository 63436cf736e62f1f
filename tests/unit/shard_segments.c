// SPDX-License-Identifier: MIT
// Segment files (docs/format.md, "Segment files"): their names and numbers
// (to the last, 4294967295), the list of those a directory holds, and the
// reader's rules, on a shard cut by hand into
// sparse files that hold each chunk at its shard offset: it goes on across
// files, past a zero-padded last block, stops at an empty file opened ahead
// (and goes on once it holds data), starts a trimmed shard in the oldest
// file left, passes a file a drop has not unlinked yet, and goes through
// planted numbers once each, ending at the last number.
#include "store/shard_segments.h"
#include "store/store.h"
#include "../lib/test.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHUNKS 12
#define PAYLOAD 3000u
#define BLK 4096u

static unsigned char payload[PAYLOAD];
static uint64_t offs[CHUNKS + 1]; /* chunk i at offs[i]; offs[CHUNKS]: the end */

static void names(void)
{
	char buf[PREC_SEGMENT_NAME_MAX], big[300];

	CHECK_EQ(prec_shard_segments__name(buf, sizeof(buf), "cpu000.shard", 7), 0);
	CHECK(!strcmp(buf, "cpu000.shard.7"));
	CHECK_EQ(prec_shard_segments__name(buf, 10, "cpu000.shard", 7), -ENAMETOOLONG);
	memset(big, 'a', 254);
	big[254] = 0;
	CHECK_EQ(prec_shard_segments__name(buf, sizeof(buf), big, 7), -ENAMETOOLONG);
	CHECK_EQ(prec_shard_segments__name(buf, sizeof(buf), "cpu000.shard", 0), -ERANGE);
	CHECK_EQ(prec_shard_segments__name(buf, sizeof(buf), "cpu000.shard", 4294967295u), 0);
	CHECK(!strcmp(buf, "cpu000.shard.4294967295"));
}

static void touch(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	close(fd);
}

/* list() gives n and got[0..n) */
static void listed(int dirfd, const char *name, uint32_t above, int n, const uint32_t *want)
{
	uint32_t *got = (uint32_t *)1;

	CHECK_EQ(prec_shard_segments__list(dirfd, name, above, &got), n);
	for (int i = 0; i < n; i++)
		CHECK_EQ(got[i], want[i]);
	CHECK(n || !got);
	free(got);
}

static void list(int dirfd)
{
	static const uint32_t all0[] = { 3, 10, 4294967295u }, past3[] = { 10, 4294967295u },
			      one[] = { 1 };

	listed(dirfd, "cpu000.shard", 0, 0, NULL);
	touch(dirfd, "cpu000.shard.10");
	touch(dirfd, "cpu000.shard.3");
	touch(dirfd, "cpu000.shard.4294967295"); /* the last number */
	touch(dirfd, "cpu000.shard.03");    /* not canonical: not one */
	touch(dirfd, "cpu000.shard.x");
	touch(dirfd, "cpu000.shard.0");
	touch(dirfd, "cpu000.shard.4294967296"); /* past u32 */
	touch(dirfd, "cpu001.shard.1");
	touch(dirfd, "cpu000.shard1");
	listed(dirfd, "cpu000.shard", 0, 3, all0);
	listed(dirfd, "cpu000.shard", 3, 2, past3);
	listed(dirfd, "cpu000.shard", 10, 1, all0 + 2);
	listed(dirfd, "cpu000.shard", 4294967295u, 0, NULL);
	listed(dirfd, "cpu001.shard", 0, 1, one);
	CHECK_EQ(prec_shard_segments__number("cpu000.shard.4294967295", "cpu000.shard"), 4294967295u);
	CHECK_EQ(prec_shard_segments__number("cpu000.shard.0", "cpu000.shard"), 0);
	const char *names[] = { "cpu000.shard.10", "cpu000.shard.3", "cpu000.shard.4294967295",
			      "cpu000.shard.03", "cpu000.shard.x", "cpu000.shard.0",
			      "cpu000.shard.4294967296", "cpu001.shard.1", "cpu000.shard1" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK_EQ(unlinkat(dirfd, names[i], 0), 0);
}

/* A plain shard of CHUNKS chunks, read whole into memory; offs[] filled. */
static unsigned char *plain_shard(int dirfd, size_t *len)
{
	struct prec_shard_writer_opts o = { .cpu = 0, .copy = true };
	struct prec_shard_writer *w;
	struct prec_shard_reader *r;
	struct prec_chunk c;
	unsigned char *buf;
	int fd, i = 0;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "plain.shard", &o), 0);
	for (int k = 0; k < CHUNKS; k++) {
		struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = 1,
					     .first_time = 100u + (uint64_t)k, .last_time = 100u + (uint64_t)k,
					     .watermark = 100u + (uint64_t)k };
		struct iovec v = { .iov_base = payload, .iov_len = PAYLOAD - 100u * (uint32_t)k };

		CHECK(prec_shard_writer__append(w, &m, &v, 1) > 0);
	}
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(prec_shard_reader__open(&r, dirfd, "plain.shard"), 0);
	while (prec_shard_reader__next(r, &c) > 0)
		offs[i++] = c.offset;
	CHECK_EQ(i, CHUNKS);
	offs[CHUNKS] = prec_shard_reader__offset(r);
	prec_shard_reader__close(r);
	fd = openat(dirfd, "plain.shard", O_RDONLY);
	*len = (size_t)lseek(fd, 0, SEEK_END);
	CHECK_EQ(*len, offs[CHUNKS]);
	buf = malloc(*len);
	CHECK(buf && pread(fd, buf, *len, 0) == (ssize_t)*len);
	close(fd);
	return buf;
}

/* Segment file name.n holding the shard's bytes [from, to) at their
 * offsets, written from the block holding from, its last block padded
 * with zeros unless it is the last file: as the O_DIRECT writer leaves
 * them (it cuts the padding off the file it writes last). */
static void put_segment(int dirfd, const char *name, uint32_t n, const unsigned char *shard,
			uint64_t from, uint64_t to)
{
	char fname[PREC_SEGMENT_NAME_MAX];
	uint64_t start = from - from % BLK, end = to == offs[CHUNKS] ? to : (to + BLK - 1) / BLK * BLK;
	unsigned char *blk = calloc(1, end - start);
	int fd;

	CHECK(blk);
	memcpy(blk, shard + start, to - start);
	CHECK_EQ(prec_shard_segments__name(fname, sizeof(fname), name, n), 0);
	fd = openat(dirfd, fname, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK(pwrite(fd, blk, end - start, (off_t)start) == (ssize_t)(end - start));
	close(fd);
	free(blk);
}

/* Segment 0: the header, flags and first chunk as given, then the chunks
 * up to `to`. */
static void put_first(int dirfd, const unsigned char *shard, uint64_t to, uint32_t flags,
		      uint64_t first_chunk, uint32_t first_seq)
{
	struct prec_shard_header h;
	int fd = openat(dirfd, "s.shard", O_WRONLY | O_CREAT | O_TRUNC, 0600);

	CHECK(fd >= 0);
	memcpy(&h, shard, sizeof(h));
	h.flags = htole32(flags);
	h.first_chunk = htole64(first_chunk);
	h.first_seq = htole32(first_seq);
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	CHECK(pwrite(fd, &h, sizeof(h), 0) == (ssize_t)sizeof(h));
	if (to > sizeof(h))
		CHECK(pwrite(fd, shard + sizeof(h), to - sizeof(h), sizeof(h)) ==
		      (ssize_t)(to - sizeof(h)));
	close(fd);
}

/* Read s.shard: chunks from seq `from` on, `n` of them. Returns the
 * reader, open, for more. */
static struct prec_shard_reader *read_chunks(int dirfd, struct prec_shard_reader *r, int from,
					     int n)
{
	struct prec_chunk c;

	if (!r)
		CHECK_EQ(prec_shard_reader__open(&r, dirfd, "s.shard"), 0);
	for (int k = from; k < from + n; k++) {
		CHECK_EQ(prec_shard_reader__next(r, &c), 1);
		CHECK_EQ(c.hdr.seq, (uint32_t)k);
		CHECK_EQ(c.offset, offs[k]);
		CHECK_EQ(c.len, PAYLOAD - 100u * (uint32_t)k);
		CHECK(!memcmp(c.payload, payload, c.len));
	}
	return r;
}

static void reader(int dirfd)
{
	size_t len;
	unsigned char *shard = plain_shard(dirfd, &len);
	struct prec_shard_reader *r;
	struct prec_chunk c;

	/* 0: chunks 0..3, 1: 4..7, 2: 8..11, 3: opened ahead, empty */
	put_first(dirfd, shard, offs[4], PREC_SHARD_SEGMENTS, 0, 0);
	put_segment(dirfd, "s.shard", 1, shard, offs[4], offs[8]);
	put_segment(dirfd, "s.shard", 2, shard, offs[8], offs[12]);
	touch(dirfd, "s.shard.3");
	r = read_chunks(dirfd, NULL, 0, CHUNKS);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	/* live: 2 empty yet (opened ahead): 1's zero padding, which a live
	 * reader takes for the chunk being written; once 2 holds its data
	 * the same reader goes on there */
	touch(dirfd, "s.shard.2");
	r = read_chunks(dirfd, NULL, 0, 8);
	CHECK_EQ(prec_shard_reader__next(r, &c), -EBADMSG);
	CHECK(!strcmp(prec_shard_reader__why(r), "torn chunk header (zeros)"));
	put_segment(dirfd, "s.shard", 2, shard, offs[8], offs[12]);
	prec_shard_reader__retry(r);
	r = read_chunks(dirfd, r, 8, 4);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	/* a drop in progress: header moved past 0 and 1, file 1 still there
	 * (segment 0 cut back to its header) */
	put_first(dirfd, shard, 0, PREC_SHARD_SEGMENTS | PREC_SHARD_TRIMMED, offs[8], 8);
	r = read_chunks(dirfd, NULL, 8, 4);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);
	/* ... and done: 1 unlinked; the oldest left is 2 */
	CHECK_EQ(unlinkat(dirfd, "s.shard.1", 0), 0);
	r = read_chunks(dirfd, NULL, 8, 4);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	/* dropped under a reader that stands at the end of file 0: the
	 * header moved and file 0 cut back, then 1 unlinked; the end where it
	 * stands (2 holds nothing there, 3 nothing yet), and skip_trimmed()
	 * takes it to 2 */
	put_first(dirfd, shard, offs[4], PREC_SHARD_SEGMENTS, 0, 0);
	put_segment(dirfd, "s.shard", 1, shard, offs[4], offs[8]);
	r = read_chunks(dirfd, NULL, 0, 4);
	CHECK_EQ(prec_shard_reader__skip_trimmed(r), 0);
	put_first(dirfd, shard, 0, PREC_SHARD_SEGMENTS | PREC_SHARD_TRIMMED, offs[8], 8);
	CHECK_EQ(unlinkat(dirfd, "s.shard.1", 0), 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	CHECK_EQ(prec_shard_reader__skip_trimmed(r), 1);
	r = read_chunks(dirfd, r, 8, 4);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	/* planted numbers: files holding a byte (no chunk where the shard
	 * goes on) at 3 and 6, gaps between, and the shard's last chunks in
	 * the last number a segment can have: each tried once, in order, and
	 * the search ends there (a counter past it wraps to 0) */
	CHECK_EQ(unlinkat(dirfd, "s.shard.2", 0), 0);
	CHECK_EQ(unlinkat(dirfd, "s.shard.3", 0), 0);
	put_first(dirfd, shard, offs[4], PREC_SHARD_SEGMENTS, 0, 0);
	put_segment(dirfd, "s.shard", 1, shard, offs[4], offs[8]);
	for (int i = 0; i < 2; i++) {
		int fd = openat(dirfd, i ? "s.shard.6" : "s.shard.3", O_WRONLY | O_CREAT | O_TRUNC,
				0600);

		CHECK(fd >= 0 && write(fd, "x", 1) == 1);
		close(fd);
	}
	put_segment(dirfd, "s.shard", PREC_SEGMENT_LAST, shard, offs[8], offs[12]);
	r = read_chunks(dirfd, NULL, 0, CHUNKS);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	static const uint32_t left[] = { 0, 1, 3, 6, PREC_SEGMENT_LAST };
	for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
		char fname[PREC_SEGMENT_NAME_MAX];
		uint32_t n = left[i];

		CHECK(!n || !prec_shard_segments__name(fname, sizeof(fname), "s.shard", n));
		CHECK_EQ(unlinkat(dirfd, n ? fname : "s.shard", 0), 0);
	}
	unlinkat(dirfd, "plain.shard", 0);
	free(shard);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *dir = test_tmpdir("segments");
	int dirfd = open(dir, O_DIRECTORY | O_RDONLY);

	CHECK(dirfd >= 0);
	for (uint32_t i = 0; i < PAYLOAD; i++)
		payload[i] = (unsigned char)(i * 7 + 3);
	names();
	list(dirfd);
	reader(dirfd);
	close(dirfd);
	test_rmdir(dir);
	free(dir);
	printf("shard_segments: ok\n");
	return 0;
}
