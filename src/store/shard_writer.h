/* SPDX-License-Identifier: MIT */
/* Private to src/store: the shard writer's state, shared by shard_writer.c
 * (append, completions, errors) and writer_sleep.c (polls and timeouts in the
 * same io_uring). */
#ifndef PREC_STORE_SHARD_WRITER_H
#define PREC_STORE_SHARD_WRITER_H

#include "store/store.h"

#include <liburing.h>

#define WR_MAX_POLLS 8

/* user_data: top byte says what completed, the rest is an index or a tag. */
#define UD_KIND_SHIFT 56
#define UD_WRITE 0ull
#define UD_POLL 1ull
#define UD_TIMEOUT 2ull
#define UD_IGNORE 3ull
#define UD_DIO 4ull /* the one O_DIRECT write in flight */
#define UD_MAKE(kind, val) (((uint64_t)(kind) << UD_KIND_SHIFT) | (uint64_t)(val))
#define UD_KIND(ud) ((ud) >> UD_KIND_SHIFT)
#define UD_VAL(ud) ((ud) & ((1ull << UD_KIND_SHIFT) - 1))

/* One queued chunk; the slot that starts a batch also describes the write
 * op for the whole batch (one pwritev in flight per batch). */
struct wr_slot {
	uint64_t off, end;          /* file range of the chunk */
	uint64_t first_time, last_time;
	uint64_t st_end;            /* staging counter after this chunk */
	uint32_t records, payload_len, raw_len;
	bool written;
	/* batch (op) fields, valid in the batch's first slot */
	uint32_t nslots;
	uint32_t iov_first, niov;   /* remaining iovecs in w->iov */
	uint64_t op_off;            /* file offset of the remaining bytes */
	size_t op_left;             /* bytes still to write */
};

struct wr_poll {
	int fd;
	bool armed;
	uint32_t gen;
};

struct prec_shard_writer {
	int fd;
	int32_t cpu;
	struct io_uring ring;
	bool ring_ok;
	bool copy;
	enum prec_codec codec;
	int lz4_level;
	unsigned int qd;
	size_t batch_max;
	struct wr_slot *slots;
	struct prec_chunk_header *hdrs; /* zero-copy mode: header of each slot */
	struct iovec *iov;              /* 3 per slot; a batch packs its own */
	/* copy mode staging ring; counters grow forever, offset = n % size */
	unsigned char *staging;
	size_t st_size;
	uint64_t st_head, st_tail;
	/* chunk counters: slots [retire_n, append_n) are in use, of which
	 * [submit_n, append_n) form the batch not yet submitted. ticket = n + 1 */
	uint64_t retire_n, submit_n, append_n;
	uint32_t batch_niov;
	size_t batch_bytes;
	uint64_t pos;     /* file offset after the last appended chunk */
	uint64_t durable; /* file offset after the last whole, contiguous chunk */
	uint64_t kicked;  /* writeback started up to here */
	unsigned int inflight;
	int err;
	bool truncated;
	struct prec_shard_writer_stats st;
	/* sleep() */
	struct wr_poll polls[WR_MAX_POLLS];
	uint32_t ready;
	uint32_t tgen;
	bool timed_out;
	/* lz4: compression state and a buffer to join two spans */
	void *lz4_state;
	unsigned char *lz4_lin;
	/* O_DIRECT (copy mode, writer_direct.c): staging mirrors the file,
	 * byte X at staging[X % st_size], with room past st_size to build a
	 * chunk whole before its wrapped end is moved to the front. */
	bool direct;
	bool dio_busy;      /* one write in flight at a time: never two on a block */
	bool dio_fixed;     /* staging is the ring's registered buffer 0 */
	int dio_op_how;     /* its enum prec_dio_kick, to go on after a short write */
	size_t blk;         /* file offset and memory alignment of every write */
	size_t dio_min, dio_cap; /* batch sizes of whole blocks */
	uint64_t dio_kicked_at; /* CLOCK_MONOTONIC_COARSE ns of the last write */
	uint64_t dio_done;  /* file bytes up to here are written */
	uint64_t dio_eof;   /* the file's size: may pass pos by padding */
	uint64_t dio_op_off, dio_op_len, dio_op_data; /* the write in flight */
	unsigned char *dio_tail; /* one block: the partial block, padded */
};

/* Get an SQE, submitting queued ones to make room. Never NULL unless the
 * ring is broken (then returns NULL and the caller fails with -EBUSY). */
struct io_uring_sqe *prec_wr__sqe(struct prec_shard_writer *w);
/* Submit queued SQEs, retrying EINTR/EAGAIN/EBUSY. Returns 0 or -errno. */
int prec_wr__submit(struct prec_shard_writer *w);
/* Submit the pending batch (if any). */
void prec_wr__flush_batch(struct prec_shard_writer *w);
/* Handle every available completion; with wait, first block for one.
 * Returns 0, or -EINTR when the wait was interrupted. */
int prec_wr__reap(struct prec_shard_writer *w, bool wait);
/* Polls and timeouts: handle one non-write completion. */
void prec_wr__sleep_cqe(struct prec_shard_writer *w, uint64_t ud, int res,
			unsigned int flags);
/* After an error: wait for writes in flight, then cut the file back to the
 * last whole chunk (once). */
void prec_wr__settle(struct prec_shard_writer *w);
/* Frame one chunk at p (cap bytes: header, then the payload raw or lz4):
 * header, payload and checksum. Returns 0 with *stored, or -errno. */
int prec_wr__build(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
		   const struct iovec *span, int nspan, uint32_t raw,
		   unsigned char *p, size_t cap, uint32_t *stored);
/* Move done chunks, in order, from "in flight" to "in the file". */
void prec_wr__retire(struct prec_shard_writer *w);
void prec_wr__set_error(struct prec_shard_writer *w, int err, uint64_t off);

/* O_DIRECT (writer_direct.c). setup: after the shard header (hdr, len
 * bytes) is written, switch the file to O_DIRECT where the file system takes
 * it and lay out staging for it; 0 when it stays buffered too (w->direct
 * says which), or -ENOMEM. */
int prec_wr__dio_setup(struct prec_shard_writer *w, const void *hdr, size_t len);
/* Do len more staging bytes fit without overwriting unwritten ones? */
bool prec_wr__dio_fits(const struct prec_shard_writer *w, size_t len);
/* Frame one chunk into staging at file offset w->pos (room checked). */
int prec_wr__dio_append(struct prec_shard_writer *w, const struct prec_chunk_meta *meta,
			const struct iovec *span, int nspan, uint32_t raw,
			uint32_t *stored);
/* Start the next write unless one is in flight: whole blocks not yet
 * written when they make a batch (DIO_BATCH), or everything with the
 * partial last block zero-padded (DIO_ALL); dio_cap bytes at most. */
enum prec_dio_kick { DIO_BATCH, DIO_ALL };
void prec_wr__dio_kick(struct prec_shard_writer *w, enum prec_dio_kick how);
/* At a sleep: write everything, partial block and all, when no write
 * started for DIO_MAX_AGE_NS; else a batch if there is one. */
void prec_wr__dio_idle(struct prec_shard_writer *w);
void prec_wr__dio_done(struct prec_shard_writer *w, int res);
/* Write every byte, wait, and cut the padding off the file's end. */
void prec_wr__dio_drain(struct prec_shard_writer *w);

/* lz4 encode of one payload into dst (cap bytes). Returns stored length
 * (== raw when kept raw, with *codec NONE) or -errno. */
int prec_wr__lz4(struct prec_shard_writer *w, const struct iovec *span,
		 int nspan, uint32_t raw, unsigned char *dst, size_t cap,
		 enum prec_codec *codec);

#endif
