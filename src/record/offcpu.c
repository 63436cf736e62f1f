// SPDX-License-Identifier: MIT
// --off-cpu: the two events it adds, their attrs, and the manifest's
// OFFCPU section that tells prec merge which is which.
#include "record/offcpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/evlist.h"
#include "record/evlist_config.h"
#include "record/options.h"
#include "record/perm.h"
#include "record/tracefs.h"
#include "store/store.h"
#include "util/log.h"

/* perf's name for the event (tools/perf/util/off_cpu.h OFFCPU_EVENT) */
#define OFFCPU_NAME "offcpu-time"

static int refuse(const char *why, const char *what)
{
	pr_err("option --off-cpu: %s%s%s", why, what ? ": " : "", what ? what : "");
	return -EINVAL;
}

/* What the source event needs, checked before anything is added, so the
 * one line names --off-cpu rather than an event the user never gave. */
static int check(const struct prec_record_opts *o)
{
	uint64_t id;
	int err;

	if (o->nr_cgroups)
		return refuse("not with -G (perf filters its off-cpu samples by cgroup; prec's sched_switch source counts every task of the target)", NULL);
	if (!prec_perm__allows(PREC_PERM_TRACEPOINT)) {
		prec_perm__deny(PREC_PERM_TRACEPOINT, "option --off-cpu (sched:sched_switch's prev_state)");
		return -EINVAL;
	}
	err = prec_tracefs__event_id("sched", "sched_switch", &id);
	if (err == -ENODEV)
		return refuse("no tracefs mounted (the sched:sched_switch tracepoint is its source)", NULL);
	if (err)
		return refuse("tracepoint sched:sched_switch", strerror(-err));
	return 0;
}

int prec_offcpu__add(struct prec_evlist *el, const struct prec_record_opts *o)
{
	int err;

	if (!o->off_cpu)
		return 0;
	err = check(o);
	if (!err)
		err = prec_evlist__add_own(el, "sched:sched_switch",
					   &(struct prec_own_event){ .no_sampling = true,
								     .offcpu = PREC_OFFCPU_SWITCH });
	if (!err)
		err = prec_evlist__add_own(el, "bpf-output",
					   &(struct prec_own_event){ .name = OFFCPU_NAME,
								     .no_sampling = true,
								     .offcpu = PREC_OFFCPU_EVENT });
	return err;
}

/* The source: every switch of the target's tasks out of a CPU with the
 * user stack it left (perf's BPF takes BPF_F_USER_STACK, 32 frames) and
 * the raw prev_state; and the context switch records that say when each
 * comes back. Counted in kernel and user mode alike whatever --all-user
 * says: a tracepoint fires in the kernel. */
static void config_switch(struct perf_event_attr *a, uint64_t base)
{
	a->sample_type = base | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW;
	a->exclude_callchain_kernel = 1;
	a->exclude_callchain_user = 0;
	a->sample_max_stack = PREC_OFFCPU_MAX_STACK;
	a->exclude_kernel = 0;
	a->exclude_user = 0;
	a->freq = 0;
	a->sample_period = 1;
	a->context_switch = 1;
}

/* offcpu-time as perf 6.1 makes it: off_cpu_config's attr (software
 * BPF_OUTPUT, freq 1 at 1 Hz, CALLCHAIN, no event_attr_init so
 * exclude_guest 0), then evsel__config: its period a weak default that
 * -F or -c replace (the value goes into sample_freq, freq stays 1), PERIOD
 * for freq, CPU for a bpf-output, and its mask OFFCPU_SAMPLE_TYPES
 * (IDENTIFIER IP TID TIME ID CPU PERIOD CALLCHAIN CGROUP), which drops RAW
 * and what -W, -I, -b or --data add. */
static void config_event(struct perf_event_attr *a, uint64_t base,
			 const struct prec_record_opts *o)
{
	a->sample_type = base | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD;
	a->freq = 1;
	a->sample_freq = o->freq ? o->freq : o->period ? o->period : 1;
	a->sample_max_stack = 0;
	a->exclude_guest = 0;
	a->exclude_callchain_kernel = 0;
	a->exclude_callchain_user = 0;
}

/* The options' sample fields (-W, -I, -b, --data ...) are dropped: perf's
 * mask drops them from offcpu-time, and the source needs none. The
 * source's period stays 1 whatever -F or -c say: every switch counts. */
void prec_offcpu__config(struct prec_evlist *el, const struct prec_record_opts *o)
{
	uint64_t base = prec_evlist__sample_base(el);

	for (int i = 0; o->off_cpu && i < prec_evlist__nr_events(el); i++) {
		uint8_t role = prec_evlist__event(el, i)->offcpu;
		struct perf_event_attr *a;

		if (!role)
			continue;
		a = prec_evlist__attr_edit(el, i);
		a->branch_sample_type = 0;
		a->sample_regs_intr = 0;
		a->sample_regs_user = 0;
		a->sample_stack_user = 0;
		if (role == PREC_OFFCPU_SWITCH)
			config_switch(a, base);
		else
			config_event(a, base, o);
		/* as the other events' samples: their cgroup with --all-cgroups */
		if (o->all_cgroups)
			a->sample_type |= PERF_SAMPLE_CGROUP;
	}
}

/* prev_state's "offset:N;\tsize:M;" in a tracepoint format text. */
static int state_field(const char *format, uint16_t *off, uint16_t *size)
{
	const char *p = format ? strstr(format, " prev_state;") : NULL;
	unsigned int o, s;

	if (!p || sscanf(p, " prev_state; offset:%u; size:%u;", &o, &s) != 2 ||
	    (s != 4 && s != 8) || o > UINT16_MAX - 8)
		return -EINVAL;
	*off = (uint16_t)o;
	*size = (uint16_t)s;
	return 0;
}

int prec_offcpu__manifest(const struct prec_evlist *el, struct prec_manifest *m)
{
	const struct prec_evsel *sw = NULL, *ev = NULL;
	const char *format = NULL;

	for (int i = 0; i < prec_evlist__nr_events(el); i++) {
		const struct prec_evsel *e = prec_evlist__event(el, i);

		if (e->offcpu == PREC_OFFCPU_SWITCH)
			sw = e;
		else if (e->offcpu == PREC_OFFCPU_EVENT)
			ev = e;
	}
	if (!sw || !ev)
		return 0;
	for (uint32_t i = 0; i < m->nr_tracepoints; i++)
		if (m->tracepoints[i].id == sw->attr.config)
			format = m->tracepoints[i].format;
	if (state_field(format, &m->offcpu.state_off, &m->offcpu.state_size))
		return refuse("sched:sched_switch's format has no prev_state field of 4 or 8 bytes", NULL);
	m->offcpu.switch1 = (uint32_t)sw->midx + 1;
	m->offcpu.event = (uint32_t)ev->midx;
	return 0;
}
