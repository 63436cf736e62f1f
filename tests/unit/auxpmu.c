// SPDX-License-Identifier: MIT
// AUX PMUs without an AUX PMU: a fake sysfs tree (intel_pt, arm_spe_0,
// cs_etm with the format, caps and per-CPU ETM register files real kernels
// publish, behind links as in sysfs) in a temp dir. Checks the PMU kinds, perf's default configs, the
// AUX event made the ring owner with its AUX size and switch tracking (pure
// evlist logic, no perf_event_open), the refusals, and the AUXTRACE_INFO
// words for intel_pt (TSC conversion from a control page, filter string),
// arm_spe and cs_etm (ETMv4, ETE and ETMv3 blocks worked out by hand).
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/auxpmu.h"
#include "record/cs_etm.h"
#include "record/evlist.h"
/* The list's private struct (evlist_internal.h, the four evlist files'):
 * auxpmu.c tests evlist_aux.c from inside: it fakes the opened
 * state (a ring in memory, the CPUs) that AUXTRACE_INFO reads, and reads
 * the AUX owner and have_sched_switch, as the four files do. */
#include "record/evlist_internal.h"
#include "record/evlist_aux.h"
#include "record/evlist_config.h"
#include "record/options.h"
#include "record/pmu_sysfs.h"
#include "record/ring.h"
#include "store/store.h"
#include "../lib/test.h"

static char *root;

/* root/PMU/FILE. As in /sys/bus/event_source/devices, root/PMU is a link
 * to the PMU's device directory (here root/devices/PMU). */
static void put(const char *pmu, const char *file, const char *text)
{
	char path[512], dev[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/devices", root);
	mkdir(path, 0700);
	snprintf(dev, sizeof(dev), "devices/%s", pmu);
	snprintf(path, sizeof(path), "%s/%s", root, dev);
	if (!mkdir(path, 0700)) {
		snprintf(path, sizeof(path), "%s/%s", root, pmu);
		CHECK(symlink(dev, path) == 0);
	}
	snprintf(path, sizeof(path), "%s/%s/format", root, pmu);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/caps", root, pmu);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%s/%s", root, pmu, file);
	f = fopen(path, "w");
	CHECK(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

/* Bit positions as a Skylake's intel_pt publishes them. */
#define PT_TSC (1ull << 10)
#define PT_NORETCOMP (1ull << 11)
#define PT_MTC (1ull << 9)
#define PT_MTC_PERIOD_SHIFT 14
#define PT_CYC (1ull << 1)
#define PT_BRANCH (1ull << 13)
#define PT_PSB_SHIFT 24
#define PT_DEFAULT (PT_TSC | PT_MTC | (3ull << PT_MTC_PERIOD_SHIFT) | \
		    (3ull << PT_PSB_SHIFT) | 1ull | PT_BRANCH)

/* root/cs_etm/cpuN/FILE, with the directories on the way. As the driver
 * links them, cpuN is a link to the CPU's ETM device (root/devices/etmN). */
static void put_reg(int cpu, const char *file, const char *text)
{
	static const char *const sub[] = { "", "/mgmt", "/trcidr" };
	char path[512], etm[64];

	put("cs_etm", "type", "10"); /* makes root/cs_etm */
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/devices/etm%d%s", root, cpu, sub[i]);
		mkdir(path, 0700);
	}
	snprintf(etm, sizeof(etm), "../etm%d", cpu);
	snprintf(path, sizeof(path), "%s/cs_etm/cpu%d", root, cpu);
	CHECK(symlink(etm, path) == 0 || errno == EEXIST);
	snprintf(path, sizeof(path), "cpu%d/%s", cpu, file);
	put("cs_etm", path, text);
}

/* An ETMv4 (TRCIDR0.TSSIZE 8: 64-bit timestamps; TRCIDR2.CIDSIZE 4,
 * VMIDOPT 1, VMIDSIZE 4), minus the register skip names. */
static void put_etmv4(int cpu, const char *idr0, const char *idr2,
		      const char *skip)
{
	const char *regs[][2] = {
		{ "trcidr/trcidr0", idr0 }, { "trcidr/trcidr1", "0x4100f424" },
		{ "trcidr/trcidr2", idr2 }, { "trcidr/trcidr8", "0x0" },
		{ "mgmt/trcauthstatus", "0xcc" }, { "mgmt/trcdevarch", "0x47704a13" },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!skip || strcmp(skip, regs[i][0]))
			put_reg(cpu, regs[i][0], regs[i][1]);
}

/* cs_etm's formats as the 6.1 driver publishes them (under EL1, so
 * "contextid" is CONTEXTIDR_EL1's bit 14), and the ETMs: cpu0 ETMv4, cpu1
 * ETE (TRCDEVARCH ARCHVER 5, ARCHPART 0xa13), cpu2 ETMv3/PTM, cpu3 an
 * ETMv4 without trcidr8, cpu4 one without timestamps (TSSIZE 0), cpu6 one
 * without CONTEXTIDR_EL1 (CIDSIZE 0), cpu7 one with a garbled TRCIDR1;
 * no cpu5. */
static void make_cs_etm(void)
{
	static const char *const files[][2] = {
		{ "format/timestamp", "config:28" }, { "format/contextid", "config:14" },
		{ "format/contextid1", "config:14" }, { "format/contextid2", "config:15" },
		{ "format/cycacc", "config:12" }, { "format/retstack", "config:29" },
		{ "format/branch_broadcast", "config:8" },
		{ "format/sinkid", "config2:0-31" },
		{ "cpu1/trcidr/trcidr0", "0x28000ea1" }, { "cpu1/trcidr/trcidr1", "0x4100fb23" },
		{ "cpu1/trcidr/trcidr2", "0x20001088" }, { "cpu1/trcidr/trcidr8", "0x1" },
		{ "cpu1/mgmt/trcauthstatus", "0xff" }, { "cpu1/mgmt/trcdevarch", "0x47705a13" },
	};

	put_reg(1, "mgmt/trcdevarch", "0"); /* cpu1's directories */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put("cs_etm", files[i][0], files[i][1]);
	put_etmv4(0, "0x28000ea1", "0x20001088", NULL);
	put_reg(2, "mgmt/etmccer", "0x34c01ac2");
	put_reg(2, "mgmt/etmidr", "0x4114f253");
	put_etmv4(3, "0x28000ea1", "0x20001088", "trcidr/trcidr8");
	put_etmv4(4, "0x00000ea1", "0x20001088", NULL);
	put_etmv4(6, "0x28000ea1", "0x20001008", NULL);
	put_etmv4(7, "0x28000ea1", "0x20001088", "trcidr/trcidr1");
	put_reg(7, "trcidr/trcidr1", "a register");
}

static void make_tree(void)
{
	put("intel_pt", "type", "8");
	put("intel_pt", "format/pt", "config:0");
	put("intel_pt", "format/cyc", "config:1");
	put("intel_pt", "format/mtc", "config:9");
	put("intel_pt", "format/tsc", "config:10");
	put("intel_pt", "format/noretcomp", "config:11");
	put("intel_pt", "format/branch", "config:13");
	put("intel_pt", "format/mtc_period", "config:14-17");
	put("intel_pt", "format/cyc_thresh", "config:19-22");
	put("intel_pt", "format/psb_period", "config:24-27");
	put("intel_pt", "caps/mtc", "1");
	put("intel_pt", "caps/mtc_periods", "249"); /* hex: 0, 3, 6, 9 */
	put("intel_pt", "caps/psb_cyc", "1");
	put("intel_pt", "caps/psb_periods", "3f");
	put("intel_pt", "max_nonturbo_ratio", "24");
	put("arm_spe_0", "type", "9");
	put("arm_spe_0", "format/ts_enable", "config:0");
	put("arm_spe_0", "format/pa_enable", "config:1");
	put("arm_spe_0", "caps/min_interval", "1024");
	put("cs_etm", "type", "10");
	put("intel_bts", "type", "11");
	make_cs_etm();
}

static void test_kinds(void)
{
	CHECK_EQ(prec_auxpmu__kind("intel_pt"), PREC_AUX_INTEL_PT);
	CHECK_EQ(prec_auxpmu__kind("intel_bts"), PREC_AUX_INTEL_BTS);
	CHECK_EQ(prec_auxpmu__kind("cs_etm"), PREC_AUX_CS_ETM);
	CHECK_EQ(prec_auxpmu__kind("arm_spe_0"), PREC_AUX_ARM_SPE);
	CHECK_EQ(prec_auxpmu__kind("arm_spe_1"), PREC_AUX_ARM_SPE);
	CHECK_EQ(prec_auxpmu__kind("cpu"), PREC_AUX_NONE);
	CHECK_EQ(prec_auxpmu__kind("intel_ptx"), PREC_AUX_NONE);
	CHECK_EQ(prec_auxpmu__kind(NULL), PREC_AUX_NONE);
	CHECK_EQ(prec_pmu_sysfs__format_mask(root, "intel_pt", "mtc_period"), 0xfull << 14);
	CHECK_EQ(prec_pmu_sysfs__format_mask(root, "intel_pt", "tsc"), PT_TSC);
	CHECK_EQ(prec_pmu_sysfs__format_mask(root, "intel_pt", "nosuch"), 0);
	CHECK_EQ(prec_auxpmu__default_bytes(true), 4 << 20);
	CHECK_EQ(prec_auxpmu__default_bytes(false), 128 << 10);
}

static void test_default_config(void)
{
	struct prec_evlist el = { 0 };

	CHECK_EQ(prec_evlist__add(&el, "intel_pt//", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(&el, "intel_pt/cyc,noretcomp=1/", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(&el, "intel_pt/tsc=0,mtc_period=6/", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(&el, "arm_spe_0//", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(&el, "arm_spe_0/ts_enable=0,period=5000/", NULL, root), 0);
	CHECK_EQ(el.evsel[0].attr.type, 8);
	CHECK_EQ(el.evsel[0].aux, PREC_AUX_INTEL_PT);
	CHECK(!el.evsel[0].sampling);
	CHECK_EQ(el.evsel[0].attr.config, PT_DEFAULT);
	CHECK_EQ(el.evsel[1].attr.config, PT_DEFAULT | PT_CYC | PT_NORETCOMP);
	CHECK_EQ(el.evsel[2].attr.config,
		 (PT_DEFAULT & ~PT_TSC & ~(0xfull << 14)) | (6ull << 14));
	CHECK_EQ(el.evsel[3].attr.type, 9);
	CHECK_EQ(el.evsel[3].attr.config, 1);
	CHECK_EQ(el.evsel[3].term_period, 1024);
	CHECK_EQ(el.evsel[4].attr.config, 0);
	CHECK_EQ(el.evsel[4].term_period, 5000);
	CHECK(!strcmp(el.evsel[3].pmu, "arm_spe_0"));
	prec_evlist__exit(&el);
}

static int setup(struct prec_evlist *el, const char *ev, struct prec_record_opts *o)
{
	memset(el, 0, sizeof(*el));
	CHECK_EQ(prec_evlist__add_tracking(el), 0);
	CHECK_EQ(prec_evlist__add(el, "cpu-clock", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(el, ev, NULL, root), 0);
	return prec_evlist__aux_setup(el, o);
}

static void test_owner(void)
{
	struct prec_record_opts o = { .all_cpus = true, .clockid = 1 };
	struct prec_evlist el;
	int order[8];

	/* No AUX event: the tracking dummy owns the rings, as before. */
	CHECK_EQ(setup(&el, "page-faults", &o), 0);
	CHECK_EQ(el.aux_bytes, 0);
	prec_evlist__open_order(&el, order);
	for (int i = 0; i < el.nr; i++)
		CHECK_EQ(order[i], i);
	CHECK(!el.evsel[0].attr.context_switch);
	prec_evlist__exit(&el);
	/* intel_pt: first on every CPU, the others follow it. */
	CHECK_EQ(setup(&el, "intel_pt//", &o), 0);
	CHECK(el.evsel[0].tracking);
	CHECK_EQ(el.aux_owner, 2);
	CHECK(el.aux_bytes == (4u << 20) || el.aux_bytes == (128u << 10));
	if (geteuid() == 0)
		CHECK_EQ(el.aux_bytes, 4u << 20);
	prec_evlist__open_order(&el, order);
	CHECK_EQ(order[0], 2);
	CHECK_EQ(order[1], 0);
	CHECK_EQ(order[2], 1);
	CHECK(el.evsel[0].attr.context_switch);
	CHECK_EQ(el.have_sched_switch, 3);
	prec_evlist__exit(&el);
	/* A size from the command line; per-task: switches per task. */
	o.aux_bytes = 64 * 1024;
	o.all_cpus = false;
	CHECK_EQ(setup(&el, "arm_spe_0//", &o), 0);
	CHECK_EQ(el.aux_bytes, 64 * 1024);
	CHECK_EQ(el.have_sched_switch, 2);
	prec_evlist__exit(&el);
	/* No tsc: no timing, no switch records asked for. */
	CHECK_EQ(setup(&el, "intel_pt/tsc=0/", &o), 0);
	CHECK(!el.evsel[0].attr.context_switch);
	CHECK_EQ(el.have_sched_switch, 0);
	prec_evlist__exit(&el);
}

static void test_refusals(void)
{
	struct prec_record_opts o = { .all_cpus = true, .aux_bytes = 4096 };
	struct prec_evlist el;

	CHECK_EQ(setup(&el, "intel_pt//", &o), -EINVAL); /* < 8 KiB */
	prec_evlist__exit(&el);
	o.aux_bytes = 0;
	CHECK_EQ(setup(&el, "intel_pt//,arm_spe_0//", &o), -EINVAL);
	prec_evlist__exit(&el);
	CHECK_EQ(setup(&el, "intel_bts//", &o), -EINVAL);
	prec_evlist__exit(&el);
	o.overwrite = true;
	CHECK_EQ(setup(&el, "intel_pt//", &o), -EINVAL);
	prec_evlist__exit(&el);
}

/* Which clock the recording takes: perf's own for intel_pt and arm_spe
 * unless -k says otherwise (refused for intel_pt, as perf); any clock
 * without an AUX event; --markers cannot follow the perf clock. */
static void clock_case(const char *ev, bool set, int clockid, bool markers,
		       int want_err, int want_clock)
{
	struct prec_record_opts o = { .all_cpus = true, .clockid = clockid,
				      .clock_set = set, .markers = markers };
	struct prec_evlist el;

	CHECK_EQ(setup(&el, ev, &o), 0);
	/* the options resolved: the clock the AUX event wants, decided */
	CHECK_EQ(prec_record_opts__resolve(&o, &el), want_err);
	if (!want_err) {
		CHECK_EQ(o.clockid, want_clock);
		prec_evlist__config(&el, &o, false, false);
		for (int e = 0; e < el.nr; e++) {
			CHECK_EQ(el.evsel[e].attr.use_clockid, want_clock >= 0);
			CHECK_EQ(el.evsel[e].attr.clockid, want_clock >= 0 ? want_clock : 0);
		}
	}
	prec_evlist__exit(&el);
}

static void test_clock(void)
{
	clock_case("intel_pt//", false, 1, false, 0, PREC_CLOCK_PERF);
	clock_case("intel_pt//", true, 1, false, -EINVAL, 0);
	clock_case("intel_pt//", true, 4, false, -EINVAL, 0);
	clock_case("intel_pt//", true, PREC_CLOCK_PERF, false, 0, PREC_CLOCK_PERF);
	clock_case("intel_pt//", false, 1, true, -EINVAL, 0);
	clock_case("arm_spe_0//", false, 1, false, 0, PREC_CLOCK_PERF);
	clock_case("arm_spe_0//", true, 4, false, 0, 4);
	clock_case("page-faults", false, 1, false, 0, 1);
	clock_case("page-faults", true, PREC_CLOCK_PERF, false, 0, PREC_CLOCK_PERF);
}

static void fake_page(struct perf_event_mmap_page *pc, bool cap)
{
	memset(pc, 0, sizeof(*pc));
	pc->lock = 2;
	pc->time_shift = 31;
	pc->time_mult = 1234567;
	pc->time_zero = 0xfffffff123456789ull;
	pc->cap_user_time_zero = cap;
}

static void test_intel_pt_words(void)
{
	struct perf_event_mmap_page pc;
	const char *filter = "filter main @ /bin/ls";
	struct prec_auxpmu_src s = { .root = root, .pmu = "intel_pt", .pmu_type = 8,
				     .pc = &pc, .tsc_ctc_n = 84, .tsc_ctc_d = 2,
				     .have_sched_switch = 3, .per_cpu_mmaps = true };
	const uint64_t want[17] = { 8, 31, 1234567, 0xfffffff123456789ull, 1,
				    PT_TSC, PT_NORETCOMP, 3, 0, 1, PT_MTC,
				    0xfull << 14, 84, 2, PT_CYC, 24, 0 };
	uint64_t *w;
	uint32_t type, nr;

	fake_page(&pc, true);
	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), 0);
	CHECK_EQ(type, PREC_AUXTRACE_INTEL_PT);
	CHECK_EQ(nr, 17);
	for (int i = 0; i < 17; i++)
		CHECK_EQ(w[i], want[i]);
	free(w);
	/* No cap_user_time_zero: the words are still there, the flag is 0.
	 * A filter: its length, then the string NUL-padded to whole words. */
	fake_page(&pc, false);
	s.filter = filter;
	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), 0);
	CHECK_EQ(nr, 17 + (strlen(filter) + 8) / 8);
	CHECK_EQ(w[4], 0);
	CHECK_EQ(w[1], 31);
	CHECK_EQ(w[16], strlen(filter));
	CHECK(!memcmp(w + 17, filter, strlen(filter)));
	for (size_t i = strlen(filter); i < (nr - 17) * 8; i++)
		CHECK_EQ(((const char *)(w + 17))[i], 0);
	free(w);
	/* No control page (nothing mapped): no TSC conversion. */
	s.pc = NULL;
	s.filter = NULL;
	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), 0);
	CHECK_EQ(w[1] | w[2] | w[3] | w[4], 0);
	free(w);
}

static void test_other_words(void)
{
	struct prec_auxpmu_src s = { .root = root, .pmu = "arm_spe_0", .pmu_type = 9,
				     .per_cpu_mmaps = true };
	uint64_t *w;
	uint32_t type, nr;

	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), 0);
	CHECK_EQ(type, PREC_AUXTRACE_ARM_SPE);
	CHECK_EQ(nr, 2);
	CHECK_EQ(w[0], 9);
	CHECK_EQ(w[1], 0); /* perf 6.1 leaves per_cpu_mmaps 0 */
	free(w);
	s.pmu = "intel_bts";
	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), -EOPNOTSUPP);
	CHECK(w == NULL && nr == 0);
	s.pmu = "cpu";
	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), -EINVAL);
}

/* The manifest gets the words of the evlist's AUX event, with the TSC
 * conversion of its first ring's control page. */
static void test_evlist_info(void)
{
	struct prec_record_opts o = { .all_cpus = true };
	struct prec_manifest *m = prec_manifest__new();
	struct prec_evlist el;
	void *mem = calloc(1, 4096 + 8192);

	CHECK(m && mem);
	CHECK_EQ(setup(&el, "intel_pt//", &o), 0);
	el.rings = calloc(1, sizeof(*el.rings));
	CHECK(el.rings);
	el.nr_cpus = 1;
	prec_ring__init_mem(&el.rings[0], mem, 8192, 0);
	fake_page(el.rings[0].page, true);
	CHECK_EQ(prec_evlist__aux_info(&el, m), 0);
	CHECK_EQ(m->auxtrace_type, PREC_AUXTRACE_INTEL_PT);
	CHECK_EQ(m->nr_auxtrace_priv, 17);
	CHECK_EQ(m->auxtrace_priv[0], 8);
	CHECK_EQ(m->auxtrace_priv[2], 1234567);
	CHECK_EQ(m->auxtrace_priv[7], 3);
	CHECK_EQ(m->auxtrace_priv[9], 1);
	prec_evlist__exit(&el);
	prec_manifest__delete(m);
	free(mem);
}

/* cs_etm's default config, by hand: timestamp (bit 28) and contextid (bit
 * 14 here), under the user's terms. */
static void test_cs_etm_config(void)
{
	struct prec_evlist el = { 0 };

	CHECK_EQ(prec_evlist__add(&el, "cs_etm//", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(&el, "cs_etm/timestamp=0/", NULL, root), 0);
	CHECK_EQ(prec_evlist__add(&el, "cs_etm/cycacc,contextid2,contextid1=0/", NULL, root), 0);
	CHECK_EQ(el.evsel[0].attr.type, 10);
	CHECK_EQ(el.evsel[0].aux, PREC_AUX_CS_ETM);
	CHECK(!el.evsel[0].sampling);
	CHECK_EQ(el.evsel[0].attr.config, 0x10004000);
	CHECK_EQ(el.evsel[1].attr.config, 0x4000);
	CHECK_EQ(el.evsel[2].attr.config, 0x10000000 | 0x1000 | 0x8000);
	prec_evlist__exit(&el);
	/* ETM_OPT bits to TRCCONFIGR: ts 28 -> 11, ctxtid 14 -> 6, cycacc 12
	 * -> 4, retstk 29 -> 12, ctxtid2 15 -> 7 and 15, bb 8 -> 3. */
	CHECK_EQ(prec_cs_etm__trcconfigr(0x10004000), 0x840);
	CHECK_EQ(prec_cs_etm__trcconfigr(0x3000d100), 0x98d8);
	CHECK_EQ(prec_cs_etm__trcconfigr(0x7), 0);
	CHECK_EQ(prec_cs_etm__kind(root, "cs_etm", 0), PREC_ETM_V4);
	CHECK_EQ(prec_cs_etm__kind(root, "cs_etm", 1), PREC_ETM_ETE);
	CHECK_EQ(prec_cs_etm__kind(root, "cs_etm", 2), PREC_ETM_V3);
	CHECK_EQ(prec_cs_etm__kind(root, "cs_etm", 5), PREC_ETM_NONE);
}

static void check_words(const uint64_t *w, uint32_t nr, const uint64_t *want,
			uint32_t nr_want)
{
	CHECK_EQ(nr, nr_want);
	for (uint32_t i = 0; i < nr_want; i++) {
		if (w[i] != want[i])
			fprintf(stderr, "word %u: %#llx, want %#llx\n", i,
				(unsigned long long)w[i], (unsigned long long)want[i]);
		CHECK_EQ(w[i], want[i]);
	}
}

/* perf 6.1's layout worked out by hand: header {version 1, type << 32 |
 * CPUs, snapshot 0}; per CPU {magic, cpu, number of parameters,
 * TRCCONFIGR (ETMCR on ETMv3), trace ID 0x10 + 2 * cpu, the sysfs
 * registers}. */
static void test_cs_etm_words(void)
{
	const int cpus01[] = { 0, 1 }, cpus02[] = { 0, 2 }, cpu3[] = { 3 },
		  cpu5[] = { 5 }, cpu7[] = { 7 };
	struct prec_auxpmu_src s = { .root = root, .pmu = "cs_etm", .pmu_type = 10,
				     .cpus = cpus01, .nr_cpus = 2,
				     .config = 0x10004000, .per_cpu_mmaps = true };
	const uint64_t want01[24] = {
		1, 0xa00000002ull, 0,
		0x4040404040404040ull, 0, 7, 0x840, 0x10,
		0x28000ea1, 0x4100f424, 0x20001088, 0x0, 0xcc,
		0x5050505050505050ull, 1, 8, 0x840, 0x12,
		0x28000ea1, 0x4100fb23, 0x20001088, 0x1, 0xff, 0x47705a13,
	};
	/* cycacc alone: TRCCONFIGR bit 4 on the ETMv4, ETMCR = config on
	 * the ETMv3 */
	const uint64_t want02[20] = {
		1, 0xa00000002ull, 0,
		0x4040404040404040ull, 0, 7, 0x10, 0x10,
		0x28000ea1, 0x4100f424, 0x20001088, 0x0, 0xcc,
		0x3030303030303030ull, 2, 4, 0x1000, 0x14, 0x34c01ac2, 0x4114f253,
	};
	char bad[512];
	uint64_t *w;
	uint32_t type, nr;

	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), 0);
	CHECK_EQ(type, PREC_AUXTRACE_CS_ETM);
	check_words(w, nr, want01, 24);
	free(w);
	s.cpus = cpus02;
	s.config = 0x1000;
	CHECK_EQ(prec_cs_etm__info(&s, &w, &nr, bad, sizeof(bad)), 0);
	check_words(w, nr, want02, 20);
	free(w);
	s.cpus = cpu3;
	s.nr_cpus = 1;
	CHECK_EQ(prec_cs_etm__info(&s, &w, &nr, bad, sizeof(bad)), -ENOENT);
	CHECK(strstr(bad, "/cs_etm/cpu3/trcidr/trcidr8"));
	s.cpus = cpu5;
	CHECK_EQ(prec_cs_etm__info(&s, &w, &nr, bad, sizeof(bad)), -ENODEV);
	CHECK(strstr(bad, "/cs_etm/cpu5") && !strstr(bad, "cpu5/"));
	s.cpus = cpu7;
	CHECK_EQ(prec_cs_etm__info(&s, &w, &nr, bad, sizeof(bad)), -EBADMSG);
	CHECK(strstr(bad, "/cs_etm/cpu7/trcidr/trcidr1"));
	s.nr_cpus = 0;
	CHECK_EQ(prec_cs_etm__info(&s, &w, &nr, bad, sizeof(bad)), -EINVAL);
	CHECK_EQ(prec_auxpmu__info(&s, &type, &w, &nr), -EINVAL);
	CHECK_EQ(type, 0);
}

/* aux_setup with cpus, its stderr in *msg (NUL-terminated, malloc'd). */
static int cs_setup(const char *ev, const int *cpus, int n, char **msg)
{
	struct prec_record_opts o = { .all_cpus = true, .cpus = (int *)cpus,
				      .nr_cpus = n };
	struct prec_evlist el;
	char path[512];
	int fd, saved, err;
	FILE *f;
	long len;

	snprintf(path, sizeof(path), "%s/stderr", root);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	saved = dup(2);
	CHECK(fd >= 0 && saved >= 0);
	dup2(fd, 2);
	err = setup(&el, ev, &o);
	dup2(saved, 2);
	close(saved);
	close(fd);
	prec_evlist__exit(&el);
	f = fopen(path, "r");
	CHECK(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	*msg = calloc(1, (size_t)len + 1);
	CHECK(*msg && fread(*msg, 1, (size_t)len, f) == (size_t)len);
	fclose(f);
	return err;
}

/* One refusal: -EINVAL and exactly one line holding each of the texts. */
static void cs_refused(const char *ev, const int *cpus, int n, const char *t1,
		       const char *t2)
{
	char *msg, *nl;

	CHECK_EQ(cs_setup(ev, cpus, n, &msg), -EINVAL);
	nl = strchr(msg, '\n');
	if (!nl || nl[1] || !strstr(msg, t1) || (t2 && !strstr(msg, t2)))
		fprintf(stderr, "message: '%s', want '%s' '%s'\n", msg, t1, t2 ? t2 : "");
	CHECK(nl && !nl[1]);
	CHECK(strstr(msg, t1));
	CHECK(!t2 || strstr(msg, t2));
	free(msg);
}

static void test_cs_etm_refusals(void)
{
	const int c01[] = { 0, 1 }, c03[] = { 0, 3 }, c2[] = { 2 }, c4[] = { 4 },
		  c15[] = { 1, 5 }, c6[] = { 6 }, c7[] = { 7 };
	char want[600], *msg;

	CHECK_EQ(cs_setup("cs_etm//", c01, 2, &msg), 0);
	CHECK_EQ(msg[0], 0);
	free(msg);
	snprintf(want, sizeof(want), "cpu3: cannot read %s/cs_etm/cpu3/trcidr/trcidr8: No such file or directory",
		 root);
	cs_refused("cs_etm//", c03, 2, "event 'cs_etm//'", want);
	snprintf(want, sizeof(want), "cpu5 has no CoreSight ETM (no %s/cs_etm/cpu5)", root);
	cs_refused("cs_etm//", c15, 2, want, NULL);
	cs_refused("cs_etm//", c7, 1, "cs_etm/cpu7/trcidr/trcidr1: not one hex number", NULL);
	/* perf 6.1 asks for timestamps and context IDs, which ETMv3/PTM
	 * cannot give; without them its block is recorded. */
	cs_refused("cs_etm//", c2, 1, "cpu2: ETMv3/PTM cannot do timestamps", "timestamp=0");
	cs_refused("cs_etm/timestamp=0/", c2, 1, "cpu2: ETMv3/PTM cannot do context IDs",
		   "contextid=0");
	CHECK_EQ(cs_setup("cs_etm/timestamp=0,contextid=0/", c2, 1, &msg), 0);
	free(msg);
	cs_refused("cs_etm//", c4, 1, "cpu4: ETMv4 cannot do timestamps (TRCIDR0.TSSIZE is 0)",
		   "timestamp=0");
	CHECK_EQ(cs_setup("cs_etm/timestamp=0/", c4, 1, &msg), 0);
	free(msg);
	cs_refused("cs_etm//", c6, 1, "cpu6: ETMv4 cannot do CONTEXTIDR_EL1", "contextid1=0");
	CHECK_EQ(cs_setup("cs_etm/contextid1=0/", c6, 1, &msg), 0);
	free(msg);
}

/* The evlist side: cs_etm owns the rings, the dummy records switches (perf
 * 6.1 turns record_switch_events on for cs_etm), -k is refused as perf
 * does, and the manifest gets the words of the CPUs opened. */
static void test_cs_etm_evlist(void)
{
	int cpus[] = { 0, 1 };
	struct prec_record_opts o = { .all_cpus = true, .cpus = cpus, .nr_cpus = 2 };
	struct prec_manifest *m = prec_manifest__new();
	struct prec_evlist el;

	CHECK(m);
	CHECK_EQ(setup(&el, "cs_etm//", &o), 0);
	CHECK_EQ(el.aux_owner, 2);
	CHECK(el.evsel[0].attr.context_switch);
	CHECK_EQ(el.have_sched_switch, 3);
	CHECK_EQ(prec_evlist__aux_clock(&el, &o), 1);
	CHECK_EQ(prec_record_opts__resolve(&o, &el), 0);
	CHECK_EQ(o.clockid, PREC_CLOCK_PERF);
	el.cpus = cpus;
	el.nr_cpus = 2;
	CHECK_EQ(prec_evlist__aux_info(&el, m), 0);
	el.cpus = NULL;
	el.nr_cpus = 0;
	CHECK_EQ(m->auxtrace_type, PREC_AUXTRACE_CS_ETM);
	CHECK_EQ(m->nr_auxtrace_priv, 24);
	CHECK_EQ(m->auxtrace_priv[1], 0xa00000002ull);
	CHECK_EQ(m->auxtrace_priv[6], 0x840);
	CHECK_EQ(m->auxtrace_priv[23], 0x47705a13);
	prec_evlist__exit(&el);
	prec_manifest__delete(m);
	clock_case("cs_etm//", true, 1, false, -EINVAL, 0);
	clock_case("cs_etm//", true, PREC_CLOCK_PERF, false, 0, PREC_CLOCK_PERF);
}

int main(void)
{
	root = test_tmpdir("auxpmu");
	make_tree();
	test_kinds();
	test_default_config();
	test_owner();
	test_refusals();
	test_clock();
	test_intel_pt_words();
	test_other_words();
	test_evlist_info();
	test_cs_etm_config();
	test_cs_etm_words();
	test_cs_etm_refusals();
	test_cs_etm_evlist();
	test_rmdir(root);
	return 0;
}
