// SPDX-License-Identifier: MIT
// A PMU's sysfs directory: one-value attribute files and the attr.config
// bits of its format terms, for the AUX PMUs (auxpmu.c, cs_etm.c).
#include "record/pmu_sysfs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"

int prec_pmu_sysfs__read_attr(const char *root, const char *pmu,
			      const char *file, char *buf, size_t len)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/%s", root ? root : PREC_PMU_ROOT,
		 pmu, file);
	return prec_file__read_line(path, buf, len);
}

uint64_t prec_pmu_sysfs__format_mask(const char *root, const char *pmu,
				     const char *term)
{
	char file[128], text[256];
	const char *p;
	uint64_t mask = 0;

	snprintf(file, sizeof(file), "format/%s", term);
	if (prec_pmu_sysfs__read_attr(root, pmu, file, text, sizeof(text)) <= 0)
		return 0;
	p = strchr(text, ':');
	/* Only config itself: the AUX PMUs' terms perf reads live there. */
	if (!p || strncmp(text, "config", (size_t)(p - text)) || p - text != 6)
		return 0;
	while (*++p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return 0;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi < lo || hi > 63)
			return 0;
		for (unsigned long b = lo; b <= hi; b++)
			mask |= 1ull << b;
		p = end;
		if (*p != ',')
			break;
	}
	return *p ? 0 : mask;
}
