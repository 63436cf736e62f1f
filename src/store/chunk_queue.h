/* SPDX-License-Identifier: MIT */
/* Private to src/store: a shard writer's chunks from append until they are
 * in the file, in order, with the file offsets, the totals of those done
 * and the writer's first error. Both write paths report to it. */
#ifndef PREC_STORE_CHUNK_QUEUE_H
#define PREC_STORE_CHUNK_QUEUE_H

#include "store/store.h"

struct prec_chunk_slot {
	uint64_t off, end;          /* file range of the chunk */
	uint64_t first_time, last_time;
	uint32_t records, payload_len, raw_len;
	bool written;
};

/* Chunk n (ticket n + 1) lives in slots[n % qd]; chunks [retire_n,
 * append_n) are queued. Counters only grow. The writer's thread only;
 * nothing here blocks. */
struct prec_chunk_queue {
	struct prec_chunk_slot *slots;
	unsigned int qd;
	int32_t cpu;                  /* for messages */
	uint64_t retire_n, append_n;
	uint64_t pos;     /* file offset after the last appended chunk */
	uint64_t durable; /* file offset after the last whole, contiguous chunk */
	int err;          /* first error, 0 if none */
	struct prec_shard_writer_stats st; /* of the chunks retired */
};

/* qd slots; chunks start at file offset start. Returns 0 or -ENOMEM.
 * exit() takes a zeroed queue and one whose init failed. */
int prec_chunk_queue__init(struct prec_chunk_queue *q, unsigned int qd,
			   int32_t cpu, uint64_t start);
void prec_chunk_queue__exit(struct prec_chunk_queue *q);

static inline bool prec_chunk_queue__full(const struct prec_chunk_queue *q)
{
	return q->append_n - q->retire_n >= q->qd;
}

/* Twice the slots, at most max: the queued chunks keep their tickets and
 * order. Only for a path that names chunks by file offset (written_to()),
 * as the slot of a chunk moves. Returns 0, or -ENOSPC at max, -ENOMEM. */
int prec_chunk_queue__grow(struct prec_chunk_queue *q, unsigned int max);

/* Queue chunk append_n at pos: stored payload bytes after its header, raw
 * decoded. Room was checked (full()). */
void prec_chunk_queue__push(struct prec_chunk_queue *q,
			    const struct prec_chunk_meta *meta, uint32_t stored,
			    uint32_t raw);

/* The n chunks from slot idx on are in the file (they complete out of
 * order); retire the done ones, in order. */
void prec_chunk_queue__written(struct prec_chunk_queue *q, uint32_t idx, uint32_t n);
/* Every byte before end is in the file; retire the chunks it holds. */
void prec_chunk_queue__written_to(struct prec_chunk_queue *q, uint64_t end);

/* Keep err as the writer's error unless it has one; log it (but for a
 * full disk, the caller's to report) with the offset it hit. */
void prec_chunk_queue__fail(struct prec_chunk_queue *q, int err, uint64_t off);

#endif
