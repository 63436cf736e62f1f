// SPDX-License-Identifier: MIT
// Benchmark: what n interleaved streams cost the memory system, whatever
// merges them. FILE is cut into n streams of CHUNK_KIB (default 64 KiB, the
// writers' chunks) chunks; the streams are
// consumed in turn, BURST 160-byte records of one stream per turn, each
// record's first and fourth words read (a merge reads a record's size and
// time). How a chunk arrives:
//   pread      into the stream's two buffers in turn, checksummed whole on
//              arrival (prec's shard reader today)
//   mmap       a window of two chunks of the file mapped per stream
//              (MAP_POPULATE), each chunk checksummed whole when reached
//   mmap-lazy  the same window, each record checksummed as it is consumed,
//              so every byte is touched once
//   uring      as pread, but each stream's next chunk is read ahead into its
//              other buffer through one io_uring, the reads of every stream
//              submitted together (one system call for up to 256 of them)
//              when a stream reaches a chunk not read yet: what batching
//              the reads would save where a system call costs ~1.4 us
// A merge of shards of equal rates visits them one record at a time (BURST
// 1). bench/results/read_patterns.md has the figures and what they say about
// the merge.
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "store/store.h"

#define REC 160u

enum mode { M_PREAD, M_MMAP, M_MMAP_LAZY, M_URING };

struct stream {
	int fd;
	uint64_t off, end;  /* file range still to read */
	uint8_t *buf[2];
	unsigned int cur;
	uint8_t *map;
	uint64_t map_off;
	const uint8_t *p;   /* the chunk being consumed */
	uint32_t pos, len;
	uint32_t ahead;     /* uring: bytes asked for in the other buffer */
	bool queued;        /* uring: that read is not submitted yet */
};

static enum mode mode;
static uint32_t chunk = 64u << 10; /* bytes read (or checked) at a time */
static uint32_t map_win;           /* two chunks */
static uint32_t crc_sink;
static struct io_uring ring;
static struct stream *streams;

#define RING_ENTRIES 256u

/* Submit the queued reads and reap them all (reads of cached pages complete
 * within the submission). */
static int flush_reads(void)
{
	struct io_uring_cqe *cqe;
	int r = io_uring_submit(&ring);

	for (; r > 0; r--) {
		struct stream *s;

		if (io_uring_wait_cqe(&ring, &cqe) < 0)
			return -EIO;
		s = &streams[cqe->user_data];
		if (cqe->res != (int)s->ahead)
			return -EIO;
		s->queued = false;
		io_uring_cqe_seen(&ring, cqe);
	}
	return r < 0 ? r : 0;
}

/* Queue the read of s's next chunk into the buffer it does not consume. */
static int read_ahead(struct stream *s, unsigned int idx)
{
	struct io_uring_sqe *sqe;

	s->ahead = s->end - s->off < chunk ? (uint32_t)(s->end - s->off) : chunk;
	if (!s->ahead)
		return 0;
	sqe = io_uring_get_sqe(&ring);
	if (!sqe) {
		int r = flush_reads();

		if (r < 0)
			return r;
		sqe = io_uring_get_sqe(&ring);
	}
	io_uring_prep_read(sqe, s->fd, s->buf[s->cur ^ 1], s->ahead, s->off);
	sqe->user_data = idx;
	s->queued = true;
	return 0;
}

/* uring: the chunk read ahead becomes the one consumed; the next is queued. */
static int take_ahead(struct stream *s)
{
	uint32_t n = s->ahead;

	if (!n)
		return 0;
	if (s->queued) {
		int r = flush_reads();

		if (r < 0)
			return r;
	}
	s->cur ^= 1;
	s->p = s->buf[s->cur];
	crc_sink ^= prec_crc32c(0, s->p, n);
	s->off += n;
	s->pos = 0;
	s->len = n;
	return read_ahead(s, (unsigned int)(s - streams)) < 0 ? -EIO : 1;
}

static int map_window(struct stream *s)
{
	if (s->map)
		munmap(s->map, map_win);
	s->map_off = s->off;
	s->map = mmap(NULL, map_win, PROT_READ, MAP_SHARED | MAP_POPULATE, s->fd,
		      (off_t)s->map_off);
	if (s->map == MAP_FAILED) {
		s->map = NULL;
		return -errno;
	}
	return 0;
}

/* The stream's next chunk; 0 at its end, -errno. */
static int next_chunk(struct stream *s)
{
	uint32_t n;

	if (mode == M_URING)
		return take_ahead(s);
	if (s->off >= s->end)
		return 0;
	n = s->end - s->off < chunk ? (uint32_t)(s->end - s->off) : chunk;
	if (mode == M_PREAD) {
		s->cur ^= 1;
		if (pread(s->fd, s->buf[s->cur], n, (off_t)s->off) != (ssize_t)n)
			return -EIO;
		s->p = s->buf[s->cur];
	} else {
		if (!s->map || s->off + n > s->map_off + map_win) {
			int r = map_window(s);

			if (r < 0)
				return r;
		}
		s->p = s->map + (s->off - s->map_off);
	}
	if (mode != M_MMAP_LAZY)
		crc_sink ^= prec_crc32c(0, s->p, n);
	s->off += n;
	s->pos = 0;
	s->len = n;
	return 1;
}

/* Up to burst records of s; false once s is exhausted. */
static bool consume(struct stream *s, unsigned int burst, uint64_t *sum, uint64_t *bytes)
{
	for (unsigned int k = 0; k < burst; k++) {
		uint64_t a, b;
		uint32_t take;

		if (s->pos >= s->len) {
			int r = next_chunk(s);

			if (r < 0) {
				fprintf(stderr, "read_patterns: read: %s\n", strerror(-r));
				exit(1);
			}
			if (!r)
				return false;
		}
		take = s->len - s->pos < REC ? s->len - s->pos : REC;
		if (mode == M_MMAP_LAZY)
			crc_sink ^= prec_crc32c(0, s->p + s->pos, take);
		memcpy(&a, s->p + s->pos, sizeof(a));
		memcpy(&b, s->p + s->pos + (take >= 32 ? 24 : 0), sizeof(b));
		*sum += a ^ b;
		*bytes += take;
		s->pos += take;
	}
	return true;
}

static enum mode parse_mode(const char *s)
{
	if (!strcmp(s, "pread"))
		return M_PREAD;
	if (!strcmp(s, "mmap"))
		return M_MMAP;
	if (!strcmp(s, "mmap-lazy"))
		return M_MMAP_LAZY;
	if (!strcmp(s, "uring"))
		return M_URING;
	fprintf(stderr, "read_patterns: mode %s: pread, mmap, mmap-lazy or uring\n", s);
	exit(2);
}

static void open_streams(struct stream *st, unsigned int n, const char *file)
{
	struct stat sb;
	uint64_t each;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &sb) < 0) {
		fprintf(stderr, "read_patterns: %s: %s\n", file, strerror(errno));
		exit(1);
	}
	each = (uint64_t)sb.st_size / n / map_win * map_win;
	if (!each) {
		fprintf(stderr, "read_patterns: %s: too small for %u streams\n", file, n);
		exit(1);
	}
	for (unsigned int i = 0; i < n; i++) {
		st[i].fd = fd;
		st[i].off = each * i;
		st[i].end = st[i].off + each;
		st[i].buf[0] = aligned_alloc(4096, chunk);
		st[i].buf[1] = aligned_alloc(4096, chunk);
		if (!st[i].buf[0] || !st[i].buf[1])
			exit(1);
		if (mode == M_URING && read_ahead(&st[i], i) < 0)
			exit(1);
	}
}

int main(int argc, char **argv)
{
	uint64_t sum = 0, bytes = 0;
	unsigned int n, burst, live;
	struct stream *st;
	double t0, dt;

	if (argc < 4 || argc > 6) {
		fprintf(stderr, "usage: read_patterns FILE STREAMS pread|mmap|mmap-lazy|uring [BURST [CHUNK_KIB]]\n");
		return 2;
	}
	n = (unsigned int)strtoul(argv[2], NULL, 0);
	mode = parse_mode(argv[3]);
	burst = argc > 4 ? (unsigned int)strtoul(argv[4], NULL, 0) : 1;
	if (argc > 5)
		chunk = (uint32_t)strtoul(argv[5], NULL, 0) << 10;
	/* mmap offsets must be page aligned */
	if (!n || !burst || !chunk || chunk % 4096 || chunk > PREC_CHUNK_READ_MAX) {
		fprintf(stderr, "read_patterns: STREAMS and BURST must be positive, CHUNK_KIB a multiple of 4 up to %u\n",
			PREC_CHUNK_READ_MAX >> 10);
		return 2;
	}
	map_win = 2 * chunk;
	st = calloc(n, sizeof(*st));
	if (!st)
		return 1;
	streams = st;
	if (mode == M_URING && io_uring_queue_init(RING_ENTRIES, &ring, 0) < 0) {
		fprintf(stderr, "read_patterns: io_uring_queue_init failed\n");
		return 1;
	}
	open_streams(st, n, argv[1]);
	t0 = bench_now();
	do {
		live = 0;
		for (unsigned int i = 0; i < n; i++)
			live += consume(&st[i], burst, &sum, &bytes);
	} while (live);
	dt = bench_now() - t0;
	printf("streams %u mode %s burst %u chunk %u bytes %llu seconds %.3f GB/s %.2f (%x)\n", n,
	       argv[3], burst, chunk >> 10, (unsigned long long)bytes, dt, (double)bytes / dt / 1e9,
	       (unsigned int)((sum ^ crc_sink) & 0xf));
	return 0;
}
