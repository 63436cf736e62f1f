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

/* Each CPU's ring index as perf numbers its mmaps, the one the ID_INDEX
 * gives its ids: the CPU's place among the CPUs of m's ids, ascending (perf's
 * CPU map). *ring is a malloc'd array indexed by CPU, *nr its length (the
 * highest such CPU + 1, 0 when no id has a CPU); CPUs of no id hold
 * PREC_PERFDATA_NO_RING. Returns 0 or -ENOMEM. */
int prec_perfdata__rings(const struct prec_manifest *m, uint32_t **ring, uint32_t *nr);

/* The EVENT_UPDATE unit and scale records of m's clock events (cpu-clock,
 * task-clock: "msec", 1e-6, as perf gives every clock event), then one
 * THREAD_MAP (the tasks the events were opened on, or -1) and one CPU_MAP
 * (their CPUs, or -1), in a malloc'd buffer; both formats. Returns 0 or
 * -errno. */
int prec_perfdata__build_maps(const struct prec_manifest *m, void **buf, size_t *len);

#endif
