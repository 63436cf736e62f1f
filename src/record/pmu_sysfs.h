/* SPDX-License-Identifier: MIT */
/* A perf PMU's sysfs directory (ROOT/PMU/...): its one-value attribute
 * files and the config bits its format terms cover. */
#ifndef PREC_RECORD_PMU_SYSFS_H
#define PREC_RECORD_PMU_SYSFS_H

#include <stddef.h>
#include <stdint.h>

/* Where the kernel lists its PMUs; every root argument NULL means this. */
#define PREC_PMU_ROOT "/sys/bus/event_source/devices"

/* Read root/pmu/file (root NULL = PREC_PMU_ROOT) into buf, trailing
 * whitespace cut. Returns the length or -errno. Blocks on sysfs only. */
int prec_pmu_sysfs__read_attr(const char *root, const char *pmu,
			      const char *file, char *buf, size_t len);
/* Bits of attr.config that PMU format term `term` covers (sysfs
 * format/TERM, "config:..." only), 0 when absent or unreadable. */
uint64_t prec_pmu_sysfs__format_mask(const char *root, const char *pmu,
				     const char *term);

#endif
