// SPDX-License-Identifier: MIT
// The lz4 chunk codec end to end: every level (fast, HC 1..12) over random,
// perf-record-like, text, zero and ELF bytes, one and two spans, read back
// exactly; compressed payloads that lie (bad streams, wrong lengths, output
// overflow) behind a valid checksum are -EBADMSG at their chunk, never a
// crash or an over-read (run it under ASan).
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAXP PREC_CHUNK_MAX_PAYLOAD
/* What a reader accepts: more than writers emit (format 1.0 files). */
#define READ_MAXP PREC_CHUNK_READ_MAX
#define NCH 14

enum kind { K_RANDOM, K_RECORDS, K_TEXT, K_ZEROS, K_ELF, K_MIXED, NKIND };

static unsigned char *elf;
static size_t elf_len;

static void load_elf(void)
{
	struct stat sb;
	int fd = open("/proc/self/exe", O_RDONLY);

	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &sb), 0);
	elf_len = (size_t)sb.st_size;
	elf = malloc(elf_len);
	CHECK(elf);
	CHECK_EQ(read(fd, elf, elf_len), (ssize_t)elf_len);
	close(fd);
}

/* perf SAMPLE records as a tracepoint storm writes them: a header, a few
 * instruction pointers, one pid, rising times, one CPU. */
static void fill_records(unsigned char *p, uint32_t len, uint64_t *rng)
{
	uint64_t t = 1000000000ull + test_rand(rng) % 1000000;
	uint32_t pos = 0;

	while (pos + 48 <= len) {
		uint64_t rec[6] = {
			9ull | 2ull << 32 | 48ull << 48,        /* SAMPLE, user, 48 bytes */
			1000 + test_rand(rng) % 3,               /* identifier */
			0x55d0c0de1000ull + (test_rand(rng) % 8) * 16, /* ip */
			4242ull | 4242ull << 32,                 /* pid, tid */
			t += 900 + test_rand(rng) % 200,         /* time */
			test_rand(rng) % 2,                      /* cpu */
		};

		memcpy(p + pos, rec, sizeof(rec));
		pos += 48;
	}
	memset(p + pos, 0, len - pos);
}

static void fill(unsigned char *p, uint32_t len, enum kind k, uint64_t *rng)
{
	static const char *const words[] = { "sched", "switch", "prev_comm", "next_pid",
					     "getppid", "raw_syscalls", "0x7f", "=" };
	uint32_t i = 0;
	size_t at;

	switch (k) {
	case K_RANDOM:
		for (; i < len; i++)
			p[i] = (unsigned char)test_rand(rng);
		break;
	case K_RECORDS:
		fill_records(p, len, rng);
		break;
	case K_TEXT:
		while (i < len) {
			const char *w = words[test_rand(rng) % 8];

			for (; *w && i < len; w++)
				p[i++] = (unsigned char)*w;
			if (i < len)
				p[i++] = ' ';
		}
		break;
	case K_ZEROS:
		memset(p, 0, len);
		break;
	case K_ELF:
		at = test_rand(rng) % elf_len;
		for (; i < len; i++)
			p[i] = elf[(at + i) % elf_len];
		break;
	default:
		fill(p, len / 2, K_RANDOM, rng);
		fill(p + len / 2, len - len / 2, K_RECORDS, rng);
		break;
	}
}

struct expect {
	enum kind kind;
	uint32_t len;
	unsigned char *data;
};

static uint32_t pick_len(uint64_t *rng, int i)
{
	switch (i % 5) {
	case 0: return MAXP;
	case 1: return 1 + (uint32_t)(test_rand(rng) % 64);
	default: return 1 + (uint32_t)(test_rand(rng) % MAXP);
	}
}

/* Write NCH chunks with lz4 at level; e[] gets what each holds. The source
 * is scribbled over after each append: lz4 implies copy mode. */
static void write_level(int dirfd, const char *name, int level, uint64_t *rng,
			struct expect *e, struct prec_shard_writer_stats *st)
{
	struct prec_shard_writer_opts o = { .cpu = 1, .codec = PREC_CODEC_LZ4,
					    .lz4_level = level };
	static unsigned char src[MAXP];
	struct prec_shard_writer *w;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd, name, &o), 0);
	for (int i = 0; i < NCH; i++) {
		struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = (uint32_t)i,
					     .first_time = (uint64_t)i, .watermark = 7 };
		uint32_t cut;
		struct iovec v[2];
		int64_t t;

		e[i].kind = (enum kind)(i == NCH - 1 ? K_RANDOM : test_rand(rng) % NKIND);
		e[i].len = i == 3 ? 0 : pick_len(rng, i);
		if (!e[i].len)
			m.type = PREC_CHUNK_MARKER;
		fill(src, e[i].len, e[i].kind, rng);
		e[i].data = malloc(e[i].len + 1);
		CHECK(e[i].data);
		memcpy(e[i].data, src, e[i].len);
		/* A wrapped ring: the second span starts anywhere. */
		cut = i % 2 ? (uint32_t)(test_rand(rng) % (e[i].len + 1)) : e[i].len;
		v[0] = (struct iovec){ src, cut };
		v[1] = (struct iovec){ src + cut, e[i].len - cut };
		t = prec_shard_writer__append(w, &m, v, !e[i].len ? 0 : i % 2 ? 2 : 1);
		CHECK(t > 0);
		CHECK(prec_shard_writer__done(w) >= t);
		memset(src, 0xa5, e[i].len);
	}
	CHECK_EQ(prec_shard_writer__flush(w), 0);
	prec_shard_writer__stats(w, st);
	CHECK_EQ(prec_shard_writer__close(w), 0);
}

static unsigned char *slurp(int dirfd, const char *name, size_t *len)
{
	struct stat sb;
	unsigned char *buf;
	int fd = openat(dirfd, name, O_RDONLY);

	CHECK(fd >= 0);
	CHECK_EQ(fstat(fd, &sb), 0);
	*len = (size_t)sb.st_size;
	buf = malloc(*len ? *len : 1);
	CHECK(buf);
	CHECK_EQ(read(fd, buf, *len), (ssize_t)*len);
	close(fd);
	return buf;
}

/* One chunk read back: exact bytes, and the codec the data deserves. The
 * stored LZ4 payload is a plain block that stock liblz4 decodes too. */
static void check_chunk(const struct prec_chunk *c, const struct expect *e, int i,
			const unsigned char *file)
{
	static unsigned char dec[MAXP];
	const char *stored = (const char *)file + c->offset + 64;

	CHECK_EQ(c->hdr.seq, i);
	CHECK_EQ(c->hdr.records, i);
	CHECK_EQ(c->len, e->len);
	CHECK_EQ(c->hdr.raw_len, e->len);
	CHECK(e->len == 0 || memcmp(c->payload, e->data, e->len) == 0);
	if (e->kind == K_RANDOM || e->len == 0)
		CHECK_EQ(c->hdr.codec, PREC_CODEC_NONE);
	if ((e->kind == K_RECORDS || e->kind == K_TEXT || e->kind == K_ZEROS) && e->len >= 256)
		CHECK_EQ(c->hdr.codec, PREC_CODEC_LZ4);
	if (c->hdr.codec == PREC_CODEC_NONE) {
		CHECK_EQ(c->hdr.payload_len, e->len);
		return;
	}
	CHECK(c->hdr.payload_len < e->len);
	CHECK_EQ(LZ4_decompress_safe(stored, (char *)dec, (int)c->hdr.payload_len, MAXP),
		 (int)e->len);
	CHECK(memcmp(dec, e->data, e->len) == 0);
}

/* Read name back through the file and the memory paths. Returns the
 * stored payload bytes of the chunks with compressible data. */
static void read_level(int dirfd, const char *name, const struct expect *e,
		       const struct prec_shard_writer_stats *st)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint64_t raw = 0, stored = 0;
	size_t flen;
	unsigned char *file = slurp(dirfd, name, &flen);

	for (int path = 0; path < 2; path++) {
		if (path == 0)
			CHECK_EQ(prec_shard_reader__open(&r, dirfd, name), 0);
		else
			CHECK_EQ(prec_shard_reader__open_mem(&r, file, flen), 0);
		for (int i = 0; i < NCH; i++) {
			CHECK_EQ(prec_shard_reader__next(r, &c), 1);
			check_chunk(&c, &e[i], i, file);
			raw += c.hdr.raw_len;
			stored += c.hdr.payload_len;
		}
		CHECK_EQ(prec_shard_reader__next(r, &c), 0);
		CHECK_EQ(prec_shard_reader__offset(r), flen);
		prec_shard_reader__close(r);
	}
	CHECK_EQ(st->chunks, NCH);
	CHECK_EQ(st->raw_bytes * 2, raw);
	CHECK_EQ(st->payload_bytes * 2, stored);
	CHECK_EQ(st->file_bytes, flen);
	CHECK_EQ(flen, 64 + 64 * NCH + st->payload_bytes);
	free(file);
}

static void every_level(int dirfd, uint64_t *rng)
{
	static struct expect e[NCH];
	struct prec_shard_writer_stats st;
	char name[32];

	for (int level = 0; level <= 12; level++) {
		snprintf(name, sizeof(name), "level%d.shard", level);
		write_level(dirfd, name, level, rng, e, &st);
		read_level(dirfd, name, e, &st);
		printf("level %2d: %llu raw -> %llu stored (%.2fx)\n", level,
		       (unsigned long long)st.raw_bytes, (unsigned long long)st.payload_bytes,
		       (double)st.raw_bytes / (double)st.payload_bytes);
		for (int i = 0; i < NCH; i++)
			free(e[i].data);
		unlinkat(dirfd, name, 0);
	}
}

/* ---- lying payloads behind valid checksums ---- */

#define NBAD 3
static unsigned char *file;
static size_t file_len;
static uint64_t offs[NBAD + 1];
static struct prec_chunk_header hdrs[NBAD];

/* Three lz4 chunks: records, text, and a full one of zeros. */
static void write_bad_base(int dirfd, uint64_t *rng)
{
	struct prec_shard_writer_opts o = { .cpu = 0, .codec = PREC_CODEC_LZ4 };
	static unsigned char src[MAXP];
	static const enum kind kinds[NBAD] = { K_RECORDS, K_TEXT, K_ZEROS };
	static const uint32_t lens[NBAD] = { 5000, 3000, MAXP };
	struct prec_shard_writer *w;
	struct prec_shard_reader *r;
	struct prec_chunk c;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "bad.shard", &o), 0);
	for (int i = 0; i < NBAD; i++) {
		struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA };
		struct iovec v = { src, lens[i] };

		fill(src, lens[i], kinds[i], rng);
		CHECK(prec_shard_writer__append(w, &m, &v, 1) > 0);
	}
	CHECK_EQ(prec_shard_writer__close(w), 0);
	file = slurp(dirfd, "bad.shard", &file_len);
	CHECK_EQ(prec_shard_reader__open_mem(&r, file, file_len), 0);
	for (int i = 0; i < NBAD; i++) {
		CHECK_EQ(prec_shard_reader__next(r, &c), 1);
		CHECK_EQ(c.hdr.codec, PREC_CODEC_LZ4);
		offs[i] = c.offset;
		memcpy(&hdrs[i], file + c.offset, 64);
	}
	offs[NBAD] = prec_shard_reader__offset(r);
	prec_shard_reader__close(r);
	unlinkat(dirfd, "bad.shard", 0);
}

/* The file with chunk k replaced by header h and payload pay[0..plen), its
 * checksum made valid, later chunks kept. Returns an exact-size copy. */
static unsigned char *patched(int k, struct prec_chunk_header h, const void *pay,
			      uint32_t plen, size_t *len)
{
	size_t tail = file_len - offs[k + 1];
	unsigned char *b;

	*len = offs[k] + 64 + plen + tail;
	b = malloc(*len);
	CHECK(b);
	h.payload_len = plen;
	h.checksum = 0;
	h.checksum = prec_crc32c(prec_crc32c(0, &h, 64), pay, plen);
	memcpy(b, file, offs[k]);
	memcpy(b + offs[k], &h, 64);
	memcpy(b + offs[k] + 64, pay, plen);
	memcpy(b + offs[k] + 64 + plen, file + offs[k + 1], tail);
	return b;
}

/* Read b: chunks before k whole, then chunk k. Returns next()'s result for
 * chunk k; on -EBADMSG the offset is checked and *why set. */
static int read_patched(unsigned char *b, size_t len, int k, const char **why)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int res;

	CHECK_EQ(prec_shard_reader__open_mem(&r, b, len), 0);
	for (int i = 0; i < k; i++)
		CHECK_EQ(prec_shard_reader__next(r, &c), 1);
	res = prec_shard_reader__next(r, &c);
	if (res == 1) {
		CHECK_EQ(c.len, c.hdr.raw_len);
	} else {
		CHECK_EQ(res, -EBADMSG);
		CHECK_EQ(prec_shard_reader__offset(r), offs[k]);
		*why = prec_shard_reader__why(r);
		/* Sticky. */
		CHECK_EQ(prec_shard_reader__next(r, &c), -EBADMSG);
	}
	prec_shard_reader__close(r);
	free(b);
	return res;
}

static void expect_bad(int k, struct prec_chunk_header h, const void *pay, uint32_t plen,
		       const char *want, const char *what)
{
	const char *why = "";
	size_t len;
	unsigned char *b = patched(k, h, pay, plen, &len);
	int res = read_patched(b, len, k, &why);

	if (res != -EBADMSG || strcmp(why, want)) {
		fprintf(stderr, "chunk %d, %s: result %d (%s), want -EBADMSG (%s)\n", k, what,
			res, why, want);
		exit(1);
	}
}

static void lying_lengths(int k)
{
	struct prec_chunk_header h = hdrs[k];
	const unsigned char *pay = file + offs[k] + 64;
	uint32_t plen = h.payload_len, bound = (uint32_t)LZ4_COMPRESSBOUND(READ_MAXP);
	unsigned char *big = calloc(1, bound + 16);
	static const uint8_t zeros[16];

	CHECK(big);
	h.raw_len = hdrs[k].raw_len + 1;
	expect_bad(k, h, pay, plen, h.raw_len > READ_MAXP ? "raw length too large" : "bad lz4 payload",
		   "raw_len + 1");
	h.raw_len = hdrs[k].raw_len - 1;
	expect_bad(k, h, pay, plen, "bad lz4 payload", "raw_len - 1");
	h.raw_len = 0;
	expect_bad(k, h, pay, plen, "empty lz4 payload", "raw_len 0");
	h.raw_len = READ_MAXP + 1;
	expect_bad(k, h, pay, plen, "raw length too large", "raw_len over the maximum");
	h.raw_len = hdrs[k].raw_len;
	expect_bad(k, h, pay, 0, "empty lz4 payload", "payload_len 0");
	/* A stream cut short decodes to less than raw_len, or not at all. */
	expect_bad(k, h, pay, plen - 1, "bad lz4 payload", "cut by one byte");
	expect_bad(k, h, pay, plen / 2, "bad lz4 payload", "cut in half");
	expect_bad(k, h, pay, 1, "bad lz4 payload", "one byte left");
	/* Trailing zeros parse as a sequence with offset 0 or a match past
	 * the end: either way the stream is not exactly raw_len. */
	memcpy(big, pay, plen);
	memcpy(big + plen, zeros, sizeof(zeros));
	expect_bad(k, h, big, plen + 16, "bad lz4 payload", "trailing bytes");
	memset(big + plen, 0, bound + 16 - plen);
	expect_bad(k, h, big, bound + 1, "payload too large", "payload over the lz4 bound");
	h.codec = 2;
	expect_bad(k, h, pay, plen, "bad codec", "unknown codec");
	h.codec = PREC_CODEC_NONE;
	expect_bad(k, h, pay, plen, "raw length differs from payload length", "codec NONE");
	free(big);
}

/* Hand-made streams: a match reaching before the output, a literal run
 * past the input, a valid block that decodes past the largest chunk. */
static void crafted(int k)
{
	static const uint8_t back[] = { 0x40, 'a', 'b', 'c', 'd', 0xff, 0xff, 0x50, 1, 2, 3, 4, 5 };
	static const uint8_t runaway[] = { 0xf0, 0xff, 0xff, 0xff, 0x10, 'a', 'b' };
	struct prec_chunk_header h = hdrs[k];
	unsigned char *src = calloc(1, READ_MAXP + 4096);
	int cap = LZ4_compressBound(READ_MAXP + 4096);
	char *z = malloc((size_t)cap);
	int zn;

	CHECK(src && z);
	h.raw_len = 17;
	expect_bad(k, h, back, sizeof(back), "bad lz4 payload", "match before the output");
	h.raw_len = 100;
	expect_bad(k, h, runaway, sizeof(runaway), "bad lz4 payload", "literals past the input");
	zn = LZ4_compress_default((const char *)src, z, READ_MAXP + 4096, cap);
	CHECK(zn > 0);
	h.raw_len = READ_MAXP;
	expect_bad(k, h, z, (uint32_t)zn, "bad lz4 payload", "decodes past the maximum");
	/* The same block, honest about its size but for one byte less room. */
	zn = LZ4_compress_default((const char *)src, z, READ_MAXP, cap);
	h.raw_len = READ_MAXP - 1;
	expect_bad(k, h, z, (uint32_t)zn, "bad lz4 payload", "one byte too many");
	/* And exactly right: a valid chunk (the checksum is integrity, not
	 * authenticity), read whole. */
	h.raw_len = READ_MAXP;
	{
		const char *why = "";
		size_t len;
		unsigned char *b = patched(k, h, z, (uint32_t)zn, &len);

		CHECK_EQ(read_patched(b, len, k, &why), 1);
	}
	free(src);
	free(z);
}

/* Random damage to the compressed bytes with the checksum made valid:
 * each read either fails at this chunk as a bad lz4 payload or yields
 * exactly raw_len bytes; ASan sees any read outside the stored bytes or
 * any write past the output buffer. */
static void mutations(int k, uint64_t *rng, int rounds)
{
	struct prec_chunk_header h = hdrs[k];
	uint32_t plen = h.payload_len;
	unsigned char *pay = malloc(plen);
	int bad = 0;

	CHECK(pay);
	for (int s = 0; s < rounds; s++) {
		const char *why = "";
		size_t len;
		int flips = 1 + (int)(test_rand(rng) % 3), res;
		unsigned char *b;

		memcpy(pay, file + offs[k] + 64, plen);
		for (int f = 0; f < flips; f++)
			pay[test_rand(rng) % plen] ^= (unsigned char)(1 + test_rand(rng) % 255);
		b = patched(k, h, pay, plen, &len);
		res = read_patched(b, len, k, &why);
		if (res == -EBADMSG) {
			CHECK(strcmp(why, "bad lz4 payload") == 0);
			bad++;
		}
	}
	printf("chunk %d: %d of %d damaged streams refused, the rest decoded to exactly raw_len\n",
	       k, bad, rounds);
	CHECK(bad > 0);
	free(pay);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	uint64_t rng = test_seed();
	char *dir = test_tmpdir("lz4-codec");
	int dirfd = open(dir, O_DIRECTORY | O_RDONLY);
	int rounds = getenv("TEST_ITERS") ? atoi(getenv("TEST_ITERS")) : 400;

	CHECK(dirfd >= 0);
	load_elf();
	every_level(dirfd, &rng);
	write_bad_base(dirfd, &rng);
	for (int k = 0; k < NBAD; k++) {
		lying_lengths(k);
		crafted(k);
		mutations(k, &rng, rounds);
	}
	free(file);
	free(elf);
	close(dirfd);
	test_rmdir(dir);
	free(dir);
	printf("ok\n");
	return 0;
}
