/* SPDX-License-Identifier: MIT */
/* Private to src/read (cursor.c, merge.c): one shard's records in timestamp
 * order, through a bounded reorder window driven by the chunk watermarks. */
#ifndef PREC_READ_CURSOR_H
#define PREC_READ_CURSOR_H

#include <stdint.h>

#include "read/internal.h"
#include "store/store.h"

struct prec_cursor;

struct prec_cursor_opts {
	int32_t cpu;     /* the manifest's, checked against the header */
	uint32_t shard;  /* index in the manifest, handed out with records */
	const struct prec_time_layout *tl;
	const uint8_t *session_id; /* NULL: not checked */
	/* The reorder ring's size: it must hold the records of a chunk that
	 * wait for the next one (a whole chunk at most, or releases are
	 * forced). */
	uint32_t win_bytes;
	/* NULL, or where lz4 payloads are read, shared by the merge's cursors
	 * (prec_shard_reader_opts.scratch) */
	struct prec_shard_scratch *scratch;
	/* NULL, or prec_cursor__size() bytes aligned to 64 that the caller
	 * owns: a merge puts all its cursors in one block, where hundreds of
	 * them take a few pages instead of one page each, so that reaching
	 * the next cursor costs no page walk (see bench/merge.sh) */
	void *mem;
	/* NULL, or 2 * PREC_CHUNK_MAX_PAYLOAD bytes the caller owns, for the
	 * shard reader's two buffers (prec_shard_reader_opts.lent_buffers) */
	void *bufs;
	/* prec_cursor__win_size(win_bytes) bytes aligned to 64 that the
	 * caller owns, for the window (its entries and its ring): a merge maps
	 * every cursor's in one block, where malloc made each of the two a
	 * mapping of its own (over its mmap threshold), mapped and unmapped
	 * one by one */
	void *win_mem;
	/* Prefetch the whole front record, not its first line: with many
	 * shards it has left the cache by the time the consumer copies it;
	 * with few the prefetches only cost (see merge.c) */
	bool prefetch_records;
	/* The manifest says the recording finished: every shard was closed
	 * whole, so a torn last chunk is corruption, not a crash's tail. */
	bool finished;
	/* With finished and not live: the chunks the manifest counts in the
	 * shard (those kept, under --max-disk). A shard that ends short of
	 * them lost some (cut at a chunk boundary, a segment file gone): an
	 * error at its end, as a corrupt chunk is. 0: not checked. */
	uint64_t chunks;
	/* sample_id trailer bytes of a non-SAMPLE record (fixing up the
	 * KSYMBOLs a kernel bug makes too long: prec_record__size()) */
	uint32_t trailer;
	/* the recording has an AUX event (an AUXTRACE_INFO): else an AUX
	 * chunk is corrupt */
	bool aux_ok;
	/* A recorder is still appending to the shard (merge --follow): the
	 * end of its whole chunks, or a chunk that does not read whole and
	 * valid there, is where to wait, not the end (peek() returns 2). */
	bool live;
};

size_t prec_cursor__size(void);

/* Bytes of a window whose ring holds win_bytes (for prec_cursor_opts.win_mem;
 * a multiple of 64). */
size_t prec_cursor__win_size(uint32_t win_bytes);

/* Open dirfd/name and check its header against o->cpu and o->session_id.
 * The window is o->win_mem; the reader's buffer grows only for a chunk
 * bigger than any before (old 256 KiB chunks). Returns 0, -EBADMSG (not
 * this recording's shard) or -errno; logs why. */
int prec_cursor__open(struct prec_cursor **out, int dirfd, const char *name,
		      const struct prec_cursor_opts *o);

/* Make the cursor's next record (its front) ready. Returns 1 (front ready,
 * prec_cursor__time() gives its time), 0 when the shard is exhausted,
 * -EBADMSG on a corrupt chunk (logged once, with the chunk offset), or
 * -errno. A torn last chunk is the end of the shard (warned once). Live
 * (prec_cursor_opts.live): 2 when no record can be released before the
 * recorder writes more, prec_cursor__bound() then bounds what is to come;
 * the next peek() reads the file again. */
int prec_cursor__peek(struct prec_cursor *c);

/* After peek() returned 2: every record the cursor will still give has a
 * time at or after this. */
uint64_t prec_cursor__bound(const struct prec_cursor *c);

/* The recorder stopped (merge --follow saw the final manifest, finished,
 * or found no recorder alive): from now on the end of the file is the
 * shard's end, read as prec_cursor_opts.finished says. */
void prec_cursor__end_live(struct prec_cursor *c, bool finished);

/* Time of the front; only after peek() returned 1. */
uint64_t prec_cursor__time(const struct prec_cursor *c);

/* Describe the front in *r; pointers stay valid until the next peek(). */
void prec_cursor__get(const struct prec_cursor *c, struct prec_merge_rec *r);

/* Ask the cache for the front record and what follows it in its buffer,
 * bytes in all: the records a burst of get() and pop() is about to read
 * (usually one after the other). Does nothing while the window is empty;
 * a front not yet peeked is only a wasted prefetch. */
void prec_cursor__prefetch(const struct prec_cursor *c, uint32_t bytes);

/* Drop the front (after get()). */
void prec_cursor__pop(struct prec_cursor *c);

/* After peek() failed: give up the rest of the file but keep releasing the
 * records already in the window (they came from good chunks). */
void prec_cursor__salvage(struct prec_cursor *c);

/* Records released before the watermarks allowed it (window full). */
uint64_t prec_cursor__forced(const struct prec_cursor *c);

void prec_cursor__close(struct prec_cursor *c);

#endif
