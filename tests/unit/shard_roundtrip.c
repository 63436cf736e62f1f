// SPDX-License-Identifier: MIT
// Shard writer -> reader round trip: random chunk streams (data/aux/marker,
// 0..PREC_CHUNK_MAX_PAYLOAD bytes, random metadata) framed from a simulated
// wrapped ring (two spans), in zero-copy, copy and lz4 modes, each of the
// last two also with O_DIRECT, read back byte-identical with identical
// metadata and matching stats; plus sleep(), and the O_DIRECT writer's
// zero-padded last block.
#include "store/store.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_BYTES (1024u * 1024u)
#define MAX_CHUNKS 400

struct expect {
	struct prec_chunk_meta meta;
	uint32_t len;
	uint64_t seed;
	int compressible;
};

struct ring {
	unsigned char *mem;
	uint64_t head, tail;   /* monotonic byte counters */
	uint64_t end[MAX_CHUNKS];
	int64_t ticket[MAX_CHUNKS];
	int first, last;       /* FIFO of chunks whose bytes are in the ring */
};

static void gen_payload(unsigned char *dst, uint32_t len, uint64_t seed, int compressible)
{
	uint64_t s = seed | 1;

	for (uint32_t i = 0; i < len; i++) {
		uint64_t r = test_rand(&s);

		dst[i] = compressible ? (unsigned char)("abcd"[r & 3]) : (unsigned char)r;
	}
}

static void random_chunk(uint64_t *rng, struct expect *e)
{
	uint64_t r = test_rand(rng);

	memset(e, 0, sizeof(*e));
	e->meta.type = (enum prec_chunk_type)(1 + r % 3);
	switch ((r >> 8) % 8) {
	case 0: e->len = 0; break;
	case 1: e->len = PREC_CHUNK_MAX_PAYLOAD; break;
	case 2: case 3: e->len = (uint32_t)(test_rand(rng) % (PREC_CHUNK_MAX_PAYLOAD + 1)); break;
	default: e->len = (uint32_t)(test_rand(rng) % 4097); break;
	}
	if (e->meta.type == PREC_CHUNK_MARKER)
		e->len = 0;
	e->meta.records = (uint32_t)test_rand(rng);
	e->meta.first_time = (r >> 16) % 5 ? test_rand(rng) >> 2 : 0;
	e->meta.last_time = test_rand(rng) >> 1;
	e->meta.watermark = test_rand(rng);
	e->meta.aux_offset = test_rand(rng);
	e->meta.flags = (uint32_t)test_rand(rng);
	e->seed = test_rand(rng);
	e->compressible = (r >> 24) & 1;
}

/* Put len bytes into the ring as the caller's drain would, waiting until the
 * writer is done with the oldest chunks when the ring is full (zero-copy
 * rule). Returns the number of spans (0..2). */
static int ring_put(struct ring *rg, struct prec_shard_writer *w, const struct expect *e,
		    struct iovec span[2])
{
	static unsigned char tmp[PREC_CHUNK_MAX_PAYLOAD];
	uint32_t pos, first;

	while (rg->head + e->len - rg->tail > RING_BYTES) {
		CHECK(rg->first < rg->last);
		CHECK_EQ(prec_shard_writer__wait(w, rg->ticket[rg->first]), 0);
		CHECK(prec_shard_writer__done(w) >= rg->ticket[rg->first]);
		rg->tail = rg->end[rg->first++];
	}
	if (!e->len)
		return 0;
	gen_payload(tmp, e->len, e->seed, e->compressible);
	pos = (uint32_t)(rg->head % RING_BYTES);
	first = RING_BYTES - pos < e->len ? RING_BYTES - pos : e->len;
	memcpy(rg->mem + pos, tmp, first);
	memcpy(rg->mem, tmp + first, e->len - first);
	span[0].iov_base = rg->mem + pos;
	span[0].iov_len = first;
	span[1].iov_base = rg->mem;
	span[1].iov_len = e->len - first;
	rg->head += e->len;
	return e->len > first ? 2 : 1;
}

static void expect_stats(const struct expect *e, int n, struct prec_shard_writer_stats *x)
{
	memset(x, 0, sizeof(*x));
	x->file_bytes = sizeof(struct prec_shard_header);
	for (int i = 0; i < n; i++) {
		x->chunks++;
		x->records += e[i].meta.records;
		x->raw_bytes += e[i].len;
		if (e[i].meta.first_time && (!x->first_time || e[i].meta.first_time < x->first_time))
			x->first_time = e[i].meta.first_time;
		if (e[i].meta.last_time > x->last_time)
			x->last_time = e[i].meta.last_time;
	}
}

static void check_chunk(const struct prec_chunk *c, const struct expect *e, int seq,
			enum prec_codec codec)
{
	static unsigned char want[PREC_CHUNK_MAX_PAYLOAD];

	CHECK_EQ(c->hdr.magic, PREC_CHUNK_MAGIC);
	CHECK_EQ(c->hdr.type, e->meta.type);
	CHECK_EQ(c->hdr.header_size, 64);
	CHECK_EQ(c->hdr.seq, seq);
	CHECK_EQ(c->hdr.raw_len, e->len);
	CHECK_EQ(c->len, e->len);
	if (codec == PREC_CODEC_NONE)
		CHECK_EQ(c->hdr.codec, PREC_CODEC_NONE);
	if (c->hdr.codec == PREC_CODEC_NONE)
		CHECK_EQ(c->hdr.payload_len, e->len);
	else
		CHECK(c->hdr.payload_len < e->len);
	CHECK_EQ(c->hdr.records, e->meta.records);
	CHECK(c->hdr.first_time == e->meta.first_time);
	CHECK(c->hdr.last_time == e->meta.last_time);
	CHECK(c->hdr.watermark == e->meta.watermark);
	CHECK(c->hdr.aux_offset == e->meta.aux_offset);
	CHECK(c->hdr.flags == e->meta.flags);
	gen_payload(want, e->len, e->seed, e->compressible);
	CHECK(memcmp(c->payload, want, e->len) == 0);
}

/* Read the shard back (file and memory paths) and compare with e[0..n). */
static uint64_t read_back(int dirfd, const char *name, const struct expect *e, int n,
			  const struct prec_shard_writer_opts *o)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint64_t stored = 0;
	static unsigned char filebuf[MAX_CHUNKS * (PREC_CHUNK_MAX_PAYLOAD + 64) / 4];
	ssize_t flen;
	int fd;

	CHECK_EQ(prec_shard_reader__open(&r, dirfd, name), 0);
	CHECK_EQ(prec_shard_reader__header(r)->cpu, o->cpu);
	CHECK_EQ(prec_shard_reader__header(r)->version_major, PREC_FORMAT_MAJOR);
	CHECK(memcmp(prec_shard_reader__header(r)->session_id, o->session_id, 16) == 0);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(prec_shard_reader__next(r, &c), 1);
		check_chunk(&c, &e[i], i, o->codec);
		stored += c.hdr.payload_len;
	}
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	prec_shard_reader__close(r);

	fd = openat(dirfd, name, O_RDONLY);
	CHECK(fd >= 0);
	flen = read(fd, filebuf, sizeof(filebuf));
	close(fd);
	CHECK(flen > 0 && (size_t)flen < sizeof(filebuf));
	CHECK_EQ(prec_shard_reader__open_mem(&r, filebuf, (size_t)flen), 0);
	for (int i = 0; i < n; i++) {
		CHECK_EQ(prec_shard_reader__next(r, &c), 1);
		check_chunk(&c, &e[i], i, o->codec);
	}
	CHECK_EQ(prec_shard_reader__next(r, &c), 0);
	CHECK_EQ(prec_shard_reader__offset(r), flen);
	prec_shard_reader__close(r);
	return stored;
}

static void random_opts(uint64_t *rng, int mode, struct prec_shard_writer_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->cpu = (int32_t)(test_rand(rng) % 5) - 1;
	for (int i = 0; i < 16; i++)
		o->session_id[i] = (uint8_t)test_rand(rng);
	o->queue_depth = test_rand(rng) % 2 ? 0 : 1 + (unsigned int)(test_rand(rng) % 16);
	o->batch_bytes = test_rand(rng) % 2 ? 0 : 1 + test_rand(rng) % (3 * PREC_CHUNK_MAX_PAYLOAD);
	o->copy = mode >= 1;
	o->staging_bytes = test_rand(rng) % 2 ? 0 : test_rand(rng) % (4 * RING_BYTES);
	o->codec = mode == 2 || mode == 4 ? PREC_CODEC_LZ4 : PREC_CODEC_NONE;
	o->lz4_level = o->codec == PREC_CODEC_LZ4 && test_rand(rng) % 4 == 0 ? 3 : 0;
	o->direct = mode >= 3;
}

static void check_stats(int dirfd, const char *name, const struct expect *e, int n,
			const struct prec_shard_writer_stats *st)
{
	struct prec_shard_writer_stats x;
	struct stat sb;

	expect_stats(e, n, &x);
	CHECK_EQ(st->chunks, x.chunks);
	CHECK_EQ(st->records, x.records);
	CHECK_EQ(st->raw_bytes, x.raw_bytes);
	CHECK(st->first_time == x.first_time);
	CHECK(st->last_time == x.last_time);
	CHECK_EQ(fstatat(dirfd, name, &sb, 0), 0);
	CHECK_EQ(st->file_bytes, sb.st_size);
	CHECK_EQ(st->file_bytes, 64 + 64 * st->chunks + st->payload_bytes);
	CHECK_EQ(sb.st_mode & 0777, 0600);
}

/* Does the test directory's file system take O_DIRECT? */
static bool dio_here;

/* The ring the chunks of one stream come from; freed once its writer is
 * closed (without copy the writer reads it until then). */
static struct ring rg;

/* n random chunks through the ring, as a drainer appends them; returns the
 * last ticket. */
static int64_t append_chunks(uint64_t *rng, struct prec_shard_writer *w,
			     const struct prec_shard_writer_opts *o, struct expect *e, int n)
{
	int64_t last = 0;

	memset(&rg, 0, sizeof(rg));
	rg.mem = malloc(RING_BYTES);
	CHECK(rg.mem);
	for (int i = 0; i < n; i++) {
		struct iovec span[2];
		int nspan;
		int64_t t;

		random_chunk(rng, &e[i]);
		nspan = ring_put(&rg, w, &e[i], span);
		t = prec_shard_writer__append(w, &e[i].meta, span, nspan);
		CHECK_EQ(t, last + 1);
		last = t;
		rg.ticket[rg.last] = t;
		rg.end[rg.last++] = rg.head;
		if (o->copy) {
			/* The caller's memory is free at once in copy mode. */
			CHECK(prec_shard_writer__done(w) >= t);
			if (nspan)
				memset(span[0].iov_base, 0x5a, span[0].iov_len);
		}
		CHECK(prec_shard_writer__done(w) <= t);
		/* An idle round now and then: O_DIRECT writes the partial
		 * last block, padded, and rewrites it with the next ones. */
		if (test_rand(rng) % 16 == 0)
			CHECK_EQ(prec_shard_writer__sleep(w, NULL, 0, 1000000), 0);
	}
	return last;
}

static void one_stream(uint64_t *rng, int dirfd, int mode, int iter)
{
	static struct expect e[MAX_CHUNKS];
	struct prec_shard_writer_opts o;
	struct prec_shard_writer *w;
	struct prec_shard_writer_stats st;
	char name[64];
	int n = 1 + (int)(test_rand(rng) % (MAX_CHUNKS / 4));
	int64_t last;

	random_opts(rng, mode, &o);
	snprintf(name, sizeof(name), "m%d-%d.shard", mode, iter);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, name, &o), 0);
	{
		struct prec_shard_writer *w2 = (void *)1;

		CHECK_EQ(prec_shard_writer__open(&w2, dirfd, name, &o), -EEXIST);
		CHECK(w2 == NULL);
	}
	CHECK_EQ(prec_shard_writer__direct(w), o.direct && dio_here);
	last = append_chunks(rng, w, &o, e, n);
	CHECK_EQ(prec_shard_writer__flush(w), 0);
	CHECK_EQ(prec_shard_writer__done(w), last);
	prec_shard_writer__stats(w, &st);
	CHECK_EQ(prec_shard_writer__error(w), 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	free(rg.mem);

	check_stats(dirfd, name, e, n, &st);
	CHECK_EQ(read_back(dirfd, name, e, n, &o), st.payload_bytes);
	if (mode == 0 || mode == 1 || mode == 3)
		CHECK_EQ(st.payload_bytes, st.raw_bytes);
	for (int i = 0; (mode == 2 || mode == 4) && i < n; i++)
		if (e[i].compressible && e[i].len >= 1024) {
			/* "abcd" text shrinks: lz4 really was used. */
			CHECK(st.payload_bytes < st.raw_bytes);
			break;
		}
	unlinkat(dirfd, name, 0);
}

static void bad_args(int dirfd)
{
	struct prec_shard_writer_opts o;
	struct prec_shard_writer *w;
	struct prec_chunk_meta m = { .type = PREC_CHUNK_MARKER };
	struct iovec v = { .iov_base = &m, .iov_len = 1 };
	struct iovec big[2] = { { &m, PREC_CHUNK_MAX_PAYLOAD }, { &m, 1 } };

	memset(&o, 0, sizeof(o));
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "args.shard", &o), 0);
	CHECK_EQ(prec_shard_writer__append(w, &m, &v, 1), -EINVAL); /* marker + payload */
	m.type = PREC_CHUNK_DATA;
	CHECK_EQ(prec_shard_writer__append(w, &m, big, 2), -EINVAL);
	CHECK_EQ(prec_shard_writer__append(w, &m, &v, 3), -EINVAL);
	m.type = (enum prec_chunk_type)9;
	CHECK_EQ(prec_shard_writer__append(w, &m, NULL, 0), -EINVAL);
	CHECK_EQ(prec_shard_writer__wait(w, 1), -EINVAL);
	CHECK_EQ(prec_shard_writer__error(w), 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	CHECK_EQ(prec_shard_writer__close(NULL), 0);
	unlinkat(dirfd, "args.shard", 0);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* sleep(): timeouts, readiness of each fd as a bit, polls kept armed. */
static void sleep_wakeups(int dirfd)
{
	struct prec_shard_writer_opts o;
	struct prec_shard_writer *w;
	struct prec_chunk_meta m = { .type = PREC_CHUNK_MARKER };
	uint64_t t0, one = 1, v;
	int efd[2], fds[2];

	memset(&o, 0, sizeof(o));
	efd[0] = eventfd(0, EFD_NONBLOCK);
	efd[1] = eventfd(0, EFD_NONBLOCK);
	CHECK(efd[0] >= 0 && efd[1] >= 0);
	fds[0] = efd[0];
	fds[1] = efd[1];
	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "sleep.shard", &o), 0);
	t0 = now_ns();
	CHECK_EQ(prec_shard_writer__sleep(w, fds, 2, 20000000), 0);
	CHECK(now_ns() - t0 >= 19000000);
	CHECK_EQ(prec_shard_writer__sleep(w, NULL, 0, 1000000), 0);
	/* Readiness between two calls is not lost. */
	CHECK(write(efd[1], &one, 8) == 8);
	t0 = now_ns();
	CHECK_EQ(prec_shard_writer__sleep(w, fds, 2, 5000000000ull), 2);
	CHECK(now_ns() - t0 < 1000000000ull);
	CHECK(read(efd[1], &v, 8) == 8);
	CHECK_EQ(prec_shard_writer__sleep(w, fds, 2, 10000000), 0);
	CHECK(write(efd[0], &one, 8) == 8);
	CHECK(write(efd[1], &one, 8) == 8);
	/* Appends reap completions, and must not swallow the wake-ups. */
	for (int i = 0; i < 10; i++)
		CHECK(prec_shard_writer__append(w, &m, NULL, 0) > 0);
	CHECK_EQ(prec_shard_writer__wait(w, 10), 0);
	CHECK_EQ(prec_shard_writer__sleep(w, fds, 2, 5000000000ull), 3);
	CHECK(read(efd[0], &v, 8) == 8);
	CHECK(read(efd[1], &v, 8) == 8);
	/* A different fd set replaces the old polls. */
	CHECK_EQ(prec_shard_writer__sleep(w, &efd[1], 1, 10000000), 0);
	CHECK(write(efd[0], &one, 8) == 8);
	CHECK_EQ(prec_shard_writer__sleep(w, &efd[1], 1, 10000000), 0);
	CHECK(write(efd[1], &one, 8) == 8);
	CHECK_EQ(prec_shard_writer__sleep(w, &efd[1], 1, 5000000000ull), 1);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	close(efd[0]);
	close(efd[1]);
	unlinkat(dirfd, "sleep.shard", 0);
}

static int64_t put_small(struct prec_shard_writer *w, unsigned char fill)
{
	static unsigned char buf[100];
	struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = 1 };
	struct iovec v = { .iov_base = buf, .iov_len = sizeof(buf) };

	memset(buf, fill, sizeof(buf));
	return prec_shard_writer__append(w, &m, &v, 1);
}

static int read_chunks(int dirfd, const char *name, const char **why)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	int n = 0, ret;

	CHECK_EQ(prec_shard_reader__open(&r, dirfd, name), 0);
	while ((ret = prec_shard_reader__next(r, &c)) == 1) {
		CHECK_EQ(c.len, 100);
		CHECK_EQ(((const unsigned char *)c.payload)[99], 'a' + n);
		n++;
	}
	*why = ret < 0 ? prec_shard_reader__why(r) : NULL;
	prec_shard_reader__close(r);
	return n;
}

static off_t file_size(int dirfd, const char *name)
{
	struct stat sb;

	CHECK_EQ(fstatat(dirfd, name, &sb, 0), 0);
	return sb.st_size;
}

/* O_DIRECT: data that waited 100 ms is written, partial last block
 * zero-padded (the file then ends in zeros a reader takes for a torn tail,
 * as after a crash); flush cuts the padding off. */
static void direct_tail(int dirfd)
{
	struct prec_shard_writer_opts o = { .copy = true, .direct = true };
	struct prec_shard_writer *w;
	const char *why;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "tail.shard", &o), 0);
	for (int i = 0; i < 3; i++)
		CHECK(put_small(w, (unsigned char)('a' + i)) > 0);
	/* Too little for a batch: nothing written yet. */
	CHECK_EQ(prec_shard_writer__sleep(w, NULL, 0, 1000000), 0);
	CHECK_EQ(file_size(dirfd, "tail.shard"), 64);
	/* Once it has waited over 100 ms it is written (the first sleep
	 * starts the write as it ends, the second reaps it). */
	CHECK_EQ(prec_shard_writer__sleep(w, NULL, 0, 150000000), 0);
	/* on a loaded machine the write may take longer than one short sleep */
	for (int i = 0; i < 500 && file_size(dirfd, "tail.shard") == 64; i++)
		CHECK_EQ(prec_shard_writer__sleep(w, NULL, 0, 10000000), 0);
	CHECK_EQ(file_size(dirfd, "tail.shard"), 4096);
	CHECK_EQ(read_chunks(dirfd, "tail.shard", &why), 3);
	CHECK(why && !strcmp(why, "torn chunk header (zeros)"));
	CHECK(put_small(w, 'd') > 0);
	CHECK_EQ(prec_shard_writer__flush(w), 0);
	CHECK_EQ(file_size(dirfd, "tail.shard"), 64 + 4 * (64 + 100));
	CHECK_EQ(read_chunks(dirfd, "tail.shard", &why), 4);
	CHECK(why == NULL);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	unlinkat(dirfd, "tail.shard", 0);
}

/* wait_ns_max: 0 while appends find room; with one queue slot, a second
 * append waits for the first write, and that wait is measured. */
static void wait_measured(int dirfd)
{
	struct prec_shard_writer_opts o = { .queue_depth = 1 };
	struct prec_shard_writer_stats st;
	struct prec_shard_writer *w;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd, "wait.shard", &o), 0);
	CHECK(put_small(w, 'a') > 0);
	prec_shard_writer__stats(w, &st);
	CHECK_EQ(st.wait_ns_max, 0);
	CHECK(put_small(w, 'b') > 0);
	prec_shard_writer__stats(w, &st);
	CHECK(st.wait_ns_max > 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	unlinkat(dirfd, "wait.shard", 0);
}

static bool probe_dio(int dirfd)
{
	int fd = openat(dirfd, "probe", O_WRONLY | O_CREAT | O_DIRECT, 0600);

	if (fd < 0)
		return false;
	close(fd);
	unlinkat(dirfd, "probe", 0);
	return true;
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	uint64_t rng = test_seed();
	char *dir = test_tmpdir("shard-rt");
	int dirfd = open(dir, O_DIRECTORY | O_RDONLY);
	int iters = getenv("TEST_ITERS") ? atoi(getenv("TEST_ITERS")) : 8;

	CHECK(dirfd >= 0);
	bad_args(dirfd);
	sleep_wakeups(dirfd);
	wait_measured(dirfd);
	dio_here = probe_dio(dirfd);
	if (dio_here)
		direct_tail(dirfd);
	else
		printf("note: no O_DIRECT in %s, the direct modes run buffered\n", dir);
	for (int mode = 0; mode < 5; mode++)
		for (int i = 0; i < iters; i++)
			one_stream(&rng, dirfd, mode, i);
	close(dirfd);
	test_rmdir(dir);
	free(dir);
	printf("ok\n");
	return 0;
}
