// SPDX-License-Identifier: MIT
// AUX PMUs without an AUX PMU: a fake sysfs tree (intel_pt, arm_spe_0,
// cs_etm with the format and caps files real kernels publish) in a temp
// dir. Checks the PMU kinds, perf's default configs, the AUX event made the
// ring owner with its AUX size and switch tracking (pure evlist logic, no
// perf_event_open), the refusals, and the AUXTRACE_INFO words for intel_pt
// (TSC conversion from a control page, filter string) and arm_spe.
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/cmd_record.h"
#include "../lib/test.h"

static char *root;

static void put(const char *pmu, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, pmu);
	mkdir(path, 0700);
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
	CHECK_EQ(prec_auxpmu__format_mask(root, "intel_pt", "mtc_period"), 0xfull << 14);
	CHECK_EQ(prec_auxpmu__format_mask(root, "intel_pt", "tsc"), PT_TSC);
	CHECK_EQ(prec_auxpmu__format_mask(root, "intel_pt", "nosuch"), 0);
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
	CHECK_EQ(setup(&el, "cs_etm//", &o), -EINVAL);
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
	CHECK_EQ(prec_evlist__aux_clock(&el, &o), want_err);
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
	s.pmu = "cs_etm";
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
	test_rmdir(root);
	return 0;
}
