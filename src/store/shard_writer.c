// SPDX-License-Identifier: MIT
// Shard writer: frames chunks, batches consecutive appends into one pwritev
// through the writer's own io_uring, completes tickets in order, and on a
// write error cuts the file back to its last whole chunk.
#include "store/shard_writer.h"
#include "util/clock.h"
#include "util/log.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HDR_SIZE ((uint32_t)sizeof(struct prec_chunk_header))
/* Start writeback of whole chunks every this many bytes, so dirty pages do
 * not pile up for the final fsync (or for the kernel's own flusher, which
 * would stall a later write). */
#define WRITEBACK_STEP (8u * 1024u * 1024u)

static struct wr_slot *slot_of(struct prec_shard_writer *w, uint64_t n)
{
	return &w->slots[n % w->qd];
}

void prec_wr__set_error(struct prec_shard_writer *w, int err, uint64_t off)
{
	if (w->err)
		return;
	w->err = err;
	/* A full disk is the caller's to report (it stops the recording and
	 * says so in one line); other errors are logged here, where the
	 * offset is known. */
	prec_log(err == -ENOSPC || err == -EDQUOT ? PREC_LOG_DEBUG : PREC_LOG_ERR,
		 "shard cpu%d: write at offset 0x%llx: %s", (int)w->cpu,
		 (unsigned long long)off, strerror(-err));
}

struct io_uring_sqe *prec_wr__sqe(struct prec_shard_writer *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	if (!sqe && prec_wr__submit(w) == 0)
		sqe = io_uring_get_sqe(&w->ring);
	return sqe;
}

int prec_wr__submit(struct prec_shard_writer *w)
{
	int tries = 0;

	while (io_uring_sq_ready(&w->ring)) {
		int ret = io_uring_submit(&w->ring);

		if (ret >= 0)
			continue;
		if (ret != -EINTR && ret != -EAGAIN && ret != -EBUSY)
			return ret;
		/* The kernel is short of resources or the CQ is backed up:
		 * make room by handling completions, then try again. */
		if (++tries > 1000)
			return ret;
		prec_wr__reap(w, false);
	}
	return 0;
}

static void queue_write(struct prec_shard_writer *w, uint32_t idx)
{
	struct wr_slot *op = &w->slots[idx];
	struct io_uring_sqe *sqe = prec_wr__sqe(w);

	if (!sqe) {
		prec_wr__set_error(w, -EBUSY, op->op_off);
		w->inflight--;
		return;
	}
	io_uring_prep_writev(sqe, w->fd, &w->iov[op->iov_first], op->niov,
			     op->op_off);
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_WRITE, idx));
}

void prec_wr__flush_batch(struct prec_shard_writer *w)
{
	struct wr_slot *op;

	if (w->direct) {
		prec_wr__dio_kick(w, DIO_BATCH);
		return;
	}
	if (w->submit_n == w->append_n)
		return;
	op = slot_of(w, w->submit_n);
	op->nslots = (uint32_t)(w->append_n - w->submit_n);
	op->niov = w->batch_niov;
	op->op_left = w->batch_bytes;
	w->submit_n = w->append_n;
	w->batch_niov = 0;
	w->batch_bytes = 0;
	w->inflight++;
	queue_write(w, (uint32_t)(op - w->slots));
	if (prec_wr__submit(w) < 0)
		prec_wr__set_error(w, -EIO, op->op_off);
}

/* Ask the kernel to start writing back [kicked, durable) now; async in the
 * ring, nobody waits for it, and an I/O error there shows up at fsync. */
static void kick_writeback(struct prec_shard_writer *w)
{
	uint64_t len = w->durable - w->kicked;
	struct io_uring_sqe *sqe;

	if (len < WRITEBACK_STEP || w->err || w->direct)
		return;
	sqe = prec_wr__sqe(w);
	if (!sqe)
		return;
	if (len > (1u << 30))
		len = 1u << 30;
	io_uring_prep_sync_file_range(sqe, w->fd, (unsigned int)len, w->kicked,
				      SYNC_FILE_RANGE_WRITE);
	io_uring_sqe_set_data64(sqe, UD_MAKE(UD_IGNORE, 0));
	w->kicked += len;
}

void prec_wr__retire(struct prec_shard_writer *w)
{
	while (w->retire_n < w->submit_n) {
		struct wr_slot *s = slot_of(w, w->retire_n);

		if (!s->written)
			break;
		s->written = false;
		w->st.chunks++;
		w->st.records += s->records;
		w->st.payload_bytes += s->payload_len;
		w->st.raw_bytes += s->raw_len;
		if (s->first_time && (!w->st.first_time || s->first_time < w->st.first_time))
			w->st.first_time = s->first_time;
		if (s->last_time > w->st.last_time)
			w->st.last_time = s->last_time;
		w->durable = s->end;
		w->st.file_bytes = s->end;
		w->st_tail = s->st_end;
		w->retire_n++;
	}
	kick_writeback(w);
}

/* Drop the first n bytes of an op's iovecs (a short write). */
static void advance_iov(struct prec_shard_writer *w, struct wr_slot *op, size_t n)
{
	struct iovec *v = &w->iov[op->iov_first];

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

static void write_done(struct prec_shard_writer *w, uint32_t idx, int res)
{
	struct wr_slot *op = &w->slots[idx];

	if ((res == -EAGAIN || res == -EINTR) && !w->err) {
		queue_write(w, idx);
		return;
	}
	if (res <= 0) {
		w->inflight--;
		prec_wr__set_error(w, res < 0 ? res : -EIO, op->op_off);
		return;
	}
	if ((size_t)res < op->op_left) {
		advance_iov(w, op, (size_t)res);
		if (w->err)
			w->inflight--;
		else
			queue_write(w, idx);
		return;
	}
	w->inflight--;
	for (uint32_t i = 0; i < op->nslots; i++)
		w->slots[(idx + i) % w->qd].written = true;
	prec_wr__retire(w);
}

int prec_wr__reap(struct prec_shard_writer *w, bool wait)
{
	struct io_uring_cqe *cqe;

	if (wait) {
		int ret = io_uring_wait_cqe(&w->ring, &cqe);

		if (ret < 0)
			return ret;
	}
	/* Consume each CQE before handling it: a handler may need an SQE,
	 * which can submit and reap again (re-entry sees a consistent CQ). */
	while (io_uring_peek_cqe(&w->ring, &cqe) == 0) {
		uint64_t ud = io_uring_cqe_get_data64(cqe);
		int res = cqe->res;
		unsigned int flags = cqe->flags;

		io_uring_cqe_seen(&w->ring, cqe);
		if (UD_KIND(ud) == UD_WRITE)
			write_done(w, (uint32_t)UD_VAL(ud), res);
		else if (UD_KIND(ud) == UD_DIO)
			prec_wr__dio_done(w, res);
		else
			prec_wr__sleep_cqe(w, ud, res, flags);
	}
	/* Resubmissions of short writes queued above. */
	if (io_uring_sq_ready(&w->ring) && prec_wr__submit(w) < 0)
		prec_wr__set_error(w, -EIO, w->durable);
	return 0;
}

void prec_wr__settle(struct prec_shard_writer *w)
{
	if (!w->err || w->truncated)
		return;
	while (w->inflight)
		prec_wr__reap(w, true);
	w->truncated = true;
	/* Writes complete out of order: bytes past the last contiguous whole
	 * chunk may be a torn tail or an island; cut them so the file ends at
	 * a chunk boundary. */
	if (ftruncate(w->fd, (off_t)w->durable) < 0)
		pr_err("shard cpu%d: truncate to 0x%llx after error: %s",
		       (int)w->cpu, (unsigned long long)w->durable,
		       strerror(errno));
}

/* ------------------------------------------------------------------------ */

static bool slot_free(const struct prec_shard_writer *w)
{
	return w->append_n - w->retire_n < w->qd;
}

static bool staging_fits(const struct prec_shard_writer *w, size_t len)
{
	size_t pos = w->st_head % w->st_size;
	size_t skip = pos + len > w->st_size ? w->st_size - pos : 0;

	return w->st_head + skip + len - w->st_tail <= w->st_size;
}

static unsigned char *staging_take(struct prec_shard_writer *w, size_t len)
{
	size_t pos = w->st_head % w->st_size;

	if (pos + len > w->st_size)
		w->st_head += w->st_size - pos;
	pos = w->st_head % w->st_size;
	w->st_head += len;
	return w->staging + pos;
}

static bool room_for(const struct prec_shard_writer *w, size_t len)
{
	return slot_free(w) &&
	       (!w->copy || (w->direct ? prec_wr__dio_fits(w, len) : staging_fits(w, len)));
}

static int wait_room(struct prec_shard_writer *w, size_t len)
{
	while (!room_for(w, len)) {
		if (w->err)
			return w->err;
		/* Direct: all of it, as queue slots can run out with less
		 * than a block appended. */
		if (w->direct)
			prec_wr__dio_kick(w, DIO_ALL);
		else
			prec_wr__flush_batch(w);
		if (!w->inflight && !w->err)
			return -EIO; /* cannot happen: nothing would free room */
		prec_wr__reap(w, true);
	}
	return w->err;
}

/* Block until a slot (and len staging bytes in copy mode) is free. How long
 * it took is kept: a drainer held here by the disk is how a ring overflows
 * behind a slow write, and the loss warning says so. */
static int make_room(struct prec_shard_writer *w, size_t len)
{
	uint64_t t0;
	int ret;

	if (room_for(w, len))
		return w->err;
	t0 = prec_now_ns(CLOCK_MONOTONIC);
	ret = wait_room(w, len);
	t0 = prec_now_ns(CLOCK_MONOTONIC) - t0;
	if (t0 > w->st.wait_ns_max)
		w->st.wait_ns_max = t0;
	return ret;
}

static void add_iov(struct prec_shard_writer *w, const void *base, size_t len)
{
	uint32_t first = slot_of(w, w->submit_n)->iov_first;
	struct iovec *last = w->batch_niov ? &w->iov[first + w->batch_niov - 1] : NULL;

	if (!len)
		return;
	w->batch_bytes += len;
	if (last && (const char *)last->iov_base + last->iov_len == (const char *)base) {
		last->iov_len += len;
		return;
	}
	w->iov[first + w->batch_niov].iov_base = (void *)base;
	w->iov[first + w->batch_niov].iov_len = len;
	w->batch_niov++;
}

/* Close the pending batch before a chunk that would overflow it, and open a
 * new one at the chunk's slot. A batch never wraps the slot ring, so its
 * iovecs (3 per slot at most) fit in the slots' own part of w->iov. */
static void batch_start(struct prec_shard_writer *w, size_t len)
{
	uint32_t idx = (uint32_t)(w->append_n % w->qd);
	struct wr_slot *op;

	if (w->submit_n != w->append_n &&
	    (idx == 0 || w->batch_bytes + len > w->batch_max ||
	     w->batch_niov + 3 > IOV_MAX))
		prec_wr__flush_batch(w);
	if (w->submit_n != w->append_n)
		return;
	op = &w->slots[idx];
	op->iov_first = 3 * idx;
	op->op_off = w->pos;
}

static void fill_header(struct prec_chunk_header *h, const struct prec_chunk_meta *m,
			uint32_t seq, enum prec_codec codec, uint32_t stored,
			uint32_t raw)
{
	h->magic = htole32(PREC_CHUNK_MAGIC);
	h->type = (uint8_t)m->type;
	h->codec = (uint8_t)codec;
	h->header_size = htole16((uint16_t)HDR_SIZE);
	h->payload_len = htole32(stored);
	h->raw_len = htole32(raw);
	h->records = htole32(m->records);
	h->seq = htole32(seq);
	h->first_time = htole64(m->first_time);
	h->last_time = htole64(m->last_time);
	h->watermark = htole64(m->watermark);
	h->aux_offset = htole64(m->aux_offset);
	h->flags = htole32(m->flags);
	h->checksum = 0;
}

static int check_args(const struct prec_chunk_meta *meta, const struct iovec *span,
		      int nspan, uint32_t *raw)
{
	size_t total = 0;

	if (!meta || nspan < 0 || nspan > 2 || (nspan && !span))
		return -EINVAL;
	if (meta->type != PREC_CHUNK_DATA && meta->type != PREC_CHUNK_AUX &&
	    meta->type != PREC_CHUNK_MARKER)
		return -EINVAL;
	for (int i = 0; i < nspan; i++)
		total += span[i].iov_len;
	if (total > PREC_CHUNK_MAX_PAYLOAD)
		return -EINVAL;
	if (meta->type == PREC_CHUNK_MARKER && total)
		return -EINVAL;
	*raw = (uint32_t)total;
	return 0;
}

int prec_wr__build(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
		   const struct iovec *span, int nspan, uint32_t raw,
		   unsigned char *p, size_t cap, uint32_t *stored)
{
	enum prec_codec codec = PREC_CODEC_NONE;
	struct prec_chunk_header h;
	uint32_t crc;

	if (w->codec == PREC_CODEC_LZ4 && raw) {
		int ret = prec_wr__lz4(w, span, nspan, raw, p + HDR_SIZE,
				       cap - HDR_SIZE, &codec);

		if (ret < 0)
			return ret;
		*stored = (uint32_t)ret;
		fill_header(&h, meta, (uint32_t)w->append_n, codec, *stored, raw);
		crc = prec_crc32c(prec_crc32c(0, &h, HDR_SIZE), p + HDR_SIZE, *stored);
	} else {
		unsigned char *q = p + HDR_SIZE;

		/* Raw: the checksum is taken as the ring's bytes are copied,
		 * one pass over them instead of two. */
		*stored = raw;
		fill_header(&h, meta, (uint32_t)w->append_n, codec, raw, raw);
		crc = prec_crc32c(0, &h, HDR_SIZE);
		for (int i = 0; i < nspan; i++) {
			crc = prec_crc32c_copy(crc, q, span[i].iov_base, span[i].iov_len);
			q += span[i].iov_len;
		}
	}
	/* Staging is packed (chunks follow each other as in the file, so a
	 * batch is one iovec): the header may be unaligned there. */
	h.checksum = htole32(crc);
	memcpy(p, &h, HDR_SIZE);
	return 0;
}

/* Copy mode: header and payload side by side in staging, one iovec. */
static int append_copy(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
		       const struct iovec *span, int nspan, uint32_t raw,
		       uint32_t *stored)
{
	size_t cap = HDR_SIZE + (w->codec == PREC_CODEC_LZ4 && raw ?
				 (size_t)LZ4_COMPRESSBOUND(raw) : raw);
	unsigned char *p;
	int ret = make_room(w, cap);

	if (ret)
		return ret;
	if (w->direct)
		return prec_wr__dio_append(w, meta, span, nspan, raw, stored);
	p = staging_take(w, cap);
	ret = prec_wr__build(w, meta, span, nspan, raw, p, cap, stored);
	if (ret)
		return ret;
	/* Give back what compression did not use: this is the newest
	 * allocation, so the ring head just moves back. */
	w->st_head -= cap - HDR_SIZE - *stored;
	batch_start(w, HDR_SIZE + *stored);
	add_iov(w, p, HDR_SIZE + *stored);
	return 0;
}

static int append_zc(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
		     const struct iovec *span, int nspan, uint32_t raw)
{
	struct prec_chunk_header *h;
	uint32_t crc;
	int ret = make_room(w, 0);

	if (ret)
		return ret;
	h = &w->hdrs[w->append_n % w->qd];
	fill_header(h, meta, (uint32_t)w->append_n, PREC_CODEC_NONE, raw, raw);
	crc = prec_crc32c(0, h, HDR_SIZE);
	for (int i = 0; i < nspan; i++)
		crc = prec_crc32c(crc, span[i].iov_base, span[i].iov_len);
	h->checksum = htole32(crc);
	batch_start(w, HDR_SIZE + raw);
	add_iov(w, h, HDR_SIZE);
	for (int i = 0; i < nspan; i++)
		add_iov(w, span[i].iov_base, span[i].iov_len);
	return 0;
}

int64_t prec_shard_writer__append(struct prec_shard_writer *w,
				  const struct prec_chunk_meta *meta,
				  const struct iovec *span, int nspan)
{
	struct wr_slot *s;
	uint32_t raw, stored;
	int ret;

	if (w->err) {
		prec_wr__settle(w);
		return w->err;
	}
	ret = check_args(meta, span, nspan, &raw);
	if (ret)
		return ret;
	stored = raw;
	if (w->copy)
		ret = append_copy(w, meta, span, nspan, raw, &stored);
	else
		ret = append_zc(w, meta, span, nspan, raw);
	if (ret) {
		prec_wr__settle(w);
		return ret;
	}
	s = slot_of(w, w->append_n);
	s->off = w->pos;
	s->end = w->pos + HDR_SIZE + stored;
	s->records = meta->records;
	s->payload_len = stored;
	s->raw_len = raw;
	s->first_time = meta->first_time;
	s->last_time = meta->last_time;
	s->st_end = w->st_head;
	s->written = false;
	w->pos = s->end;
	w->append_n++;
	if (w->direct) {
		/* No batches: the write in flight, or the next one, takes every
		 * whole block appended so far. */
		w->submit_n = w->append_n;
		prec_wr__dio_kick(w, DIO_BATCH);
	} else if (w->batch_bytes >= w->batch_max) {
		prec_wr__flush_batch(w);
	}
	return (int64_t)w->append_n;
}

int64_t prec_shard_writer__done(struct prec_shard_writer *w)
{
	if (!w->err) {
		prec_wr__flush_batch(w);
		prec_wr__reap(w, false);
	}
	prec_wr__settle(w);
	return (int64_t)(w->copy ? w->append_n : w->retire_n);
}

int prec_shard_writer__wait(struct prec_shard_writer *w, int64_t ticket)
{
	if (ticket <= 0 || (uint64_t)ticket > w->append_n)
		return -EINVAL;
	prec_wr__flush_batch(w);
	while (prec_shard_writer__done(w) < ticket) {
		if (w->err)
			return w->err;
		prec_wr__reap(w, true);
	}
	return 0;
}

int prec_shard_writer__flush(struct prec_shard_writer *w)
{
	if (!w->direct)
		prec_wr__flush_batch(w);
	else if (!w->err)
		prec_wr__dio_drain(w);
	while (w->inflight)
		prec_wr__reap(w, true);
	prec_wr__settle(w);
	if (w->err)
		return w->err;
	if (fsync(w->fd) < 0) {
		int err = -errno;

		prec_wr__set_error(w, err, w->durable);
		return err;
	}
	return 0;
}

void prec_shard_writer__stats(const struct prec_shard_writer *w,
			      struct prec_shard_writer_stats *st)
{
	*st = w->st;
}

int prec_shard_writer__error(const struct prec_shard_writer *w)
{
	return w->err;
}
