/* SPDX-License-Identifier: MIT */
/* The user records perf record synthesizes from its event list ahead of
 * the data (perfdata_maps.c): ID_INDEX, the clock events' EVENT_UPDATE
 * unit and scale, THREAD_MAP and CPU_MAP. */
#ifndef PREC_READ_PERFDATA_MAPS_H
#define PREC_READ_PERFDATA_MAPS_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

/* ID_INDEX records (as many as m's ids need) for m's events in the
 * perf.data's order (prec_perfdata__event_at): each id's ring index as
 * perf numbers its mmaps (its CPU's place in the CPU map), CPU and task;
 * in a malloc'd buffer, both formats. Returns 0 (len 0 when no event has an id) or -errno. */
int prec_perfdata__build_id_index(const struct prec_manifest *m, void **buf, size_t *len);

/* A CPU with no id of m's: no ring */
#define PREC_PERFDATA_NO_RING UINT32_MAX

/* The CPUs of m's ids, ascending (perf's CPU map; {-1} when no id has a
 * CPU) in a malloc'd *cpus of *nr: a CPU's place in it is its ring's index
 * as perf numbers its mmaps, the one the ID_INDEX gives its ids. Its size
 * is the number of CPUs, whatever their numbers. Returns 0 or -ENOMEM. */
int prec_perfdata__rings(const struct prec_manifest *m, int32_t **cpus, uint32_t *nr);
/* cpu's ring in cpus[nr] (prec_perfdata__rings()), or PREC_PERFDATA_NO_RING
 * (-1, or a CPU of no id). */
uint32_t prec_perfdata__ring_of(const int32_t *cpus, uint32_t nr, int32_t cpu);

/* The EVENT_UPDATE unit and scale records of m's clock events (cpu-clock,
 * task-clock: "msec", 1e-6, as perf gives every clock event), then one
 * THREAD_MAP (the tasks the events were opened on, or -1) and one CPU_MAP
 * (their CPUs, or -1), in a malloc'd buffer; both formats. Returns 0 or
 * -errno. */
int prec_perfdata__build_maps(const struct prec_manifest *m, void **buf, size_t *len);

#endif
