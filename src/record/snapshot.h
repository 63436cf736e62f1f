/* SPDX-License-Identifier: MIT */
/* Flight-recorder snapshots (snapshot.c): the write_backward rings
 * copied into their flight shards on demand. */
#ifndef PREC_RECORD_SNAPSHOT_H
#define PREC_RECORD_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

struct prec_ring;

struct prec_snapshot;

struct prec_snapshot_opts {
	struct prec_ring *rings;          /* nr backward rings (overwrite) */
	struct prec_shard_writer **writers; /* the CPU shard of each ring */
	const int *cpus;
	int nr;
	struct prec_time_layout layout;
	/* The kernel's count of the records ring i's events dropped
	 * (PERF_FORMAT_LOST; 0 where it counts none), called after each
	 * resume: what a LOST record the ring never got reports. */
	uint64_t (*kernel_lost)(void *arg, int i);
	void *kernel_lost_arg;
};

struct prec_snapshot_stats {
	uint64_t snapshots, chunks, records, bytes;
	uint64_t dropped;       /* records overwritten while being copied */
	uint64_t oldest;        /* time of the oldest record the latest
				 * snapshot wrote, over every ring (0: none) */
};

/* Takes the copy buffer (the largest ring) now. Returns 0 or -ENOMEM. */
int prec_snapshot__new(struct prec_snapshot **out,
		       const struct prec_snapshot_opts *o);
/* One snapshot of every ring: pause output, copy the records written since
 * the previous snapshot (at most one ring's worth, oldest whole record
 * first), resume, append them as DATA chunks in time order and wait until
 * the writers have them (a copying writer may hold the last in its
 * staging: prec_flight_shards__write_out() puts them in the files).
 * Caller's thread; not async-signal-safe. Returns 0 or the first -errno. */
int prec_snapshot__take(struct prec_snapshot *s);
void prec_snapshot__stats(const struct prec_snapshot *s,
			  struct prec_snapshot_stats *st);
/* Ring i's totals over every snapshot so far, as a drainer counts them:
 * *lost the sum of its PERF_RECORD_LOST records written to the shard;
 * *lost_samples that of its PERF_RECORD_LOST_SAMPLES records plus the
 * kernel's view of the same drops: *lost and the drops no LOST record
 * reports yet (those of the pauses after the ring's last record, which
 * a LOST record would only have preceded the next one). */
void prec_snapshot__lost(const struct prec_snapshot *s, int i,
			 uint64_t *lost, uint64_t *lost_samples);
void prec_snapshot__delete(struct prec_snapshot *s);

/* The records of a backward ring (data, size a power of two) between head
 * (data_head, moving down) and prev (head at the previous snapshot, 0 at
 * start), keeping only whole records within one ring of head: *end is the
 * position just past the oldest kept record, *records their count. Returns
 * 0, or -EBADMSG when an unwrapped span does not parse as whole records
 * (end and records then describe the part before the bad record). */
int prec_snapshot__range(const uint8_t *data, uint64_t size, uint64_t head,
			 uint64_t prev, uint64_t *end, uint32_t *records);
/* copy holds the records of ring span [head, end) oldest first (bytes =
 * end - head); now is data_head read again after copying. The kernel wrote
 * down to now meanwhile, over ring positions [now + size, head + size): the
 * oldest copied records reaching past now + size may be torn. Returns how
 * many bytes of such records lead copy; *records loses their count. */
uint64_t prec_snapshot__trim(const uint8_t *copy, uint64_t size, uint64_t head,
			     uint64_t end, uint64_t now, uint32_t *records);

#endif
