/* SPDX-License-Identifier: MIT */
/* What steers a recording while it runs (controls.c): the -D delay and
 * ranges, the --control commands, the --markers reader, the
 * flight-recorder snapshots and their tails. */
#ifndef PREC_RECORD_CONTROLS_H
#define PREC_RECORD_CONTROLS_H

#include <stdbool.h>
#include <stdint.h>

struct prec_control;
struct prec_evlist;
struct prec_flight_shards;
struct prec_markers;
struct prec_record_opts;
struct prec_session;
struct prec_shard_writer;
struct prec_snapshot;
struct prec_aux_snapshot;
struct prec_tail;

/* -D, --control, --markers, and the snapshot trigger --overwrite
 * installs; the recording owns one (cmd_record.c). */
struct prec_controls {
	struct prec_control *ctl;
	struct prec_markers *mk;
	uint64_t *marker_ids;
	struct prec_snapshot *snap; /* --overwrite */
	struct prec_aux_snapshot *aux_snap; /* -S (aux_snapshot.c) */
	bool aux_on_exit;           /* -Se: one more at the stop */
	struct prec_flight_shards *flight; /* what --overwrite's snapshots
					    * and tails write */
	struct prec_tail *tail;     /* --overwrite: after each snapshot;
				     * --tail-synthesize alone: at the stop
				     * (of each --switch-output epoch) */
	uint64_t tail_at;           /* the latter's oldest time (the
				     * current epoch's start) */
	struct prec_shard_writer *tail_w; /* the latter's (the current
					   * epoch's tail.shard) */
	bool tail_done;             /* the current epoch's tail is written:
				     * one tail an epoch, even where a cut
				     * wrote it and then made no epoch */
	int64_t delay_ms;
	uint64_t enable_at_ns;  /* CLOCK_MONOTONIC, 0 = no pending enable */
	/* -D ranges: the options' edges (ms), the start they count from, the
	 * next one due (even: an enable, odd: a disable) */
	const uint64_t *edges;
	int nr_edges, next_edge;
	uint64_t base_ns;
	int (*snapshot)(void *arg); /* NULL unless --overwrite or -S */
	void *snapshot_arg;
	/* --switch-output: 'switch' cuts an epoch (the recorder's); its
	 * error stops the recording */
	int (*cut)(void *arg);
	void *cut_arg;
};

/* Open the control channel and the markers' ftrace instance. Returns 0 or
 * -errno after one line. */
int prec_controls__init(struct prec_controls *f, const struct prec_record_opts *o);
/* After prec_session__start: arm -D, start the markers reader. */
int prec_controls__start(struct prec_controls *f, struct prec_session *s,
		       const struct prec_record_opts *o,
		       const struct prec_evlist *el);
/* false with -D: the events stay disabled at go(). */
bool prec_controls__starts_enabled(const struct prec_controls *f);
/* poll() timeout until the -D enable, -1 if none; 0 while a command
 * read from the channel waits for its tick. */
int prec_controls__timeout_ms(const struct prec_controls *f);
/* After a wake-up: due -D enable, the next control command (acked).
 * Returns 1 when 'stop' was received, a 'switch' failed or the last -D
 * range ended (perf stops there). */
int prec_controls__tick(struct prec_controls *f, struct prec_evlist *el);
/* --tail-synthesize (no snapshots): the tail of the current epoch, the
 * tasks as they are now, stamped before its first record; at a cut, before
 * prec_session__cut(), as perf writes its tail into the file it switches
 * from. Once an epoch: nothing where its tail was written (tried) before.
 * 0 without one, or -errno after one line. */
int prec_controls__cut_tail(struct prec_controls *f);
/* After prec_session__cut(): the tail bound to the session's epoch (its
 * tail shard and manifest) if the cut made one. 0 or -errno after one
 * line. */
int prec_controls__epoch(struct prec_controls *f, struct prec_session *s);
/* Before prec_session__finish (events disabled): the final snapshot of a
 * flight recording, the last markers read. */
int prec_controls__stop(struct prec_controls *f);
void prec_controls__exit(struct prec_controls *f);

#endif
