/* SPDX-License-Identifier: MIT */
/* Why a recording stopped before it was asked to (stop_fault.c): the
 * first drainer that failed (its CPU, its error, when the main loop
 * learnt of it) and the one line the stop prints about it. */
#ifndef PREC_RECORD_STOP_FAULT_H
#define PREC_RECORD_STOP_FAULT_H

#include <stdbool.h>
#include <stdint.h>

struct prec_drainer_pool;

/* In the caller's memory; zeroed, it knows of no failure. Its fields are
 * read and written by stop_fault.c alone. */
struct prec_stop_fault {
	const struct prec_drainer_pool *pool;
	const int *cpus;        /* each drainer index's CPU number */
	int nr_cpus;
	int cpu, err;           /* the first failure: its CPU, -errno (0: none) */
	uint64_t ns;            /* when it was noted (CLOCK_MONOTONIC), 0: not */
};

/* Watch pool's drainers, cpus[i] the CPU of drainer i (both outlive f). */
void prec_stop_fault__init(struct prec_stop_fault *f, const struct prec_drainer_pool *pool,
			   const int *cpus, int nr_cpus);
/* The pool's notify fd is readable: note which drainer failed first, and
 * when. Returns 1 when the recording must stop now, 0 for a spurious
 * wake. Main thread. */
int prec_stop_fault__note(struct prec_stop_fault *f);
/* A drainer's error stopped the recording (as noted so far). */
bool prec_stop_fault__failed(const struct prec_stop_fault *f);
/* The stop's one line: which shard failed (the first drainer with an
 * error, noted now if the main loop had not), what (that error, else
 * err), when (wall clock, and time since enable_ns), how much is safe
 * (bytes) and where (dir). enable_ns, stop_ns: CLOCK_MONOTONIC, 0 when
 * not yet; the time is stop_ns's (else now) when no failure was noted
 * in time. Main thread, at the close. */
void prec_stop_fault__report(struct prec_stop_fault *f, int err, uint64_t enable_ns,
			     uint64_t stop_ns, uint64_t bytes, const char *dir);

#endif
