// SPDX-License-Identifier: MIT
// perf's AUX modes on an intel_pt event from a fake sysfs tree: with
// --aux-sample the members of the group the AUX event leads get
// aux_sample_size and PERF_SAMPLE_AUX (the leader and the others not),
// intel_pt's psb_period drops to 0 unless chosen, the AUX area is the
// largest sample's (pages, a power of two) and read-only; -S's AUX area
// and snapshot size follow each other as perf 6.1 sizes them; every
// refusal perf makes (no AUX event, no AUX-led group, a sample over 60
// KiB, a snapshot bigger than the area, -S with --aux-sample) is -EINVAL.
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/aux_mode.h"
#include "record/evlist.h"
#include "record/evlist_aux.h"
#include "record/evlist_config.h"
#include "record/options.h"
#include "../lib/test.h"

static char *root;

/* intel_pt as a Skylake's sysfs describes it. */
static void make_sysfs(void)
{
	static const char *const fmt[][2] = {
		{ "pt", "config:0" }, { "cyc", "config:1" }, { "mtc", "config:9" },
		{ "tsc", "config:10" }, { "noretcomp", "config:11" },
		{ "branch", "config:13" }, { "mtc_period", "config:14-17" },
		{ "psb_period", "config:24-27" },
	};
	static const char *const caps[][2] = {
		{ "mtc", "1" }, { "mtc_periods", "249" }, { "psb_cyc", "1" },
		{ "psb_periods", "3f" }, { "topa_multiple_entries", "1" },
	};
	char dir[600];

	root = test_tmpdir("auxmode");
	snprintf(dir, sizeof(dir), "%s/intel_pt", root);
	CHECK_EQ(mkdir(dir, 0700), 0);
	test_put(dir, "type", "9");
	snprintf(dir, sizeof(dir), "%s/intel_pt/format", root);
	CHECK_EQ(mkdir(dir, 0700), 0);
	for (size_t i = 0; i < sizeof(fmt) / sizeof(fmt[0]); i++)
		test_put(dir, fmt[i][0], fmt[i][1]);
	snprintf(dir, sizeof(dir), "%s/intel_pt/caps", root);
	CHECK_EQ(mkdir(dir, 0700), 0);
	for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
		test_put(dir, caps[i][0], caps[i][1]);
}

#define PSB_MASK (0xfull << 24)

/* The events of text under o (argv of prec record), through perf's
 * checks and the AUX setup. Returns the first -errno. */
static int setup(struct prec_evlist **elp, struct prec_record_opts *o,
		 char **argv, int argc, const char *text)
{
	struct prec_evlist *el;
	int err;

	CHECK_EQ(prec_evlist__new(elp), 0);
	el = *elp;
	CHECK_EQ(prec_record_opts__parse(o, argc, argv), 0);
	CHECK_EQ(prec_evlist__add_tracking(el), 0);
	err = prec_evlist__add(el, text, NULL, root);
	if (!err)
		err = prec_evlist__aux_setup(el, o); /* -S's and --aux-sample's checks first */
	if (!err)
		prec_evlist__config(el, o, true, true);
	return err;
}

static void done(struct prec_evlist *el, struct prec_record_opts *o)
{
	prec_evlist__delete(el);
	prec_record_opts__exit(o);
}

static void test_sample(void)
{
	struct prec_record_opts o;
	struct prec_evlist *el;
	char *a1[] = { "record", "--aux-sample", "true", NULL };
	char *a2[] = { "record", "--aux-sample=8192", "true", NULL };
	char *a3[] = { "record", "--aux-sample=61441", "true", NULL };
	long ps = sysconf(_SC_PAGESIZE);

	CHECK_EQ(setup(&el, &o, a1, 3, "{intel_pt//,cpu-clock,page-faults}"), 0);
	CHECK_EQ(prec_evlist__nr_events(el), 4);
	/* the leader: no AUX field, psb_period 0 (perf's default 3 dropped) */
	CHECK_EQ(prec_evlist__event(el, 1)->attr.aux_sample_size, 0);
	CHECK(!(prec_evlist__event(el, 1)->attr.sample_type & PERF_SAMPLE_AUX));
	CHECK_EQ(prec_evlist__event(el, 1)->attr.config & PSB_MASK, 0);
	CHECK(prec_evlist__event(el, 1)->attr.config & (1ull << 10)); /* tsc kept */
	for (int e = 2; e < 4; e++) {
		CHECK_EQ(prec_evlist__event(el, e)->attr.aux_sample_size, PREC_AUX_SAMPLE_DEFAULT);
		CHECK(prec_evlist__event(el, e)->attr.sample_type & PERF_SAMPLE_AUX);
		CHECK_EQ(prec_evlist__event(el, e)->leader, 1);
	}
	CHECK(!(prec_evlist__event(el, 0)->attr.sample_type & PERF_SAMPLE_AUX)); /* tracking */
	/* intel_pt's sample mode: an AUX area of the largest sample, read-only */
	CHECK_EQ(prec_evlist__aux_bytes(el), (size_t)(PREC_AUX_SAMPLE_DEFAULT > ps ? PREC_AUX_SAMPLE_DEFAULT : ps));
	CHECK(prec_evlist__aux_overwrite(el) && !prec_evlist__aux_snapshot(el));
	done(el, &o);

	/* a chosen psb_period stays; 8 KiB samples, 8 KiB area */
	CHECK_EQ(setup(&el, &o, a2, 3, "{intel_pt/psb_period=5/,cpu-clock}"), 0);
	CHECK_EQ(prec_evlist__event(el, 1)->attr.config & PSB_MASK, 5ull << 24);
	CHECK_EQ(prec_evlist__event(el, 2)->attr.aux_sample_size, 8192);
	CHECK_EQ(prec_evlist__aux_bytes(el) % (size_t)ps, 0);
	CHECK(prec_evlist__aux_bytes(el) >= 8192 && prec_evlist__aux_bytes(el) <= 8192 + (size_t)ps);
	done(el, &o);

	/* perf's refusals */
	CHECK_EQ(setup(&el, &o, a1, 3, "intel_pt//,cpu-clock"), -EINVAL);
	done(el, &o);
	CHECK_EQ(setup(&el, &o, a1, 3, "{cpu-clock,intel_pt//}"), -EINVAL);
	done(el, &o);
	CHECK_EQ(setup(&el, &o, a1, 3, "cpu-clock"), -EINVAL);
	done(el, &o);
	CHECK_EQ(setup(&el, &o, a3, 3, "{intel_pt//,cpu-clock}"), -EINVAL);
	done(el, &o);
	/* without --aux-sample: nothing of it */
	{
		char *a0[] = { "record", "true", NULL };

		CHECK_EQ(setup(&el, &o, a0, 2, "{intel_pt//,cpu-clock}"), 0);
		CHECK_EQ(prec_evlist__event(el, 2)->attr.aux_sample_size, 0);
		CHECK(!(prec_evlist__event(el, 2)->attr.sample_type & PERF_SAMPLE_AUX));
		CHECK(prec_evlist__event(el, 1)->attr.config & PSB_MASK);
		CHECK(!prec_evlist__aux_overwrite(el));
		done(el, &o);
	}
}

static void test_snapshot(void)
{
	struct prec_record_opts o;
	struct prec_evlist *el;
	char *a1[] = { "record", "-S", "--aux-size", "1M", "true", NULL };
	char *a2[] = { "record", "-S0x3000", "true", NULL };
	char *a3[] = { "record", "-Se2097152", "--aux-size", "1M", "true", NULL };
	char *a4[] = { "record", "-S", "--aux-sample", "true", NULL };
	char *a5[] = { "record", "-Se", "true", NULL };
	long ps = sysconf(_SC_PAGESIZE);

	/* the area given: the snapshot is all of it */
	CHECK_EQ(setup(&el, &o, a1, 5, "intel_pt//"), 0);
	CHECK_EQ(prec_evlist__aux_bytes(el), 1u << 20);
	CHECK_EQ(prec_evlist__aux_snapshot_size(el), 1u << 20);
	CHECK(prec_evlist__aux_overwrite(el) && prec_evlist__aux_snapshot(el));
	CHECK(!o.aux_snapshot_on_exit);
	/* no attr of the AUX event changes: psb_period kept */
	CHECK(prec_evlist__event(el, 1)->attr.config & PSB_MASK);
	CHECK(!(prec_evlist__event(el, 1)->attr.sample_type & PERF_SAMPLE_AUX));
	done(el, &o);
	/* the size given: the area is it, up to a power of two of pages */
	CHECK_EQ(setup(&el, &o, a2, 2, "intel_pt//"), 0);
	CHECK_EQ(prec_evlist__aux_snapshot_size(el), 0x3000);
	CHECK_EQ(prec_evlist__aux_bytes(el), (size_t)(ps >= 0x4000 ? ps : 0x4000));
	done(el, &o);
	/* a snapshot bigger than the area */
	CHECK_EQ(setup(&el, &o, a3, 5, "intel_pt//"), -EINVAL);
	done(el, &o);
	CHECK_EQ(setup(&el, &o, a4, 3, "{intel_pt//,cpu-clock}"), -EINVAL);
	done(el, &o);
	CHECK_EQ(setup(&el, &o, a5, 2, "cpu-clock"), -EINVAL);
	done(el, &o);
	/* neither size: perf's full-trace area (4 MiB as root, else 128 KiB) */
	CHECK_EQ(setup(&el, &o, a5, 2, "intel_pt//"), 0);
	CHECK(prec_evlist__aux_bytes(el) == (4u << 20) || prec_evlist__aux_bytes(el) == (128u << 10));
	CHECK_EQ(prec_evlist__aux_snapshot_size(el), prec_evlist__aux_bytes(el));
	CHECK(o.aux_snapshot_on_exit);
	done(el, &o);
}

int main(void)
{
	make_sysfs();
	test_sample();
	test_snapshot();
	test_rmdir(root);
	free(root);
	printf("aux_mode: --aux-sample's attrs and -S's sizes as perf 6.1's, its refusals\n");
	return 0;
}
