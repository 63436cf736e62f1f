/* SPDX-License-Identifier: MIT */
/* CoreSight ETM (cs_etm.c): the trace unit of each CPU, perf's checks
 * and defaults, and the cs_etm AUXTRACE_INFO words. */
#ifndef PREC_RECORD_CS_ETM_H
#define PREC_RECORD_CS_ETM_H

#include <stddef.h>
#include <stdint.h>

struct prec_auxpmu_src;

/* A CPU's trace unit as sysfs describes it under PMU/cpuN. */
enum prec_etm_kind { PREC_ETM_NONE, PREC_ETM_V3, PREC_ETM_V4, PREC_ETM_ETE };

/* ETE (TRCDEVARCH says so), else ETMv4 (a TRCIDR0), else ETMv3/PTM (the
 * cpuN directory), else none. */
enum prec_etm_kind prec_cs_etm__kind(const char *root, const char *pmu, int cpu);
/* perf's default config with per-CPU rings: the timestamp bit and the
 * bit of the PMU's "contextid" format. */
uint64_t prec_cs_etm__default_config(const char *root, const char *pmu);
/* The ETMv4/ETE TRCCONFIGR perf records for an attr.config. */
uint64_t prec_cs_etm__trcconfigr(uint64_t config);
/* perf 6.1's cs_etm words (header version 1, one block per CPU of
 * s->cpus) from sysfs under s->root. Returns 0 (*out malloc'd, *nr
 * words) or -errno with the path that failed in bad (-ENODEV: the CPU
 * has no ETM directory). */
int prec_cs_etm__info(const struct prec_auxpmu_src *s, uint64_t **out,
		      uint32_t *nr, char *bad, size_t bad_len);
/* Before opening: every CPU of s->cpus has an ETM whose registers all
 * read, and can do the timestamps and context IDs s->config asks for.
 * Returns 0 or -EINVAL after one line naming the CPU and the file. */
int prec_cs_etm__check(const struct prec_auxpmu_src *s, const char *evname);

#endif
