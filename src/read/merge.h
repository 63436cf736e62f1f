/* SPDX-License-Identifier: MIT */
/* The merge iterator (merge.c over cursor.c and slice.c): every shard of a
 * recording in timestamp order, shared by merge, dump, info and archive. */
#ifndef PREC_READ_MERGE_H
#define PREC_READ_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

struct prec_merge;

struct prec_merge_opts {
	uint64_t time_start, time_end; /* event clock ns; 0 = unbounded */
	/* --max-disk's window: every record of a CPU shard before it goes
	 * (the carry shard stands for their tasks and maps); 0 = none */
	uint64_t window_start;
	const bool *cpu_allowed;       /* indexed by CPU, NULL = all */
	int nr_cpu_allowed;
	bool salvage;                  /* corrupt data is not an error (callers' exit) */
	/* The consumer reads every record whole (prec merge copies them):
	 * with many shards merged by the tree, each is prefetched as it
	 * comes to the front (slices copy records in bursts instead). */
	bool reads_records;
	/* How records are ordered: 0 decides by the shard count (a tree over
	 * the cursors' fronts below PREC_MERGE_SLICE_MIN_SHARDS shards, time
	 * slices from there on); > 0 slices, < 0 the tree (tests). A recording
	 * with AUX data always uses the tree: its chunks are not copied. */
	int slices;
	uint32_t slice_bytes; /* the slices' room; 0: PREC_MERGE_SLICE_BYTES */
	/* The recording is still being written (merge --follow): next()
	 * hands out only what every shard's watermarks prove complete, and
	 * says -EAGAIN where it would have to wait for the recorder. Always
	 * the tree. */
	bool live;
};

#define PREC_MERGE_SLICE_MIN_SHARDS 64u
/* Four times the bytes a slice aims at (merge.c): a slice over its target
 * halves the next one's span long before it runs out of room and drains. */
#define PREC_MERGE_SLICE_BYTES (4u << 20)

/* One record of the merged stream. For a DATA record, rec points at the
 * perf_event_header (rec_len == header.size). For an AUX chunk, aux/aux_len
 * hold the bytes and aux_offset their AUX position; rec is NULL. Pointers
 * are valid until the next prec_merge__next(). */
struct prec_merge_rec {
	const void *rec;
	uint32_t rec_len;
	uint64_t time;
	int32_t cpu;          /* shard's CPU, PREC_SIDEBAND_CPU for side band */
	uint32_t shard;       /* index in the manifest's shard table */
	const void *aux;
	uint32_t aux_len;
	uint64_t aux_offset;
	uint32_t aux_flags;
};

/* Open every shard of the manifest under dirfd. Returns 0 or -errno (no
 * time layout, no memory); a shard that cannot be opened is logged, naming
 * it, counted in prec_merge__errors() and left out. */
int prec_merge__open(struct prec_merge **out, int dirfd,
		     const struct prec_manifest *m,
		     const struct prec_merge_opts *opts);

/* Where a --max-disk recording that dropped data starts: the latest of
 * its CPU shards' first times, from which every CPU has its records
 * (0: nothing was dropped, no window). */
uint64_t prec_merge__window(const struct prec_manifest *m);
/* Say on stderr where the window starts (nothing for 0): the one line
 * merge and dump both print. */
void prec_merge__say_window(uint64_t window_start);
/* Say on stderr, in one line naming DIR/manifest, a state this reader does
 * not know (0, damage, a later version's): it is read as a recording that
 * did not finish, the worst case (no totals trusted, torn ends taken).
 * Nothing for RECORDING, which each command words its own way, or
 * COMPLETE. The line merge, dump, info and archive all print. */
void prec_merge__say_state(const char *dir, const struct prec_manifest *m);
/* Are the CPUs o->cpu_allowed asks for in m? 0: all of them (or no list),
 * 1: some are not (why says which), -ENOENT: none is (why says so, with
 * the CPUs m has). */
int prec_merge__check_cpus(const struct prec_manifest *m,
			   const struct prec_merge_opts *o, char *why, size_t len);

/* Next record in global timestamp order (side band time-0 records first).
 * --time START and --cpu choose samples, losses and AUX data; the rest of
 * the side band passes (up to END). Returns 1, 0 at the end, or -errno;
 * live, -EAGAIN when the next record may not be written yet (call again
 * later: nothing is lost, the order is the one a merge after the end
 * gives). A
 * corrupt chunk is logged once with shard name and offset, the rest of
 * that shard is skipped and the merge goes on; so is a shard that could
 * not be opened. prec_merge__errors() counts both. Never allocates or logs
 * per record. */
int prec_merge__next(struct prec_merge *mg, struct prec_merge_rec *r);

/* Live (opts.live): the recorder stopped. finished: its final manifest
 * is on disk, so every shard was closed whole; else it died and each
 * shard is read up to its torn end, as a merge of a crashed recording.
 * next() then goes on to the real end. Returns 0 or -errno. */
int prec_merge__end_live(struct prec_merge *mg, bool finished);

/* Corrupt chunks and unreadable shards met so far (each logged once). */
unsigned int prec_merge__errors(const struct prec_merge *mg);

/* Slices whose room could not take a whole cut, so that what they held
 * was merged with the cursors one record at a time (tests, benchmarks). */
uint64_t prec_merge__drains(const struct prec_merge *mg);

/* Records whose timestamp went backwards in the output (should stay 0). */
uint64_t prec_merge__inversions(const struct prec_merge *mg);

/* Records released before the watermarks proved them safe, because a
 * shard's reorder window was full (should stay 0; not always an inversion). */
uint64_t prec_merge__forced(const struct prec_merge *mg);

void prec_merge__close(struct prec_merge *mg);

#endif
