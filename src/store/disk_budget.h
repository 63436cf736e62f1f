/* SPDX-License-Identifier: MIT */
/* --max-disk: the bytes a recording may hold on disk (disk_budget.c). */
#ifndef PREC_STORE_DISK_BUDGET_H
#define PREC_STORE_DISK_BUDGET_H

#include <stdint.h>

/* The bytes a recording may hold on disk, shared by its CPU shards'
 * writers: each appended chunk is counted, and the append that takes the
 * total past the limit drops whole segments (runs of about segment()
 * bytes of chunks, in the file's order) of the shard whose next segment is
 * oldest, until the total is back under it: the shard header is rewritten
 * to start after it, and the segment's file unlinked (O_DIRECT shards,
 * written in segment files) or its range punched out of the shard's one
 * file (FALLOC_FL_PUNCH_HOLE). Thread-safe: the counting is atomic, the dropping holds a lock
 * (once per segment, never per record). docs/format.md, "Trimmed shards". */
struct prec_disk_budget;

struct prec_disk_budget_stats {
	uint64_t limit, segment;     /* as made */
	uint64_t used;               /* counted now: chunks kept + fixed */
	uint64_t staged;             /* of used, in staging at the writers' last
				      * appends (not on disk yet) */
	uint64_t segments, chunks, records, bytes; /* dropped (bytes: on disk) */
	uint64_t first_time, last_time; /* of the records dropped, 0 if none */
	uint64_t stuck;              /* appends over the limit with nothing droppable */
	uint64_t backstops;          /* appends that dropped (the trimmer was late) */
	uint64_t backstop_ns_max;    /* the longest such append's drops took */
	uint64_t punch_ns, punch_ns_max; /* header rewrites and punches, total and longest */
	/* the latest of the shards' first kept times (where every shard has
	 * data), and the latest chunk time seen: the window now */
	uint64_t window, latest;
};

/* limit bytes for nr_shards shards; segments of limit / (8 * nr_shards),
 * at least PREC_DISK_SEGMENT_MIN. Returns 0, -EINVAL (limit 0 or
 * nr_shards 0) or -ENOMEM. */
#define PREC_DISK_SEGMENT_MIN (256u * 1024u)
int prec_disk_budget__new(struct prec_disk_budget **out, uint64_t limit,
			  uint32_t nr_shards);
/* No more drops by the trimmer thread (joined, its drop in flight done):
 * before the writers' totals are taken at the stop, which then hold. */
void prec_disk_budget__stop(struct prec_disk_budget *b);
/* After every shard writer that joined it is closed; NULL is fine. */
void prec_disk_budget__delete(struct prec_disk_budget *b);
/* Bytes the budget counts beside the shards (side band, carry, manifest):
 * replaces the previous figure. Any thread. */
void prec_disk_budget__set_fixed(struct prec_disk_budget *b, uint64_t bytes);
void prec_disk_budget__stats(struct prec_disk_budget *b,
			     struct prec_disk_budget_stats *st);
/* Run the budget's trimmer thread (which drops from a little below the
 * limit, so that appends seldom have to) SCHED_FIFO at prio, as the
 * drainers whose appends it spares. Returns 0 or -errno. */
int prec_disk_budget__fifo(struct prec_disk_budget *b, int prio);

#endif
