// SPDX-License-Identifier: MIT
// O_DIRECT shard writes: copy mode's staging, extents of the file, written
// a block-aligned range at a time past the page cache, which
// spares the copy into page cache pages and their writeback (see
// bench/record.sh for what it saves).
//
// The rules O_DIRECT sets, and how they are kept:
// - file offset, length and memory of every write aligned to blk: each
//   extent (below) is blk-aligned and starts at a block boundary of the
//   file, so a block-aligned file range within it is one aligned piece;
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
//
// Staging is a set of extents, fixed-size mappings of their own, each
// holding a block-aligned run of the file: extent e holds file byte X at
// e.mem[X - e.base]. Chunks never straddle two extents: a chunk that would
// not fit in the last one starts the next at the block holding the chunk's
// offset, that block's first bytes copied over (less than a block), so an
// extent's bytes end where the next one's start, on a block boundary, and
// every write is one piece of one extent (plus the padded partial block).
// Extents fully written go back on a stack and the last one freed is the
// next one filled: while the disk keeps up, the copy into staging sweeps
// two or three extents that stay in the cache, however many a stall made.
//
// A write that stalls (the disk's latency, now and then, far above its
// usual) leaves staging full, and then the drainer would wait while its
// ring overflows. Instead staging takes one more extent, up to st_max: a
// mapping and nothing copied, so the drainer is back at its ring in the
// time a mapping and its pinning take, however much a stall has made it
// hold already (a staging that doubled would copy all it held, and the
// ring would overflow behind the copy). While a write stalls, the extent
// is taken ahead of need at the drainer's sleeps, its ring just emptied,
// rather than in a drain pass with the ring filling: a pinning takes
// 0.3-1 ms, at worst 4-13 ms seen, and a storm fills a quarter ring (the
// wakeup mark) in 4 ms. Past st_max the drainer waits for
// completions, and the loss warning names that wait when records were
// lost meanwhile. Extents beyond the first ones that sat on the stack,
// unused, for SHRINK_HOLD_NS are unmapped, the longest unused first (the
// stack's bottom), for at most SHRINK_BUDGET_NS at each sleep of the
// drainer. So the memory a long stall took goes back to the system
// (malloc would keep the freed blocks), while the extents a busy disk's
// short stalls take in turn stay mapped, not mapped, pinned and unmapped
// again every few seconds; and no sleep holds the drainer much longer than
// a growth does (all 90 extents of a 3 s stall at once held it 8.6 ms,
// half a storm's ring). Each extent is registered in its
// own slot of the io_uring's fixed-buffer table, where the memlock limit
// allows, and its writes are then fixed-buffer writes.
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
/* A write in flight this long is a stall: the staging grows ahead at the
 * drainer's sleeps (a healthy disk writes an extent in a few ms). */
#define AHEAD_NS (20ull * 1000 * 1000)
/* An extent unused on the spare stack this long is unmapped: longer than
 * the few seconds between a busy disk's short stalls (every 3-4 s in
 * bench/soak.sh), whose extents so stay mapped. */
#define SHRINK_HOLD_NS (5000ull * 1000 * 1000)
/* ... about ten of them per sleep (an unpinning and a munmap take ~0.1 ms) */
#define SHRINK_BUDGET_NS (1000ull * 1000)
/* The kernel's most fixed-buffer slots (IORING_MAX_REG_BUFFERS). */
#define MAX_EXTENTS 16384u

/* Start the next write unless one is in flight: whole blocks not yet
 * written when they make a batch (KICK_BATCH), or everything with the
 * partial last block zero-padded (KICK_ALL); cap bytes at most. */
enum kick { KICK_BATCH, KICK_ALL };

struct extent {
	unsigned char *mem; /* ext_len bytes, blk-aligned; NULL: not mapped */
	uint64_t base;      /* file offset of mem[0], a block boundary */
	bool fixed;         /* registered in the ring's slot of its index */
	uint64_t spare_at;  /* CLOCK_MONOTONIC_COARSE ns it went on the spare stack */
};

struct direct_write {
	int fd;
	int32_t cpu;
	struct prec_uring *ring;
	struct prec_chunk_queue *q;
	struct prec_chunk_framer *framer;
	struct extent *ext;   /* n_max of them, by slot */
	/* the extents in use, in file order: a circle of n_max from order_h;
	 * the first holds down(done), the last q->pos */
	unsigned int *order;
	unsigned int order_h, order_n;
	unsigned int *spare;  /* mapped, not in use: the last freed on top */
	unsigned int spare_n;
	unsigned int n_max, n_base, n_mapped;
	size_t ext_len;
	bool slots;           /* the ring has n_max fixed-buffer slots */
	unsigned char *tail;  /* one block: the partial block, padded */
	size_t blk;           /* file offset and memory alignment of every write */
	size_t min, cap;      /* batch sizes of whole blocks */
	bool busy;            /* one write in flight at a time: never two on a block */
	unsigned int inflight;
	uint64_t kicked_at;   /* CLOCK_MONOTONIC_COARSE ns of the last write */
	uint64_t done;        /* file bytes up to here are written */
	uint64_t eof;         /* the file's size: may pass pos by padding */
	/* rotate(): the next files, and the offsets they start at, in order */
	struct { int fd; uint64_t at; } rq[PREC_ROTATE_MAX];
	unsigned int rq_n;
	/* the write in flight */
	struct iovec iov[2];
	enum kick op_how;     /* to go on after a short write */
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

/* A mapping of its own: len bytes (a multiple of align, a power of two up
 * to MAX_BLK) aligned to align. Returns NULL when the system has no memory
 * for it. */
static unsigned char *map_aligned(size_t len, size_t align)
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

/* The i-th extent in use, 0 the first in the file. */
static struct extent *nth(const struct direct_write *d, unsigned int i)
{
	return &d->ext[d->order[(d->order_h + i) % d->n_max]];
}

static struct extent *last(const struct direct_write *d)
{
	return nth(d, d->order_n - 1);
}

/* Where the i-th extent's bytes end: the next one's base (UINT64_MAX for
 * the last, whose bytes end at q->pos). */
static uint64_t end_of(const struct direct_write *d, unsigned int i)
{
	return i + 1 < d->order_n ? nth(d, i + 1)->base : UINT64_MAX;
}

/* The extent holding file byte x (x in [down(done), q->pos]). */
static struct extent *holding(const struct direct_write *d, uint64_t x)
{
	unsigned int i = 0;

	while (x >= end_of(d, i))
		i++;
	return nth(d, i);
}

/* Pinned once for the ring's fixed-buffer writes, which a direct write
 * otherwise pins page by page each time. Needs RLIMIT_MEMLOCK room
 * without CAP_IPC_LOCK: where that is refused, writes take the extent
 * unpinned. */
static void register_extent(struct direct_write *d, unsigned int slot)
{
	int ret;

	if (!d->slots)
		return;
	ret = prec_uring__set_slot(d->ring, slot, d->ext[slot].mem, d->ext_len);
	d->ext[slot].fixed = ret == 0;
	if (ret < 0)
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: staging extent not registered (%s)",
			 (int)d->cpu, strerror(-ret));
}

/* Map an extent into the first free slot and put it on the spare stack.
 * Returns 0 or -ENOMEM. */
static int map_extent(struct direct_write *d)
{
	volatile unsigned char *p;
	unsigned int slot = 0;

	while (slot < d->n_max && d->ext[slot].mem)
		slot++;
	if (slot == d->n_max)
		return -ENOMEM;
	p = map_aligned(d->ext_len, d->blk);
	if (!p)
		return -ENOMEM;
	/* A growth's pages are written before they are pinned, one store
	 * each: a pinning that must fault them in holds the process's
	 * mmap_lock while it zeroes them all (3-11 ms seen), and another
	 * drainer's mmap of its own growth waits in D state meanwhile, its
	 * ring filling. A store's fault takes the VMA's own lock (mmap_lock
	 * for that one page before 6.4), and the pinning then finds every
	 * page present. The first extents are pinned by dw_adopt, which
	 * faults them in on the drainer's thread, near its CPU. */
	if (d->slots)
		for (size_t at = 0; at < d->ext_len; at += MIN_BLK)
			p[at] = 0;
	d->ext[slot].mem = (unsigned char *)p;
	register_extent(d, slot);
	d->ext[slot].spare_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	d->spare[d->spare_n++] = slot;
	d->n_mapped++;
	return 0;
}

static void unmap_extent(struct direct_write *d, unsigned int slot)
{
	struct extent *e = &d->ext[slot];

	if (e->fixed)
		prec_uring__set_slot(d->ring, slot, NULL, 0);
	munmap(e->mem, d->ext_len);
	e->mem = NULL;
	e->fixed = false;
	d->n_mapped--;
}

/* The next extent in use, from the spare stack's top (the one freed
 * last, still in the cache), starting at the block that holds q->pos:
 * that block's bytes before q->pos are copied over from the last one. */
static void start_extent(struct direct_write *d)
{
	unsigned int slot = d->spare[--d->spare_n];
	struct extent *e = &d->ext[slot], *prev = last(d);
	uint64_t pos = d->q->pos;

	e->base = down(d, pos);
	memcpy(e->mem, prev->mem + (e->base - prev->base), (size_t)(pos - e->base));
	d->order[(d->order_h + d->order_n++) % d->n_max] = slot;
}

/* First extents whose bytes are all written go back on the spare stack
 * (never the last: appends go on in it). Not while a write is in flight:
 * it reads the first. */
static void recycle(struct direct_write *d)
{
	while (!d->busy && d->order_n > 1 && down(d, d->done) >= end_of(d, 0)) {
		d->ext[d->order[d->order_h]].spare_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
		d->spare[d->spare_n++] = d->order[d->order_h];
		d->order_h = (d->order_h + 1) % d->n_max;
		d->order_n--;
	}
}

static void add_piece(struct direct_write *d, int *n, void *base, size_t len)
{
	d->iov[*n].iov_base = base;
	d->iov[*n].iov_len = len;
	(*n)++;
}

static void submit_op(struct direct_write *d, int niov, const struct extent *e)
{
	struct io_uring_sqe *sqe = prec_uring__sqe(d->ring);

	if (!sqe) {
		prec_chunk_queue__fail(d->q, -EBUSY, d->op_off);
		return;
	}
	/* One piece of a registered extent: no page pinning per write. */
	if (e && e->fixed && niov == 1)
		io_uring_prep_write_fixed(sqe, d->fd, d->iov[0].iov_base,
					  (unsigned int)d->iov[0].iov_len, d->op_off,
					  (int)(e - d->ext));
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
	uint64_t pos, from, whole, to, first_end;
	struct extent *first, *e = NULL;
	bool final = false;
	int niov = 0;

	if (d->q->err || d->busy)
		return;
	recycle(d);
	pos = write_end(d);
	/* the old file's last bytes all go at once, its partial block too */
	if (d->rq_n)
		how = KICK_ALL;
	if (d->done == pos)
		return;
	from = down(d, d->done);
	whole = down(d, pos);
	first = nth(d, 0);
	first_end = end_of(d, 0);
	/* A write stops at its extent's end; the first extent's last bytes
	 * go whatever the batch, as nothing more comes to them. */
	if (whole >= first_end) {
		whole = first_end;
		final = true;
	}
	if (how == KICK_BATCH && !final && whole - from < d->min)
		return;
	if (whole - from > d->cap) {
		whole = from + d->cap;
		final = false;
	}
	to = how == KICK_ALL && whole == down(d, pos) ? up(d, pos) : whole;
	if (to <= from)
		return;
	if (whole > from) {
		add_piece(d, &niov, first->mem + (from - first->base), (size_t)(whole - from));
		e = first;
	}
	if (to > whole) {
		/* Its own copy: appends go on into staging past pos while the
		 * write runs, and the disk must get zeros there, not half a
		 * chunk. */
		size_t part = (size_t)(pos - whole);
		const struct extent *h = holding(d, whole);

		memcpy(d->tail, h->mem + (whole - h->base), part);
		memset(d->tail + part, 0, d->blk - part);
		add_piece(d, &niov, d->tail, d->blk);
	}
	d->op_off = from;
	d->op_len = to - from;
	d->op_data = to > whole ? pos : whole;
	d->op_how = how;
	submit_op(d, niov, niov == 1 ? e : NULL);
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

/* PREC_UR_DIO completion: the write in flight. */
static void dio_done(void *ctx, uint64_t val, int res, unsigned int flags)
{
	struct direct_write *d = ctx;
	enum kick how = d->op_how;

	(void)val;
	(void)flags;
	d->busy = false;
	d->inflight--;
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

	return d->q->pos - last(d)->base + len <= d->ext_len || d->spare_n > 0;
}

/* Frame one chunk into the last extent at its file offset, or into the
 * next one when it would not fit (room checked). */
static int dw_append(void *io, const struct prec_chunk_meta *meta,
		     const struct iovec *span, int nspan, uint32_t raw,
		     uint32_t *stored)
{
	struct direct_write *d = io;
	size_t cap = prec_chunk_framer__cap(d->framer, raw);
	struct extent *e;

	if (d->q->pos - last(d)->base + cap > d->ext_len)
		start_extent(d);
	e = last(d);
	return prec_chunk_framer__frame(d->framer, meta, (uint32_t)d->q->append_n, span, nspan,
					raw, e->mem + (d->q->pos - e->base), cap, stored);
}

/* One more extent behind a write in flight, up to st_max. Returns the
 * staging's new size, or 0 when it could not grow. */
static size_t grow_one(struct direct_write *d)
{
	if (d->q->err || !d->busy || d->n_mapped >= d->n_max || map_extent(d))
		return 0;
	return d->n_mapped * d->ext_len;
}

/* Staging full behind a write in flight: one more extent. */
static bool dw_grow(void *io, size_t len, size_t *bytes)
{
	struct direct_write *d = io;

	*bytes = 0;
	/* A write must be in flight: otherwise the wait starts one, and it
	 * may be all the room needs. */
	if (!d->busy)
		kick(d, KICK_ALL);
	/* the kick may have freed extents already written */
	if (dw_fits(d, len))
		return true;
	*bytes = grow_one(d);
	return dw_fits(d, len);
}

/* At a sleep, the ring just emptied: a write in flight for AHEAD_NS with
 * no extent to spare takes one now, so that the next drain pass, with its
 * ring filling, finds the room mapped and pinned. */
static size_t dw_grow_ahead(void *io)
{
	struct direct_write *d = io;

	if (d->spare_n || prec_now_ns(CLOCK_MONOTONIC_COARSE) - d->kicked_at < AHEAD_NS)
		return 0;
	return grow_one(d);
}

/* At a sleep: the extents beyond the first ones that sat unused on the
 * spare stack for SHRINK_HOLD_NS, unmapped from its bottom (pushed there
 * first, so unused longest) for SHRINK_BUDGET_NS at most; the next sleeps
 * go on. */
static void shrink(struct direct_write *d, uint64_t now)
{
	uint64_t start;
	unsigned int n = 0;

	if (d->n_mapped <= d->n_base || !d->spare_n)
		return;
	start = prec_now_ns(CLOCK_MONOTONIC);
	while (d->n_mapped > d->n_base && n < d->spare_n &&
	       now - d->ext[d->spare[n]].spare_at >= SHRINK_HOLD_NS &&
	       prec_now_ns(CLOCK_MONOTONIC) - start < SHRINK_BUDGET_NS)
		unmap_extent(d, d->spare[n++]);
	d->spare_n -= n;
	memmove(d->spare, d->spare + n, d->spare_n * sizeof(d->spare[0]));
	if (d->n_mapped == d->n_base)
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: staging back to %zu KiB",
			 (int)d->cpu, d->n_base * d->ext_len >> 10);
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
	for (unsigned int i = 0; d->ext && i < d->n_max; i++)
		if (d->ext[i].mem)
			munmap(d->ext[i].mem, d->ext_len);
	free(d->ext);
	free(d->order);
	free(d->spare);
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

/* Done by the writing thread: pinning faults every page in, so the pages
 * come from the memory near that thread's CPU, and the drainers each pin
 * their own at once rather than the main thread one writer after
 * another. */
static void dw_adopt(void *io)
{
	struct direct_write *d = io;
	int ret;

	if (d->slots)
		return;
	ret = prec_uring__register_slots(d->ring, d->n_max);
	d->slots = ret == 0;
	if (ret < 0) {
		prec_log(PREC_LOG_DEBUG, "shard cpu%d: no fixed-buffer slots (%s)",
			 (int)d->cpu, strerror(-ret));
		return;
	}
	for (unsigned int i = 0; i < d->n_max; i++)
		if (d->ext[i].mem)
			register_extent(d, i);
}

static const struct prec_write_ops direct_ops = {
	.fits = dw_fits,
	.append = dw_append,
	.push = dw_push,
	.grow_ahead = dw_grow_ahead,
	.drain = dw_drain,
	.inflight = dw_inflight,
	.delete = dw_delete,
	.adopt = dw_adopt,
	.rotate = dw_rotate,
	.grow = dw_grow,
};

/* The extents' size and how many: staging_bytes in two extents at least
 * (one written while the next fills), each holding the largest chunk
 * behind a partial block; up to staging_max in all. */
static int size_extents(struct direct_write *d, const struct prec_write_setup *s)
{
	size_t size = s->staging_bytes, least = chunk_max() + 2 * d->blk;
	size_t max = s->staging_max;

	d->ext_len = (size / 2 + d->blk - 1) / d->blk * d->blk;
	if (d->ext_len < least)
		d->ext_len = (least + d->blk - 1) / d->blk * d->blk;
	d->n_base = (unsigned int)(size / d->ext_len);
	if (d->n_base < 2)
		d->n_base = 2;
	d->n_max = max / d->ext_len > MAX_EXTENTS ? MAX_EXTENTS : (unsigned int)(max / d->ext_len);
	if (d->n_max < d->n_base)
		d->n_max = d->n_base;
	d->ext = calloc(d->n_max, sizeof(*d->ext));
	d->order = calloc(d->n_max, sizeof(*d->order));
	d->spare = calloc(d->n_max, sizeof(*d->spare));
	if (!d->ext || !d->order || !d->spare)
		return -ENOMEM;
	for (unsigned int i = 0; i < d->n_base; i++)
		if (map_extent(d))
			return -ENOMEM;
	return 0;
}

int prec_direct_write__new(struct prec_write_path *out,
			   const struct prec_write_setup *s,
			   const void *hdr, size_t len)
{
	size_t batch = s->batch_max;
	struct direct_write *d = calloc(1, sizeof(*d));
	int fl = fcntl(s->fd, F_GETFL);

	if (!d)
		return -ENOMEM;
	d->blk = block_size(s->fd);
	if (size_extents(d, s) || posix_memalign((void **)&d->tail, d->blk, d->blk)) {
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
	 * from the start) and goes in the first extent too, as the first
	 * block's start. */
	d->order[d->order_n++] = d->spare[--d->spare_n];
	memcpy(nth(d, 0)->mem, hdr, len);
	/* Fewer, bigger writes: each costs a request and, in a VM, an exit
	 * to the host. But one of at most an extent, so a full ring's worth
	 * fits beside the write in flight. */
	d->cap = d->ext_len / d->blk * d->blk;
	if (d->cap > 2 * batch)
		d->cap = (2 * batch + d->blk - 1) / d->blk * d->blk;
	d->min = batch < d->ext_len / 2 ? batch : d->ext_len / 2;
	d->done = 0;
	d->eof = s->q->pos;
	d->kicked_at = prec_now_ns(CLOCK_MONOTONIC_COARSE);
	prec_uring__on(d->ring, PREC_UR_DIO, dio_done, d);
	out->ops = &direct_ops;
	out->io = d;
	return 0;
}
