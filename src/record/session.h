/* SPDX-License-Identifier: MIT */
/* A recording session (session.c): its directory, manifest, shard
 * writers and drainers, from begin to the final manifest. */
#ifndef PREC_RECORD_SESSION_H
#define PREC_RECORD_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct prec_drainer_pool;
struct prec_evlist;
struct prec_flight_shards;
struct prec_manifest;
struct prec_record_opts;
struct prec_recording;
struct prec_writer_wait; /* recording_totals.h */

/* Opaque: the session's parts are its own (session.c); the few things
 * other files need are below, by verb or by value. */
struct prec_session;

/* What the summary at the stop prints (summary.c), as of finish(): the
 * last recording's final manifest and the totals of every epoch. */
struct prec_session_report {
	const struct prec_manifest *m; /* the last recording's */
	const char *dir;               /* its directory */
	uint64_t records, bytes, lost; /* every epoch's */
	/* CLOCK_MONOTONIC: the events enabled, the stop; the final manifest
	 * written, from the stop */
	uint64_t enable_ns, stop_ns, manifest_ns;
	bool switch_output;            /* epochs counts the epochs */
	uint32_t epochs;
	bool drain_failed;             /* a drainer's error stopped it */
	int nr_cpus;
	const int *cpus;
	const struct prec_writer_wait *writer_wait; /* per CPU */
	/* per CPU: records lost over the whole recording (every epoch's) */
	const uint64_t *cpu_lost;
	size_t pages;                  /* the drained rings' data pages */
	bool direct_io;                /* the shards are written with O_DIRECT */
	/* the flight recorder's CPU shards' indexes in m (NULL: none), and
	 * whether snapshots wrote them (not -S's AUX copies) */
	const uint32_t *flight_cpu_shard;
	bool flight_snapshots;
	int rt_prio;                   /* the drainers' SCHED_FIFO priority */
};

/* A session in a new output directory dir (out_dir.h: with force, -f's
 * old one is put aside, and removed after the final manifest).
 * t_begin_ns: record's start (CLOCK_MONOTONIC), what -v's start laps
 * count from. Returns 0, or -errno after one line (*out NULL). */
int prec_session__new(struct prec_session **out, const char *dir, bool force,
		      uint64_t t_begin_ns);
/* Shard writers, manifest filled and written (state RECORDING). el's
 * drained rings' size goes into the summary's advice. */
int prec_session__begin(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, int argc, char **argv);
/* Drainers, then the side band. pids: -p/-t/workload pids, or NULL for all
 * tasks. track_first: enable the tracking events before the side band is
 * read from /proc, so that a task that forks, execs or maps meanwhile (or
 * during -D) is in the rings too (both copies are harmless to perf).
 * command: the command prec forked, held before its exec (0: none),
 * named last in the side band (prec_sideband_opts.command). */
int prec_session__start(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, const pid_t *pids, int nr_pids,
			bool track_first, pid_t command);
/* The recording's time starts now (the summary's rate and the status
 * line count from it). With events (else they wait for an exec or -D),
 * every event on every CPU is enabled too (after start()): each drainer
 * its own CPU's, all at once, when they disable them at the stop; else
 * the calling thread, one after another. Returns once all are enabled:
 * 0, or -errno after one line. */
int prec_session__enable(struct prec_session *s, struct prec_evlist *el,
			 bool events);
/* The stop begins now (the close's -v laps count from it): the events
 * disabled, unless each drainer disables its own CPU's as it stops.
 * Before finish(). Main thread. */
void prec_session__disable(struct prec_session *s, struct prec_evlist *el);
/* --switch-output: cut the recording into a new epoch: its directory,
 * writers and start manifest, the drainers moved over between passes (no
 * record lost or in both), its side band; then the old epoch closed as a
 * whole recording (totals, build-ids, final manifest) and the oldest
 * beyond --switch-max-files removed. With --tail-synthesize the new
 * epoch has its own tail shard (prec_session__flight_shards()); the old
 * one's tail is the caller's to write before. Returns 0, or -errno after one line
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
/* The recording written now (with --switch-output the current epoch,
 * replaced at each cut): its directory, manifest and writers. */
const struct prec_recording *prec_session__recording(const struct prec_session *s);
/* The flight recorder's shards, for the snapshots and tails that write
 * them (controls.c). */
struct prec_flight_shards *prec_session__flight_shards(struct prec_session *s);
/* The drainers (after begin()): their progress and their error fd. */
struct prec_drainer_pool *prec_session__pool(const struct prec_session *s);
/* ms until tick() is due, or -1: nothing to do by time. */
int prec_session__timeout_ms(const struct prec_session *s);
/* What the recording does by time, each when due: the look for BPF
 * programs loaded meanwhile (bpf_synth.h's watch), --max-disk's carry and
 * drops. Main thread, while recording. */
void prec_session__tick(struct prec_session *s);
/* What the summary prints, into *r (pointers valid until delete()): final
 * after finish(); before it, the CPUs and the enable time are. */
void prec_session__report(const struct prec_session *s, struct prec_session_report *r);
/* The pool's notify fd is readable: note which drainer failed, and when,
 * for the stop's line. Returns 1 when the recording must stop now, 0 for
 * a spurious wake. Main thread. */
int prec_session__drain_failed(struct prec_session *s);
/* Record bytes drained so far by every drainer, as of their last passes. */
uint64_t prec_session__drained(const struct prec_session *s);
/* With --max-size or --switch-output=SIZE: the ring bytes the drainers
 * counted chunk by chunk (any thread), and those before the last cut's
 * moves (the old epoch's end). */
uint64_t prec_session__counted(const struct prec_session *s);
uint64_t prec_session__cut_bytes(const struct prec_session *s);
/* --switch-output=SIZE: the drainer whose chunk takes the count to at
 * wakes the main loop (the pool's fd); 0: none. */
void prec_session__mark_cut(struct prec_session *s, uint64_t at);
/* --max-size: has a drainer found it reached (and disabled its CPU's
 * events)? *used: the ring bytes the drainers counted so far. */
bool prec_session__max_size_reached(const struct prec_session *s, uint64_t *used);
/* Remove what begin() and start() created when the recording never
 * started (drainers are stopped first); -f's old directory is put back. */
void prec_session__discard(struct prec_session *s);
/* Free everything (drainers joined first); NULL is fine. */
void prec_session__delete(struct prec_session *s);

#endif
