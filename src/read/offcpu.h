/* SPDX-License-Identifier: MIT */
/* The merge's off-CPU conversion (offcpu.c): in an --off-cpu recording,
 * the sched_switch source event's records become perf's offcpu-time
 * samples, one per sleep, as the merged stream goes by in time order. */
#ifndef PREC_READ_OFFCPU_H
#define PREC_READ_OFFCPU_H

#include <stdint.h>

struct prec_manifest;
struct prec_offcpu;

/* For the recording m: *out NULL when m has no OFFCPU section. Else
 * shown (a shallow copy of m, what the perf.data writer is given) gets
 * m's events and tracepoints less the source event (and its tracepoint
 * when no other event has it), owned by *out: shown must not outlive it.
 * Returns 0 or -ENOMEM. */
int prec_offcpu__new(struct prec_offcpu **out, const struct prec_manifest *m,
		     struct prec_manifest *shown);

/* What the merged record rec (len bytes, its time) becomes: returns 1
 * (write rec as it is), 0 (a source record: nothing), 2 (write the
 * offcpu-time sample at *out, *out_len bytes, valid until the next call)
 * or -ENOMEM (the task table could not grow). A sample is made when a
 * task that left its CPU asleep (S or D) comes back: its time the return,
 * its period the nanoseconds away, its call chain the user stack it left.
 * Called for every record of the merge loop: no allocation but the
 * table's rare doubling. Merge thread. */
int prec_offcpu__filter(struct prec_offcpu *oc, const void *rec, uint32_t len,
			uint64_t time, const void **out, uint32_t *out_len);

/* Samples made so far, and their periods' sum (ns). */
uint64_t prec_offcpu__samples(const struct prec_offcpu *oc, uint64_t *total_ns);

/* Accepts NULL. */
void prec_offcpu__delete(struct prec_offcpu *oc);

#endif
