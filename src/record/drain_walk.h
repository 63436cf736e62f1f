/* SPDX-License-Identifier: MIT */
/* Private to drainer.c / drain_walk.c: the record-header walk over a ring
 * span and the per-drainer table of MMAP2 (path, build-id) pairs. */
#ifndef PREC_RECORD_DRAIN_WALK_H
#define PREC_RECORD_DRAIN_WALK_H

#include <stdint.h>

#include "record/buildid_queue.h"
#include "record/capture.h"
#include "record/drainer.h"
#include "store/store.h"

struct prec_drain_walk {
	const struct prec_time_layout *layout;
	const uint8_t *data;     /* ring data area */
	uint64_t size;           /* ring size, a power of two */
	uint8_t *scratch;        /* 64 KiB: a record straddling the wrap */
	/* totals over every walked record */
	uint64_t lost, lost_samples;
	uint32_t aux_flags;      /* OR of PERF_RECORD_AUX flags not yet put
				  * on an AUX chunk (aux_flags() below) */
	/* MMAP2 pairs, deduplicated by (path, id) */
	struct prec_seen_map *maps;
	uint32_t nr_maps, cap_maps;
	uint32_t *slots;         /* open addressing: index + 1, 0 = free */
	uint32_t nr_slots;       /* a power of two, > 2 * nr_maps */
	uint64_t map_bytes;      /* paths' bytes in maps, NULs included */
	uint64_t maps_dropped;   /* pairs not kept: the table's bounds */
	uint64_t unflagged;      /* MMAP2s with a build-id flag not asked for */
	/* the recording asked for build-ids in MMAP2 (--buildid-mmap): only
	 * then is a record's build-id flag the kernel's answer to us */
	bool build_id;
	/* the new maps without a build-id, for the session's reader */
	struct prec_buildid_queue queue;
	/* non-NULL: the task records walked are copied there too (a cut's
	 * capture, set by the drainer for each pass) */
	struct prec_capture *cap;
	uint64_t bad_pos;        /* where -EBADMSG was found */
	uint32_t bad_size;
};

/* One span of whole records [start, end). */
struct prec_drain_span {
	uint64_t start, end;
	uint32_t records;
	uint64_t first_time, last_time; /* 0 when no record had a time */
};

/* Set up w for a ring of size bytes at data. Returns 0 or -ENOMEM. */
int prec_drain_walk__init(struct prec_drain_walk *w,
			  const struct prec_time_layout *layout,
			  const uint8_t *data, uint64_t size);
void prec_drain_walk__exit(struct prec_drain_walk *w);
/* Hand the maps table to the caller (*maps, *nr; free it with
 * prec_drain_walk__free_maps) and start an empty one: an epoch's maps are
 * those its chunks saw (--switch-output). Allocates nothing. */
void prec_drain_walk__take_maps(struct prec_drain_walk *w,
				struct prec_seen_map **maps, uint32_t *nr);
void prec_drain_walk__free_maps(struct prec_seen_map *maps, uint32_t nr);
/* Note the MMAP2 pairs of the records buf[0..len) (whole records, as a
 * capture holds them) in the maps table, as if walked. Returns 0 or
 * -ENOMEM. */
int prec_drain_walk__note_maps(struct prec_drain_walk *w, const uint8_t *buf,
			       uint32_t len);

/* Walk the records from ring position start (a record boundary) toward
 * head, stopping at head or before the record that would make the span
 * longer than max bytes; count them, note times, LOST, LOST_SAMPLES and
 * MMAP2 pairs. Returns 0, -EBADMSG (a record shorter than its
 * header or reaching past head: w->bad_pos/bad_size say where) or -ENOMEM. */
int prec_drain_walk__span(struct prec_drain_walk *w, uint64_t start,
			  uint64_t head, uint32_t max,
			  struct prec_drain_span *out);

/* OR the flags of the PERF_RECORD_AUX records in [start, head) into
 * w->aux_flags. */
void prec_drain_walk__aux_flags(struct prec_drain_walk *w, uint64_t start,
				uint64_t head);

#endif
