// SPDX-License-Identifier: MIT
// Flight recorder (--overwrite): write_backward rings mapped read-only are
// not drained; a snapshot pauses each ring, walks back from the head to the
// oldest whole record not yet written, copies those records oldest first
// into DATA chunks of the CPU's shard, and resumes the ring. Writers already
// past the pause check are waited out before the copy (see quiesce()).

#include "record/snapshot.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/chunk_pack.h"
#include "record/internal.h"
#include "record/ring.h"
#include "store/store.h"
#include "util/bytes.h"
#include "util/clock.h"
#include "util/log.h"

#ifndef PERF_EVENT_IOC_PAUSE_OUTPUT
#define PERF_EVENT_IOC_PAUSE_OUTPUT _IOW('$', 9, __u32)
#endif

struct snap_ring {
	struct prec_ring *ring;
	struct prec_shard_writer *writer;
	int cpu;
	uint64_t prev;          /* data_head at the last snapshot (0 at start) */
	uint64_t lost, lost_samples; /* LOST, LOST_SAMPLES records written */
	/* The kernel's drop count (kernel_lost) just after the last resume,
	 * and the part of it the ring has had LOST records for */
	uint64_t resumed_lost, reported;
};

struct prec_snapshot {
	struct prec_snapshot_opts o;
	struct snap_ring *rings;
	uint8_t *copy;          /* the ring's records, oldest first */
	uint64_t copy_cap;
	uint32_t *offs;         /* record offsets in ring order (newest first) */
	uint64_t offs_cap;
	struct prec_snapshot_stats st;
	bool no_membarrier;     /* MEMBARRIER_CMD_GLOBAL refused: sleep instead */
};

/* Read one record header at ring position pos (it may straddle the end). */
static uint16_t rec_size(const uint8_t *data, uint64_t size, uint64_t pos)
{
	struct perf_event_header h;
	uint64_t off = pos & (size - 1);

	if (off + sizeof(h) <= size) {
		memcpy(&h, data + off, sizeof(h));
	} else {
		memcpy(&h, data + off, size - off);
		memcpy((uint8_t *)&h + (size - off), data, sizeof(h) - (size - off));
	}
	return h.size;
}

int prec_snapshot__range(const uint8_t *data, uint64_t size, uint64_t head,
			 uint64_t prev, uint64_t *end, uint32_t *records)
{
	uint64_t pos = head, limit = prev;
	uint32_t n = 0;

	/* Everything since the last snapshot, but never more than one ring:
	 * past head + size the kernel has overwritten the oldest bytes. */
	if (prev - head > size)
		limit = head + size;
	while (pos != limit) {
		uint16_t sz;

		if (limit - pos < sizeof(struct perf_event_header))
			break;
		sz = rec_size(data, size, pos);
		/* size 0: memory never written; a record reaching past the
		 * limit lost its tail to newer data (or was never whole). */
		if (sz < sizeof(struct perf_event_header) || sz > limit - pos)
			break;
		pos += sz;
		n++;
	}
	if (pos != limit && prev - head <= size) {
		*end = pos;
		*records = n;
		return -EBADMSG; /* an unwrapped ring must be whole records */
	}
	*end = pos;
	*records = n;
	return 0;
}

uint64_t prec_snapshot__trim(const uint8_t *copy, uint64_t size, uint64_t head,
			     uint64_t end, uint64_t now, uint32_t *records)
{
	uint64_t bytes = end - head, off = 0, cut;

	/* Moved a whole ring (or backwards, which the kernel never does):
	 * nothing copied can be trusted. */
	if (head - now >= size && head != now) {
		*records = 0;
		return bytes;
	}
	if (end - now <= size)
		return 0;
	/* copy offset o holds the record ending at ring position end - o: it
	 * is torn if that is past now + size, i.e. if o < cut. */
	cut = end - now - size;
	while (off < cut && *records) {
		const struct perf_event_header *h = (const void *)(copy + off);

		if (h->size < sizeof(*h) || h->size > bytes - off) {
			*records = 0;
			return bytes;
		}
		off += h->size;
		(*records)--;
	}
	return off;
}

int prec_snapshot__new(struct prec_snapshot **out,
		       const struct prec_snapshot_opts *o)
{
	struct prec_snapshot *s = calloc(1, sizeof(*s));
	uint64_t max = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->rings = calloc((size_t)o->nr, sizeof(*s->rings));
	if (!s->rings)
		goto nomem;
	for (int i = 0; i < o->nr; i++) {
		s->rings[i] = (struct snap_ring){ .ring = &o->rings[i],
						  .writer = o->writers[i],
						  .cpu = o->cpus[i] };
		if (o->rings[i].size > max)
			max = o->rings[i].size;
	}
	/* Memory for the largest ring, taken now rather than when a
	 * snapshot is asked for. */
	s->copy_cap = max;
	s->copy = malloc(max ? max : 1);
	s->offs_cap = max / 16 + 1;
	s->offs = malloc(s->offs_cap * sizeof(*s->offs));
	if (!s->copy || !s->offs)
		goto nomem;
	*out = s;
	return 0;
nomem:
	prec_snapshot__delete(s);
	return -ENOMEM;
}

static void pause_ring(const struct prec_ring *r, int on)
{
	if (r->fd >= 0 && ioctl(r->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, on))
		pr_warn("snapshot: PERF_EVENT_IOC_PAUSE_OUTPUT %d: %s", on, strerror(errno));
}

/* PERF_EVENT_IOC_PAUSE_OUTPUT only sets rb->paused. A writer on another CPU
 * that tested it just before still fills the space it reserved, which in a
 * backward ring is the oldest end of what we are about to copy, and only
 * then publishes data_head: we would copy a record half overwritten by a
 * newer one (seen: a SAMPLE's ip read as its time). The kernel writes a
 * record between rcu_read_lock() in perf_output_begin and rcu_read_unlock()
 * in perf_output_end, so one RCU grace period waits all such writers out:
 * membarrier(MEMBARRIER_CMD_GLOBAL) is synchronize_rcu(). */
static void quiesce(struct prec_snapshot *s)
{
	struct timespec ms = { 0, 1000000 };

	if (!s->no_membarrier && !syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0))
		return;
	if (!s->no_membarrier) {
		/* nohz_full refuses it: writers run with preemption off, so
		 * a pause is almost always enough, and trim() catches
		 * what was published after the head was read. */
		pr_warn("snapshot: membarrier(MEMBARRIER_CMD_GLOBAL): %s: sleeping 1 ms instead",
			strerror(errno));
		s->no_membarrier = true;
	}
	nanosleep(&ms, NULL);
}

/* Copy [head, *end) of the ring into s->copy with the record order reversed
 * (the ring holds them newest first). Returns the record count or -errno. */
static int64_t copy_reversed(struct prec_snapshot *s, const struct prec_ring *r,
			     uint64_t head, uint64_t *end)
{
	uint64_t pos = head, n = 0, out = 0;

	while (pos != *end) {
		uint16_t sz = rec_size(r->data, r->size, pos);

		/* The range walk saw whole records here: a change means the
		 * kernel is writing over the oldest end; stop before it. */
		if (sz < sizeof(struct perf_event_header) || sz > *end - pos) {
			*end = pos;
			break;
		}
		if (n == s->offs_cap) {
			uint32_t *o = realloc(s->offs, 2 * s->offs_cap * sizeof(*o));

			if (!o)
				return -ENOMEM;
			s->offs = o;
			s->offs_cap *= 2;
		}
		s->offs[n++] = (uint32_t)(pos - head);
		pos += sz;
	}
	/* Sizes from the offsets, not the headers again: exactly end - head
	 * bytes go out whatever the ring holds now. */
	for (uint64_t i = n, older = *end - head; i-- > 0;) {
		uint64_t off = (head + s->offs[i]) & (r->size - 1);
		uint64_t sz = older - s->offs[i];

		older = s->offs[i];
		if (off + sz <= r->size) {
			memcpy(s->copy + out, r->data + off, sz);
		} else {
			memcpy(s->copy + out, r->data + off, r->size - off);
			memcpy(s->copy + out + (r->size - off), r->data, sz - (r->size - off));
		}
		s->offs[i] = (uint32_t)out; /* now: offset in s->copy */
		out += sz;
	}
	return (int64_t)n;
}

/* The drainer's accounting (drain_walk.c note_record), so that a flight
 * recording's manifest says what its shards hold. */
static void note_lost(struct snap_ring *sr, const uint8_t *rec, uint16_t sz)
{
	const struct perf_event_header *h = (const void *)rec;

	if (h->type == PERF_RECORD_LOST && sz >= 24)
		sr->lost += prec_ld64(rec + 16);
	else if (h->type == PERF_RECORD_LOST_SAMPLES && sz >= 16)
		sr->lost_samples += prec_ld64(rec + 8);
}

/* Records [start, bytes) of s->copy (n of them, offs[n - 1] the oldest) as
 * DATA chunks, each whole records, oldest first. */
static int write_chunks(struct prec_snapshot *s, struct snap_ring *sr,
			uint64_t n, uint64_t start, uint64_t bytes)
{
	const struct prec_time_layout *tl = &s->o.layout;
	struct prec_chunk_pack pack;
	uint64_t at = start;
	int err = 0;

	/* Later chunks (and later snapshots) hold newer records. */
	prec_chunk_pack__init(&pack, sr->writer, s->copy + start);
	for (uint64_t i = n; i > 0 && !err; i--) {
		const uint8_t *rec = s->copy + s->offs[i - 1];
		uint16_t sz = ((const struct perf_event_header *)rec)->size;
		uint64_t tm;

		if (sz < sizeof(struct perf_event_header) || at + sz > bytes)
			return -EBADMSG;
		tm = prec_time_layout__time(tl, rec,
					    prec_record__size(rec, sz, PREC_SAMPLE_ID_TRAILER));
		if (tm && (!s->st.oldest || tm < s->st.oldest))
			s->st.oldest = tm;
		note_lost(sr, rec, sz);
		at += sz;
		err = prec_chunk_pack__add(&pack, sz, tm);
	}
	/* s->copy is reused by the next ring: the bytes must be in the file. */
	if (!err)
		err = prec_chunk_pack__finish(&pack);
	s->st.chunks += pack.chunks;
	if (err)
		return err;
	s->st.records += n;
	s->st.bytes += bytes - start;
	return 0;
}

/* The ring is paused and quiesced; resumed here whatever happens. */
static int snap_one(struct prec_snapshot *s, struct snap_ring *sr)
{
	const struct prec_ring *r = sr->ring;
	uint64_t head, end, now, skip = 0;
	uint32_t recs;
	int64_t n;
	int err;

	head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	/* A pause's drops go into a LOST record only before the next record
	 * written: a ring written to since the last resume had one for
	 * every drop up to it (none since: drops happen only while paused). */
	if (head != sr->prev)
		sr->reported = sr->resumed_lost;
	err = prec_snapshot__range(r->data, r->size, head, sr->prev, &end, &recs);
	if (err)
		pr_warn("snapshot cpu%d: ring holds a torn record at %llu: keeping the %u before it",
			sr->cpu, (unsigned long long)end, recs);
	n = copy_reversed(s, r, head, &end);
	if (n >= 0 && (uint64_t)n != recs) {
		s->st.dropped += recs - (uint64_t)n;
		recs = (uint32_t)n;
	}
	/* Anything the kernel still published over the oldest end while we
	 * copied (pause or quiesce failed) is dropped, not written. */
	now = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
	if (n > 0 && now != head) {
		skip = prec_snapshot__trim(s->copy, r->size, head, end, now, &recs);
		s->st.dropped += (uint64_t)n - recs;
		pr_debug("snapshot cpu%d: head moved %llu bytes during the copy: dropped %llu records",
			 sr->cpu, (unsigned long long)(head - now),
			 (unsigned long long)((uint64_t)n - recs));
		n = recs;
	}
	sr->prev = head;
	pause_ring(r, 0);
	if (n < 0)
		return (int)n;
	if (!n)
		return 0;
	return write_chunks(s, sr, (uint64_t)n, skip, end - head);
}

int prec_snapshot__take(struct prec_snapshot *s)
{
	uint64_t t0 = prec_now_ns(CLOCK_MONOTONIC), b0 = s->st.bytes;
	int err = 0;

	s->st.oldest = 0;
	/* All paused first, so that one grace period covers every ring. */
	for (int i = 0; i < s->o.nr; i++)
		pause_ring(s->rings[i].ring, 1);
	quiesce(s);
	for (int i = 0; i < s->o.nr; i++) {
		int e = snap_one(s, &s->rings[i]);

		if (s->o.kernel_lost)
			s->rings[i].resumed_lost = s->o.kernel_lost(s->o.kernel_lost_arg, i);

		if (e && !err) {
			pr_err("snapshot cpu%d: %s", s->rings[i].cpu, strerror(-e));
			err = e;
		}
	}
	s->st.snapshots++;
	pr_debug("snapshot %llu: %llu bytes appended in %.3f ms",
		 (unsigned long long)s->st.snapshots,
		 (unsigned long long)(s->st.bytes - b0), (double)(prec_now_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	return err;
}

void prec_snapshot__stats(const struct prec_snapshot *s,
			  struct prec_snapshot_stats *st)
{
	*st = s->st;
}

void prec_snapshot__lost(const struct prec_snapshot *s, int i,
			 uint64_t *lost, uint64_t *lost_samples)
{
	const struct snap_ring *sr = &s->rings[i];
	uint64_t unreported = sr->resumed_lost > sr->reported ?
			      sr->resumed_lost - sr->reported : 0;

	*lost = sr->lost;
	*lost_samples = sr->lost_samples + sr->lost + unreported;
}

void prec_snapshot__delete(struct prec_snapshot *s)
{
	if (!s)
		return;
	free(s->rings);
	free(s->copy);
	free(s->offs);
	free(s);
}
