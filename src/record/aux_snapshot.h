/* SPDX-License-Identifier: MIT */
/* AUX area snapshots (aux_snapshot.c), perf record -S: the read-only AUX
 * areas the kernel overwrites, their newest bytes copied into AUX chunks
 * of the CPU's flight shard on a trigger (SIGUSR2, 'snapshot', the exit). */
#ifndef PREC_RECORD_AUX_SNAPSHOT_H
#define PREC_RECORD_AUX_SNAPSHOT_H

#include <stdbool.h>
#include <stdint.h>

struct perf_event_mmap_page;
struct prec_ring;
struct prec_shard_writer;
struct prec_aux_snapshot;

struct prec_aux_snapshot_opts {
	struct prec_ring *rings;           /* nr rings with a read-only AUX area */
	struct prec_shard_writer **writers; /* the flight shard of each */
	const int *cpus;
	int nr;
	/* the AUX event's fds: ring i's are fds[i * fds_per_ring ...] (one
	 * per task), disabled around its copy, as perf's snapshot_start */
	const int *fds;
	int fds_per_ring;
	uint64_t size;          /* the snapshot size, <= each AUX area */
	/* the records' clock for the chunks' times: the perf clock of this
	 * control page (AUX events record on it) */
	const struct perf_event_mmap_page *clock_page;
};

struct prec_aux_snapshot_stats {
	uint64_t snapshots, chunks, bytes;
	uint64_t disable_ns_max; /* longest a ring's AUX event stayed disabled */
};

/* Takes the copy buffer (opts->size bytes) now. Returns 0, -EINVAL (no
 * size, a ring without an AUX area) or -ENOMEM. */
int prec_aux_snapshot__new(struct prec_aux_snapshot **out,
			   const struct prec_aux_snapshot_opts *o);
/* One snapshot of every ring, one at a time: disable the ring's AUX event,
 * copy its newest bytes (prec_aux_snapshot__range), enable it again unless
 * on_exit (perf leaves it disabled at the exit), then write the copy as AUX
 * chunks (at most PREC_CHUNK_MAX_PAYLOAD each, consecutive aux_offset) and
 * flush the shard (written and fsynced). Main thread; blocks on the disk;
 * not async-signal-safe.
 * Returns 0 or the first -errno (the other rings are still taken). */
int prec_aux_snapshot__take(struct prec_aux_snapshot *s, bool on_exit);
void prec_aux_snapshot__stats(const struct prec_aux_snapshot *s,
			      struct prec_aux_snapshot_stats *st);
void prec_aux_snapshot__delete(struct prec_aux_snapshot *s);

/* What a snapshot of one AUX area (aux, size a power of two) takes, perf
 * 6.1's rule: head is aux_head as the kernel left it in overwrite mode (a
 * position within the area for intel_pt, running on for others); *prev the
 * previous snapshot's end (0 at start), *wrapped sticky. The area has
 * wrapped once head passed its end or its last 4 KiB hold a non-zero byte
 * (the kernel hands it out zeroed): then the newest min(snap, size) bytes
 * ending at head; else those written since *prev (at the first snapshot,
 * all of them), at most snap. *offset is the AUXTRACE offset of the first
 * byte (perf's: the end counts as head + size once wrapped), *len the byte
 * count (0: nothing new); the bytes start at ring position *offset &
 * (size - 1). Updates *prev, *wrapped. Pure. */
void prec_aux_snapshot__range(const uint8_t *aux, uint64_t size, uint64_t head,
			      uint64_t snap, uint64_t *prev, bool *wrapped,
			      uint64_t *offset, uint64_t *len);

#endif
