/* SPDX-License-Identifier: MIT */
/* perf record's LOST_SAMPLES records at the end of the data, from the
 * manifest's per-id loss counts (lost_samples.c). */
#ifndef PREC_READ_LOST_SAMPLES_H
#define PREC_READ_LOST_SAMPLES_H

#include <stdbool.h>
#include <stdint.h>

struct prec_manifest;
struct prec_perfdata;

/* One PERF_RECORD_LOST_SAMPLES record for each id of m's events (but
 * event index skip1 - 1, none when 0: --off-cpu's source, not shown) whose
 * PERF_FORMAT_LOST count is nonzero (prec_manifest_event.id_lost), in
 * event and id order, as perf record 6.1 writes them after its
 * recording stops: the count, then the sample_id trailer of the event's
 * sample_type with the id alone set (pid, tid, time and CPU 0). perf
 * report sums them into "Total Lost Samples". cpus[0..nr_cpus) the CPUs
 * kept (NULL: all): an id of another CPU is left out, a per-task id on
 * any CPU kept. Returns the records written or a write's -errno. */
int prec_lost_samples__write(struct prec_perfdata *pd, const struct prec_manifest *m,
			     uint32_t skip1, const bool *cpus, int nr_cpus);

#endif
