// SPDX-License-Identifier: MIT
// perf record's options that e2e/record_* check against perf, parsed:
// -D ranges, --switch-output-event (joined, implying signal mode),
// --exclude-perf after its -e, --proc-map-timeout, --affinity node,
// --tail-synthesize's refusals, --kcore and its refusals (-o -,
// --switch-output), --off-cpu taken, and the refused -S, --aux-sample;
// the O_DIRECT staging's default bound, resolved (alone, under --max-disk,
// and --max-staging's own).
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/evlist_internal.h"
#include "record/options.h"
#include "../lib/test.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a[0])) - 1)

static void test_delay_ranges(void)
{
	struct prec_record_opts o;
	char *r[] = { "record", "-D", "10-20,30-40", "true", NULL };
	char *z[] = { "record", "-D", "0-5", "true", NULL };
	char *last[] = { "record", "-D", "10-20", "-D", "7", "true", NULL };
	const char *bad[] = { "20-10", "10-20,15-30", "10-20,", "10-", "-5-6", "1-2,x" };

	CHECK_EQ(prec_record_opts__parse(&o, ARGC(r), r), 0);
	CHECK_EQ(o.nr_delay_edges, 4);
	CHECK(o.delay_edges[0] == 10 && o.delay_edges[1] == 20 &&
	      o.delay_edges[2] == 30 && o.delay_edges[3] == 40);
	CHECK_EQ(o.delay_ms, 10);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(z), z), 0);
	CHECK_EQ(o.delay_ms, 0);
	CHECK_EQ(o.nr_delay_edges, 2);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(last), last), 0);
	CHECK_EQ(o.delay_ms, 7);
	CHECK_EQ(o.nr_delay_edges, 0);
	prec_record_opts__exit(&o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *a[] = { "record", "-D", (char *)bad[i], "true", NULL };

		CHECK_EQ(prec_record_opts__parse(&o, ARGC(a), a), -EINVAL);
		prec_record_opts__exit(&o);
	}
}

static void test_switch_event(void)
{
	struct prec_record_opts o;
	char *a[] = { "record", "-d", "x", "--switch-output=1M", "--switch-output-event", "a:b",
		      "--switch-output-event", "c", "true", NULL };
	char *o_file[] = { "record", "-o", "x.data", "--switch-output-event", "a:b", "true", NULL };

	CHECK_EQ(prec_record_opts__parse(&o, ARGC(a), a), 0);
	CHECK(o.switch_event && !strcmp(o.switch_event, "a:b,c"));
	CHECK(o.switch_output);
	CHECK_EQ(o.switch_bytes, 0); /* signal mode, as perf */
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(o_file), o_file), -EINVAL);
	prec_record_opts__exit(&o);
}

static void test_misc(void)
{
	struct prec_record_opts o;
	char *ex[] = { "record", "-e", "sched:sched_switch", "--exclude-perf", "-e", "cpu-clock",
		       "true", NULL };
	char *ex_first[] = { "record", "--exclude-perf", "-e", "sched:sched_switch", "true", NULL };
	char *pm0[] = { "record", "--proc-map-timeout", "0", "true", NULL };
	char *pm_bad[] = { "record", "--proc-map-timeout", "1s", "true", NULL };
	char *node[] = { "record", "--affinity", "node", "true", NULL };
	char *tail_sw[] = { "record", "-d", "x", "--tail-synthesize", "--switch-output", "true", NULL };
	char *tail_md[] = { "record", "-d", "x", "--tail-synthesize", "--max-disk", "1G", "true", NULL };
	char *snap[] = { "record", "-Se", "--aux-sample=4096", "true", NULL };
	char *kcore[] = { "record", "--kcore", "true", NULL };
	char *kcore_pipe[] = { "record", "--kcore", "-o", "-", "true", NULL };
	char *kcore_sw[] = { "record", "--kcore", "-d", "x", "--switch-output", "true", NULL };
	char *offcpu[] = { "record", "--off-cpu", "true", NULL };

	CHECK_EQ(prec_record_opts__parse(&o, ARGC(ex), ex), 0);
	CHECK(o.nr_specs == 2 && o.specs[0].exclude_self && !o.specs[1].exclude_self);
	CHECK_EQ(o.proc_map_timeout_ms, PREC_RECORD_DEFAULT_PROC_MAP_TIMEOUT_MS);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(ex_first), ex_first), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(pm0), pm0), 0);
	CHECK_EQ(o.proc_map_timeout_ms, 0);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(pm_bad), pm_bad), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(node), node), 0);
	CHECK_EQ(o.affinity, PREC_AFFINITY_NODE);
	CHECK(!strcmp(prec_affinity__name(o.affinity), "node"));
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(tail_sw), tail_sw), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(tail_md), tail_md), -EINVAL);
	prec_record_opts__exit(&o);
	/* refused once the events are known (cmd_record.c) */
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(snap), snap), 0);
	CHECK(o.aux_snapshot && o.aux_sample);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(kcore), kcore), 0);
	CHECK(o.kcore && o.output && !strcmp(o.output, "perf.data"));
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(kcore_pipe), kcore_pipe), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(kcore_sw), kcore_sw), -EINVAL);
	prec_record_opts__exit(&o);
	/* taken (record/offcpu.c checks what it needs once events are known) */
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(offcpu), offcpu), 0);
	CHECK(o.off_cpu);
	prec_record_opts__exit(&o);
}

/* --max-staging's default: a CPU's share of a 16th of the memory, at
 * most 1 GiB, and under --max-disk at most half a CPU's share of the
 * budget; a --max-staging given is taken as it is. */
static void test_staging_bound(void)
{
	uint64_t mem = (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t share = mem / 16 / 2 < (1ull << 30) ? mem / 16 / 2 : 1ull << 30;
	char *plain[] = { "record", "-C", "0,1", "true", NULL };
	char *disk[] = { "record", "-C", "0,1", "--max-disk", "64M", "true", NULL };
	char *both[] = { "record", "-C", "0,1", "--max-disk", "64M", "--max-staging", "100M",
			 "true", NULL };
	struct prec_evlist el = { 0 };
	struct prec_record_opts o;

	CHECK_EQ(prec_record_opts__parse(&o, ARGC(plain), plain), 0);
	CHECK_EQ(prec_record_opts__resolve(&o, &el), 0);
	CHECK_EQ(o.staging_max, share);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(disk), disk), 0);
	CHECK_EQ(prec_record_opts__resolve(&o, &el), 0);
	CHECK_EQ(o.staging_max, share < (16u << 20) ? share : 16u << 20);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(both), both), 0);
	CHECK_EQ(prec_record_opts__resolve(&o, &el), 0);
	CHECK_EQ(o.staging_max, 100u << 20);
	prec_record_opts__exit(&o);
}

int main(void)
{
	test_delay_ranges();
	test_switch_event();
	test_misc();
	test_staging_bound();
	printf("perf_record_options: -D ranges, --switch-output-event, --exclude-perf, --proc-map-timeout, --affinity node, refusals, staging bound\n");
	return 0;
}
