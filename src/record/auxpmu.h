/* SPDX-License-Identifier: MIT */
/* AUX-area PMUs (auxpmu.c): which PMUs have one, perf's defaults for
 * them, and the AUXTRACE_INFO words perf writes for them. */
#ifndef PREC_RECORD_AUXPMU_H
#define PREC_RECORD_AUXPMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PMUs that write an AUX area, decided by name as perf does. */
enum prec_aux_kind {
	PREC_AUX_NONE = 0,
	PREC_AUX_INTEL_PT,
	PREC_AUX_INTEL_BTS,
	PREC_AUX_CS_ETM,
	PREC_AUX_ARM_SPE,
	PREC_AUX_OTHER,        /* hisi_ptt */
};

/* perf's AUXTRACE_INFO types (tools/perf/util/auxtrace.h). */
#define PREC_AUXTRACE_INTEL_PT 1
#define PREC_AUXTRACE_CS_ETM 3
#define PREC_AUXTRACE_ARM_SPE 4

/* Minimum AUX area, perf's rule for intel_pt and arm_spe (full trace). */
#define PREC_AUX_MIN_BYTES (8u * 1024u)

/* What the AUXTRACE_INFO words are built from. */
struct prec_auxpmu_src {
	const char *root;      /* PMU sysfs root; NULL = /sys/bus/event_source/devices */
	const char *pmu;       /* PMU name, a directory under root */
	uint32_t pmu_type;     /* its type (the attr.type opened) */
	const struct perf_event_mmap_page *pc; /* a ring's control page, or NULL */
	uint32_t tsc_ctc_n, tsc_ctc_d; /* CPUID 0x15, 0 when unknown */
	uint32_t have_sched_switch;    /* perf's 0..3: how switches are recorded */
	bool snapshot, per_cpu_mmaps;
	const char *filter;    /* intel_pt address filter, or NULL */
	const int *cpus;       /* cs_etm: the CPUs recorded, ascending */
	int nr_cpus;
	uint64_t config;       /* cs_etm: the event's attr.config */
};

enum prec_aux_kind prec_auxpmu__kind(const char *pmu);
/* perf's default config for the PMU, applied before the user's terms:
 * intel_pt: tsc, mtc + mtc_period, psb_period, pt, branch as caps allow;
 * arm_spe: ts_enable, and *period = caps/min_interval (else 4096);
 * cs_etm: timestamp and contextid (prec_cs_etm__default_config). Others
 * untouched, *period 0. */
void prec_auxpmu__default_config(struct perf_event_attr *a, const char *root,
				 const char *pmu, uint64_t *period);
/* perf's default AUX area: 4 MiB privileged, 128 KiB otherwise. */
size_t prec_auxpmu__default_bytes(bool privileged);
/* CPUID leaf 0x15 (TSC to core crystal clock ratio n/d); 0/0 elsewhere. */
void prec_auxpmu__tsc_ctc(uint32_t *n, uint32_t *d);
/* AUXTRACE_INFO type and private words as perf 6.1 records them for the
 * PMU (*priv malloc'd, *nr words). Returns 0, -EOPNOTSUPP (an AUX PMU
 * whose layout prec does not write: intel_bts, hisi_ptt), -EINVAL (not an
 * AUX PMU), -ENOMEM, or for cs_etm a sysfs register's -errno (-ENODEV: a
 * CPU without an ETM). Reads sysfs under s->root. */
int prec_auxpmu__info(const struct prec_auxpmu_src *s, uint32_t *type,
		      uint64_t **priv, uint32_t *nr);

#endif
