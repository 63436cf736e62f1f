// SPDX-License-Identifier: MIT
// The AUX event (intel_pt, arm_spe, cs_etm): the one event of the list
// that owns each CPU's ring (the kernel maps an AUX area only on a fd
// whose PMU has one, and every other event on the CPU follows it with
// SET_OUTPUT), its area's size, the context switches a decoder needs,
// the clock its trace is decoded on, cs_etm's per-CPU checks, and the
// manifest's AUXTRACE_INFO words once the rings are mapped.
#include "record/evlist_aux.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/aux_mode.h"
#include "record/auxpmu.h"
#include "record/cs_etm.h"
#include "record/evlist_internal.h"
#include "record/options.h"
#include "record/pmu_sysfs.h"
#include "record/ring.h"
#include "store/store.h"
#include "util/cpu_list.h"
#include "util/log.h"

/* perf's "privileged" for AUX sizes: root, or perf_event_paranoid -1. */
static bool privileged(void)
{
	FILE *f;
	int v = 2;

	if (!geteuid())
		return true;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 2;
		fclose(f);
	}
	return v <= -1;
}

static int find_owner(const struct prec_evlist *el)
{
	int owner = -1;

	for (int e = 0; e < el->nr; e++) {
		if (!el->evsel[e].aux)
			continue;
		if (owner >= 0) {
			pr_err("events '%s' and '%s': only one AUX area event per recording",
			       el->evsel[owner].name, el->evsel[e].name);
			return -EINVAL;
		}
		owner = e;
	}
	return owner;
}

/* A decoder follows threads through context switches: the tracking event
 * records them (CPU-wide with -a/-C: perf's have_sched_switch 3; per task
 * otherwise: 2). intel_pt only needs them when it has timestamps (tsc);
 * perf 6.1 asks for them with cs_etm and arm_spe always. */
static void track_switches(struct prec_evlist *el, const struct prec_evsel *ev,
			   const struct prec_record_opts *o)
{
	if (ev->aux == PREC_AUX_INTEL_PT &&
	    !(ev->attr.config & prec_pmu_sysfs__format_mask(el->pmu_root, ev->pmu, "tsc")))
		return;
	for (int e = 0; e < el->nr; e++)
		if (el->evsel[e].tracking)
			el->evsel[e].attr.context_switch = 1;
	el->have_sched_switch = o->all_cpus ? 3 : 2;
}

/* perf 6.1 reads every recorded CPU's ETM registers when the recording
 * starts and refuses options the ETM cannot do; prec does both before any
 * event is opened, so a missing file is one line and no recording. */
static int cs_etm_check(const struct prec_evlist *el, const struct prec_evsel *ev,
			const struct prec_record_opts *o)
{
	struct prec_auxpmu_src s = { .root = el->pmu_root, .pmu = ev->pmu,
				     .config = ev->attr.config,
				     .cpus = o->cpus, .nr_cpus = o->nr_cpus };
	int *online = NULL, err;

	if (!o->cpus) {
		s.nr_cpus = prec_cpu_list__online(&online);
		if (s.nr_cpus <= 0) {
			pr_err("/sys/devices/system/cpu/online: cannot read the online CPUs");
			return s.nr_cpus < 0 ? s.nr_cpus : -ENODEV;
		}
		s.cpus = online;
	}
	err = prec_cs_etm__check(&s, ev->name);
	free(online);
	return err;
}

int prec_evlist__aux_setup(struct prec_evlist *el,
			   const struct prec_record_opts *o)
{
	int owner, err = prec_aux_mode__check(el->evsel, el->nr, el->pmu_root, o);
	const struct prec_evsel *ev;
	int64_t bytes64;
	size_t bytes;

	if (err)
		return err;
	owner = find_owner(el);
	if (owner < 0)
		return owner == -1 ? 0 : owner;
	ev = &el->evsel[owner];
	if (ev->aux != PREC_AUX_INTEL_PT && ev->aux != PREC_AUX_ARM_SPE &&
	    ev->aux != PREC_AUX_CS_ETM) {
		pr_err("event '%s': PMU '%s' writes an AUX area whose AUXTRACE_INFO prec does not write (intel_pt, arm_spe and cs_etm only)",
		       ev->name, ev->pmu);
		return -EINVAL;
	}
	if (o->overwrite) {
		pr_err("event '%s': --overwrite cannot be combined with an AUX area event (-S is the flight recorder of an AUX area)",
		       ev->name);
		return -EINVAL;
	}
	el->aux_overwrite = o->aux_snapshot || o->aux_sample;
	el->aux_snapshot = o->aux_snapshot;
	bytes64 = prec_aux_mode__bytes(el->evsel, el->nr, owner, el->pmu_root, o,
				       prec_auxpmu__default_bytes(privileged()),
				       &el->aux_snapshot_size);
	if (bytes64 < 0)
		return (int)bytes64;
	bytes = (size_t)bytes64;
	if (ev->aux == PREC_AUX_CS_ETM) {
		err = cs_etm_check(el, ev, o);
		if (err)
			return err;
	}
	el->aux_owner = owner;
	el->aux_bytes = bytes;
	track_switches(el, ev, o);
	return 0;
}

int prec_evlist__aux_clock(const struct prec_evlist *el,
			   const struct prec_record_opts *o)
{
	const struct prec_evsel *ev;

	if (!el->aux_bytes)
		return 0;
	ev = &el->evsel[el->aux_owner];
	/* perf decodes PT packet times with the control page's TSC
	 * conversion, i.e. onto its own clock, and refuses -k with intel_pt:
	 * records on any other clock would not line up with them. perf 6.1
	 * refuses -k with cs_etm too. */
	if ((ev->aux == PREC_AUX_INTEL_PT || ev->aux == PREC_AUX_CS_ETM) &&
	    o->clock_set && o->clockid != PREC_CLOCK_PERF) {
		pr_err("option -k: event '%s' records on the perf clock its trace is decoded on (as perf, which refuses -k with %s): leave -k out",
		       ev->name, ev->pmu);
		return -EINVAL;
	}
	/* SPE times reach the perf clock through TIME_CONV; perf allows -k
	 * there, so only say what it costs. */
	if (o->clock_set && o->clockid != PREC_CLOCK_PERF) {
		pr_warn("event '%s': its trace is decoded on the perf clock, the records on the -k clock: their times will not line up",
			ev->name);
		return 0;
	}
	if (o->markers) {
		pr_err("option --markers: event '%s' records on the perf clock, which markers cannot follow (prec reads no perf clock for their watermarks)",
		       ev->name);
		return -EINVAL;
	}
	return 1;
}

void prec_evlist__open_order(const struct prec_evlist *el, int *order)
{
	int owner = el->aux_bytes ? el->aux_owner : 0, n = 0;

	order[n++] = owner;
	for (int e = 0; e < el->nr; e++)
		if (e != owner)
			order[n++] = e;
}

static void set_info(struct prec_manifest *m, uint32_t type, uint64_t *priv,
		     uint32_t nr)
{
	free(m->auxtrace_priv);
	m->auxtrace_priv = priv;
	m->nr_auxtrace_priv = nr;
	m->auxtrace_type = type;
}

/* cs_etm's words name the CPUs opened, and a register that stopped
 * reading since the check is named too. */
static int cs_etm_info(const struct prec_evlist *el, const struct prec_evsel *ev,
		       struct prec_auxpmu_src *src, struct prec_manifest *m)
{
	char bad[4096] = "";
	uint64_t *priv;
	uint32_t nr;
	int err;

	src->cpus = el->cpus;
	src->nr_cpus = el->nr_cpus;
	src->config = ev->attr.config;
	err = prec_cs_etm__info(src, &priv, &nr, bad, sizeof(bad));
	if (err) {
		/* bad names the register file; ENOMEM and friends have none */
		pr_err("event '%s': AUXTRACE_INFO for PMU '%s': %s%s%s", ev->name,
		       ev->pmu, bad, bad[0] ? ": " : "", strerror(-err));
		return err;
	}
	set_info(m, PREC_AUXTRACE_CS_ETM, priv, nr);
	return 0;
}

int prec_evlist__aux_info(const struct prec_evlist *el, struct prec_manifest *m)
{
	const struct prec_evsel *ev;
	struct prec_auxpmu_src src = { .root = el->pmu_root, .per_cpu_mmaps = true };
	uint64_t *priv;
	uint32_t nr, type;
	int err;

	if (!el->aux_bytes)
		return 0;
	ev = &el->evsel[el->aux_owner];
	src.pmu = ev->pmu;
	src.pmu_type = ev->attr.type;
	src.have_sched_switch = el->have_sched_switch;
	src.snapshot = el->aux_snapshot;
	/* Every ring's control page holds the same TSC conversion. */
	if (el->rings && el->nr_cpus && el->rings[0].page)
		src.pc = el->rings[0].page;
	if (ev->aux == PREC_AUX_INTEL_PT)
		prec_auxpmu__tsc_ctc(&src.tsc_ctc_n, &src.tsc_ctc_d);
	if (ev->aux == PREC_AUX_CS_ETM)
		return cs_etm_info(el, ev, &src, m);
	err = prec_auxpmu__info(&src, &type, &priv, &nr);
	if (err) {
		pr_err("event '%s': AUXTRACE_INFO for PMU '%s': %s", ev->name, ev->pmu,
		       strerror(-err));
		return err;
	}
	set_info(m, type, priv, nr);
	return 0;
}

size_t prec_evlist__aux_bytes(const struct prec_evlist *el)
{
	return el->aux_bytes;
}

bool prec_evlist__aux_overwrite(const struct prec_evlist *el)
{
	return el->aux_overwrite;
}

bool prec_evlist__aux_snapshot(const struct prec_evlist *el)
{
	return el->aux_snapshot;
}

uint64_t prec_evlist__aux_snapshot_size(const struct prec_evlist *el)
{
	return el->aux_snapshot_size;
}

const int *prec_evlist__aux_fds(const struct prec_evlist *el)
{
	return el->fds + (size_t)el->aux_owner * (size_t)el->nr_cpus * (size_t)el->nr_tasks;
}
