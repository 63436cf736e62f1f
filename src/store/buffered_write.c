// SPDX-License-Identifier: MIT
// Buffered shard writes: consecutive appends batched into one pwritev
// through the page cache (one write in flight per batch, short writes
// resumed), payloads taken in place (zero copy) or from a staging ring
// (copy mode); writeback started every few MiB.
//
// Writeback is started every 8 MiB (sync_file_range) so little is dirty at
// the stop; --no-direct-io suits a disk busy with other writes, where the
// page cache absorbs more than staging (bench/record.sh, scenario stormio).
#include "store/buffered_write.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>

/* Start writeback of whole chunks every this many bytes, so dirty pages do
 * not pile up for the final fsync (or for the kernel's own flusher, which
 * would stall a later write). */
#define WRITEBACK_STEP (8u * 1024u * 1024u)

/* Per queue slot: the batch (one write op) the slot starts, if it does. */
struct bw_op {
	uint64_t st_end;            /* staging counter after this chunk */
	uint32_t nslots;
	uint32_t iov_first, niov;   /* remaining iovecs in b->iov */
	uint64_t op_off;            /* file offset of the remaining bytes */
	size_t op_left;             /* bytes still to write */
};

struct buffered_write {
	int fd;
	bool copy;
	unsigned int qd;
	size_t batch_max;
	struct prec_uring *ring;
	struct prec_chunk_queue *q;
	struct prec_chunk_framer *framer;
	struct bw_op *ops;
	struct prec_chunk_header *hdrs; /* zero copy: header of each slot */
	struct iovec *iov;              /* 3 per slot; a batch packs its own */
	/* copy mode staging ring; counters grow forever, offset = n % size */
	unsigned char *staging;
	size_t st_size;
	uint64_t st_head, st_tail;
	/* chunks [submit_n, q->append_n) form the batch not yet submitted */
	uint64_t submit_n;
	uint32_t batch_niov;
	size_t batch_bytes;
	uint64_t kicked;  /* writeback started up to here */
	unsigned int inflight;
};

static void queue_write(struct buffered_write *b, uint32_t idx)
{
	struct bw_op *op = &b->ops[idx];
	struct io_uring_sqe *sqe = prec_uring__sqe(b->ring);

	if (!sqe) {
		prec_chunk_queue__fail(b->q, -EBUSY, op->op_off);
		b->inflight--;
		return;
	}
	io_uring_prep_writev(sqe, b->fd, &b->iov[op->iov_first], op->niov,
			     op->op_off);
	io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_WRITE, idx));
}

/* Submit the pending batch (if any). */
static void flush_batch(struct buffered_write *b)
{
	struct bw_op *op;

	if (b->submit_n == b->q->append_n)
		return;
	op = &b->ops[b->submit_n % b->qd];
	op->nslots = (uint32_t)(b->q->append_n - b->submit_n);
	op->niov = b->batch_niov;
	op->op_left = b->batch_bytes;
	b->submit_n = b->q->append_n;
	b->batch_niov = 0;
	b->batch_bytes = 0;
	b->inflight++;
	queue_write(b, (uint32_t)(op - b->ops));
	if (prec_uring__submit(b->ring) < 0)
		prec_chunk_queue__fail(b->q, -EIO, op->op_off);
}

/* Ask the kernel to start writing back [kicked, durable) now; async in the
 * ring, nobody waits for it, and an I/O error there shows up at fsync. */
static void kick_writeback(struct buffered_write *b)
{
	uint64_t len = b->q->durable - b->kicked;
	struct io_uring_sqe *sqe;

	if (len < WRITEBACK_STEP || b->q->err)
		return;
	sqe = prec_uring__sqe(b->ring);
	if (!sqe)
		return;
	if (len > (1u << 30))
		len = 1u << 30;
	io_uring_prep_sync_file_range(sqe, b->fd, (unsigned int)len, b->kicked,
				      SYNC_FILE_RANGE_WRITE);
	io_uring_sqe_set_data64(sqe, prec_uring__ud(PREC_UR_IGNORE, 0));
	b->kicked += len;
}

/* Drop the first n bytes of an op's iovecs (a short write). */
static void advance_iov(struct buffered_write *b, struct bw_op *op, size_t n)
{
	struct iovec *v = &b->iov[op->iov_first];

	op->op_off += n;
	op->op_left -= n;
	while (n && n >= v->iov_len) {
		n -= v->iov_len;
		v++;
		op->iov_first++;
		op->niov--;
	}
	v->iov_base = (char *)v->iov_base + n;
	v->iov_len -= n;
}

/* The batch's chunks are in the file: retire what is done, in order, and
 * free its staging. */
static void batch_written(struct buffered_write *b, uint32_t idx, uint32_t nslots)
{
	struct prec_chunk_queue *q = b->q;
	uint64_t before = q->retire_n;

	prec_chunk_queue__written(q, idx, nslots);
	if (q->retire_n != before)
		b->st_tail = b->ops[(q->retire_n - 1) % b->qd].st_end;
	kick_writeback(b);
}

/* PREC_UR_WRITE completion of the batch starting at slot val. */
static void write_done(void *ctx, uint64_t val, int res, unsigned int flags)
{
	struct buffered_write *b = ctx;
	uint32_t idx = (uint32_t)val;
	struct bw_op *op = &b->ops[idx];

	(void)flags;
	if ((res == -EAGAIN || res == -EINTR) && !b->q->err) {
		queue_write(b, idx);
		return;
	}
	if (res <= 0) {
		b->inflight--;
		prec_chunk_queue__fail(b->q, res < 0 ? res : -EIO, op->op_off);
		return;
	}
	if ((size_t)res < op->op_left) {
		advance_iov(b, op, (size_t)res);
		if (b->q->err)
			b->inflight--;
		else
			queue_write(b, idx);
		return;
	}
	b->inflight--;
	batch_written(b, idx, op->nslots);
}

static bool staging_fits(const struct buffered_write *b, size_t len)
{
	size_t pos = b->st_head % b->st_size;
	size_t skip = pos + len > b->st_size ? b->st_size - pos : 0;

	return b->st_head + skip + len - b->st_tail <= b->st_size;
}

static unsigned char *staging_take(struct buffered_write *b, size_t len)
{
	size_t pos = b->st_head % b->st_size;

	if (pos + len > b->st_size)
		b->st_head += b->st_size - pos;
	pos = b->st_head % b->st_size;
	b->st_head += len;
	return b->staging + pos;
}

static void add_iov(struct buffered_write *b, const void *base, size_t len)
{
	uint32_t first = b->ops[b->submit_n % b->qd].iov_first;
	struct iovec *last = b->batch_niov ? &b->iov[first + b->batch_niov - 1] : NULL;

	if (!len)
		return;
	b->batch_bytes += len;
	if (last && (const char *)last->iov_base + last->iov_len == (const char *)base) {
		last->iov_len += len;
		return;
	}
	b->iov[first + b->batch_niov].iov_base = (void *)base;
	b->iov[first + b->batch_niov].iov_len = len;
	b->batch_niov++;
}

/* Close the pending batch before a chunk that would overflow it, and open a
 * new one at the chunk's slot. A batch never wraps the slot ring, so its
 * iovecs (3 per slot at most) fit in the slots' own part of b->iov. */
static void batch_start(struct buffered_write *b, size_t len)
{
	uint32_t idx = (uint32_t)(b->q->append_n % b->qd);
	struct bw_op *op;

	if (b->submit_n != b->q->append_n &&
	    (idx == 0 || b->batch_bytes + len > b->batch_max ||
	     b->batch_niov + 3 > IOV_MAX))
		flush_batch(b);
	if (b->submit_n != b->q->append_n)
		return;
	op = &b->ops[idx];
	op->iov_first = 3 * idx;
	op->op_off = b->q->pos;
}

/* Copy mode: header and payload side by side in staging, one iovec. */
static int append_copy(struct buffered_write *b, const struct prec_chunk_meta *meta,
		       const struct iovec *span, int nspan, uint32_t raw,
		       uint32_t *stored)
{
	size_t cap = prec_chunk_framer__cap(b->framer, raw);
	unsigned char *p = staging_take(b, cap);
	int ret = prec_chunk_framer__frame(b->framer, meta, (uint32_t)b->q->append_n,
					   span, nspan, raw, p, cap, stored);

	if (ret)
		return ret;
	/* Give back what compression did not use: this is the newest
	 * allocation, so the ring head just moves back. */
	b->st_head -= cap - PREC_CHUNK_HDR_SIZE - *stored;
	batch_start(b, PREC_CHUNK_HDR_SIZE + *stored);
	add_iov(b, p, PREC_CHUNK_HDR_SIZE + *stored);
	return 0;
}

static void append_zc(struct buffered_write *b, const struct prec_chunk_meta *meta,
		      const struct iovec *span, int nspan, uint32_t raw)
{
	struct prec_chunk_header *h = &b->hdrs[b->q->append_n % b->qd];

	prec_chunk_framer__header(h, meta, (uint32_t)b->q->append_n, span, nspan, raw);
	batch_start(b, PREC_CHUNK_HDR_SIZE + raw);
	add_iov(b, h, PREC_CHUNK_HDR_SIZE);
	for (int i = 0; i < nspan; i++)
		add_iov(b, span[i].iov_base, span[i].iov_len);
}

static bool bw_fits(const void *io, size_t len)
{
	const struct buffered_write *b = io;

	return !b->copy || staging_fits(b, len);
}

static int bw_append(void *io, const struct prec_chunk_meta *meta,
		     const struct iovec *span, int nspan, uint32_t raw,
		     uint32_t *stored)
{
	struct buffered_write *b = io;
	int ret = 0;

	*stored = raw;
	if (b->copy)
		ret = append_copy(b, meta, span, nspan, raw, stored);
	else
		append_zc(b, meta, span, nspan, raw);
	b->ops[b->q->append_n % b->qd].st_end = b->st_head;
	return ret;
}

static void bw_push(void *io, enum prec_write_push how)
{
	struct buffered_write *b = io;

	if (how != PREC_PUSH_APPENDED || b->batch_bytes >= b->batch_max)
		flush_batch(b);
}

static void bw_drain(void *io)
{
	flush_batch(io);
}

static unsigned int bw_inflight(const void *io)
{
	return ((const struct buffered_write *)io)->inflight;
}

static void bw_delete(void *io)
{
	struct buffered_write *b = io;

	if (!b)
		return;
	free(b->ops);
	free(b->hdrs);
	free(b->iov);
	free(b->staging);
	free(b);
}

static const struct prec_write_ops buffered_ops = {
	.fits = bw_fits,
	.append = bw_append,
	.push = bw_push,
	.drain = bw_drain,
	.inflight = bw_inflight,
	.delete = bw_delete,
};

int prec_buffered_write__new(struct prec_write_path *out,
			     const struct prec_write_setup *s)
{
	size_t min_st = 2 * (PREC_CHUNK_HDR_SIZE + (size_t)LZ4_COMPRESSBOUND(PREC_CHUNK_MAX_PAYLOAD));
	struct buffered_write *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->fd = s->fd;
	b->copy = s->copy;
	b->qd = s->q->qd;
	b->batch_max = s->batch_max;
	b->ring = s->ring;
	b->q = s->q;
	b->framer = s->framer;
	b->ops = calloc(b->qd, sizeof(*b->ops));
	b->iov = calloc(3 * (size_t)b->qd, sizeof(*b->iov));
	if (!b->copy)
		b->hdrs = calloc(b->qd, sizeof(*b->hdrs));
	if (!b->ops || !b->iov || (!b->copy && !b->hdrs))
		goto free_path;
	if (b->copy) {
		/* Room for two worst-case chunks, so one can fill while one
		 * writes. */
		b->st_size = s->staging_bytes;
		if (b->st_size < min_st)
			b->st_size = min_st;
		b->staging = malloc(b->st_size);
		if (!b->staging)
			goto free_path;
	}
	prec_uring__on(b->ring, PREC_UR_WRITE, write_done, b);
	out->ops = &buffered_ops;
	out->io = b;
	return 0;

free_path:
	bw_delete(b);
	return -ENOMEM;
}
