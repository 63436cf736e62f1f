/* SPDX-License-Identifier: MIT */
/* The AUX event of the list (evlist_aux.c): the owner of every CPU's
 * ring, its area's size and clock, its AUXTRACE_INFO words. */
#ifndef PREC_RECORD_EVLIST_AUX_H
#define PREC_RECORD_EVLIST_AUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_evlist;
struct prec_manifest;
struct prec_record_opts;

/* After the events are parsed, before prec_evlist__config: first -S's and
 * --aux-sample's checks and attrs (prec_aux_mode__check); with an AUX PMU
 * event, make it the owner of every CPU's ring, size its AUX area
 * (o->aux_bytes, else perf's default; power of two pages, >= 8 KiB) and
 * let the tracking event record context switches for the decoder. Returns
 * 0, or -EINVAL after one line (two AUX events, --overwrite, a PMU whose
 * AUXTRACE_INFO prec does not write, a bad size; cs_etm: a CPU of o->cpus,
 * else of the online ones, without an ETM, a register that does not read,
 * an option its ETM cannot do): a bad command line. */
int prec_evlist__aux_setup(struct prec_evlist *el,
			   const struct prec_record_opts *o);
/* After aux_setup: does an AUX event whose trace is decoded on the perf
 * clock (intel_pt, arm_spe, cs_etm) want the recording on it? Not when -k
 * says otherwise: refused for intel_pt and cs_etm (as perf), warned about
 * for arm_spe. Returns 1 (the perf clock), 0, or -EINVAL after one line
 * (also for --markers on the perf clock). */
int prec_evlist__aux_clock(const struct prec_evlist *el,
			   const struct prec_record_opts *o);
/* The order events are opened in on each CPU: the ring owner (the AUX
 * event, else event 0) first, the others in list order. order has el->nr
 * entries. */
void prec_evlist__open_order(const struct prec_evlist *el, int *order);
/* After opening: m's auxtrace type and words for the AUX event, from
 * sysfs under el->pmu_root and the first ring's control page. No AUX
 * event: nothing. Returns 0 or -errno after one line. */
int prec_evlist__aux_info(const struct prec_evlist *el,
			  struct prec_manifest *m);
/* After aux_setup: the AUX area per CPU; 0: no AUX event. */
size_t prec_evlist__aux_bytes(const struct prec_evlist *el);
/* After aux_setup: the AUX areas are mapped read-only, the kernel's
 * overwrite mode (-S or --aux-sample): no drainer reads them. */
bool prec_evlist__aux_overwrite(const struct prec_evlist *el);
/* -S: the AUX areas are snapshot (mapped read-only, the newest
 * aux_snapshot_size bytes of each copied on a signal, aux_snapshot.c). */
bool prec_evlist__aux_snapshot(const struct prec_evlist *el);
uint64_t prec_evlist__aux_snapshot_size(const struct prec_evlist *el);
/* After opening, with an AUX event: its fds, nr_tasks per CPU index in
 * CPU order (the first of each owns the CPU's ring and AUX area). */
const int *prec_evlist__aux_fds(const struct prec_evlist *el);

#endif
