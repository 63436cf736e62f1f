/* SPDX-License-Identifier: MIT */
/* Private to src/store: how a shard writer's chunks get to the file, one
 * interface for the two ways (buffered_write.c, direct_write.c). The writer
 * calls it a few times per chunk, never per record. */
#ifndef PREC_STORE_WRITE_PATH_H
#define PREC_STORE_WRITE_PATH_H

#include "store/chunk_framer.h"
#include "store/chunk_queue.h"
#include "store/uring.h"

/* What a path is built from; the writer owns all of it and it outlives the
 * path. */
struct prec_write_setup {
	int fd;                        /* the shard, its header written */
	int32_t cpu;                   /* for messages */
	bool copy;                     /* payloads go through staging */
	size_t batch_max;              /* bytes per write to aim for */
	size_t staging_bytes;          /* staging asked for (copy) */
	size_t staging_max;            /* grow() may take it up to this */
	struct prec_uring *ring;       /* the path takes its kinds' completions */
	struct prec_chunk_queue *q;    /* where chunks go in, and errors */
	struct prec_chunk_framer *framer;
};

/* Rotations (segment files) waiting for the files before them. */
#define PREC_ROTATE_MAX 4

/* When the writer asks a path to start writes. */
enum prec_write_push {
	PREC_PUSH_APPENDED, /* a chunk was queued: a full batch goes */
	PREC_PUSH_BATCH,    /* done/wait: what is batched goes */
	PREC_PUSH_ROOM,     /* the writer waits for room: all that can go */
	PREC_PUSH_IDLE,     /* the drainer goes to sleep */
};

/* Every call on the writer's thread; none blocks but drain(). Errors go to
 * q->err (prec_chunk_queue__fail), except append()'s own. */
struct prec_write_ops {
	/* Room for a chunk of len bytes (prec_chunk_framer__cap) now? */
	bool (*fits)(const void *io, size_t len);
	/* Frame chunk q->append_n at file offset q->pos from the spans (room
	 * checked) and batch it; the writer then pushes it into the queue.
	 * Returns 0 with *stored (payload bytes), or -errno. */
	int (*append)(void *io, const struct prec_chunk_meta *meta,
		      const struct iovec *span, int nspan, uint32_t raw,
		      uint32_t *stored);
	void (*push)(void *io, enum prec_write_push how);
	/* Flush: start every byte appended on its way, reaping as needed;
	 * the writer then waits for inflight() to reach 0. */
	void (*drain)(void *io);
	unsigned int (*inflight)(const void *io);
	void (*delete)(void *io);
	/* Once, on the thread that writes, before its first append: what is
	 * best done by that thread, on its CPU. NULL: nothing. */
	void (*adopt)(void *io);
	/* Segment files: the bytes from file offset at (q->pos, a chunk's
	 * start) on go to fd, those before it still to the file(s) before;
	 * a file gets nothing more once q->durable reaches its end. Up to
	 * PREC_ROTATE_MAX rotations may wait for the files before them to be
	 * written. NULL: the path writes one file. */
	void (*rotate)(void *io, int fd, uint64_t at);
	/* No room for len bytes (fits() said so): make some by growing the
	 * staging, up to the setup's staging_max, rather than have the
	 * drainer wait for a write that stalls. True when len fits now;
	 * *bytes is the staging's new size if it grew, else 0. NULL: the path cannot grow. */
	bool (*grow)(void *io, size_t len, size_t *bytes);
	/* At the drainer's sleep, its ring just emptied: when a write has
	 * stalled with no staging to spare, grow by one step now rather than
	 * in the middle of the next drain pass, where the ring is filling.
	 * Returns the staging's new size if it grew, else 0. NULL: the path
	 * cannot grow. */
	size_t (*grow_ahead)(void *io);
};

struct prec_write_path {
	const struct prec_write_ops *ops;
	void *io;
};

#endif
