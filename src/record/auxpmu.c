// SPDX-License-Identifier: MIT
// AUX-area PMUs: which PMUs have one (by name, as perf decides), perf's
// default config and AUX size for them, and the AUXTRACE_INFO type and
// private words perf 6.1 writes for intel_pt and arm_spe (cs_etm's are in
// cs_etm.c), built from sysfs and a ring's control page. Facts from perf's
// sources, not its code.

#include "record/auxpmu.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "record/cs_etm.h"
#include "record/perfclock.h"
#include "record/pmu_sysfs.h"
#include "store/store.h"

/* perf's intel_pt AUXTRACE_INFO words (tools/perf/util/intel-pt.h, 6.1),
 * followed by the address filter string when its length is not 0. */
enum {
	PT_PMU_TYPE, PT_TIME_SHIFT, PT_TIME_MULT, PT_TIME_ZERO,
	PT_CAP_USER_TIME_ZERO, PT_TSC_BIT, PT_NORETCOMP_BIT,
	PT_HAVE_SCHED_SWITCH, PT_SNAPSHOT_MODE, PT_PER_CPU_MMAPS, PT_MTC_BIT,
	PT_MTC_FREQ_BITS, PT_TSC_CTC_N, PT_TSC_CTC_D, PT_CYC_BIT,
	PT_MAX_NONTURBO_RATIO, PT_FILTER_STR_LEN, PT_NR_WORDS
};

/* perf's arm_spe words (tools/perf/util/arm-spe.h before the version-2
 * header): the PMU type and per_cpu_mmaps, which perf 6.1 leaves 0. */
enum { SPE_PMU_TYPE, SPE_PER_CPU_MMAPS, SPE_NR_WORDS };

enum prec_aux_kind prec_auxpmu__kind(const char *pmu)
{
	if (!pmu)
		return PREC_AUX_NONE;
	if (!strcmp(pmu, "intel_pt"))
		return PREC_AUX_INTEL_PT;
	if (!strcmp(pmu, "intel_bts"))
		return PREC_AUX_INTEL_BTS;
	if (!strcmp(pmu, "cs_etm"))
		return PREC_AUX_CS_ETM;
	/* arm_spe_0, arm_spe_1 ... one per SPE implementation */
	if (!strncmp(pmu, "arm_spe", 7))
		return PREC_AUX_ARM_SPE;
	if (!strncmp(pmu, "hisi_ptt", 8))
		return PREC_AUX_OTHER;
	return PREC_AUX_NONE;
}

/* A number from sysfs in base (0 = C rules), or dflt when the file is
 * missing or does not parse. */
static uint64_t read_num(const char *root, const char *pmu, const char *file,
			 int base, uint64_t dflt)
{
	char text[64], *end;
	uint64_t v;

	if (prec_pmu_sysfs__read_attr(root, pmu, file, text, sizeof(text)) <= 0)
		return dflt;
	errno = 0;
	v = strtoull(text, &end, base);
	return errno || end == text || *end ? dflt : v;
}

/* v spread over the set bits of mask, low bits first (a term's value). */
static uint64_t deposit(uint64_t mask, uint64_t v)
{
	uint64_t out = 0;

	for (int b = 0; b < 64 && v; b++) {
		if (!(mask & (1ull << b)))
			continue;
		out |= (v & 1) << b;
		v >>= 1;
	}
	return out;
}

/* From a caps bitmap of supported values, the largest <= target, else the
 * smallest above it (how perf picks mtc_period and psb_period). */
static int pick_value(uint64_t supported, int target)
{
	int best = -1;

	for (int v = 0; v < 64; v++) {
		if (!(supported & (1ull << v)))
			continue;
		if (v <= target)
			best = v;
		else
			return best >= 0 ? best : v;
	}
	return best;
}

static uint64_t term(const char *root, const char *pmu, const char *name,
		     uint64_t v)
{
	return deposit(prec_pmu_sysfs__format_mask(root, pmu, name), v);
}

/* perf's intel_pt default: tsc, mtc at the period nearest 3, psb_period
 * nearest 3, pt and branch; each only where the hardware says it can. */
static uint64_t intel_pt_default(const char *root, const char *pmu)
{
	uint64_t c = term(root, pmu, "tsc", 1), mtc_periods = 0, psb;
	int v;

	if (read_num(root, pmu, "caps/mtc", 10, 1))
		mtc_periods = read_num(root, pmu, "caps/mtc_periods", 16, 0);
	if (mtc_periods) {
		v = pick_value(mtc_periods, 3);
		c |= term(root, pmu, "mtc", 1) | term(root, pmu, "mtc_period", (uint64_t)v);
	}
	if (mtc_periods && read_num(root, pmu, "caps/psb_cyc", 10, 1)) {
		psb = read_num(root, pmu, "caps/psb_periods", 16, 0);
		if (psb)
			c |= term(root, pmu, "psb_period", (uint64_t)pick_value(psb, 3));
	}
	if (prec_pmu_sysfs__format_mask(root, pmu, "pt") &&
	    prec_pmu_sysfs__format_mask(root, pmu, "branch"))
		c |= term(root, pmu, "pt", 1) | term(root, pmu, "branch", 1);
	return c;
}

void prec_auxpmu__default_config(struct perf_event_attr *a, const char *root,
				 const char *pmu, uint64_t *period)
{
	*period = 0;
	switch (prec_auxpmu__kind(pmu)) {
	case PREC_AUX_INTEL_PT:
		a->config = intel_pt_default(root, pmu);
		break;
	case PREC_AUX_ARM_SPE:
		/* Per-CPU rings (always, in prec): timestamps in the records
		 * so they can be put in order with the rest. The driver
		 * raises a smaller period to its minimum anyway. */
		a->config |= term(root, pmu, "ts_enable", 1);
		*period = read_num(root, pmu, "caps/min_interval", 10, 4096);
		break;
	case PREC_AUX_CS_ETM:
		a->config |= prec_cs_etm__default_config(root, pmu);
		break;
	default:
		break;
	}
}

size_t prec_auxpmu__default_bytes(bool privileged)
{
	/* perf: 4 MiB when privileged, else 128 KiB (the mlock limit). */
	return privileged ? 4u << 20 : 128u << 10;
}

void prec_auxpmu__tsc_ctc(uint32_t *n, uint32_t *d)
{
	*n = *d = 0;
#if defined(__x86_64__) || defined(__i386__)
	{
		unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;

		/* Leaf 0x15: TSC / core crystal clock = ebx / eax. */
		if (__get_cpuid(0x15, &eax, &ebx, &ecx, &edx)) {
			*n = ebx;
			*d = eax;
		}
	}
#endif
}

/* time_shift, time_mult, time_zero, and whether they convert: perf writes
 * the words even without cap_user_time_zero, and takes a zero time_mult as
 * no conversion. */
static void read_time_conv(const struct perf_event_mmap_page *pc, uint64_t *w)
{
	struct prec_time_conv tc;
	int err = prec_perfclock__read(pc, &tc);

	w[PT_TIME_SHIFT] = tc.time_shift;
	w[PT_TIME_MULT] = tc.time_mult;
	w[PT_TIME_ZERO] = tc.time_zero;
	w[PT_CAP_USER_TIME_ZERO] = !err && tc.time_mult;
}

static int intel_pt_words(const struct prec_auxpmu_src *s, uint64_t **out,
			  uint32_t *nr)
{
	size_t flen = s->filter ? strlen(s->filter) : 0;
	/* The string with its NUL, padded with NULs to whole words. */
	size_t fwords = flen ? (flen + 1 + 7) / 8 : 0;
	uint64_t *w = calloc(PT_NR_WORDS + fwords, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w[PT_PMU_TYPE] = s->pmu_type;
	if (s->pc)
		read_time_conv(s->pc, w);
	w[PT_TSC_BIT] = term(s->root, s->pmu, "tsc", 1);
	w[PT_NORETCOMP_BIT] = term(s->root, s->pmu, "noretcomp", 1);
	w[PT_HAVE_SCHED_SWITCH] = s->have_sched_switch;
	w[PT_SNAPSHOT_MODE] = s->snapshot;
	w[PT_PER_CPU_MMAPS] = s->per_cpu_mmaps;
	w[PT_MTC_BIT] = term(s->root, s->pmu, "mtc", 1);
	w[PT_MTC_FREQ_BITS] = prec_pmu_sysfs__format_mask(s->root, s->pmu, "mtc_period");
	w[PT_TSC_CTC_N] = s->tsc_ctc_n;
	w[PT_TSC_CTC_D] = s->tsc_ctc_d;
	w[PT_CYC_BIT] = term(s->root, s->pmu, "cyc", 1);
	w[PT_MAX_NONTURBO_RATIO] = read_num(s->root, s->pmu, "max_nonturbo_ratio", 10, 0);
	w[PT_FILTER_STR_LEN] = flen;
	if (flen)
		memcpy(w + PT_NR_WORDS, s->filter, flen);
	*out = w;
	*nr = (uint32_t)(PT_NR_WORDS + fwords);
	return 0;
}

int prec_auxpmu__info(const struct prec_auxpmu_src *s, uint32_t *type,
		      uint64_t **priv, uint32_t *nr)
{
	*priv = NULL;
	*nr = 0;
	*type = 0;
	switch (prec_auxpmu__kind(s->pmu)) {
	case PREC_AUX_INTEL_PT:
		*type = PREC_AUXTRACE_INTEL_PT;
		return intel_pt_words(s, priv, nr);
	case PREC_AUX_ARM_SPE:
		*priv = calloc(SPE_NR_WORDS, sizeof(**priv));
		if (!*priv)
			return -ENOMEM;
		(*priv)[SPE_PMU_TYPE] = s->pmu_type;
		*type = PREC_AUXTRACE_ARM_SPE;
		*nr = SPE_NR_WORDS;
		return 0;
	case PREC_AUX_CS_ETM: {
		char bad[PATH_MAX];
		int err = prec_cs_etm__info(s, priv, nr, bad, sizeof(bad));

		*type = err ? 0 : PREC_AUXTRACE_CS_ETM;
		return err;
	}
	case PREC_AUX_NONE:
		return -EINVAL;
	default:
		return -EOPNOTSUPP;
	}
}
