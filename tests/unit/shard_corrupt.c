// SPDX-License-Identifier: MIT
// Shard reader against damaged files: a torn tail at every byte of the last
// chunk, single-bit flips in every header byte and sampled payload bytes,
// lying lengths. Every chunk before the damage reads whole; the damage is
// -EBADMSG at the right offset; nothing reads out of bounds (run under ASan).
// And a shard read while it is written (merge --follow): retry() after the
// torn end reads on once the rest lands, and a reader that stopped before
// the torn end reads on without it.
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NCHUNK 8

static unsigned char *file;
static size_t file_len;
static uint64_t offs[NCHUNK + 1]; /* chunk offsets, then end of file */

static void write_shard(int dirfd, const char *name, uint64_t *rng, enum prec_codec codec)
{
	static unsigned char pay[PREC_CHUNK_MAX_PAYLOAD];
	struct prec_shard_writer_opts o = { .cpu = 3, .codec = codec };
	struct prec_shard_writer *w;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd, name, &o), 0);
	for (int i = 0; i < NCHUNK; i++) {
		struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = (uint32_t)i };
		/* Small enough for every-byte loops; the last one ~3 KiB. */
		uint32_t len = i == 3 ? 0 : 100 + (uint32_t)(test_rand(rng) % 3000);
		struct iovec v = { pay, len };

		for (uint32_t k = 0; k < len; k++)
			pay[k] = (unsigned char)(k % 4 ? 'x' : test_rand(rng));
		if (i == 3)
			m.type = PREC_CHUNK_MARKER;
		m.first_time = test_rand(rng);
		CHECK(prec_shard_writer__append(w, &m, &v, len ? 1 : 0) > 0);
		/* Zero-copy: pay is reused for the next chunk. */
		CHECK_EQ(prec_shard_writer__wait(w, i + 1), 0);
	}
	CHECK_EQ(prec_shard_writer__close(w), 0);
}

static void load(int dirfd, const char *name)
{
	struct stat sb;
	int fd = openat(dirfd, name, O_RDONLY);

	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &sb), 0);
	free(file);
	file_len = (size_t)sb.st_size;
	file = malloc(file_len);
	CHECK(file);
	CHECK_EQ(read(fd, file, file_len), (ssize_t)file_len);
	close(fd);
}

/* Read buf[0..len) from an exact-size copy (so ASan sees any overread).
 * Returns the chunk count read before the result; *res is the final
 * next() result, or the open() error with count -1. */
static int read_mem(const unsigned char *buf, size_t len, int *res, uint64_t *off,
		    const char **why)
{
	unsigned char *copy = malloc(len ? len : 1);
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int n = 0;

	memcpy(copy, buf, len);
	*res = prec_shard_reader__open_mem(&r, copy, len);
	if (*res) {
		free(copy);
		return -1;
	}
	while ((*res = prec_shard_reader__next(r, &c)) == 1) {
		CHECK_EQ(c.offset, offs[n]);
		CHECK_EQ(c.hdr.records, n);
		n++;
	}
	*off = prec_shard_reader__offset(r);
	*why = prec_shard_reader__why(r);
	if (*res < 0) {
		/* Sticky: the same error, the same place. */
		CHECK_EQ(prec_shard_reader__next(r, &c), *res);
		CHECK_EQ(prec_shard_reader__offset(r), *off);
	}
	prec_shard_reader__close(r);
	free(copy);
	return n;
}

static void expect_bad_at(const unsigned char *buf, size_t len, int chunk, const char *what)
{
	uint64_t off = 0;
	const char *why = "";
	int res, n = read_mem(buf, len, &res, &off, &why);

	if (n != chunk || res != -EBADMSG || off != offs[chunk]) {
		fprintf(stderr, "%s: read %d chunks, res %d at 0x%llx (%s); want %d, -EBADMSG at 0x%llx\n",
			what, n, res, (unsigned long long)off, why, chunk,
			(unsigned long long)offs[chunk]);
		exit(1);
	}
}

static void index_chunks(void)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int n = 0;

	CHECK_EQ(prec_shard_reader__open_mem(&r, file, file_len), 0);
	while (prec_shard_reader__next(r, &c) == 1)
		offs[n++] = c.offset;
	CHECK_EQ(n, NCHUNK);
	offs[n] = prec_shard_reader__offset(r);
	CHECK_EQ(offs[n], file_len);
	prec_shard_reader__close(r);
}

/* Every cut inside the last chunk, through the file path (ftruncate of a
 * copy) and the memory path. A cut at a boundary is a clean end. */
static void torn_tail(int dirfd)
{
	int fd = openat(dirfd, "torn.shard", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int res, n;
	uint64_t off;
	const char *why;

	CHECK(fd >= 0);
	CHECK_EQ(write(fd, file, file_len), (ssize_t)file_len);
	for (size_t len = file_len - 1; len > offs[NCHUNK - 1]; len--) {
		struct prec_shard_reader *r;
		struct prec_chunk c;

		CHECK_EQ(ftruncate(fd, (off_t)len), 0);
		CHECK_EQ(prec_shard_reader__open(&r, dirfd, "torn.shard"), 0);
		for (int i = 0; i < NCHUNK - 1; i++)
			CHECK_EQ(prec_shard_reader__next(r, &c), 1);
		CHECK_EQ(prec_shard_reader__next(r, &c), -EBADMSG);
		CHECK_EQ(prec_shard_reader__offset(r), offs[NCHUNK - 1]);
		CHECK(strstr(prec_shard_reader__why(r), "torn"));
		prec_shard_reader__close(r);
		expect_bad_at(file, len, NCHUNK - 1, "torn tail");
	}
	close(fd);
	unlinkat(dirfd, "torn.shard", 0);
	/* Cut exactly at a chunk boundary: clean. */
	for (int k = 0; k <= NCHUNK; k++) {
		n = read_mem(file, offs[k], &res, &off, &why);
		CHECK_EQ(n, k);
		CHECK_EQ(res, 0);
	}
	/* Torn shard header. */
	for (size_t len = 0; len < 64; len++) {
		CHECK_EQ(read_mem(file, len, &res, &off, &why), -1);
		CHECK_EQ(res, -EBADMSG);
	}
}

static bool near_header(size_t pos)
{
	for (int k = 1; k <= NCHUNK; k++)
		if ((pos + 2 >= offs[k] && pos <= offs[k] + 2) ||
		    (pos + 2 >= offs[k] + 64 && pos <= offs[k] + 66))
			return true;
	return false;
}

/* The file as a reader following its writer sees it: cut at pos, and
 * either nothing after or zeros up to the 4 KiB block (an O_DIRECT
 * writer's padding of its last block); then the rest lands, and after
 * retry() the reader gives every chunk once, whole, in order. With two
 * buffers, the payload handed out before the wait is still intact after
 * the chunk read next (retry() puts the buffers back as they were). */
static void growing(int dirfd)
{
	static unsigned char zeros[4096], prev[PREC_CHUNK_MAX_PAYLOAD];
	unsigned char *ref[NCHUNK];
	uint32_t ref_len[NCHUNK];
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int n = 0;

	CHECK_EQ(prec_shard_reader__open_mem(&r, file, file_len), 0);
	while (prec_shard_reader__next(r, &c) == 1) {
		ref[n] = malloc(c.len ? c.len : 1);
		memcpy(ref[n], c.payload, c.len);
		ref_len[n++] = c.len;
	}
	prec_shard_reader__close(r);
	/* every 97th byte, and each byte around a chunk header's ends */
	for (size_t cut = 64; cut < file_len; cut++) {
		for (int pad = 0; pad < 2 && (near_header(cut) || cut % 97 == 0); pad++) {
			int fd = openat(dirfd, "grow.shard", O_RDWR | O_CREAT | O_TRUNC, 0600);
			size_t z = pad ? 4096 - cut % 4096 : 0;
			const unsigned char *held = NULL;
			uint32_t held_len = 0;
			int res;

			CHECK(fd >= 0);
			CHECK_EQ(pwrite(fd, file, cut, 0), (ssize_t)cut);
			CHECK_EQ(pwrite(fd, zeros, z, (off_t)cut), (ssize_t)z);
			CHECK_EQ(prec_shard_reader__open(&r, dirfd, "grow.shard"), 0);
			CHECK_EQ(prec_shard_reader__set_two_buffers(r, true), 0);
			n = 0;
			while ((res = prec_shard_reader__next(r, &c)) == 1) {
				CHECK_EQ(c.offset, offs[n]);
				held = c.payload;
				held_len = c.len;
				memcpy(prev, c.payload, c.len);
				n++;
			}
			CHECK(res == 0 || res == -EBADMSG);
			CHECK(n < NCHUNK);
			CHECK_EQ(pwrite(fd, file + cut, file_len - cut, (off_t)cut),
				 (ssize_t)(file_len - cut));
			CHECK_EQ(ftruncate(fd, (off_t)file_len), 0); /* the writer's close */
			prec_shard_reader__retry(r);
			while ((res = prec_shard_reader__next(r, &c)) == 1) {
				CHECK(n < NCHUNK);
				CHECK_EQ(c.offset, offs[n]);
				CHECK_EQ(c.len, ref_len[n]);
				CHECK(!memcmp(c.payload, ref[n], c.len));
				if (held) {
					CHECK(!memcmp(held, prev, held_len));
					held = NULL;
				}
				n++;
			}
			CHECK_EQ(res, 0);
			CHECK_EQ(n, NCHUNK);
			prec_shard_reader__close(r);
			close(fd);
		}
	}
	unlinkat(dirfd, "grow.shard", 0);
	for (int k = 0; k < NCHUNK; k++)
		free(ref[k]);
}

/* The same cut, but the reader stops after the chunks that are whole (as a
 * merge does at its bound), before it has seen the torn end: the header it
 * read ahead with the last payload was zeros or half there then. Once the
 * rest lands (and the recording ends: no retry() comes), next() gives the
 * rest, not the stale look-ahead as damage. */
static void stopped_at_whole(int dirfd)
{
	static unsigned char zeros[4096];
	struct prec_shard_reader *r;
	struct prec_chunk c;

	for (size_t cut = 64; cut < file_len; cut++) {
		size_t z = 4096 - cut % 4096;
		int whole = 0, n = 0, res, fd;

		if (!near_header(cut) && cut % 97)
			continue;
		while (whole < NCHUNK && offs[whole + 1] <= cut)
			whole++;
		fd = openat(dirfd, "stop.shard", O_RDWR | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0);
		CHECK_EQ(pwrite(fd, file, cut, 0), (ssize_t)cut);
		CHECK_EQ(pwrite(fd, zeros, z, (off_t)cut), (ssize_t)z);
		CHECK_EQ(prec_shard_reader__open(&r, dirfd, "stop.shard"), 0);
		for (; n < whole; n++) {
			CHECK_EQ(prec_shard_reader__next(r, &c), 1);
			CHECK_EQ(c.offset, offs[n]);
		}
		CHECK_EQ(pwrite(fd, file + cut, file_len - cut, (off_t)cut),
			 (ssize_t)(file_len - cut));
		CHECK_EQ(ftruncate(fd, (off_t)file_len), 0);
		while ((res = prec_shard_reader__next(r, &c)) == 1) {
			CHECK(n < NCHUNK);
			CHECK_EQ(c.offset, offs[n]);
			n++;
		}
		if (res != 0 || n != NCHUNK)
			printf("cut at %zu after %d whole chunks: next() %d (%s) at chunk %d\n",
			       cut, whole, res, prec_shard_reader__why(r), n);
		CHECK_EQ(res, 0);
		CHECK_EQ(n, NCHUNK);
		prec_shard_reader__close(r);
		close(fd);
	}
	unlinkat(dirfd, "stop.shard", 0);
}

static int chunk_of(size_t pos)
{
	int k = 0;

	while (pos >= offs[k + 1])
		k++;
	return k;
}

static void bit_flips(uint64_t *rng)
{
	unsigned char *buf = malloc(file_len);
	int res, n;
	uint64_t off;
	const char *why;

	memcpy(buf, file, file_len);
	/* Shard header: open refuses every flip. */
	for (size_t i = 0; i < 64 * 8; i++) {
		buf[i / 8] ^= (unsigned char)(1u << (i % 8));
		n = read_mem(buf, file_len, &res, &off, &why);
		CHECK_EQ(n, -1);
		CHECK(res == -EBADMSG || (res == -EPROTONOSUPPORT &&
			(i / 8 == offsetof(struct prec_shard_header, version_major) ||
			 i / 8 == offsetof(struct prec_shard_header, version_major) + 1)));
		buf[i / 8] ^= (unsigned char)(1u << (i % 8));
	}
	/* Every bit of every chunk header. */
	for (int k = 0; k < NCHUNK; k++)
		for (size_t i = 0; i < 64 * 8; i++) {
			size_t pos = offs[k] + i / 8;

			buf[pos] ^= (unsigned char)(1u << (i % 8));
			expect_bad_at(buf, file_len, k, "header bit flip");
			buf[pos] ^= (unsigned char)(1u << (i % 8));
		}
	/* Sampled payload bits. */
	for (int s = 0; s < 3000; s++) {
		size_t pos = offs[0] + test_rand(rng) % (file_len - offs[0]);
		int k = chunk_of(pos);
		unsigned char bit = (unsigned char)(1u << (test_rand(rng) % 8));

		if (pos < offs[k] + 64)
			continue;
		buf[pos] ^= bit;
		expect_bad_at(buf, file_len, k, "payload bit flip");
		buf[pos] ^= bit;
	}
	CHECK(memcmp(buf, file, file_len) == 0);
	free(buf);
}

/* Rewrite chunk k's header field and fix its checksum so only the field
 * itself can be blamed. */
static void put_field(unsigned char *buf, int k, size_t field, const void *v, size_t len,
		      uint32_t pay_len)
{
	struct prec_chunk_header h;
	uint32_t crc;

	memcpy(buf + offs[k] + field, v, len);
	memcpy(&h, buf + offs[k], 64);
	h.checksum = 0;
	crc = prec_crc32c(0, &h, 64);
	crc = prec_crc32c(crc, buf + offs[k] + 64, pay_len);
	memcpy(buf + offs[k] + offsetof(struct prec_chunk_header, checksum), &crc, 4);
}

static void lying_lengths(void)
{
	static const uint32_t lies[] = { 0xffffffffu, 0x80000000u, PREC_CHUNK_READ_MAX + 1,
					 PREC_CHUNK_READ_MAX, PREC_CHUNK_MAX_PAYLOAD + 1,
					 PREC_CHUNK_MAX_PAYLOAD, 70000, 5000, 1 };
	unsigned char *buf = malloc(file_len);
	size_t plen = offsetof(struct prec_chunk_header, payload_len);
	size_t rlen = offsetof(struct prec_chunk_header, raw_len);
	size_t seq = offsetof(struct prec_chunk_header, seq);

	for (size_t i = 0; i < sizeof(lies) / sizeof(lies[0]); i++)
		for (int k = 0; k < NCHUNK; k++) {
			uint32_t real = (uint32_t)(offs[k + 1] - offs[k] - 64);

			if (lies[i] == real)
				continue;
			/* Checksum left stale, then made to match: both fail. */
			memcpy(buf, file, file_len);
			memcpy(buf + offs[k] + plen, &lies[i], 4);
			memcpy(buf + offs[k] + rlen, &lies[i], 4);
			expect_bad_at(buf, file_len, k, "lying length");
			/* A longer length whose checksum covers the real
			 * payload: the reader must not read past the end. (A
			 * shorter one with a matching checksum is a valid
			 * chunk followed by garbage.) */
			if (lies[i] < real)
				continue;
			put_field(buf, k, plen, &lies[i], 4, real);
			expect_bad_at(buf, file_len, k, "lying length, good crc");
		}
	/* A sequence gap with a valid checksum. */
	for (int k = 0; k < NCHUNK; k++) {
		uint32_t s = (uint32_t)k + 1;
		uint64_t off;
		const char *why;
		int res;

		memcpy(buf, file, file_len);
		put_field(buf, k, seq, &s, 4, (uint32_t)(offs[k + 1] - offs[k] - 64));
		CHECK_EQ(read_mem(buf, file_len, &res, &off, &why), k);
		CHECK_EQ(res, -EBADMSG);
		CHECK(strcmp(why, "chunk sequence gap") == 0);
	}
	free(buf);
}

static void versions(void)
{
	unsigned char *buf = malloc(file_len);
	uint16_t major = PREC_FORMAT_MAJOR + 1, minor = 77;
	uint32_t crc;
	uint64_t off;
	const char *why;
	int res;

	memcpy(buf, file, file_len);
	memcpy(buf + offsetof(struct prec_shard_header, version_major), &major, 2);
	crc = prec_crc32c(0, buf, 60);
	memcpy(buf + 60, &crc, 4);
	CHECK_EQ(read_mem(buf, file_len, &res, &off, &why), -1);
	CHECK_EQ(res, -EPROTONOSUPPORT);
	/* Any minor is accepted. */
	memcpy(buf, file, file_len);
	memcpy(buf + offsetof(struct prec_shard_header, version_minor), &minor, 2);
	crc = prec_crc32c(0, buf, 60);
	memcpy(buf + 60, &crc, 4);
	CHECK_EQ(read_mem(buf, file_len, &res, &off, &why), NCHUNK);
	CHECK_EQ(res, 0);
	/* Not a shard at all. */
	memset(buf, 0, file_len);
	CHECK_EQ(read_mem(buf, file_len, &res, &off, &why), -1);
	CHECK_EQ(res, -EBADMSG);
	free(buf);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	uint64_t rng = test_seed();
	char *dir = test_tmpdir("shard-corrupt");
	int dirfd = open(dir, O_DIRECTORY | O_RDONLY);
	static const char *const names[] = { "none.shard", "lz4.shard" };

	CHECK(dirfd >= 0);
	for (int codec = 0; codec < 2; codec++) {
		write_shard(dirfd, names[codec], &rng, (enum prec_codec)codec);
		load(dirfd, names[codec]);
		index_chunks();
		printf("%s: %zu bytes, last chunk at 0x%llx\n", names[codec], file_len,
		       (unsigned long long)offs[NCHUNK - 1]);
		torn_tail(dirfd);
		growing(dirfd);
		stopped_at_whole(dirfd);
		bit_flips(&rng);
		lying_lengths();
		versions();
	}
	free(file);
	close(dirfd);
	test_rmdir(dir);
	free(dir);
	printf("ok\n");
	return 0;
}
