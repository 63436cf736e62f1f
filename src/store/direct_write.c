// SPDX-License-Identifier: MIT
// O_DIRECT shard writes: copy mode's staging laid out as a mirror of the
// file, written a block-aligned range at a time past the page cache, which
// spares the copy into page cache pages and their writeback (see
// bench/record.sh for what it saves).
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
// - writes are batches of whole blocks (min..cap bytes); when no write
//   started for MAX_AGE_NS (checked each time the drainer goes to sleep),
//   everything is written, partial block and all, which bounds what a
//   kill -9 loses;
// - the padding is cut off (ftruncate) when the writer is flushed. After a
//   crash a shard may end in zeros, which readers take as a torn tail;
// - segment files (rotate): the bytes before the rotation's offset go to
//   the old file, its partial last block zero-padded, and only once they
//   are all written does the next write go to the new file, from the
//   block holding that offset (readers go on in a segment file once it
//   holds data: the file before it is whole by then).
// Staging is registered with the io_uring where the memlock limit allows,
// and batches are then fixed-buffer writes of one piece each.
//
// A write that stalls (the disk's latency, now and then, far above its
// usual) leaves staging full, and then the drainer would wait while its
// ring overflows. Instead staging doubles, up to st_max: the bytes not yet
// written are copied to their places in the bigger mirror, the write in
// flight keeps the old buffer until it completes, and the new one is
// registered in its place then (IORING_REGISTER_BUFFERS_UPDATE, which does
// not wait for the ring to go idle as unregistering would); the chunk
// queue's slots double with it. st_max is options_resolve.c's; past it the
// drainer waits for completions, and the loss warning names that wait when
// records were lost meanwhile. Once the stall is absorbed (little left to
// write, no growth for SHRINK_HOLD_NS), staging goes back to its first
// size the same way, at a sleep: the copy into it then sweeps a buffer
// that stays in the cache, not one as big as the worst stall needed. Each
// staging is its own mapping, so the memory a stall took goes back to the
// system when it is dropped (malloc would keep the freed blocks).
#include "store/direct_write.h"
#include "util/clock.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MIN_BLK 4096u
#define MAX_BLK (64u * 1024u)
/* No write for this long: write everything at the next sleep. */
#define MAX_AGE_NS (100ull * 1000 * 1000)
/* Grown staging goes back to its first size once no stall grew it for
 * this long and what is left to write fits a quarter of the first size. */
#define SHRINK_HOLD_NS (1000ull * 1000 * 1000)

/* Start the next write unless one is in flight: whole blocks not yet
 * written when they make a batch (KICK_BATCH), or everything with the
 * partial last block zero-padded (KICK_ALL); cap bytes at most. */
enum kick { KICK_BATCH, KICK_ALL };

struct direct_write {
	int fd;
	int32_t cpu;
	struct prec_uring *ring;
	struct prec_chunk_queue *q;
	struct prec_chunk_framer *framer;
	/* staging[X % st_size] is file byte X, with room past st_size to
	 * build a chunk whole before its wrapped end is moved to the front */
	unsigned char *staging;
	size_t st_size, st_max, st_base; /* now, the most, the first */
	size_t slack;        /* bytes mapped past st_size */
	uint64_t grown_at;   /* CLOCK_MONOTONIC_COARSE ns of the last growth */
	/* resize(): the buffer the write in flight reads, kept until it is
	 * done (old_len bytes mapped); and the staging the ring has
	 * registered, if not the one now */
	unsigned char *old;
	size_t old_len;
	bool old_fixed;
	unsigned char *tail; /* one block: the partial block, padded */
	size_t blk;          /* file offset and memory alignment of every write */
	size_t min, cap;     /* batch sizes of whole blocks */
	bool fixed;          /* staging is the ring's registered buffer 0 */
	bool busy;           /* one write in flight at a time: never two on a block */
	unsigned int inflight;
	uint64_t kicked_at;  /* CLOCK_MONOTONIC_COARSE ns of the last write */
	uint64_t done;       /* file bytes up to here are written */
	uint64_t eof;        /* the file's size: may pass pos by padding */
	/* rotate(): the next files, and the offsets they start at, in order */
	struct { int fd; uint64_t at; } rq[PREC_ROTATE_MAX];
	unsigned int rq_n;
	/* the write in flight */
	struct iovec iov[3];
	enum kick op_how;    /* to go on after a short write */
	uint64_t op_off, op_len, op_data;
};

static uint64_t down(const struct direct_write *d, uint64_t x)
{
	return x - x % d->blk;
}

static uint64_t up(const struct direct_write *d, uint64_t x)
{
	return down(d, x + d->blk - 1);
}

/* The most a chunk can take in staging, header and lz4's worst case. */
static size_t chunk_max(void)
{
	return PREC_CHUNK_HDR_SIZE + (size_t)LZ4_COMPRESSBOUND(PREC_CHUNK_MAX_PAYLOAD);
}

/* A staging of its own: len bytes (a multiple of align, a power of two
 * up to MAX_BLK) aligned to align. Returns NULL when the system has no
 * memory for it. */
static unsigned char *map_staging(size_t len, size_t align)
{
	size_t pad = align > MIN_BLK ? align : 0;
	unsigned char *p = mmap(NULL, len + pad, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t at;

	if (p == MAP_FAILED)
		return NULL;
	if (!pad)
		return p;
	/* cut the mapping down to the aligned len bytes in it */
	at = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
	if (at > (uintptr_t)p)
		munmap(p, at - (uintptr_t)p);
	if ((uintptr_t)p + len + pad > at + len)
		munmap((void *)(at + len), (uintptr_t)p + len + pad - (at + len));
	return (unsigned char *)at;
}

static void unmap_staging(unsigned char *p, size_t len)
{
	if (p)
		munmap(p, len);
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
 * write otherwise pins page by page each time. Needs RLIMIT_MEMLOCK room
 * without CAP_IPC_LOCK: where that is refused, writes take the staging
 * unpinned. Done by the writing thread (adopt): pinning faults every page
 * in, so the pages come from the memory near that thread's CPU, and the
 * drainers each pin their own at once rather than the main thread one
 * writer after another. */
static bool register_staging(struct direct_write *d)
{
	int ret = prec_uring__register_buffer(d->ring, d->staging, d->st_size);

	if (ret < 0)
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: staging not registered (%s)",
			 (int)d->cpu, strerror(-ret));
	return ret == 0;
}

static void add_piece(struct direct_write *d, int *n, void *base, size_t len)
{
	d->iov[*n].iov_base = base;
	d->iov[*n].iov_len = len;
	(*n)++;
}

static void submit_op(struct direct_write *d, int niov)
{
	struct io_uring_sqe *sqe = prec_uring__sqe(d->ring);

	if (!sqe) {
		prec_chunk_queue__fail(d->q, -EBUSY, d->op_off);
		return;
	}
	/* One piece of registered staging: no page pinning per write. */
	if (d->fixed && niov == 1 && d->iov[0].iov_base != d->tail)
		io_uring_prep_write_fixed(sqe, d->fd, d->iov[0].iov_base,
					  (unsigned int)d->iov[0].iov_len, d->op_off, 0);
	else
		io_uring_prep_writev(sqe, d->fd, d->iov, (unsigned int)niov, d->op_off);
	io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_DIO, 0));
	d->busy = true;
	d->kicked_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	d->inflight++;
	if (prec_uring__submit(d->ring) < 0)
		prec_chunk_queue__fail(d->q, -EIO, d->op_off);
}

/* Before a write: once the old file has every byte before the rotation's
 * offset, the new file is the one written. Returns the offset writes go up
 * to now (the rotation's while the old file still needs bytes). */
static uint64_t write_end(struct direct_write *d)
{
	while (d->rq_n && d->done >= d->rq[0].at) {
		d->fd = d->rq[0].fd;
		d->eof = 0;
		memmove(d->rq, d->rq + 1, --d->rq_n * sizeof(d->rq[0]));
	}
	return d->rq_n ? d->rq[0].at : d->q->pos;
}

static void kick(struct direct_write *d, enum kick how)
{
	uint64_t pos, from, whole, to;
	size_t at, first;
	int niov = 0;

	if (d->q->err || d->busy)
		return;
	pos = write_end(d);
	/* the old file's last bytes all go at once, its partial block too */
	if (d->rq_n)
		how = KICK_ALL;
	from = down(d, d->done);
	whole = down(d, pos);
	at = (size_t)(from % d->st_size);
	if (d->done == pos)
		return;
	if (how == KICK_BATCH && whole - from < d->min)
		return;
	if (whole - from > d->cap)
		whole = from + d->cap;
	/* Registered staging is written one piece at a time: a batch stops
	 * at its end and the next starts at its front. */
	if (d->fixed && whole - from > d->st_size - at)
		whole = from + (d->st_size - at);
	to = how == KICK_ALL && whole == down(d, pos) ? up(d, pos) : whole;
	if (to <= from)
		return;
	if (whole > from) {
		first = (size_t)(whole - from) < d->st_size - at ?
			(size_t)(whole - from) : d->st_size - at;
		add_piece(d, &niov, d->staging + at, first);
		if (first < whole - from)
			add_piece(d, &niov, d->staging, (size_t)(whole - from) - first);
	}
	if (to > whole) {
		/* Its own copy: appends go on into staging past pos while the
		 * write runs, and the disk must get zeros there, not half a
		 * chunk. */
		size_t part = (size_t)(pos - whole);

		memcpy(d->tail, d->staging + whole % d->st_size, part);
		memset(d->tail + part, 0, d->blk - part);
		add_piece(d, &niov, d->tail, d->blk);
	}
	d->op_off = from;
	d->op_len = to - from;
	d->op_data = to > whole ? pos : whole;
	d->op_how = how;
	submit_op(d, niov);
}

/* Chunks that end inside the written range are in the file. */
static void written_up_to(struct direct_write *d, uint64_t end)
{
	uint64_t data = end < d->op_data ? end : d->op_data;

	if (end > d->eof)
		d->eof = end;
	if (data > d->done)
		d->done = data;
	prec_chunk_queue__written_to(d->q, d->done);
}

/* A file system that takes O_DIRECT at open but not these writes (its
 * alignment is bigger than blk): carry on buffered, same offsets. */
static bool fall_back(struct direct_write *d)
{
	int fl = fcntl(d->fd, F_GETFL);

	if (fl < 0 || !(fl & O_DIRECT) || fcntl(d->fd, F_SETFL, fl & ~O_DIRECT) < 0)
		return false;
	prec_log(PREC_LOG_DEBUG, "shard cpu%d: O_DIRECT write refused: buffered writes",
		 (int)d->cpu);
	return true;
}

/* The write that read the old staging is done: free it, and have the
 * ring's registered buffer be the new staging (the old one's pages are
 * unpinned then). Where that fails, writes stay unfixed. */
static void release_old(struct direct_write *d)
{
	if (d->old_fixed) {
		int ret = prec_uring__replace_buffer(d->ring, d->staging, d->st_size);

		d->fixed = ret == 0;
		if (ret < 0)
			prec_log(PREC_LOG_DEBUG, "shard cpu%d: grown staging not registered (%s)",
				 (int)d->cpu, strerror(-ret));
	}
	unmap_staging(d->old, d->old_len);
	d->old = NULL;
	d->old_fixed = false;
}

/* PREC_UR_DIO completion: the write in flight. */
static void dio_done(void *ctx, uint64_t val, int res, unsigned int flags)
{
	struct direct_write *d = ctx;
	enum kick how = d->op_how;

	(void)val;
	(void)flags;
	d->busy = false;
	d->inflight--;
	if (d->old)
		release_old(d);
	if (d->q->err)
		return;
	if (res == -EAGAIN || res == -EINTR || (res == -EINVAL && fall_back(d))) {
		kick(d, how);
		return;
	}
	if (res <= 0) {
		prec_chunk_queue__fail(d->q, res < 0 ? res : -EIO, d->op_off);
		return;
	}
	written_up_to(d, d->op_off + (uint64_t)res);
	/* A short write goes on from the block it stopped in; a whole one is
	 * followed at once by a batch appended meanwhile. */
	kick(d, (uint64_t)res < d->op_len ? how : KICK_BATCH);
}

static bool dw_fits(const void *io, size_t len)
{
	const struct direct_write *d = io;

	return d->q->pos + len <= down(d, d->done) + d->st_size;
}

/* Frame one chunk into staging at its file offset (room checked). */
static int dw_append(void *io, const struct prec_chunk_meta *meta,
		     const struct iovec *span, int nspan, uint32_t raw,
		     uint32_t *stored)
{
	struct direct_write *d = io;
	size_t at = (size_t)(d->q->pos % d->st_size), len;
	size_t cap = prec_chunk_framer__cap(d->framer, raw);
	int ret = prec_chunk_framer__frame(d->framer, meta, (uint32_t)d->q->append_n,
					   span, nspan, raw, d->staging + at, cap, stored);

	if (ret)
		return ret;
	/* Built whole, maybe running into the slack past the end: its file
	 * place for those bytes is the front of staging (free: room was
	 * checked). */
	len = PREC_CHUNK_HDR_SIZE + *stored;
	if (at + len > d->st_size)
		memcpy(d->staging, d->staging + d->st_size, at + len - d->st_size);
	return 0;
}

/* Copy file bytes [from, to) from staging src of src_size to dst of
 * dst_size, each at its own place in the mirror. */
static void copy_mirror(unsigned char *dst, size_t dst_size,
			const unsigned char *src, size_t src_size,
			uint64_t from, uint64_t to)
{
	while (from < to) {
		size_t s = (size_t)(from % src_size), t = (size_t)(from % dst_size);
		size_t n = (size_t)(to - from);

		if (n > src_size - s)
			n = src_size - s;
		if (n > dst_size - t)
			n = dst_size - t;
		memcpy(dst + t, src + s, n);
		from += n;
	}
}

/* Staging of size bytes in place of the one now: the bytes from the
 * first block not yet written on move to their places in the new mirror;
 * a short write goes on from there. The write in flight reads the buffer
 * it was given: that one stays until it completes (one write at a time,
 * so at most one is kept; with one kept already, the write reads that
 * one, not this). Without a write in flight the ring's registered buffer
 * is the new staging at once. Returns 0 or -ENOMEM (nothing changed). */
static int resize(struct direct_write *d, size_t size)
{
	unsigned char *n = map_staging(size + d->slack, d->blk);

	if (!n)
		return -ENOMEM;
	copy_mirror(n, size, d->staging, d->st_size, down(d, d->done), d->q->pos);
	if (d->busy && !d->old) {
		d->old = d->staging;
		d->old_len = d->st_size + d->slack;
		d->old_fixed = d->fixed;
	} else {
		unmap_staging(d->staging, d->st_size + d->slack);
	}
	d->staging = n;
	d->st_size = size;
	if (d->busy) {
		d->fixed = false; /* until release_old() */
	} else if (d->fixed) {
		int ret = prec_uring__replace_buffer(d->ring, d->staging, d->st_size);

		d->fixed = ret == 0;
	}
	return 0;
}

/* Staging full behind a write in flight: twice the size, up to st_max. */
static bool dw_grow(void *io, size_t len, size_t *bytes)
{
	struct direct_write *d = io;
	size_t size = d->st_size * 2 < d->st_max ? d->st_size * 2 : d->st_max;

	*bytes = 0;
	/* A write must be in flight: otherwise the wait starts one, and it
	 * may be all the room needs. */
	if (!d->busy)
		kick(d, KICK_ALL);
	size = size / d->blk * d->blk;
	if (d->q->err || !d->busy || size <= d->st_size || resize(d, size))
		return dw_fits(d, len);
	d->grown_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	*bytes = size;
	return dw_fits(d, len);
}

/* At a sleep: grown staging back to its first size once the stall that
 * grew it is over (see SHRINK_HOLD_NS). */
static void shrink(struct direct_write *d, uint64_t now)
{
	if (d->st_size == d->st_base || d->old || d->q->err ||
	    now - d->grown_at < SHRINK_HOLD_NS ||
	    d->q->pos - down(d, d->done) > d->st_base / 4)
		return;
	if (resize(d, d->st_base) == 0)
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: staging back to %zu KiB",
			 (int)d->cpu, d->st_base >> 10);
}

/* At a sleep: write everything, partial block and all, when no write
 * started for MAX_AGE_NS; else a batch if there is one. */
static void idle(struct direct_write *d)
{
	uint64_t now = prec_now_ns(CLOCK_MONOTONIC_COARSE);

	kick(d, now - d->kicked_at >= MAX_AGE_NS ? KICK_ALL : KICK_BATCH);
	shrink(d, now);
}

static void dw_push(void *io, enum prec_write_push how)
{
	struct direct_write *d = io;

	/* No batches of chunks: the write in flight, or the next one, takes
	 * every whole block appended so far. Waiting for room takes all, as
	 * queue slots can run out with less than a block appended. */
	if (how == PREC_PUSH_IDLE)
		idle(d);
	else
		kick(d, how == PREC_PUSH_ROOM ? KICK_ALL : KICK_BATCH);
}

/* Write every byte, wait, and cut the padding off the file's end. */
static void dw_drain(void *io)
{
	struct direct_write *d = io;
	uint64_t pos = d->q->pos;

	while (!d->q->err && (d->done < pos || d->inflight)) {
		if (!d->inflight)
			kick(d, KICK_ALL);
		if (d->inflight)
			prec_uring__reap(d->ring, true);
	}
	if (d->q->err || d->eof <= pos)
		return;
	if (ftruncate(d->fd, (off_t)pos) < 0)
		prec_chunk_queue__fail(d->q, -errno, pos);
	else
		d->eof = pos;
}

static unsigned int dw_inflight(const void *io)
{
	return ((const struct direct_write *)io)->inflight;
}

static void dw_delete(void *io)
{
	struct direct_write *d = io;

	if (!d)
		return;
	unmap_staging(d->staging, d->st_size + d->slack);
	unmap_staging(d->old, d->old_len);
	free(d->tail);
	free(d);
}

static void dw_rotate(void *io, int fd, uint64_t at)
{
	struct direct_write *d = io;

	/* the writer keeps to PREC_ROTATE_MAX */
	if (d->rq_n == PREC_ROTATE_MAX)
		return;
	d->rq[d->rq_n].fd = fd;
	d->rq[d->rq_n++].at = at;
	kick(d, KICK_ALL);
}

static void dw_adopt(void *io)
{
	struct direct_write *d = io;

	if (!d->fixed)
		d->fixed = register_staging(d);
}

static const struct prec_write_ops direct_ops = {
	.fits = dw_fits,
	.append = dw_append,
	.push = dw_push,
	.drain = dw_drain,
	.inflight = dw_inflight,
	.delete = dw_delete,
	.adopt = dw_adopt,
	.rotate = dw_rotate,
	.grow = dw_grow,
};

int prec_direct_write__new(struct prec_write_path *out,
			   const struct prec_write_setup *s,
			   const void *hdr, size_t len)
{
	size_t blk = block_size(s->fd), size, slack, batch = s->batch_max;
	struct direct_write *d = calloc(1, sizeof(*d));
	int fl = fcntl(s->fd, F_GETFL);

	if (!d)
		return -ENOMEM;
	/* Twice the largest chunk and two blocks at least, so that a full
	 * staging always has a whole block to write. */
	size = s->staging_bytes > 2 * chunk_max() + 2 * blk ?
	       s->staging_bytes : 2 * chunk_max() + 2 * blk;
	size = (size + blk - 1) / blk * blk;
	slack = (chunk_max() + blk - 1) / blk * blk;
	d->slack = slack;
	d->st_size = d->st_base = size;
	d->staging = map_staging(size + slack, blk);
	if (!d->staging || posix_memalign((void **)&d->tail, blk, blk)) {
		dw_delete(d);
		return -ENOMEM;
	}
	if (fl < 0 || fcntl(s->fd, F_SETFL, fl | O_DIRECT) < 0) {
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: no O_DIRECT here (%s): buffered writes",
			 (int)s->cpu, strerror(errno));
		dw_delete(d);
		return 0;
	}
	d->fd = s->fd;
	d->cpu = s->cpu;
	d->ring = s->ring;
	d->q = s->q;
	d->framer = s->framer;
	/* The header is in the file (a buffered write: the shard is whole
	 * from the start) and goes in staging too, as the first block's
	 * start. */
	memcpy(d->staging, hdr, len);
	d->st_max = s->staging_max > size ? s->staging_max : size;
	d->blk = blk;
	/* Fewer, bigger writes: each costs a request and, in a VM, an exit
	 * to the host. But one of at most half of staging, so a full ring's
	 * worth fits beside the write in flight. */
	d->cap = size / 2 / blk * blk;
	if (d->cap > 2 * batch)
		d->cap = (2 * batch + blk - 1) / blk * blk;
	d->min = batch < size / 4 ? batch : size / 4;
	d->fixed = false; /* until the writing thread adopts it */
	d->done = 0;
	d->eof = s->q->pos;
	d->kicked_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	prec_uring__on(d->ring, PREC_UR_DIO, dio_done, d);
	out->ops = &direct_ops;
	out->io = d;
	return 0;
}
