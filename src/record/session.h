/* SPDX-License-Identifier: MIT */
/* A recording session (session.c): its directory, manifest, shard
 * writers and drainers, from begin to the final manifest. */
#ifndef PREC_RECORD_SESSION_H
#define PREC_RECORD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/drainer.h"
#include "record/drainer_pool.h"
#include "record/flight_shards.h"
#include "record/options.h"
#include "record/out_dir.h"
#include "record/recording.h"
#include "record/sideband.h"

struct prec_buildid_queue;
struct prec_buildid_reader;
struct prec_epochs;
struct prec_evlist;
struct prec_manifest;
struct prec_shard_writer;

struct prec_session {
	struct prec_out_dir out; /* the output directory (-f's old one) */
	/* the recording written now: out's directory, or with
	 * --switch-output the current epoch in it */
	struct prec_recording rec;
	int nr_cpus;
	const int *cpus;
	struct prec_drainer_pool *pool;    /* the drainers, one per CPU */
	/* the flight recorder's shards (snapshots, -S, tails) */
	struct prec_flight_shards flight;
	/* per CPU: the longest wait for staging room, and what the O_DIRECT
	 * staging grew to (0: never) */
	struct prec_writer_wait { uint64_t ns, staging; } *writer_wait;
	bool direct_io;        /* the shards are written with O_DIRECT */
	/* the drainers' queues of maps without a build-id (per CPU, NULL
	 * where no drainer) and their reader (buildid_reader.h) */
	struct prec_buildid_queue **bid_queues;
	struct prec_buildid_reader *bid_reader;
	uint64_t t_enable_ns, t_stop_ns, manifest_ns; /* CLOCK_MONOTONIC */
	uint64_t t_begin_ns;   /* record's start, for -v's start laps */
	uint64_t records, bytes, lost;
	size_t pages;          /* ring data pages, for the lost-records advice */
	int fail_cpu, fail_err; /* first drainer failure: its CPU, -errno */
	uint64_t fail_ns;      /* when the session learnt of it (MONOTONIC) */
	bool drainers_disable; /* the drainers disable their CPUs' events at
				* the stop (no flight recording): the
				* caller of finish() does not; and
				* enable them at the start: enable()) */
	/* --switch-output: out holds epochs (epochs.h), rec the current one */
	struct prec_epochs *epochs; /* NULL without --switch-output */
	const struct prec_record_opts *o; /* resolved (options_resolve.c) */
	int argc;
	char **argv;
	struct prec_sideband_opts sbo;  /* each epoch's side band */
	uint64_t (*epoch_base)[3]; /* per CPU at the epoch's start: LOST,
				    * LOST_SAMPLES, PERF_FORMAT_LOST totals */
	/* per CPU, what its drainer handed over of the recording being
	 * closed (at the stop, or at a cut) */
	struct prec_drainer_handover *hand;
	uint64_t prior_records, prior_bytes, prior_lost; /* the closed epochs' */
	/* --max-disk: the CPU shards' budget and the carry (max_disk.c) */
	struct prec_max_disk *max_disk;
};

/* The output directory made (out_dir.h: -f's old one is removed after
 * the final manifest), and the recording's descriptor on it. */
int prec_session__create_dir(struct prec_session *s, const char *dir,
			     bool force);
/* Shard writers, manifest filled and written (state RECORDING). */
int prec_session__begin(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, int argc, char **argv);
/* Drainers, then the side band. pids: -p/-t/workload pids, or NULL for all
 * tasks. track_first: enable the tracking events before the side band is
 * read from /proc, so that a task that forks, execs or maps meanwhile (or
 * during -D) is in the rings too (both copies are harmless to perf). */
int prec_session__start(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, const pid_t *pids, int nr_pids,
			bool track_first);
/* Enable every event on every CPU (after start()): each drainer its own
 * CPU's, all at once, when they disable them at the stop; else the calling
 * thread, one after another. Returns once all are enabled: 0, or -errno
 * after one line. */
int prec_session__enable(struct prec_session *s, struct prec_evlist *el);
/* --switch-output: cut the recording into a new epoch: its directory,
 * writers and start manifest, the drainers moved over between passes (no
 * record lost or in both), its side band; then the old epoch closed as a
 * whole recording (totals, build-ids, final manifest) and the oldest
 * beyond --switch-max-files removed. Returns 0, or -errno after one line
 * (the recording must then stop; an epoch that could not start is
 * removed and the current one goes on until the stop). Main thread. */
int prec_session__cut(struct prec_session *s, struct prec_evlist *el);
/* Read the build-ids of the files the drainers saw mapped since the last
 * call (buildid_reader.h): soon after, while a temporary binary is still
 * there. Returns the ms until it wants to be called again (-1: never).
 * Main thread, while recording. */
int prec_session__read_buildids(struct prec_session *s);
/* Stop drainers, collect totals and build-ids, write the final manifest.
 * Events must already be disabled. Returns 0 or -errno. */
int prec_session__finish(struct prec_session *s, struct prec_evlist *el);
/* The flight recorder's shards, for the snapshots and tails that write
 * them (controls.c). */
struct prec_flight_shards *prec_session__flight_shards(struct prec_session *s);
/* The pool's notify fd is readable: note which drainer failed (fail_*). Returns
 * 1 when the recording must stop now, 0 for a spurious wake. Main thread. */
int prec_session__drain_failed(struct prec_session *s);
/* Record bytes drained so far by every drainer (--max-size). */
uint64_t prec_session__drained(const struct prec_session *s);
/* Remove what begin() and start() created when the recording never
 * started (drainers are stopped first); -f's old directory is put back. */
void prec_session__discard(struct prec_session *s);
void prec_session__exit(struct prec_session *s);

#endif
