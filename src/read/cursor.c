// SPDX-License-Identifier: MIT
// One shard's records in timestamp order: walks the chunks of a shard reader
// and fixes the small inversions of a shared ring with a bounded reorder
// window that releases a record once the chunk watermarks prove it is safe.
//
// Whole chunks are read by pread into two 64 KiB buffers used in turn; lz4
// payloads are decoded into one scratch buffer shared by all cursors. A
// record is released once its time is at or below the latest watermark minus
// PREC_WATERMARK_SLACK_NS, or minus RING_ORDER_SLACK_NS (a record later in a
// CPU's ring is at most that much older than one before it). A full window
// releases early and counts it. A corrupt chunk ends its shard with one
// message; the merge goes on.
#include "read/cursor.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/log.h"

/* The window. Entries are a sorted deque (nearly sorted input makes the
 * insertion from the back O(1)); bytes of held records live either in one
 * of the reader's two chunk buffers, which it fills in turn, or in a byte
 * ring they are copied into before the reader reuses their buffer. So the
 * records a chunk leaves behind (those within RING_ORDER_SLACK_NS of its
 * end: a third of a 64 KiB chunk at 100k records/s) stay where they are
 * while the next chunk is walked, and only the few still held after that
 * are copied. Both are fixed at open; the ring's size (win_bytes) is the
 * shard's share of the merge's budget. Only the parts of both really used
 * are ever touched (see wrap_early). */
#define WIN_ENTRIES 16384u /* power of two */
#define ENT_BYTES (WIN_ENTRIES * sizeof(struct went))
/* How much older than the latest record walked a later record of the same
 * kernel ring can be: the time between a record's timestamp and its space
 * reservation (microseconds, with interrupts off), with a wide margin. Kept
 * well below PREC_WATERMARK_SLACK_NS so that the window, which must hold
 * this much of a shard's data, stays small at millions of records/s. */
#define RING_ORDER_SLACK_NS 1000000ull
#define E_AUX 0x80000000u   /* an AUX chunk, not a perf record */
#define E_WHERE 0x60000000u /* base[] of the bytes: 0 the ring, 1 or 2 a buffer */
#define E_WHERE_SHIFT 29
#define E_LEN 0x1fffffffu

struct went {
	uint64_t time;
	uint32_t off; /* from base[where] */
	uint32_t len; /* | E_WHERE | E_AUX */
};

static uint32_t where(const struct went *e)
{
	return (e->len & E_WHERE) >> E_WHERE_SHIFT;
}

/* Ahead of every ring resident; released residents are reclaimed in ring
 * order once everything before them is released. The flag is only written
 * for a slot released ahead of the tail (rare: residents are copied in time
 * order) and for pads: see ring_release(). */
struct slot {
	uint32_t size;
	uint32_t released;
};

/* Ahead of the bytes of an AUX chunk once copied into the ring. */
struct aux_meta {
	uint64_t aux_offset;
	uint32_t flags;
	uint32_t pad;
};

/* Aligned to a cache line: with hundreds of shards each merge step finds
 * its cursor cold, so what every pop, peek and get reads comes first, in
 * one line, and what a ring release adds in the next. */
struct prec_cursor {
	struct went *ent;
	uint16_t ehead, ecount;
	int16_t err;      /* -errno, sticky until salvage() */
	bool pf_rec;      /* prec_cursor_opts.prefetch_records */
	uint64_t bound;   /* a record with time <= bound may be released */
	/* the ring, then the reader's two buffers (the chunk being walked is
	 * in base[cur]) */
	uint8_t *base[3];
	uint32_t chunk_len, chunk_pos;
	int32_t cpu;
	uint32_t shard;
	/* line 2 */
	uint8_t *ring;    /* base[0], writable */
	uint32_t cur;     /* 1 or 2 */
	uint32_t rhead, rtail, rused;
	uint32_t rlive;   /* bytes of slots not yet released */
	uint32_t rahead;  /* released slots (and pads) past the tail */
	uint32_t win_bytes; /* ring size, a multiple of 8 */
	uint64_t forced;
	uint64_t wm;      /* highest watermark read */
	uint64_t ring_max; /* latest time walked in a CPU shard's DATA chunks */
	uint32_t compact_need; /* free ring bytes a failed compact() lacked */
	bool eof;
	bool more;        /* the chunk's next part is due (the reader's parts) */
	bool two;         /* the reader has two buffers (see try_compact) */
	bool own_mem;     /* allocated by open(), not the caller's */
	bool finished;    /* prec_cursor_opts.finished */
	uint32_t trailer; /* prec_cursor_opts.trailer */
	bool aux_ok;      /* prec_cursor_opts.aux_ok */
	bool live;        /* prec_cursor_opts.live, until end_live() */
	uint64_t part_wm; /* its watermark, applied after its last part */
	/* cold */
	struct aux_meta chunk_aux[2]; /* of an AUX chunk in base[1], base[2] */
	struct prec_shard_reader *rd;
	char *name;
	bool trim_said;      /* told that --max-disk trimmed ahead of us */
	uint64_t chunks;     /* read so far (a chunk in parts once) */
	uint64_t want_chunks; /* prec_cursor_opts.chunks */
	int dirfd;
	struct prec_time_layout tl;
};
_Static_assert(offsetof(struct prec_cursor, ring) == 64,
	       "the fields every record reads fill the first cache line");

static struct went *ent_at(const struct prec_cursor *c, uint32_t i)
{
	return &c->ent[(c->ehead + i) & (WIN_ENTRIES - 1)];
}

/* Stable: a record goes after every held record with time <= its own. */
static void insert(struct prec_cursor *c, uint64_t time, uint32_t off,
		   uint32_t len)
{
	uint32_t i = c->ecount;

	while (i > 0 && ent_at(c, i - 1)->time > time) {
		*ent_at(c, i) = *ent_at(c, i - 1);
		i--;
	}
	*ent_at(c, i) = (struct went){ .time = time, .off = off, .len = len };
	c->ecount++;
}

static int ring_alloc(struct prec_cursor *c, uint32_t size)
{
	uint32_t off;

	if (!c->rused)
		c->rhead = c->rtail = 0;
	if (c->rused && c->rhead <= c->rtail) {
		if (c->rtail - c->rhead < size)
			return -ENOSPC;
	} else if (c->win_bytes - c->rhead < size) {
		struct slot *pad = (struct slot *)(c->ring + c->rhead);

		if (c->rtail < size)
			return -ENOSPC;
		/* The end of the ring is too short: burn it as a released
		 * slot so the tail skips it. */
		pad->size = c->win_bytes - c->rhead;
		pad->released = 1;
		c->rahead++;
		c->rused += pad->size;
		c->rhead = 0;
	}
	off = c->rhead;
	((struct slot *)(c->ring + off))->size = size;
	((struct slot *)(c->ring + off))->released = 0;
	c->rused += size;
	c->rlive += size;
	c->rhead += size;
	if (c->rhead == c->win_bytes)
		c->rhead = 0;
	return (int)off;
}

static void ring_drop_tail(struct prec_cursor *c, uint32_t size)
{
	c->rused -= size;
	c->rtail += size;
	if (c->rtail == c->win_bytes)
		c->rtail = 0;
}

/* size is slot_size() of the entry: the slot headers of a window that left
 * the cache long ago (hundreds of shards) are read only when some slot was
 * released out of order, never to find out that none was. */
static void ring_release(struct prec_cursor *c, uint32_t slot_off, uint32_t size)
{
	c->rlive -= size;
	if (slot_off != c->rtail) {
		((struct slot *)(c->ring + slot_off))->released = 1;
		c->rahead++;
		return;
	}
	ring_drop_tail(c, size);
	while (c->rahead && c->rused) {
		struct slot *s = (struct slot *)(c->ring + c->rtail);

		if (!s->released)
			break;
		c->rahead--;
		ring_drop_tail(c, s->size);
	}
}

static uint32_t slot_size(const struct went *e)
{
	uint32_t extra = e->len & E_AUX ? sizeof(struct aux_meta) : 0;

	return (uint32_t)sizeof(struct slot) + (((e->len & E_LEN) + extra + 7) & ~7u);
}

/* Only the pages the window really uses should ever be touched (RSS with
 * hundreds of shards): wrap back to the start of the ring as soon as the
 * next batch fits there, rather than walking through the whole ring. */
static void wrap_early(struct prec_cursor *c, uint32_t need)
{
	struct slot *pad;

	if (!c->rused || c->rhead <= c->rtail)
		return;
	/* Until the tail passes the pad, new batches must fit before the
	 * tail: ask for room for this batch and two more windows' worth. */
	if ((uint64_t)2 * need + 2 * (uint64_t)c->rlive > c->rtail)
		return;
	pad = (struct slot *)(c->ring + c->rhead);
	pad->size = c->win_bytes - c->rhead;
	pad->released = 1;
	c->rahead++;
	c->rused += pad->size;
	c->rhead = 0;
}

/* Ring bytes the held records in buffer b would take. */
static uint32_t held_in(const struct prec_cursor *c, uint32_t b)
{
	uint32_t need = 0;

	for (uint32_t i = 0; i < c->ecount; i++)
		if (where(ent_at(c, i)) == b)
			need += slot_size(ent_at(c, i));
	return need;
}

/* Copy the held records that still point into buffer b into the ring, so
 * the reader may reuse it. -ENOSPC when the ring is full. */
static int compact(struct prec_cursor *c, uint32_t b)
{
	uint32_t need = held_in(c, b);

	if (!need)
		return 0;
	wrap_early(c, need);
	for (uint32_t i = 0; i < c->ecount; i++) {
		struct went *e = ent_at(c, i);
		uint32_t len = e->len & E_LEN;
		uint32_t extra = e->len & E_AUX ? sizeof(struct aux_meta) : 0;
		uint8_t *dst;
		int off;

		if (where(e) != b)
			continue;
		off = ring_alloc(c, slot_size(e));
		if (off < 0)
			return off;
		dst = c->ring + off + sizeof(struct slot);
		if (extra)
			memcpy(dst, &c->chunk_aux[b - 1], extra);
		memcpy(dst + extra, c->base[b] + e->off, len);
		e->off = (uint32_t)off + (uint32_t)sizeof(struct slot);
		e->len &= ~E_WHERE;
	}
	return 0;
}

/* The shard's name, and the segment file's the reader is in (a --max-disk
 * shard): the file a message says is bad. */
static const char *bad_file(const struct prec_cursor *c, char *buf, size_t len)
{
	const char *seg = prec_shard_reader__segment_file(c->rd);

	if (!seg)
		return c->name;
	snprintf(buf, len, "%s: segment file %s", c->name, seg);
	return buf;
}

/* two file names and the words between */
#define WHERE_LEN (2 * NAME_MAX + 32)

static int corrupt(struct prec_cursor *c, uint64_t off, const char *why)
{
	char w[WHERE_LEN];

	pr_err("shard %s: corrupt chunk at offset 0x%llx: %s", bad_file(c, w, sizeof(w)),
	       (unsigned long long)off, why);
	c->err = -EBADMSG;
	return -EBADMSG;
}

/* Is the bad chunk at off the torn tail of a crashed recording: the file
 * ends inside its header or its payload (a header that passed every check,
 * so its length is one a writer could give), or its header and everything
 * after it are zeros? */
static bool torn_tail(const struct prec_cursor *c, uint64_t off)
{
	const char *why = prec_shard_reader__why(c->rd);

	if (!why || strncmp(why, "torn ", 5))
		return false;
	if (strcmp(why, "torn chunk header (zeros)"))
		return true;
	return prec_shard_reader__zeros_from(c->rd, off);
}

static int read_failed(struct prec_cursor *c, int r)
{
	uint64_t off = prec_shard_reader__offset(c->rd);
	const char *why = prec_shard_reader__why(c->rd);
	char w[WHERE_LEN];

	if (r != -EBADMSG) {
		pr_err("shard %s: read at offset 0x%llx: %s", bad_file(c, w, sizeof(w)),
		       (unsigned long long)off, *why ? why : strerror(-r));
		c->err = r;
		return r;
	}
	if (!torn_tail(c, off))
		return corrupt(c, off, why);
	/* prec closes every shard whole before it marks the manifest
	 * complete: a torn end there is damage, not a crash. */
	if (c->finished)
		return corrupt(c, off, strcmp(why, "torn chunk header (zeros)")
				       ? "the file ends inside it, but the recording finished"
				       : "only zeros from here on, but the recording finished");
	pr_warn("shard %s: torn chunk at offset 0x%llx ends the file: "
		"reading up to it (recording did not finish?)",
		bad_file(c, w, sizeof(w)), (unsigned long long)off);
	c->eof = true;
	c->bound = UINT64_MAX;
	return 0;
}

/* At the end of a finished shard: fewer chunks than its manifest counts
 * is damage the chunks alone do not show (the file cut at a chunk's end,
 * its first kept segment file gone). Returns 0 or -EBADMSG after one
 * line. */
static int short_end(struct prec_cursor *c)
{
	if (!c->want_chunks || c->chunks >= c->want_chunks)
		return 0;
	pr_err("shard %s: ends after %llu chunks, the manifest counts %llu: the rest is missing (cut, or a segment file gone)",
	       c->name, (unsigned long long)c->chunks, (unsigned long long)c->want_chunks);
	c->err = -EBADMSG;
	return -EBADMSG;
}

/* Every record of a DATA chunk must be whole, and one perf can read,
 * before any is handed out: a bad one can come only from damage the
 * checksum missed or from a writer that is not prec. */
static int check_records(struct prec_cursor *c, const struct prec_chunk *ch)
{
	const uint8_t *p = ch->payload;
	uint32_t pos = 0, n = 0;
	char why[96];

	while (pos < ch->len) {
		uint16_t size;
		const char *bad = prec_record__bad(&c->tl, p + pos, ch->len - pos, &size);

		if (bad) {
			snprintf(why, sizeof(why), "record at +0x%x (size %u): %s", pos, size, bad);
			return corrupt(c, ch->offset, why);
		}
		pos += size;
		n++;
	}
	if (n != ch->hdr.records) {
		snprintf(why, sizeof(why), "%u records, header says %u", n,
			 ch->hdr.records);
		return corrupt(c, ch->offset, why);
	}
	return 0;
}

/* The reader filled the other of its two buffers (the one compact() just
 * emptied; it may have grown, so its address is taken again). */
static void use_buffer(struct prec_cursor *c, void *payload)
{
	c->cur = 3 - c->cur;
	c->base[c->cur] = payload;
}

/* A chunk read whole and bigger than PREC_CHUNK_MAX_PAYLOAD (an old lz4 or
 * AUX chunk) grew the buffer it is in; with two buffers the next such chunk
 * would grow the other too. Back to one: from now on the records held in
 * both are copied out before each read. */
static void one_buffer(struct prec_cursor *c)
{
	if (c->two && compact(c, 3 - c->cur) == 0) {
		prec_shard_reader__set_two_buffers(c->rd, false);
		c->two = false;
	}
}

/* What peek() returns while the recorder has not written the next chunk. */
#define WAIT 2

static int next_chunk(struct prec_cursor *c)
{
	struct prec_chunk ch;
	int r;

	/* Keep the deque at the low end of its array (see wrap_early). */
	if (c->ehead && c->ehead + c->ecount <= WIN_ENTRIES) {
		memmove(c->ent, c->ent + c->ehead, c->ecount * sizeof(*c->ent));
		c->ehead = 0;
	}
	r = prec_shard_reader__next(c->rd, &ch);
	/* A merge that follows a --max-disk recording can fall behind its
	 * trimming: the chunks where it stands are holes now, and the kept
	 * ones start further on (said once per shard). */
	if ((r == 0 || r == -EBADMSG) && prec_shard_reader__skip_trimmed(c->rd)) {
		if (!c->trim_said)
			pr_info("shard %s: --max-disk dropped chunks before this merge read them: it goes on from the oldest kept",
				c->name);
		c->trim_said = true;
		r = prec_shard_reader__next(c->rd, &ch);
	}

	/* Live, a chunk that does not read whole and valid is the one being
	 * written (a torn end, an O_DIRECT block's zero padding, a checksum
	 * over bytes half there): read it again later. Damage is found once
	 * the recording has ended, where it is. */
	if (c->live && (r == 0 || r == -EBADMSG)) {
		prec_shard_reader__retry(c->rd);
		return WAIT;
	}
	if (r == 0) {
		c->eof = true;
		c->bound = UINT64_MAX;
		return short_end(c);
	}
	if (r < 0)
		return read_failed(c, r);
	if (!ch.part_off)
		c->chunks++;
	use_buffer(c, ch.payload);
	if (!ch.more && !ch.part_off && ch.len > PREC_CHUNK_MAX_PAYLOAD)
		one_buffer(c);
	c->chunk_len = c->chunk_pos = 0;
	switch (ch.hdr.type) {
	case PREC_CHUNK_DATA:
		/* a chunk in parts had its records checked by the reader
		 * (prec_shard_reader__check_records) */
		r = ch.more ? 0 : check_records(c, &ch);
		if (r < 0)
			return r;
		c->chunk_len = ch.len;
		break;
	case PREC_CHUNK_AUX:
		/* perf stops at AUXTRACE data it has no AUXTRACE_INFO for */
		if (!c->aux_ok)
			return corrupt(c, ch.offset, "AUX data in a recording without an AUX event");
		c->chunk_aux[c->cur - 1].aux_offset = ch.hdr.aux_offset;
		c->chunk_aux[c->cur - 1].flags = ch.hdr.flags;
		insert(c, ch.hdr.first_time ? ch.hdr.first_time : ch.hdr.watermark,
		       0, ch.len | c->cur << E_WHERE_SHIFT | E_AUX);
		break;
	case PREC_CHUNK_MARKER:
		break;
	default:
		return corrupt(c, ch.offset, "unknown chunk type");
	}
	/* Applied to the bound only once the chunk is fully in the window:
	 * the guarantee is about the chunks after this one. */
	c->more = ch.more;
	c->part_wm = ch.hdr.watermark;
	if (!c->more && ch.hdr.watermark > c->wm)
		c->wm = ch.hdr.watermark;
	return 0;
}

/* The next part of a chunk read in parts (a CPU shard's chunk of an old
 * file). Between parts only ring order bounds the window (release_bound()
 * with the watermarks of earlier chunks), which is what lets the window
 * give back each part before the next. */
static int next_part(struct prec_cursor *c)
{
	struct prec_chunk ch;
	int r = prec_shard_reader__next_part(c->rd, &ch);

	if (r < 0)
		return read_failed(c, r);
	use_buffer(c, ch.payload);
	c->chunk_len = ch.len;
	c->chunk_pos = 0;
	c->more = ch.more;
	if (!c->more && c->part_wm > c->wm)
		c->wm = c->part_wm;
	return 0;
}

static void walk_one(struct prec_cursor *c)
{
	uint8_t *p = c->base[c->cur] + c->chunk_pos;
	uint16_t size, real;
	uint64_t t;

	memcpy(&size, p + 6, sizeof(size));
	size = le16toh(size);
	/* A KSYMBOL may carry stale bytes after its real ones: its time is
	 * in their trailer, and the record goes out with their size, set
	 * here in the reader's copy so that every consumer sees it whole. */
	real = prec_record__size(p, size, c->trailer);
	if (__builtin_expect(real != size, 0)) {
		uint16_t le = htole16(real);

		memcpy(p + 6, &le, sizeof(le));
	}
	t = prec_time_layout__time(&c->tl, p, real);

	/* In a kernel ring a record is stamped just before it reserves its
	 * space, so every record later in ring order is at most
	 * RING_ORDER_SLACK_NS older than any earlier one: the latest time seen
	 * bounds the future as a watermark does, without waiting for the next
	 * chunk's. (Not for the side band: its records have several sources.) */
	if (c->cpu >= 0 && t > c->ring_max)
		c->ring_max = t;
	insert(c, t, c->chunk_pos, real | c->cur << E_WHERE_SHIFT);
	c->chunk_pos += size;
}

/* Every record still to come from this shard has time > this bound. */
static uint64_t release_bound(const struct prec_cursor *c)
{
	uint64_t by_wm = c->wm > PREC_WATERMARK_SLACK_NS ? c->wm - PREC_WATERMARK_SLACK_NS : 0;
	uint64_t by_ring = c->ring_max > RING_ORDER_SLACK_NS ? c->ring_max - RING_ORDER_SLACK_NS : 0;

	return by_wm > by_ring ? by_wm : by_ring;
}

/* compact() the buffer the next read fills, but after a failure only once
 * enough ring space was freed for what it lacked: a full window then costs
 * O(1) per record, not a rescan of the window. Returns true when the
 * buffer's records were moved. */
static bool try_compact(struct prec_cursor *c)
{
	uint32_t b = 3 - c->cur;

	if (c->win_bytes - c->rused < c->compact_need)
		return false;
	if (compact(c, b) == 0 && (c->two || compact(c, c->cur) == 0)) {
		c->compact_need = 0;
		return true;
	}
	c->compact_need = held_in(c, b) + (c->two ? 0 : held_in(c, c->cur));
	return false;
}

int prec_cursor__peek(struct prec_cursor *c)
{
	int r;

	if (c->err)
		return c->err;
	for (;;) {
		if (c->ecount && ent_at(c, 0)->time <= c->bound)
			return 1;
		if (c->chunk_pos < c->chunk_len) {
			if (c->ecount == WIN_ENTRIES)
				return 1; /* window full: forced */
			walk_one(c);
			continue;
		}
		if (release_bound(c) > c->bound) {
			c->bound = release_bound(c);
			continue;
		}
		if (c->eof)
			return c->ecount ? 1 : 0;
		if (c->ecount == WIN_ENTRIES || !try_compact(c))
			return 1; /* forced */
		r = c->more ? next_part(c) : next_chunk(c);
		if (r < 0 || r == WAIT)
			return r;
	}
}

uint64_t prec_cursor__bound(const struct prec_cursor *c)
{
	return c->bound;
}

void prec_cursor__end_live(struct prec_cursor *c, bool finished)
{
	c->live = false;
	c->finished = finished;
}

uint64_t prec_cursor__time(const struct prec_cursor *c)
{
	return ent_at(c, 0)->time;
}

void prec_cursor__get(const struct prec_cursor *c, struct prec_merge_rec *r)
{
	const struct went *e = ent_at(c, 0);
	uint32_t len = e->len & E_LEN;
	const uint8_t *p = c->base[where(e)] + e->off;

	r->time = e->time;
	r->cpu = c->cpu;
	r->shard = c->shard;
	if (!(e->len & E_AUX)) {
		r->rec = p;
		r->rec_len = len;
		r->aux = NULL;
		r->aux_len = 0;
		r->aux_offset = 0;
		r->aux_flags = 0;
		return;
	}
	r->rec = NULL;
	r->rec_len = 0;
	r->aux_len = len;
	if (where(e)) {
		r->aux = p;
		r->aux_offset = c->chunk_aux[where(e) - 1].aux_offset;
		r->aux_flags = c->chunk_aux[where(e) - 1].flags;
	} else {
		const struct aux_meta *m = (const struct aux_meta *)p;

		r->aux = p + sizeof(*m);
		r->aux_offset = m->aux_offset;
		r->aux_flags = m->flags;
	}
}

/* With many shards a cursor comes back to the front of the merge only after
 * the others had their turns, by when its window has left the cache: ask
 * for what its next turn reads (the entries a line ahead and, for a
 * consumer that reads records, the bytes of the new front) now. Inlined by
 * force: as a function of its own GCC 12 found it free of side effects and
 * dropped every call (no prefetch was left in the binary). */
static inline __attribute__((always_inline)) void prefetch_front(const struct prec_cursor *c)
{
	const struct went *e;
	const uint8_t *p;

	if (!c->ecount)
		return;
	__builtin_prefetch(ent_at(c, 4));
	if (!c->pf_rec)
		return;
	/* the record (up to 256 bytes), for a consumer that copies it */
	e = ent_at(c, 0);
	p = c->base[where(e)] + e->off;
	for (uint32_t at = 0, len = e->len & E_LEN; at < len && at < 256; at += 64)
		__builtin_prefetch(p + at);
}

void prec_cursor__prefetch(const struct prec_cursor *c, uint32_t bytes)
{
	const struct went *e;
	const uint8_t *p;

	if (!c->ecount)
		return;
	e = ent_at(c, 0);
	p = c->base[where(e)] + e->off;
	for (uint32_t at = 0; at < bytes; at += 64)
		__builtin_prefetch(p + at);
}

void prec_cursor__pop(struct prec_cursor *c)
{
	struct went *e = ent_at(c, 0);

	if (e->time > c->bound)
		c->forced++;
	if (!where(e))
		ring_release(c, e->off - (uint32_t)sizeof(struct slot), slot_size(e));
	c->ehead = (c->ehead + 1) & (WIN_ENTRIES - 1);
	c->ecount--;
	prefetch_front(c);
}

void prec_cursor__salvage(struct prec_cursor *c)
{
	c->err = 0;
	c->eof = true;
	c->more = false;
	c->bound = UINT64_MAX;
	c->chunk_len = c->chunk_pos = 0;
}

uint64_t prec_cursor__forced(const struct prec_cursor *c)
{
	return c->forced;
}

static int check_header(const struct prec_cursor *c, const uint8_t *session_id)
{
	const struct prec_shard_header *h = prec_shard_reader__header(c->rd);

	if (h->cpu != c->cpu) {
		pr_err("shard %s: header says cpu %d, manifest says %d", c->name,
		       (int)h->cpu, (int)c->cpu);
		return -EBADMSG;
	}
	if (session_id && memcmp(h->session_id, session_id, sizeof(h->session_id))) {
		pr_err("shard %s: belongs to another recording (session id differs)",
		       c->name);
		return -EBADMSG;
	}
	return 0;
}

int prec_cursor__open(struct prec_cursor **out, int dirfd, const char *name,
		      const struct prec_cursor_opts *o)
{
	struct prec_cursor *c = o->mem ? o->mem : aligned_alloc(64, prec_cursor__size());
	const char *why = NULL;
	int r = -ENOMEM;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	memset(c, 0, sizeof(*c));
	c->own_mem = !o->mem;
	c->dirfd = dirfd;
	c->cpu = o->cpu;
	c->shard = o->shard;
	c->pf_rec = o->prefetch_records;
	c->finished = o->finished;
	c->trailer = o->trailer;
	c->aux_ok = o->aux_ok;
	c->live = o->live;
	c->want_chunks = o->finished && !o->live ? o->chunks : 0;
	c->tl = *o->tl;
	c->name = strdup(name);
	c->win_bytes = o->win_bytes & ~7u;
	c->ent = o->win_mem;
	c->ring = (uint8_t *)o->win_mem + ENT_BYTES;
	if (!c->name)
		goto out_close;
	c->base[0] = c->ring;
	c->cur = 2; /* the first chunk goes to base[1] */
	struct prec_shard_reader_opts ro = {
		/* Old big chunks in parts keep a shard's memory at one 64 KiB
		 * buffer. Not for the side band: its records have several
		 * sources, so ring order cannot empty the window between parts. */
		.parts = c->cpu >= 0,
		/* Their records are judged by the reader, which alone sees them
		 * all before the first part is out, as check_records() judges a
		 * chunk's. */
		.check_records = &c->tl,
		.scratch = o->scratch,
		.two_buffers = true,
		.lent_buffers = o->bufs,
		.lent_cap = PREC_CHUNK_MAX_PAYLOAD,
	};
	r = prec_shard_reader__open_why(&c->rd, dirfd, name, &ro, &why);
	if (r < 0) {
		pr_err("shard %s: cannot open: %s", name, why);
		goto out_close;
	}
	c->two = true;
	r = check_header(c, o->session_id);
	if (r < 0)
		goto out_close;
	*out = c;
	return 0;
out_close:
	prec_cursor__close(c);
	return r;
}

void prec_cursor__close(struct prec_cursor *c)
{
	if (!c)
		return;
	prec_shard_reader__close(c->rd);
	free(c->name);
	if (c->own_mem)
		free(c);
}

size_t prec_cursor__size(void)
{
	return (sizeof(struct prec_cursor) + 63) & ~(size_t)63;
}

size_t prec_cursor__win_size(uint32_t win_bytes)
{
	return ENT_BYTES + (((size_t)win_bytes + 63) & ~(size_t)63);
}
