/* SPDX-License-Identifier: MIT */
/* The event list as a recording's manifest holds it (evlist_manifest.c). */
#ifndef PREC_RECORD_EVLIST_MANIFEST_H
#define PREC_RECORD_EVLIST_MANIFEST_H

#include <stdint.h>

struct prec_evlist;
struct prec_manifest;

/* After prec_evlist__open: every event into m (its attr, name, leader,
 * the kernel's id on each CPU and task, a tracepoint's format from
 * tracefs), each event's manifest index set (evsel.midx), perf's
 * TIME_CONV from the clock page, and the AUX PMU's info. m's sample_type
 * and time layout are set before. Returns 0 or -errno (after one line
 * for a format tracefs refused). Main thread. */
int prec_evlist__describe(struct prec_evlist *el, struct prec_manifest *m);
/* At the close (or a cut): each id's PERF_FORMAT_LOST count into m's
 * events (described by describe()) as perf record writes its
 * LOST_SAMPLES records, the overwrite events' too. told: NULL, or per fd
 * (event, CPU, task order: nr_events x nr_cpus x nr_tasks) what earlier
 * epochs took of it, only the rest counted here, and updated. Returns 0
 * or -ENOMEM. Main thread. */
int prec_evlist__describe_lost(const struct prec_evlist *el, struct prec_manifest *m,
			       uint64_t *told);

#endif
