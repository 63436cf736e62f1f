/* SPDX-License-Identifier: MIT */
/* Tail synthesis (tail.c): after each flight-recorder snapshot, the tasks
 * alive then, as COMM and MMAP2 records in tail.shard stamped just before
 * the snapshot's oldest record; with --tail-synthesize alone, once at the
 * end of the recording (of each --switch-output epoch), before its
 * start, the events' threads as perf names its thread map (threads). */
#ifndef PREC_RECORD_TAIL_H
#define PREC_RECORD_TAIL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/store.h"

/* The tail shard: its own file, so that its times only grow (a tail
 * after sideband.shard's later chunks would break that shard's
 * watermarks), and its own negative cpu (shard cpus are unique; readers
 * treat every negative cpu as a side band). */
#define PREC_TAIL_SHARD_NAME "tail.shard"
#define PREC_TAIL_CPU (-2)

struct prec_tail;

struct prec_tail_opts {
	struct prec_shard_writer *writer; /* tail.shard; the caller's */
	struct prec_manifest *m;          /* time layout; build-ids go here */
	const pid_t *roots;    /* NULL: every task in /proc (-a) */
	int nr_roots;          /* else -p / -t / the workload */
	bool descendants;      /* and the roots' descendants at each tail
				* (the events inherit) */
	/* roots are the events' threads, each tail naming each thread alone
	 * (its process's maps after its leader), as perf synthesizes its
	 * target's thread map at its tail: no descendants, no thread made
	 * later (prec_sideband_again__write_threads()) */
	bool threads;
	bool data_maps;        /* as prec_sideband_opts.data_maps */
	bool namespaces;       /* as prec_sideband_opts.namespaces */
};

struct prec_tail_stats {
	uint64_t tails;        /* written */
	uint64_t skipped;      /* snapshots that wrote no record: no tail */
	uint64_t clamped;      /* tails held at the previous tail's time */
	uint64_t records;
	uint64_t ns_total, ns_max; /* CLOCK_MONOTONIC spent writing tails */
};

/* Copies o (and the roots). Returns 0, -EINVAL (see
 * prec_sideband_again__new) or -ENOMEM. */
int prec_tail__new(struct prec_tail **out, const struct prec_tail_opts *o);
/* --switch-output's next epoch: the tails from now on into w (its
 * tail.shard), its build-ids into m, the times of a new shard. Returns 0
 * or -errno (see prec_sideband_again__new()); t is unchanged then. */
int prec_tail__rebind(struct prec_tail *t, struct prec_shard_writer *w,
		      struct prec_manifest *m);
/* After a snapshot whose oldest record has time oldest (0: it wrote
 * none, and then nothing is done): the selected processes as they are
 * now, at time oldest - 1, or at the previous tail's time if that is
 * later, so that the shard's times never go back. Main thread, after the
 * rings were resumed; blocks on /proc and the build-id reads (bounded).
 * Returns the records written or -errno (one line printed). */
int prec_tail__write(struct prec_tail *t, uint64_t oldest);
void prec_tail__stats(const struct prec_tail *t, struct prec_tail_stats *st);
void prec_tail__delete(struct prec_tail *t);

/* The processes roots[0..nr) and, with descendants, every process whose
 * chain of parents (/proc/PID/stat's ppid) leads to one of them now, as a
 * sorted list without duplicates in *out (malloc'd; roots gone from /proc
 * stay in it). Returns its length or -errno. */
int prec_tail__select(const pid_t *roots, int nr, bool descendants, pid_t **out);

#endif
