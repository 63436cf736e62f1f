/* SPDX-License-Identifier: MIT */
/* The totals of a closing recording (recording_totals.c): its shards'
 * records, bytes and losses counted into its manifest and added up, the
 * drainers' waits for staging room, and with --switch-output the closed
 * epochs' sums and each CPU's losses at its epoch's start. */
#ifndef PREC_RECORD_RECORDING_TOTALS_H
#define PREC_RECORD_RECORDING_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

struct prec_drainer_handover;
struct prec_evlist;
struct prec_manifest;
struct prec_shard_writer;

/* Per CPU: the longest wait for staging room, and what the O_DIRECT
 * staging grew to (0: never). */
struct prec_writer_wait {
	uint64_t ns, staging;
};

/* In the caller's memory; its fields are read and written by
 * recording_totals.c alone. */
struct prec_recording_totals {
	int nr_cpus;
	const int *cpus;                      /* each index's CPU number */
	struct prec_writer_wait *writer_wait; /* per CPU */
	/* --switch-output (else NULL): per CPU at the epoch's start, its
	 * LOST, LOST_SAMPLES and PERF_FORMAT_LOST totals, and the larger of
	 * its two loss views then (what the totals counted of it) */
	uint64_t (*epoch_base)[4];
	/* per CPU: its losses over the whole recording (every epoch's, as
	 * the total counts them) */
	uint64_t *cpu_lost;
	/* --switch-output (else NULL; made at the first count): per fd of
	 * the events, its PERF_FORMAT_LOST count the closed epochs took */
	uint64_t *id_told;
	/* the recording counted last; after sum(), every epoch's */
	uint64_t records, bytes, lost;
	uint64_t prior_records, prior_bytes, prior_lost; /* the closed epochs' */
};

/* Totals for the CPUs cpus[0..nr) (borrowed: they outlive t); epochs:
 * the recording is cut into epochs (--switch-output). Returns 0 or
 * -ENOMEM; t is then for exit() only. */
int prec_recording_totals__init(struct prec_recording_totals *t, const int *cpus, int nr,
				bool epochs);
/* A recording's shards counted (m its manifest, writers its writers, CPU
 * indexes then the side band, NULL for none), each into its manifest
 * entry and the totals (those of the recording counted before are
 * dropped): the writers'
 * figures, and the losses from what each drainer handed over (hand, per
 * CPU) and el's PERF_FORMAT_LOST counts, with --switch-output since the
 * epoch's start. stop_ns: the stop's time (CLOCK_MONOTONIC), when rec is
 * closed by the stop (-v prints each drainer's figures then), else 0.
 * The writers must be flushed. Main thread. */
void prec_recording_totals__count(struct prec_recording_totals *t, struct prec_manifest *m,
				  struct prec_shard_writer *const *writers,
				  const struct prec_evlist *el,
				  const struct prec_drainer_handover *hand, uint64_t stop_ns);
/* Shards count() does not know of (the flight recorder's) added. */
void prec_recording_totals__add(struct prec_recording_totals *t, uint64_t records,
				uint64_t bytes, uint64_t lost);
/* Bytes of the recording counted last. */
uint64_t prec_recording_totals__bytes(const struct prec_recording_totals *t);
/* At a cut, after the old epoch's count(): its totals carried. */
void prec_recording_totals__carry(struct prec_recording_totals *t);
/* At the stop, after the last count(): the carried epochs' totals added,
 * the summary's figures. */
void prec_recording_totals__sum(struct prec_recording_totals *t);
/* The figures (every epoch's after sum()), and the per-CPU waits. */
void prec_recording_totals__figures(const struct prec_recording_totals *t, uint64_t *records,
				    uint64_t *bytes, uint64_t *lost);
const struct prec_writer_wait *prec_recording_totals__writer_wait(
	const struct prec_recording_totals *t);
/* Per CPU index: the records it lost over the whole recording (with
 * --switch-output every epoch's, what the total counted of it). */
const uint64_t *prec_recording_totals__cpu_lost(const struct prec_recording_totals *t);
void prec_recording_totals__exit(struct prec_recording_totals *t);

#endif
