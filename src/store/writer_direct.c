// SPDX-License-Identifier: MIT
// Shard writer, O_DIRECT: copy mode's staging laid out as a mirror of the
// file, written a block-aligned range at a time past the page cache. Two
// thirds of a drainer's CPU went into buffered writes (copying into page
// cache pages, then writeback); a direct write hands the staging memory to
// the disk as it is.
//
// The rules O_DIRECT sets, and how they are kept:
// - file offset, length and memory of every write aligned to blk: staging
//   is blk-aligned and holds file byte X at staging[X % st_size], with
//   st_size a multiple of blk, so any block-aligned file range is one or two
//   aligned pieces of staging;
// - the partial last block is written, when it must be (at flush, or when
//   data has waited too long), from its own zero-padded copy, and
//   rewritten whole later; so that a rewrite never races the write before
//   it, one write is in flight at a time;
// - writes are batches of whole blocks (dio_min..dio_cap bytes); when no
//   write started for DIO_MAX_AGE_NS (checked each time the drainer goes
//   to sleep), everything is written, partial block and all, which bounds
//   what a kill -9 loses;
// - the padding is cut off (ftruncate) when the writer is flushed. After a
//   crash a shard may end in zeros, which readers take as a torn tail.
// Staging is registered with the io_uring where the memlock limit allows,
// and batches are then fixed-buffer writes of one piece each.
#include "store/shard_writer.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HDR_SIZE ((uint32_t)sizeof(struct prec_chunk_header))
#define MIN_BLK 4096u
#define MAX_BLK (64u * 1024u)
/* No write for this long: write everything at the next sleep. */
#define DIO_MAX_AGE_NS (100ull * 1000 * 1000)

static uint64_t down(const struct prec_shard_writer *w, uint64_t x)
{
	return x - x % w->blk;
}

static uint64_t up(const struct prec_shard_writer *w, uint64_t x)
{
	return down(w, x + w->blk - 1);
}

/* The most a chunk can take in staging, header and lz4's worst case. */
static size_t chunk_max(void)
{
	return HDR_SIZE + (size_t)LZ4_COMPRESSBOUND(PREC_CHUNK_MAX_PAYLOAD);
}

/* blk: the file system's block (st_blksize), which every device's logical
 * block divides; at least a page. A file system that wants more alignment
 * still works: its EINVAL turns the writer back to buffered writes. */
static size_t block_size(int fd)
{
	struct stat st;
	size_t b = MIN_BLK;

	if (fstat(fd, &st) == 0 && st.st_blksize > 0 &&
	    (size_t)st.st_blksize <= MAX_BLK && !(st.st_blksize & (st.st_blksize - 1)))
		b = (size_t)st.st_blksize > MIN_BLK ? (size_t)st.st_blksize : MIN_BLK;
	return b;
}

/* Staging pinned once for the ring's fixed-buffer writes, which a direct
 * write otherwise pins page by page each time (gup_fast_fallback: 12% of
 * the recorder's CPU on dwarf). Needs RLIMIT_MEMLOCK room without
 * CAP_IPC_LOCK: where that is refused, writes take the staging unpinned. */
static bool register_staging(struct prec_shard_writer *w)
{
	struct iovec v = { .iov_base = w->staging, .iov_len = w->st_size };
	int ret = io_uring_register_buffers(&w->ring, &v, 1);

	if (ret < 0)
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: staging not registered (%s)",
			 (int)w->cpu, strerror(-ret));
	return ret == 0;
}

int prec_wr__dio_setup(struct prec_shard_writer *w, const void *hdr, size_t len)
{
	size_t blk = block_size(w->fd), size, slack;
	unsigned char *st = NULL, *tail = NULL;
	int fl = fcntl(w->fd, F_GETFL);

	/* Twice the largest chunk and two blocks at least, so that a full
	 * staging always has a whole block to write. */
	size = w->st_size > 2 * chunk_max() + 2 * blk ? w->st_size : 2 * chunk_max() + 2 * blk;
	size = (size + blk - 1) / blk * blk;
	slack = (chunk_max() + blk - 1) / blk * blk;
	if (posix_memalign((void **)&st, blk, size + slack) ||
	    posix_memalign((void **)&tail, blk, blk)) {
		free(st);
		return -ENOMEM;
	}
	if (fl < 0 || fcntl(w->fd, F_SETFL, fl | O_DIRECT) < 0) {
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: no O_DIRECT here (%s): buffered writes",
			 (int)w->cpu, strerror(errno));
		free(st);
		free(tail);
		return 0;
	}
	/* The header is in the file (a buffered write: the shard is whole
	 * from the start) and goes in staging too, as the first block's
	 * start. */
	memcpy(st, hdr, len);
	free(w->staging);
	w->staging = st;
	w->st_size = size;
	w->dio_tail = tail;
	w->blk = blk;
	/* Fewer, bigger writes: each costs a request and, in a VM, an exit
	 * to the host, which is most of a direct write's CPU at 256 KiB. But
	 * one of at most half of staging, so a full ring's worth fits beside
	 * the write in flight. */
	w->dio_cap = size / 2 / blk * blk;
	if (w->dio_cap > 2 * w->batch_max)
		w->dio_cap = (2 * w->batch_max + blk - 1) / blk * blk;
	w->dio_min = w->batch_max < size / 4 ? w->batch_max : size / 4;
	w->dio_fixed = register_staging(w);
	w->dio_done = 0;
	w->dio_eof = w->pos;
	w->dio_kicked_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	w->direct = true;
	return 0;
}

bool prec_wr__dio_fits(const struct prec_shard_writer *w, size_t len)
{
	return w->pos + len <= down(w, w->dio_done) + w->st_size;
}

int prec_wr__dio_append(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
			const struct iovec *span, int nspan, uint32_t raw,
			uint32_t *stored)
{
	size_t at = (size_t)(w->pos % w->st_size), len;
	size_t cap = HDR_SIZE + (w->codec == PREC_CODEC_LZ4 && raw ?
				 (size_t)LZ4_COMPRESSBOUND(raw) : raw);
	int ret = prec_wr__build(w, meta, span, nspan, raw, w->staging + at, cap, stored);

	if (ret)
		return ret;
	/* Built whole, maybe running into the slack past the end: its file
	 * place for those bytes is the front of staging (free: room was
	 * checked). */
	len = HDR_SIZE + *stored;
	if (at + len > w->st_size)
		memcpy(w->staging, w->staging + w->st_size, at + len - w->st_size);
	return 0;
}

static void add_piece(struct prec_shard_writer *w, int *n, void *base, size_t len)
{
	w->iov[*n].iov_base = base;
	w->iov[*n].iov_len = len;
	(*n)++;
}

static void submit_op(struct prec_shard_writer *w, int niov)
{
	struct io_uring_sqe *sqe = prec_wr__sqe(w);

	if (!sqe) {
		prec_wr__set_error(w, -EBUSY, w->dio_op_off);
		return;
	}
	/* One piece of registered staging: no page pinning per write. */
	if (w->dio_fixed && niov == 1 && w->iov[0].iov_base != w->dio_tail)
		io_uring_prep_write_fixed(sqe, w->fd, w->iov[0].iov_base,
					  (unsigned int)w->iov[0].iov_len, w->dio_op_off, 0);
	else
		io_uring_prep_writev(sqe, w->fd, w->iov, (unsigned int)niov, w->dio_op_off);
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_DIO, 0));
	w->dio_busy = true;
	w->dio_kicked_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	w->inflight++;
	if (prec_wr__submit(w) < 0)
		prec_wr__set_error(w, -EIO, w->dio_op_off);
}

void prec_wr__dio_kick(struct prec_shard_writer *w, enum prec_dio_kick how)
{
	uint64_t from = down(w, w->dio_done), whole = down(w, w->pos), to;
	size_t at = (size_t)(from % w->st_size), first;
	int niov = 0;

	if (w->err || w->dio_busy || w->dio_done == w->pos)
		return;
	if (how == DIO_BATCH && whole - from < w->dio_min)
		return;
	if (whole - from > w->dio_cap)
		whole = from + w->dio_cap;
	/* Registered staging is written one piece at a time: a batch stops
	 * at its end and the next starts at its front. */
	if (w->dio_fixed && whole - from > w->st_size - at)
		whole = from + (w->st_size - at);
	to = how == DIO_ALL && whole == down(w, w->pos) ? up(w, w->pos) : whole;
	if (to <= from)
		return;
	if (whole > from) {
		first = (size_t)(whole - from) < w->st_size - at ?
			(size_t)(whole - from) : w->st_size - at;
		add_piece(w, &niov, w->staging + at, first);
		if (first < whole - from)
			add_piece(w, &niov, w->staging, (size_t)(whole - from) - first);
	}
	if (to > whole) {
		/* Its own copy: appends go on into staging past pos while the
		 * write runs, and the disk must get zeros there, not half a
		 * chunk. */
		size_t part = (size_t)(w->pos - whole);

		memcpy(w->dio_tail, w->staging + whole % w->st_size, part);
		memset(w->dio_tail + part, 0, w->blk - part);
		add_piece(w, &niov, w->dio_tail, w->blk);
	}
	w->dio_op_off = from;
	w->dio_op_len = to - from;
	w->dio_op_data = to > whole ? w->pos : whole;
	w->dio_op_how = how;
	submit_op(w, niov);
}

void prec_wr__dio_idle(struct prec_shard_writer *w)
{
	bool old = prec_now_ns(CLOCK_MONOTONIC_COARSE) - w->dio_kicked_at >= DIO_MAX_AGE_NS;

	prec_wr__dio_kick(w, old ? DIO_ALL : DIO_BATCH);
}

/* Chunks that end inside the written range are in the file. */
static void written_up_to(struct prec_shard_writer *w, uint64_t end)
{
	uint64_t data = end < w->dio_op_data ? end : w->dio_op_data;

	if (end > w->dio_eof)
		w->dio_eof = end;
	if (data > w->dio_done)
		w->dio_done = data;
	for (uint64_t n = w->retire_n; n < w->append_n; n++) {
		struct wr_slot *s = &w->slots[n % w->qd];

		if (s->end > w->dio_done)
			break;
		s->written = true;
	}
	prec_wr__retire(w);
}

/* A file system that takes O_DIRECT at open but not these writes (its
 * alignment is bigger than blk): carry on buffered, same offsets. */
static bool fall_back(struct prec_shard_writer *w)
{
	int fl = fcntl(w->fd, F_GETFL);

	if (fl < 0 || !(fl & O_DIRECT) || fcntl(w->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return false;
	prec_log(PREC_LOG_DEBUG, "shard cpu%d: O_DIRECT write refused: buffered writes",
		 (int)w->cpu);
	return true;
}

void prec_wr__dio_done(struct prec_shard_writer *w, int res)
{
	enum prec_dio_kick how = w->dio_op_how;

	w->dio_busy = false;
	w->inflight--;
	if (w->err)
		return;
	if (res == -EAGAIN || res == -EINTR || (res == -EINVAL && fall_back(w))) {
		prec_wr__dio_kick(w, how);
		return;
	}
	if (res <= 0) {
		prec_wr__set_error(w, res < 0 ? res : -EIO, w->dio_op_off);
		return;
	}
	written_up_to(w, w->dio_op_off + (uint64_t)res);
	/* A short write goes on from the block it stopped in; a whole one is
	 * followed at once by a batch appended meanwhile. */
	prec_wr__dio_kick(w, (uint64_t)res < w->dio_op_len ? how : DIO_BATCH);
}

void prec_wr__dio_drain(struct prec_shard_writer *w)
{
	while (!w->err && (w->dio_done < w->pos || w->inflight)) {
		if (!w->inflight)
			prec_wr__dio_kick(w, DIO_ALL);
		if (w->inflight)
			prec_wr__reap(w, true);
	}
	if (w->err || w->dio_eof <= w->pos)
		return;
	if (ftruncate(w->fd, (off_t)w->pos) < 0)
		prec_wr__set_error(w, -errno, w->pos);
	else
		w->dio_eof = w->pos;
}

bool prec_shard_writer__direct(const struct prec_shard_writer *w)
{
	int fl = w->direct ? fcntl(w->fd, F_GETFL) : -1;

	return fl >= 0 && (fl & O_DIRECT);
}
