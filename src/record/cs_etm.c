// SPDX-License-Identifier: MIT
// CoreSight ETM (the cs_etm PMU): which trace unit each CPU has (ETMv3/PTM,
// ETMv4, ETE) by its sysfs registers, the checks perf makes before it asks
// for timestamps and context IDs, and the AUXTRACE_INFO words perf 6.1
// writes. Facts from perf 6.1 (arch/arm/util/cs-etm.c, util/cs-etm.h,
// include/linux/coresight-pmu.h), not its code.

#include "record/cs_etm.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "record/auxpmu.h"
#include "record/pmu_sysfs.h"
#include "util/log.h"

/* perf 6.1's header: version, PMU type << 32 | number of CPUs, snapshot.
 * Version 1 put a parameter count in every CPU block so a reader can skip
 * parameters it does not know; later perfs write 2 (trace IDs from
 * AUX_OUTPUT_HW_ID records), which 6.1 refuses. */
#define CS_HEADER_VERSION 1u
enum { HDR_VERSION, HDR_TYPE_CPUS, HDR_SNAPSHOT, HDR_WORDS };
/* Every CPU block: magic, cpu, parameter count, then the parameters:
 * the configuration register, the trace ID, and the sysfs registers. */
enum { BLK_MAGIC, BLK_CPU, BLK_NR_PARAMS, BLK_CONFIG, BLK_TRACE_ID, BLK_RO };

/* attr.config bits the driver takes (coresight-pmu.h ETM_OPT_*) and the
 * ETMv4/ETE TRCCONFIGR bits they stand for (ETM4_CFG_BIT_*). On ETMv3
 * the config is ETMCR itself. */
enum { OPT_BB = 8, OPT_CYCACC = 12, OPT_CTXTID = 14, OPT_CTXTID2 = 15,
       OPT_TS = 28, OPT_RETSTK = 29 };
enum { CFG_BB = 3, CFG_CYCACC = 4, CFG_CTXTID = 6, CFG_VMID = 7,
       CFG_TS = 11, CFG_RETSTK = 12, CFG_VMID_OPT = 15 };

/* The sysfs registers of each kind, in perf 6.1's block order, under
 * PMU/cpuN/. ETE is ETMv4's list plus TRCDEVARCH (6.1's CS_ETE_TRCDEVARCH
 * = CS_ETMV4_PRIV_MAX). */
static const char *const etmv3_regs[] = { "mgmt/etmccer", "mgmt/etmidr" };
static const char *const etmv4_regs[] = {
	"trcidr/trcidr0", "trcidr/trcidr1", "trcidr/trcidr2",
	"trcidr/trcidr8", "mgmt/trcauthstatus", "mgmt/trcdevarch",
};

static const struct {
	uint64_t magic;
	const char *const *regs;
	uint32_t nr_regs;
	const char *name;
} kinds[] = {
	[PREC_ETM_V3] = { 0x3030303030303030ull, etmv3_regs, 2, "ETMv3/PTM" },
	[PREC_ETM_V4] = { 0x4040404040404040ull, etmv4_regs, 5, "ETMv4" },
	[PREC_ETM_ETE] = { 0x5050505050505050ull, etmv4_regs, 6, "ETE" },
};

static void reg_path(char *path, size_t len, const char *root, const char *pmu,
		     int cpu, const char *reg)
{
	snprintf(path, len, "%s/%s/cpu%d%s%s", root ? root : PREC_PMU_ROOT, pmu, cpu,
		 reg ? "/" : "", reg ? reg : "");
}

/* A register as sysfs prints it ("0x4100f424"). 0 or -errno; -EBADMSG
 * when the file does not hold one hex number. */
static int read_reg(const char *root, const char *pmu, int cpu, const char *reg,
		    uint64_t *v)
{
	char file[PATH_MAX], text[64], *end;
	int n;

	snprintf(file, sizeof(file), "cpu%d/%s", cpu, reg);
	n = prec_pmu_sysfs__read_attr(root, pmu, file, text, sizeof(text));
	if (n < 0)
		return n;
	errno = 0;
	*v = strtoull(text, &end, 16);
	return errno || end == text || *end ? -EBADMSG : 0;
}

enum prec_etm_kind prec_cs_etm__kind(const char *root, const char *pmu, int cpu)
{
	char path[PATH_MAX];
	struct stat st;
	uint64_t v;

	/* perf's test: TRCDEVARCH.ARCHVER 5 and ARCHPART 0xa13 is ETE (an
	 * ETMv4 says ARCHVER 4); else a readable TRCIDR0 is ETMv4; else the
	 * CPU's directory alone is an ETMv3/PTM. */
	if (!read_reg(root, pmu, cpu, "mgmt/trcdevarch", &v) &&
	    ((v >> 12) & 0xf) == 5 && (v & 0xfff) == 0xa13)
		return PREC_ETM_ETE;
	if (!read_reg(root, pmu, cpu, "trcidr/trcidr0", &v))
		return PREC_ETM_V4;
	reg_path(path, sizeof(path), root, pmu, cpu, NULL);
	return stat(path, &st) || !S_ISDIR(st.st_mode) ? PREC_ETM_NONE : PREC_ETM_V3;
}

uint64_t prec_cs_etm__trcconfigr(uint64_t config)
{
	static const struct { int opt; uint64_t cfg; } map[] = {
		{ OPT_CYCACC, 1ull << CFG_CYCACC }, { OPT_CTXTID, 1ull << CFG_CTXTID },
		{ OPT_TS, 1ull << CFG_TS }, { OPT_RETSTK, 1ull << CFG_RETSTK },
		{ OPT_CTXTID2, (1ull << CFG_VMID) | (1ull << CFG_VMID_OPT) },
		{ OPT_BB, 1ull << CFG_BB },
	};
	uint64_t c = 0;

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (config & (1ull << map[i].opt))
			c |= map[i].cfg;
	return c;
}

uint64_t prec_cs_etm__default_config(const char *root, const char *pmu)
{
	uint64_t ts = prec_pmu_sysfs__format_mask(root, pmu, "timestamp");

	/* perf 6.1 with per-CPU rings (prec's only kind): timestamps, so the
	 * trace can be put in order with the rest, and the context ID the
	 * kernel's "contextid" format names (CONTEXTIDR_EL1, or _EL2 under
	 * VHE), so the decoder knows the thread. */
	return (ts ? ts : 1ull << OPT_TS) |
	       prec_pmu_sysfs__format_mask(root, pmu, "contextid");
}

/* One CPU's block, or -errno with the path that failed in bad. */
static int cpu_block(const struct prec_auxpmu_src *s, int cpu,
		     enum prec_etm_kind k, uint64_t *w, uint32_t *nr, char *bad,
		     size_t bad_len)
{
	int err;

	if (k == PREC_ETM_NONE) {
		reg_path(bad, bad_len, s->root, s->pmu, cpu, NULL);
		return -ENODEV;
	}
	w[BLK_MAGIC] = kinds[k].magic;
	w[BLK_CPU] = (uint64_t)cpu;
	w[BLK_NR_PARAMS] = 2 + kinds[k].nr_regs;
	w[BLK_CONFIG] = k == PREC_ETM_V3 ? s->config : prec_cs_etm__trcconfigr(s->config);
	w[BLK_TRACE_ID] = 0x10u + 2u * (unsigned int)cpu; /* the 6.1 driver's */
	for (uint32_t i = 0; i < kinds[k].nr_regs; i++) {
		err = read_reg(s->root, s->pmu, cpu, kinds[k].regs[i], &w[BLK_RO + i]);
		if (err) {
			reg_path(bad, bad_len, s->root, s->pmu, cpu, kinds[k].regs[i]);
			return err;
		}
	}
	*nr = BLK_RO + kinds[k].nr_regs;
	return 0;
}

int prec_cs_etm__info(const struct prec_auxpmu_src *s, uint64_t **out,
		      uint32_t *nr, char *bad, size_t bad_len)
{
	/* ETE's block is the largest: 3 + 2 + 6 words. */
	size_t max = HDR_WORDS + (size_t)s->nr_cpus * (BLK_RO + 6);
	uint64_t *w = calloc(max, sizeof(*w));
	uint32_t n = HDR_WORDS, blk;
	int err;

	bad[0] = 0;
	if (!w)
		return -ENOMEM;
	if (s->nr_cpus <= 0 || !s->cpus) {
		free(w);
		return -EINVAL;
	}
	w[HDR_VERSION] = CS_HEADER_VERSION;
	w[HDR_TYPE_CPUS] = ((uint64_t)s->pmu_type << 32) | (uint32_t)s->nr_cpus;
	w[HDR_SNAPSHOT] = s->snapshot;
	/* perf walks the CPUs in ascending order; prec's lists are sorted. */
	for (int c = 0; c < s->nr_cpus; c++) {
		err = cpu_block(s, s->cpus[c],
				prec_cs_etm__kind(s->root, s->pmu, s->cpus[c]),
				w + n, &blk, bad, bad_len);
		if (err) {
			free(w);
			return err;
		}
		n += blk;
	}
	*out = w;
	*nr = n;
	return 0;
}

/* perf 6.1 refuses what the trace unit cannot do: context IDs and
 * timestamps need an ETMv4/ETE with TRCIDR2.CIDSIZE 4 (EL1), TRCIDR2.VMIDOPT
 * and VMIDSIZE >= 4 (EL2), TRCIDR0.TSSIZE not 0. */
static const char *unsupported(const char *root, const char *pmu, int cpu,
			       enum prec_etm_kind k, uint64_t config)
{
	uint64_t idr0 = 0, idr2 = 0;

	if (k == PREC_ETM_V3 && (config & (1ull << OPT_TS)))
		return "timestamps (perf asks for them on ETMv4/ETE only): leave them out with timestamp=0";
	if (k == PREC_ETM_V3 && (config & (3ull << OPT_CTXTID)))
		return "context IDs (perf traces them on ETMv4/ETE only): leave them out with contextid=0";
	if (k == PREC_ETM_V3)
		return NULL;
	read_reg(root, pmu, cpu, "trcidr/trcidr0", &idr0);
	read_reg(root, pmu, cpu, "trcidr/trcidr2", &idr2);
	if ((config & (1ull << OPT_CTXTID)) && ((idr2 >> 5) & 0x1f) != 4)
		return "CONTEXTIDR_EL1 tracing (TRCIDR2.CIDSIZE is not 4): leave it out with contextid1=0";
	if ((config & (1ull << OPT_CTXTID2)) &&
	    (!((idr2 >> 29) & 3) || ((idr2 >> 10) & 0x1f) < 4))
		return "CONTEXTIDR_EL2 tracing (TRCIDR2.VMIDOPT/VMIDSIZE): leave it out with contextid2=0";
	if ((config & (1ull << OPT_TS)) && !((idr0 >> 24) & 0x1f))
		return "timestamps (TRCIDR0.TSSIZE is 0): leave them out with timestamp=0";
	return NULL;
}

int prec_cs_etm__check(const struct prec_auxpmu_src *s, const char *evname)
{
	char bad[PATH_MAX];
	uint64_t w[BLK_RO + 6];
	uint32_t nr;
	const char *why;
	int err;

	for (int c = 0; c < s->nr_cpus; c++) {
		int cpu = s->cpus[c];
		enum prec_etm_kind k = prec_cs_etm__kind(s->root, s->pmu, cpu);

		err = cpu_block(s, cpu, k, w, &nr, bad, sizeof(bad));
		if (err == -ENODEV) {
			pr_err("event '%s': cpu%d has no CoreSight ETM (no %s)", evname, cpu, bad);
			return -EINVAL;
		}
		if (err) {
			pr_err("event '%s': cpu%d: cannot read %s: %s", evname, cpu, bad,
			       err == -EBADMSG ? "not one hex number" : strerror(-err));
			return -EINVAL;
		}
		why = unsupported(s->root, s->pmu, cpu, k, s->config);
		if (why) {
			pr_err("event '%s': cpu%d: %s cannot do %s", evname, cpu,
			       kinds[k].name, why);
			return -EINVAL;
		}
	}
	return 0;
}
