// SPDX-License-Identifier: MIT
// AUX area snapshots (perf record -S): the AUX areas are mapped read-only,
// so the kernel overwrites them and never stops for a reader; on a trigger
// each ring's AUX event is disabled, its newest bytes copied into one
// buffer taken at the start, the event enabled again, and the copy written
// as AUX chunks of the CPU's flight shard. The drainers never see these
// areas (drainer.c skips a read-only AUX area): the copy is off their path.
#include "record/aux_snapshot.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>

#include "record/perfclock.h"
#include "record/ring.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"

/* perf's first-wrap test looks at the area's last 512 words. */
#define WRAP_PROBE_BYTES 4096u

struct aux_ring {
	uint64_t prev;          /* the last snapshot's end (perf's adjusted head) */
	bool wrapped;
};

struct prec_aux_snapshot {
	struct prec_aux_snapshot_opts o;
	struct aux_ring *rings;
	uint8_t *copy;          /* o.size bytes */
	struct prec_aux_snapshot_stats st;
};

static bool tail_written(const uint8_t *aux, uint64_t size)
{
	uint64_t n = size < WRAP_PROBE_BYTES ? size : WRAP_PROBE_BYTES;

	for (uint64_t i = size - n; i < size; i++)
		if (aux[i])
			return true;
	return false;
}

void prec_aux_snapshot__range(const uint8_t *aux, uint64_t size, uint64_t head,
			      uint64_t snap, uint64_t *prev, bool *wrapped,
			      uint64_t *offset, uint64_t *len)
{
	uint64_t old, end, n;

	if (!*wrapped && (head > size || tail_written(aux, size)))
		*wrapped = true;
	if (*wrapped) {
		/* the whole area is valid, its newest byte just before head */
		old = head;
		end = head + size;
	} else {
		/* only what was written since the last snapshot */
		old = *prev & (size - 1);
		end = head;
		if (old > end)
			end += size;
	}
	n = end - old;
	if (n > snap)
		n = snap;
	*offset = end - n;
	*len = n;
	*prev = end;
}

int prec_aux_snapshot__new(struct prec_aux_snapshot **out,
			   const struct prec_aux_snapshot_opts *o)
{
	struct prec_aux_snapshot *s;

	*out = NULL;
	if (!o->size || o->nr <= 0)
		return -EINVAL;
	for (int i = 0; i < o->nr; i++)
		if (!o->rings[i].aux || o->size > o->rings[i].aux_size)
			return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->o = *o;
	s->rings = calloc((size_t)o->nr, sizeof(*s->rings));
	/* Taken now rather than when a snapshot is asked for. */
	s->copy = malloc(o->size);
	if (!s->rings || !s->copy) {
		prec_aux_snapshot__delete(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

/* perf's snapshot_start and snapshot_finish: the AUX event off and on,
 * every task's fd on the ring's CPU. A failure is said, not fatal: the
 * copy of a running area may hold a few torn bytes at its oldest end,
 * which the decoders resynchronize past. */
static void toggle(const struct prec_aux_snapshot *s, int i, bool on)
{
	const int *fds = s->o.fds ? s->o.fds + (size_t)i * (size_t)s->o.fds_per_ring : NULL;

	for (int t = 0; fds && t < s->o.fds_per_ring; t++)
		if (fds[t] >= 0 &&
		    ioctl(fds[t], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0))
			pr_warn("aux snapshot cpu%d: %s: %s", s->o.cpus[i],
				on ? "PERF_EVENT_IOC_ENABLE" : "PERF_EVENT_IOC_DISABLE",
				strerror(errno));
}

/* [offset, offset + len) of ring i's AUX area into s->copy. */
static void copy_out(struct prec_aux_snapshot *s, const struct prec_ring *r,
		     uint64_t offset, uint64_t len)
{
	uint64_t at = offset & (r->aux_size - 1), first = r->aux_size - at;

	if (first >= len) {
		memcpy(s->copy, r->aux + at, len);
	} else {
		memcpy(s->copy, r->aux + at, first);
		memcpy(s->copy + first, r->aux, len - first);
	}
}

/* s->copy as AUX chunks stamped t, then a flush: the buffer is the next
 * ring's, and a snapshot asked for is on disk when the next is taken (a
 * copying writer would hold it in its staging until a batch fills). */
static int write_copy(struct prec_aux_snapshot *s, int i, uint64_t offset,
		      uint64_t len, uint64_t t)
{
	int64_t ticket = 0;

	for (uint64_t done = 0; done < len;) {
		struct prec_chunk_meta meta = { .type = PREC_CHUNK_AUX };
		uint64_t n = len - done;
		struct iovec iov;

		if (n > PREC_CHUNK_MAX_PAYLOAD)
			n = PREC_CHUNK_MAX_PAYLOAD;
		/* Later chunks of the flight shard are later snapshots. */
		meta.first_time = meta.last_time = meta.watermark = t;
		meta.aux_offset = offset + done;
		/* one snapshot, one AUXTRACE: the merge joins the pieces */
		if (done)
			meta.flags = PREC_AUX_CHUNK_CONT;
		else if (n < len)
			meta.flags = PREC_AUX_CHUNK_RUN;
		iov = (struct iovec){ s->copy + done, n };
		ticket = prec_shard_writer__append(s->o.writers[i], &meta, &iov, 1);
		if (ticket < 0)
			return (int)ticket;
		s->st.chunks++;
		done += n;
	}
	s->st.bytes += len;
	return ticket > 0 ? prec_shard_writer__flush(s->o.writers[i]) : 0;
}

static int snap_one(struct prec_aux_snapshot *s, int i, bool on_exit)
{
	const struct prec_ring *r = &s->o.rings[i];
	struct aux_ring *ar = &s->rings[i];
	uint64_t t0, head, offset, len, t;

	t0 = prec_now_ns(CLOCK_MONOTONIC);
	toggle(s, i, false);
	/* The event is off: head and the bytes behind it hold still. */
	head = __atomic_load_n(&r->page->aux_head, __ATOMIC_ACQUIRE);
	t = r->fd >= 0 && s->o.clock_page ? prec_perfclock__now(s->o.clock_page) : 0;
	prec_aux_snapshot__range(r->aux, r->aux_size, head, s->o.size, &ar->prev,
				 &ar->wrapped, &offset, &len);
	copy_out(s, r, offset, len);
	if (!on_exit)
		toggle(s, i, true);
	t0 = prec_now_ns(CLOCK_MONOTONIC) - t0;
	if (t0 > s->st.disable_ns_max)
		s->st.disable_ns_max = t0;
	/* 1: before every record of the recording (a simulated ring) */
	return len ? write_copy(s, i, offset, len, t ? t : 1) : 0;
}

int prec_aux_snapshot__take(struct prec_aux_snapshot *s, bool on_exit)
{
	uint64_t b0 = s->st.bytes;
	int err = 0;

	/* One ring at a time: each AUX event is off only for its own copy. */
	for (int i = 0; i < s->o.nr; i++) {
		int e = snap_one(s, i, on_exit);

		if (e && !err) {
			pr_err("aux snapshot cpu%d: %s", s->o.cpus[i], strerror(-e));
			err = e;
		}
	}
	s->st.snapshots++;
	pr_debug("aux snapshot %llu: %llu bytes", (unsigned long long)s->st.snapshots,
		 (unsigned long long)(s->st.bytes - b0));
	return err;
}

void prec_aux_snapshot__stats(const struct prec_aux_snapshot *s,
			      struct prec_aux_snapshot_stats *st)
{
	*st = s->st;
}

void prec_aux_snapshot__delete(struct prec_aux_snapshot *s)
{
	if (!s)
		return;
	free(s->rings);
	free(s->copy);
	free(s);
}
