// SPDX-License-Identifier: MIT
// The event list as a recording's manifest holds it: what perf.data's
// attrs, ids and tracing data are merged from. One of the list's files
// (evlist_internal.h): each recording's manifest, the first and every
// epoch's, is described from the open list in one call.
#include "record/evlist_manifest.h"

#include <string.h>

#include "record/evlist_aux.h"
#include "record/evlist_internal.h"
#include "record/evlist_open.h"
#include "record/perfclock.h"
#include "record/tracefs.h"
#include "store/store.h"
#include "util/log.h"

/* Event e's ids, one per CPU and task, as manifest event idx's. */
static int add_ids(const struct prec_evlist *el, struct prec_manifest *m, int e, int idx)
{
	int err = 0;

	for (int c = 0; c < el->nr_cpus && !err; c++)
		for (int t = 0; t < el->nr_tasks && !err; t++)
			err = prec_manifest__add_event_id(m, (uint32_t)idx,
							  prec_evlist__id(el, e, c, t),
							  el->cpus[c], el->tasks[t]);
	return err;
}

static int add_event(struct prec_evlist *el, struct prec_manifest *m, int e)
{
	struct prec_evsel *ev = &el->evsel[e];
	uint8_t attr[128] = { 0 };
	int idx, err;

	memcpy(attr, &ev->attr, sizeof(attr));
	idx = prec_manifest__add_event(m, attr, ev->name);
	if (idx < 0)
		return idx;
	ev->midx = idx;
	/* the leader comes first in the list: its index is known */
	if (ev->leader >= 0)
		m->events[idx].leader1 = (uint32_t)el->evsel[ev->leader].midx + 1;
	err = prec_manifest__set_str(m, &m->events[idx].group_name, ev->group_name);
	if (err)
		return err;
	err = add_ids(el, m, e, idx);
	if (err || !ev->tp_system)
		return err;
	err = prec_tracefs__add_formats(m, ev->tp_system, ev->tp_name, ev->attr.config);
	if (err)
		pr_err("event '%s': reading its format from tracefs: %s", ev->name,
		       strerror(-err));
	return err;
}

int prec_evlist__describe(struct prec_evlist *el, struct prec_manifest *m)
{
	int err = 0;

	for (int e = 0; e < el->nr && !err; e++)
		err = add_event(el, m, e);
	if (err)
		return err;
	/* perf's TIME_CONV: the first ring's words, kept only if they convert
	 * (a page without cap_user_time_zero leaves it unset). */
	if (prec_evlist__clock_page(el))
		prec_perfclock__read(prec_evlist__clock_page(el), &m->time_conv);
	/* The rings are mapped by now: intel_pt's words need a control page. */
	return prec_evlist__aux_info(el, m);
}

int prec_evlist__describe_lost(const struct prec_evlist *el, struct prec_manifest *m,
			       uint64_t *told)
{
	size_t i = 0;
	int err = 0;

	for (int e = 0; e < el->nr; e++)
		for (int c = 0; c < el->nr_cpus; c++)
			for (int t = 0; t < el->nr_tasks; t++, i++) {
				const struct prec_evsel *ev = &el->evsel[e];
				/* an overwrite event's too: the samples its
				 * flight ring dropped while paused for a
				 * snapshot, as perf record --overwrite counts
				 * them (flight-recorder.md) */
				uint64_t lost = prec_evlist__id_lost(el, e, c, t);
				uint64_t seen = told ? told[i] : 0;
				int e2;

				e2 = prec_manifest__set_id_lost(m, (uint32_t)ev->midx,
								(uint32_t)(c * el->nr_tasks + t),
								lost > seen ? lost - seen : 0);
				err = err ? err : e2;
				if (told)
					told[i] = lost > seen ? lost : seen;
			}
	return err;
}
