/* SPDX-License-Identifier: MIT */
/* One drainer thread per CPU ring (drainer.c): ring to shard chunks. */
#ifndef PREC_RECORD_DRAINER_H
#define PREC_RECORD_DRAINER_H

#include <stdbool.h>
#include <stdint.h>

#include "record/capture.h"
#include "record/options.h"
#include "store/store.h"
#include "util/latch.h"

struct perf_event_mmap_page;
struct prec_ring;
struct prec_size_gate;

struct prec_drainer;

struct prec_drainer_opts {
	int cpu;
	struct prec_ring *ring;
	struct prec_shard_writer *writer; /* owned by the caller */
	struct prec_time_layout layout;
	int clockid;            /* clock of the events, for watermarks */
	/* clockid < 0 (perf clock): the control page whose TSC conversion
	 * gives the watermarks; NULL = watermarks 0 */
	const struct perf_event_mmap_page *clock_page;
	uint64_t round_ns;      /* empty marker chunk at least this often */
	bool copy;              /* copy-then-write instead of writev from the mmap */
	bool build_id;          /* the tracking event asked for MMAP2 build-ids */
	int pin_cpu;            /* the ring's CPU, -1 = no pinning */
	enum prec_affinity affinity; /* which CPUs around pin_cpu */
	int rt_prio;            /* > 0: the thread runs SCHED_FIFO at this */
	/* Non-NULL: at the stop the thread disables CPU index el_cpu's
	 * events itself, before its last pass (the caller then does not),
	 * and prec_drainer_pool__enable() has it enable them: from the
	 * ring's CPU the ioctls wait for no other CPU, and the drainers'
	 * run at once rather than one CPU after another. */
	struct prec_evlist *el;
	int el_cpu;
	/* Run first on the new thread, before anything of its own (the
	 * pool's fan-out start); NULL: nothing. */
	void (*started)(void *ctx);
	void *started_ctx;
	/* The count of ring bytes shared by the pool's drainers (--max-size,
	 * --switch-output=SIZE); NULL: none. The drainer that finds the limit
	 * reached disables its CPU's events at once (with el) and writes the
	 * notify fd, as does the one whose chunk reaches the cut mark. */
	struct prec_size_gate *size_gate;
	/* Called by the drainer that finds --max-size reached first, from
	 * its thread: the pool wakes every drainer (prec_drainer__wake()) so
	 * that each disables its CPU's events at once, not at its next
	 * chunk. NULL: none. */
	void (*limit_reached)(void *ctx);
	void *limit_ctx;
};

/* -r's default: the lowest real-time priority, enough to run before every
 * fair-scheduled task on the CPU and behind every other real-time one. */
#define PREC_DRAIN_AUTO_PRIO 1

struct prec_drainer_stats {
	uint64_t records, bytes, chunks, wakeups;
	uint64_t lost;          /* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_samples;  /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t first_time, last_time;
	/* CLOCK_MONOTONIC when the thread saw the stop, had drained its
	 * ring the last time, and had its shard written and fsynced: where
	 * a slow stop goes (prec record -v prints them). */
	uint64_t stop_seen_ns, drained_ns, flushed_ns;
	/* MMAP2 (path, build-id) pairs the maps table had no room for
	 * (the manifest's bounds), since the last cut */
	uint64_t maps_dropped;
	/* MMAP2s that came with a build-id flag not asked for (another
	 * session's, left by the kernel; the merge clears it) */
	uint64_t unflagged;
};

/* A (build-id, path) pair seen in an MMAP2 record, or a path whose MMAP2
 * had no build-id (size 0) so the closer may read the ELF note. */
struct prec_seen_map {
	uint8_t id[20];
	uint8_t size;          /* 0: the record had no build-id, but ... */
	uint16_t cpumode;
	uint32_t maj, min;     /* ... the mapped file's device and inode, */
	uint64_t ino;          /* which its path must still name to be read */
	char *path;
};

int prec_drainer__new(struct prec_drainer **out,
		      const struct prec_drainer_opts *opts);
/* Start the thread. */
int prec_drainer__start(struct prec_drainer *d);
/* Start the thread where it is placed (opts.pin_cpu, affinity);
 * anywhere: the CPUs of a thread whose own the kernel refuses (NULL: the
 * creator's). On failure start_error() says it too. Returns 0 or -errno. */
int prec_drainer__spawn(struct prec_drainer *d, const cpu_set_t *anywhere);
/* Is the thread placed on CPUs of its own (opts.pin_cpu)? */
bool prec_drainer__pinned(const struct prec_drainer *d);
/* Why the thread could not be started, or 0. */
int prec_drainer__start_error(const struct prec_drainer *d);
/* Drain what the ring holds now into chunks (one pass, no thread): used by
 * the thread, and by tests on simulated rings. Returns chunks written or
 * -errno. */
int prec_drainer__drain(struct prec_drainer *d);
/* One drainer's side of an epoch cut (--switch-output). writer: in, the
 * new epoch's shard writer (the drainer's from its next pass on); out,
 * the old one, now the caller's to flush and close (nothing else writes
 * it). The drainer's totals at the cut, and the maps its old epoch saw
 * (the caller's, freed with prec_drainer__free_maps). capture: the
 * caller's buffer (prec_capture__init), filled by the drainer from
 * set_capture() until its move. moved: set by the move (a drainer that
 * had exited moves nothing). */
struct prec_drainer_cut {
	struct prec_shard_writer *writer;
	bool moved;
	uint64_t bytes;         /* ring bytes drained up to the move */
	uint64_t lost, lost_samples;
	struct prec_seen_map *maps;
	uint32_t nr_maps;
	uint64_t maps_dropped;  /* pairs the old epoch's table had no room for */
	struct prec_capture capture;
};

/* The requests of drainer_pool.c, each answered on l by the thread (or
 * skipped on l when d is NULL or not started; prec_latch__wait() is the
 * caller's):
 * - ask_enable: enable its CPU's events (opts.el; tracking: the tracking
 *   events alone) on its next wake-up; -ENOENT when it had exited;
 * - set_capture: from now on copy the task records of every pass into
 *   cut->capture, until the move ask_cut() asks (no answer: it must
 *   follow);
 * - ask_cut: drain once more into the old shard, from a data_head read
 *   after the ask, then move to cut->writer (and give the old one back
 *   in it), the ring never paused;
 * - ask_done: stop, answered once the shard is flushed and the stats,
 *   maps and error are final (the thread may still be exiting). */
void prec_drainer__ask_enable(struct prec_drainer *d, bool tracking, struct prec_latch *l);
void prec_drainer__set_capture(struct prec_drainer *d, struct prec_drainer_cut *cut);
void prec_drainer__ask_cut(struct prec_drainer *d, struct prec_drainer_cut *cut,
			   struct prec_latch *l);
void prec_drainer__ask_done(struct prec_drainer *d, struct prec_latch *l);
void prec_drainer__free_maps(struct prec_seen_map *maps, uint32_t nr);
/* Wake the thread (async-signal-safe, any thread): it looks at the size
 * gate before its next pass. */
void prec_drainer__wake(struct prec_drainer *d);
/* Ask the thread to drain to empty and exit (async-signal-safe), then wait
 * for it. Returns the thread's first error or 0. */
void prec_drainer__stop(struct prec_drainer *d);
int prec_drainer__join(struct prec_drainer *d);
/* Before start(): fd (an eventfd the caller owns and polls) gets 1 added
 * the moment the thread hits its first error, so the caller can stop the
 * recording at once; the thread then logs nothing itself. -1 = none. */
void prec_drainer__set_notify(struct prec_drainer *d, int fd);
/* The thread's first error so far, or 0. Any thread may call it. */
int prec_drainer__error(const struct prec_drainer *d);
/* Bytes drained as of the last pass; any thread may call it. */
uint64_t prec_drainer__bytes(const struct prec_drainer *d);
/* Records drained and records the kernel reported LOST, as of the last
 * pass that wrote something (relaxed reads, no lock: the status line);
 * any thread may call it. */
void prec_drainer__progress(const struct prec_drainer *d, uint64_t *records, uint64_t *lost);
void prec_drainer__stats(const struct prec_drainer *d,
			 struct prec_drainer_stats *st);
/* The queue of new maps without a build-id the thread fills as it drains
 * (buildid_queue.h): the caller is its one consumer. Valid until delete(). */
struct prec_buildid_queue *prec_drainer__buildid_queue(struct prec_drainer *d);
/* Maps seen (deduplicated by path+id); valid until delete(). */
const struct prec_seen_map *prec_drainer__maps(const struct prec_drainer *d,
					       int *nr);
/* What each drainer hands over of the recording it leaves, read once so
 * that the closer reads an array, not every drainer again: at the stop
 * its stats (all of them, for -v's line), the maps it saw (the drainer's:
 * valid until the pool is deleted) and whether it disabled its CPU's
 * events; at a cut the loss counts, maps and dropped pairs its move
 * handed over in the prec_drainer_cut (the pool's, until its cut_end()). */
struct prec_drainer_handover {
	bool present;           /* a drainer was made for this ring */
	bool disabled;
	struct prec_drainer_stats st;
	const struct prec_seen_map *maps;
	int nr_maps;
};

/* After ask_done's answer: its handover at the stop, present. */
void prec_drainer__handover(const struct prec_drainer *d, struct prec_drainer_handover *h);
void prec_drainer__delete(struct prec_drainer *d);

#endif
