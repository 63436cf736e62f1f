// SPDX-License-Identifier: MIT
// prec record's front half: option parsing, -e parsing (named events,
// tracepoints from the real tracefs, dynamic PMUs from a fake sysfs tree),
// the attr bits every event gets, perf's overwrite terms and the channels,
// opening on the real kernel (one ring per CPU and channel, SET_OUTPUT,
// ids), and the workload's exec/exit reporting.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/evlist.h"
/* The list's private struct (evlist_internal.h, the five evlist files'):
 * events.c tests the list's own files (the fds, ids and rings open lays out,
 * the channels' pages, the AUX owner's ring): it holds the struct and
 * reads its fields, as the five files do. */
#include "record/evlist_internal.h"
#include "record/evlist_config.h"
#include "record/evlist_open.h"
#include "record/internal.h"
#include "record/options.h"
#include "record/sample_regs.h"
#include "record/ring.h"
#include "record/tracefs.h"
#include "record/workload.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "../lib/test.h"
#include "util/log.h"

#define ARGV(...) ((char *[]){ "record", __VA_ARGS__, NULL })
#define ARGC(v) ((int)(sizeof(v) / sizeof(v[0])) - 1)

static int parse(struct prec_record_opts *o, char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	prec_record_opts__exit(o);
	return prec_record_opts__parse(o, argc, argv);
}

static void test_options(void)
{
	struct prec_record_opts o = { 0 };
	char *none[] = { "record", NULL };

	CHECK_EQ(parse(&o, none), 0);
	CHECK(!strcmp(o.dir, "prec.data"));
	/* as perf: without -d or -o, a perf.data file */
	CHECK(o.output && !strcmp(o.output, "perf.data"));
	CHECK(o.all_cpus);
	CHECK_EQ(o.mmap_pages * (size_t)sysconf(_SC_PAGESIZE), PREC_RECORD_DEFAULT_RING);
	CHECK_EQ(o.clockid, CLOCK_MONOTONIC);
	CHECK_EQ(o.round_ms, 100);
	CHECK(o.affinity == PREC_AFFINITY_AUTO && o.copy && !o.force && !o.argv && o.rt_prio == -1);

	/* Named arrays: o.argv points into them after parse. */
	char *full[] = { "record", "-d", "x", "-F", "99", "-g", "-m", "4M", "-k", "realtime",
			 "--round-ms", "50", "-f", "--no-copy", "--affinity", "none", "-r", "20",
			 "-e", "cpu-clock", "--filter", "f", "--", "sleep", "1", NULL };
	char *cmd[] = { "record", "true", "-a", NULL };

	CHECK_EQ(parse(&o, full), 0);
	CHECK(!strcmp(o.dir, "x"));
	CHECK_EQ(o.freq, 99);
	CHECK_EQ(o.callgraph, PREC_CG_FP);
	CHECK_EQ(o.mmap_pages, 1024);
	CHECK_EQ(o.clockid, CLOCK_REALTIME);
	CHECK_EQ(o.round_ms, 50);
	CHECK(o.force && !o.copy && o.affinity == PREC_AFFINITY_NONE && !o.all_cpus);
	CHECK_EQ(o.rt_prio, 20);
	{
		char *fair[] = { "record", "-r", "0", "--affinity", "cpu", "-a", NULL };

		/* -r 0 is the fair scheduler, not the default (-1) */
		CHECK_EQ(parse(&o, fair), 0);
		CHECK(o.rt_prio == 0 && o.affinity == PREC_AFFINITY_CPU);
		CHECK_EQ(parse(&o, full), 0);
	}
	CHECK_EQ(o.nr_specs, 1);
	CHECK(!strcmp(o.specs[0].filter, "f"));
	CHECK_EQ(o.argc, 2);
	CHECK(!strcmp(o.argv[0], "sleep"));

	/* A command without "--" stops option parsing too. */
	CHECK_EQ(parse(&o, cmd), 0);
	CHECK_EQ(o.argc, 2);
	CHECK(!o.all_cpus);
	prec_record_opts__exit(&o);
}

/* Values of one option each: sizes, call graphs, clocks, targets. */
static void test_option_values(void)
{
	struct prec_record_opts o = { 0 };

	CHECK_EQ(parse(&o, ARGV("-m", "512K")), 0);
	CHECK_EQ(o.mmap_pages, 128);
	CHECK_EQ(parse(&o, ARGV("-m", "5K")), 0);
	CHECK_EQ(o.mmap_pages, 2);
	CHECK_EQ(parse(&o, ARGV("-m", "64")), 0);
	CHECK_EQ(o.mmap_pages, 64);
	CHECK_EQ(parse(&o, ARGV("--call-graph", "dwarf,100")), 0);
	CHECK_EQ(o.callgraph, PREC_CG_DWARF);
	CHECK_EQ(o.stack_size, 104);
	CHECK_EQ(parse(&o, ARGV("-k", "7")), 0);
	CHECK_EQ(o.clockid, 7);
	CHECK_EQ(parse(&o, ARGV("-C", "0")), 0);
	CHECK(o.all_cpus);
	CHECK_EQ(o.nr_cpus, 1);
	CHECK_EQ(parse(&o, ARGV("-p", "1,2")), 0);
	CHECK_EQ(o.nr_pids, 2);
	CHECK(!o.all_cpus);
	prec_record_opts__exit(&o);
}

/* perf record's options for what samples carry: perf's values. */
static void test_perf_sample_options(void)
{
	struct prec_record_opts o = { 0 };
	char *j[] = { "record", "-j", "any_call,u", "--", "true", NULL };
	char *ju[] = { "record", "-j", "u", "--", "true", NULL };
	char *bj[] = { "record", "-b", "-j", "any", "--", "true", NULL };
#if defined(__aarch64__)
	char *regs[] = { "record", "-I", "--user-regs=pc,sp", "-W", "-R", "-s", "--", "true", NULL };
	char *bad_reg[] = { "record", "--user-regs=pc,nope", "--", "true", NULL };
	/* vg is a user register only (perf's arch__intr_reg_mask) */
	char *intr_vg[] = { "record", "--intr-regs=vg", "--", "true", NULL };
	char *user_vg[] = { "record", "--user-regs=vg", "--", "true", NULL };
#else
	char *regs[] = { "record", "-I", "--user-regs=ip,sp", "-W", "-R", "-s", "--", "true", NULL };
	char *bad_reg[] = { "record", "--user-regs=ip,nope", "--", "true", NULL };
#endif
	char *od[] = { "record", "-o", "x.data", "-d", "x", "--", "true", NULL };
	char *nob[] = { "record", "--no-buildid", "--", "true", NULL };
	char *synth[] = { "record", "--synth=task", "--", "true", NULL };
	char *lbr[] = { "record", "--call-graph", "lbr", "--", "true", NULL };
	char *g[] = { "record", "-g", "--", "true", NULL };
	char *g_sp[] = { "record", "--call-graph=fp", "--user-regs=sp", "--", "true", NULL };
	char *dwarf[] = { "record", "--call-graph=dwarf", "--", "true", NULL };
#if defined(__aarch64__)
	uint64_t sp = 1ull << 31;
#else
	uint64_t sp = 1ull << 7;
#endif

	CHECK_EQ(parse(&o, j), 0);
	CHECK_EQ(o.sample.branch_type, PERF_SAMPLE_BRANCH_ANY_CALL | PERF_SAMPLE_BRANCH_USER);
	/* a privilege level alone: any branch, and perf 6.1 keeps ANY alone */
	CHECK_EQ(parse(&o, ju), 0);
	CHECK_EQ(o.sample.branch_type, PERF_SAMPLE_BRANCH_ANY);
	CHECK_EQ(parse(&o, bj), -EINVAL);
	CHECK_EQ(parse(&o, regs), 0);
	CHECK_EQ(o.sample.regs_intr, prec_sample_regs__default());
	CHECK(o.sample.weight && o.sample.raw && o.sample.inherit_stat && o.sample.running_time);
#if defined(__x86_64__)
	CHECK_EQ(o.sample.regs_user, 0x180); /* sp 7, ip 8 */
	CHECK_EQ(prec_sample_regs__default(), 0xff0fff);
	CHECK_EQ(prec_sample_regs__user_default(), 0xff0fff);
#elif defined(__aarch64__)
	CHECK_EQ(o.sample.regs_user, 0x180000000ull); /* sp 31, pc 32 */
	CHECK_EQ(prec_sample_regs__default(), 0x1ffffffffull); /* x0..x29 lr sp pc */
	/* vg (46) where SVE and the kernel have it */
	CHECK(prec_sample_regs__user_default() == 0x1ffffffffull ||
	      prec_sample_regs__user_default() == 0x4001ffffffffull);
	CHECK_EQ(parse(&o, intr_vg), -EINVAL);
	CHECK_EQ(parse(&o, user_vg), prec_sample_regs__user_default() >> 46 ? 0 : -EINVAL);
#endif
	/* -g samples arm64's lr as well (perf's leaf frame fix-up), with
	 * --user-regs or not; dwarf has its own registers */
	CHECK_EQ(parse(&o, g), 0);
	CHECK_EQ(o.sample.regs_user, prec_sample_regs__fp_leaf());
	CHECK_EQ(parse(&o, g_sp), 0);
	CHECK_EQ(o.sample.regs_user, sp | prec_sample_regs__fp_leaf());
	CHECK_EQ(parse(&o, dwarf), 0);
	CHECK_EQ(o.sample.regs_user, 0);
#if defined(__aarch64__)
	CHECK_EQ(prec_sample_regs__fp_leaf(), 1ull << 30);
#else
	CHECK_EQ(prec_sample_regs__fp_leaf(), 0);
#endif
	CHECK_EQ(parse(&o, bad_reg), -EINVAL);
	CHECK_EQ(parse(&o, od), -EINVAL);
	/* perf's -B, not a prefix of --no-buildid-cache */
	CHECK_EQ(parse(&o, nob), 0);
	CHECK(o.no_buildid && !o.no_buildid_cache);
	CHECK_EQ(parse(&o, synth), 0);
	CHECK(o.synth_tasks && !o.synth_maps);
	CHECK_EQ(parse(&o, lbr), 0);
	CHECK(o.callgraph == PREC_CG_LBR);
	prec_record_opts__exit(&o);
}

static void test_options_bad(void)
{
	struct prec_record_opts o = { 0 };

	CHECK_EQ(parse(&o, ARGV("-m", "4X")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-c", "10", "-F", "10")), -EINVAL);
	/* -p with a command is perf's: the command times the recording */
	CHECK_EQ(parse(&o, ARGV("-p", "1", "--", "true")), 0);
	prec_record_opts__exit(&o);
	o = (struct prec_record_opts){ 0 };
	/* -p over -a and -C, as perf's target__validate: they are dropped */
	CHECK_EQ(parse(&o, ARGV("-p", "1", "-a", "-C", "0")), 0);
	CHECK(!o.all_cpus && !o.cpus && o.nr_pids == 1);
	prec_record_opts__exit(&o);
	o = (struct prec_record_opts){ 0 };
	CHECK_EQ(parse(&o, ARGV("-p", "x")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("--call-graph", "dwarf,70000")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("--call-graph", "lbx")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-C", "99999")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-C", "x")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-k", "nonsense")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("--filter", "x")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-Z")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-F")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("-F", "0")), -EINVAL);
	CHECK_EQ(parse(&o, ARGV("--round-ms", "0")), -EINVAL);
	prec_record_opts__exit(&o);
}

static void test_cpu_list(void)
{
	int *c = NULL;

	CHECK_EQ(prec_cpu_list__parse("0-3,8,10-11", &c), 7);
	CHECK(c[0] == 0 && c[3] == 3 && c[4] == 8 && c[5] == 10 && c[6] == 11);
	free(c);
	CHECK_EQ(prec_cpu_list__parse("3,1,1\n", &c), 2);
	CHECK(c[0] == 1 && c[1] == 3);
	free(c);
	/* Overlaps merge; the whole range in one pass (the old parser
	 * compared each CPU with every one before it). */
	CHECK_EQ(prec_cpu_list__parse("4-7,0-5", &c), 8);
	CHECK(c[0] == 0 && c[7] == 7);
	free(c);
	CHECK_EQ(prec_cpu_list__parse("0-65535", &c), 65536);
	CHECK(c[65535] == 65535);
	free(c);
	CHECK_EQ(prec_cpu_list__parse("65536", &c), -EINVAL);
	CHECK_EQ(prec_cpu_list__parse("1-", &c), -EINVAL);
	CHECK_EQ(prec_cpu_list__parse("", &c), -EINVAL);
	CHECK_EQ(prec_cpu_list__parse("5-3", &c), -EINVAL);
	CHECK_EQ(prec_cpu_list__parse("1,,2", &c), -EINVAL);
	CHECK_EQ(prec_cpu_list__parse("1,", &c), -EINVAL);
	CHECK(prec_cpu_list__online(&c) >= 1);
	free(c);
}

static void test_named(void)
{
	struct prec_evlist el = { 0 };

	CHECK_EQ(prec_evlist__add(&el, "cpu-clock,cs:u,faults:k,cycles", NULL, NULL), 0);
	CHECK_EQ(el.nr, 4);
	CHECK_EQ(el.evsel[0].attr.type, PERF_TYPE_SOFTWARE);
	CHECK_EQ(el.evsel[0].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK(!el.evsel[0].attr.exclude_kernel && !el.evsel[0].attr.exclude_user);
	CHECK(!strcmp(el.evsel[1].name, "cs:u"));
	CHECK_EQ(el.evsel[1].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	CHECK(el.evsel[1].attr.exclude_kernel && el.evsel[1].attr.exclude_hv);
	CHECK(!el.evsel[1].attr.exclude_user);
	CHECK(el.evsel[2].attr.exclude_user && !el.evsel[2].attr.exclude_kernel);
	CHECK_EQ(el.evsel[3].attr.type, PERF_TYPE_HARDWARE);
	CHECK_EQ(el.evsel[3].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	CHECK_EQ(prec_evlist__add(&el, "nosuch-event", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock,", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock", "id == 1", NULL), -EINVAL);
	prec_evlist__exit(&el);
}

static void test_tracepoint(void)
{
	struct prec_evlist el = { 0 };
	char path[256];
	unsigned long long id = 0;
	const char *root = prec_tracefs__root();
	FILE *f;

	if (!root) {
		fprintf(stderr, "no tracefs: tracepoint checks skipped\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/events/raw_syscalls/sys_enter/id", root);
	f = fopen(path, "r");
	CHECK(f);
	CHECK_EQ(fscanf(f, "%llu", &id), 1);
	fclose(f);
	CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:sys_enter", "id == 110", NULL), 0);
	CHECK_EQ(el.evsel[0].attr.type, PERF_TYPE_TRACEPOINT);
	CHECK_EQ(el.evsel[0].attr.config, id);
	CHECK(!strcmp(el.evsel[0].tp_system, "raw_syscalls"));
	CHECK(!strcmp(el.evsel[0].tp_name, "sys_enter"));
	CHECK(!strcmp(el.evsel[0].filter, "id == 110"));
	CHECK_EQ(prec_evlist__add(&el, "sched:no_such_tracepoint", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "a:b:c", NULL, NULL), -EINVAL);
	/* As perf: the filter goes to every event of its -e, which must all
	 * be tracepoints; a glob expands in the directory's order. */
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock,raw_syscalls:sys_exit", "ret == 0", NULL),
		 -EINVAL);
	{
		int before = el.nr;

		/* in the directory's order, as perf lists them */
		DIR *d = opendir("/sys/kernel/tracing/events/raw_syscalls");
		const char *first = NULL;
		struct dirent *de;

		CHECK(d != NULL);
		while (d && !first && (de = readdir(d)))
			if (!strcmp(de->d_name, "sys_enter") || !strcmp(de->d_name, "sys_exit"))
				first = !strcmp(de->d_name, "sys_enter") ? "raw_syscalls:sys_enter" :
									   "raw_syscalls:sys_exit";
		CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:sys_e*", "ret == 0", NULL), 0);
		CHECK_EQ(el.nr, before + 2);
		CHECK(first && !strcmp(el.evsel[before].name, first));
		CHECK(strcmp(el.evsel[before + 1].name, el.evsel[before].name) &&
		      !strncmp(el.evsel[before + 1].name, "raw_syscalls:sys_e", 18));
		if (d)
			closedir(d);
		CHECK(!strcmp(el.evsel[before].filter, "ret == 0"));
		CHECK(!strcmp(el.evsel[before + 1].filter, "ret == 0"));
	}
	CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:no_such_*", NULL, NULL), -EINVAL);
	prec_evlist__exit(&el);
}

static void put(const char *dir, const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	CHECK(f);
	fputs(text, f);
	fclose(f);
}

static void make_pmus(const char *root)
{
	static const char *const dirs[] = { "fake", "fake/format", "fake/events",
					    "fake2", "fake2/format" };
	char path[512];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", root, dirs[i]);
		CHECK_EQ(mkdir(path, 0700), 0);
	}
	put(root, "fake/type", "42\n");
	put(root, "fake/format/event", "config:0-7\n");
	put(root, "fake/format/umask", "config:8-15\n");
	put(root, "fake/format/edge", "config:18\n");
	put(root, "fake/format/ldlat", "config1:0-15\n");
	put(root, "fake/events/alias", "event=0x3c,umask=0x01\n");
	put(root, "fake/events/trail", "event=0x3c,umask=0x02,\n");
	put(root, "fake2/type", "43");
	put(root, "fake2/format/split", "config:0-3,32-35");
}

static void test_pmu(void)
{
	struct prec_evlist el = { 0 };
	char *root = test_tmpdir("pmu");
	struct perf_event_attr *a;

	make_pmus(root);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=0x3c,umask=0x1,edge,ldlat=3/,cpu-clock", NULL, root), 0);
	CHECK_EQ(el.nr, 2);
	a = &el.evsel[0].attr;
	CHECK_EQ(a->type, 42);
	CHECK_EQ(a->config, 0x4013c);
	CHECK_EQ(a->config1, 3);
	CHECK(!strcmp(el.evsel[0].name, "fake/event=0x3c,umask=0x1,edge,ldlat=3/"));
	CHECK_EQ(el.evsel[1].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK_EQ(prec_evlist__add(&el, "fake/alias/u", NULL, root), 0);
	a = &el.evsel[2].attr;
	CHECK_EQ(a->config, 0x13c);
	CHECK(a->exclude_kernel && !a->exclude_user);
	CHECK_EQ(prec_evlist__add(&el, "fake2/split=0xab/", NULL, root), 0);
	CHECK_EQ(el.evsel[3].attr.type, 43);
	CHECK_EQ(el.evsel[3].attr.config, 0xa0000000bull);
	CHECK_EQ(prec_evlist__add(&el, "fake/config=5,config1=7,config2=9,period=1000/", NULL, root), 0);
	a = &el.evsel[4].attr;
	CHECK(a->config == 5 && a->config1 == 7 && a->config2 == 9 && a->sample_period == 1000);
	/* perf's alias/terms/: a PMU's alias, named alone, with terms
	 * after it (arm64's inst_retired/period=100000/u), as
	 * PMU/alias,terms/ of the PMU that has it */
	CHECK_EQ(prec_evlist__add(&el, "alias/period=1000/u", NULL, root), 0);
	a = &el.evsel[5].attr;
	CHECK(a->type == 42 && a->config == 0x13c && a->sample_period == 1000);
	CHECK(a->exclude_kernel && !a->exclude_user);
	CHECK(!strcmp(el.evsel[5].name, "alias/period=1000/u"));
	CHECK_EQ(prec_evlist__add(&el, "alias//", NULL, root), 0);
	CHECK(el.evsel[6].attr.type == 42 && el.evsel[6].attr.config == 0x13c);
	CHECK_EQ(prec_evlist__add(&el, "alias/nosuch=1/", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "noalias/period=1/", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=0x100/", NULL, root), -EINVAL);
	/* a PMU's modifiers follow its '/': a ':' there is perf's syntax error */
	CHECK_EQ(prec_evlist__add(&el, "fake/alias/:u", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake2/split=0x100/", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/nosuch=1/", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=zz/", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "intel_pt//", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=1", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=1/x", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=1/:q", NULL, root), -EINVAL);
	/* an empty term is the user's syntax error, not the kernel's alias
	 * text's (a ',' last there is skipped) */
	CHECK_EQ(prec_evlist__add(&el, "fake/event=1,/", NULL, root), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "fake/trail/", NULL, root), 0);
	CHECK_EQ(el.evsel[el.nr - 1].attr.config, 0x23c);
	prec_evlist__exit(&el);
	test_rmdir(root);
	free(root);
}

static void test_config(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	struct prec_time_layout tl;
	uint64_t base = PREC_SAMPLE_BASE;
	struct perf_event_attr *d, *c;

	CHECK_EQ(parse(&o, ARGV("--call-graph", "dwarf", "-m", "8")), 0);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock", NULL, NULL), 0);
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	CHECK_EQ(el.nr, 2);
	CHECK(el.evsel[0].tracking && !strcmp(el.evsel[0].name, "dummy"));
	prec_evlist__config(&el, &o, false, false);
	d = &el.evsel[0].attr;
	c = &el.evsel[1].attr;
	CHECK_EQ(d->size, 128);
	/* -g's chain bit alone, as perf gives its own dummy (perf sched
	 * timehist drops every event's chains when one has none) */
	CHECK_EQ(d->sample_type, base | PERF_SAMPLE_CALLCHAIN);
	/* no build_id unless --buildid-mmap: the kernel leaks the flag into
	 * other sessions' records (docs/events.md) */
	CHECK(d->mmap && d->mmap2 && d->comm && d->comm_exec && d->task && !d->build_id);
	CHECK(!c->mmap && !c->comm && !c->build_id);
	/* ADDR and DATA_SRC with dwarf, as perf 6.1's record */
	CHECK_EQ(c->sample_type, base | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN |
		 PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | PERF_SAMPLE_ADDR |
		 PERF_SAMPLE_DATA_SRC);
	CHECK_EQ(c->sample_regs_user, prec_sample_regs__user_default());
#if defined(__x86_64__)
	CHECK_EQ(c->sample_regs_user, 0xff0fffULL);
#endif
	CHECK_EQ(c->sample_stack_user, 8192);
	CHECK(c->exclude_callchain_user);
	CHECK(c->freq && c->sample_freq == 4000);
	for (int i = 0; i < 2; i++) {
		struct perf_event_attr *a = &el.evsel[i].attr;

		CHECK(a->sample_id_all && a->disabled && a->watermark && a->use_clockid);
		CHECK(!a->inherit && !a->enable_on_exec);
		CHECK_EQ(a->clockid, CLOCK_MONOTONIC);
		CHECK_EQ(a->read_format, PERF_FORMAT_ID | PERF_FORMAT_LOST);
		CHECK_EQ(a->wakeup_watermark, 8 * sysconf(_SC_PAGESIZE) / 4);
		CHECK(!(a->sample_type & (PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID)));
	}
	CHECK_EQ(prec_time_layout__init(&tl, prec_evlist__sample_base(&el)), 0);
	CHECK_EQ(tl.sample_time_off, 32);
	CHECK_EQ(tl.trailer_time_back, 24);

	/* Workload mode: inherit + enable_on_exec; -c applies to all. */
	CHECK_EQ(parse(&o, ARGV("-c", "1000", "-k", "boottime", "--", "true")), 0);
	prec_evlist__config(&el, &o, true, true);
	CHECK(c->inherit && c->enable_on_exec && d->enable_on_exec);
	CHECK(!c->freq && c->sample_period == 1000);
	CHECK_EQ(c->clockid, CLOCK_BOOTTIME);
	/* A fixed period is not in the samples (the kernel would sample a
	 * software event at every hit), unless -P asks, as perf. */
	CHECK_EQ(c->sample_type, base);
	CHECK_EQ(parse(&o, ARGV("-c", "1000", "-P", "--", "true")), 0);
	prec_evlist__config(&el, &o, true, true);
	CHECK_EQ(c->sample_type, base | PERF_SAMPLE_PERIOD);
	CHECK_EQ(parse(&o, ARGV("-F", "99", "--", "true")), 0);
	prec_evlist__config(&el, &o, true, true);
	CHECK_EQ(c->sample_type, base | PERF_SAMPLE_PERIOD);
	/* -W: perf 6.1 asks x86 for WEIGHT_STRUCT (its arch hook), every
	 * other architecture for the plain WEIGHT (arm64's perf evlist -v
	 * shows it) */
	CHECK_EQ(parse(&o, ARGV("-W", "-c", "1000", "--", "true")), 0);
	prec_evlist__config(&el, &o, true, true);
#if defined(__x86_64__) || defined(__i386__)
	CHECK_EQ(c->sample_type, base | PERF_SAMPLE_WEIGHT_STRUCT);
#else
	CHECK_EQ(c->sample_type, base | PERF_SAMPLE_WEIGHT);
#endif
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
}

static void test_tracepoint_config(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	struct perf_event_attr *a;

	if (!prec_tracefs__root())
		return;
	CHECK_EQ(parse(&o, ARGV("-a")), 0);
	CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:sys_enter", NULL, NULL), 0);
	prec_evlist__config(&el, &o, true, false);
	a = &el.evsel[0].attr;
	CHECK_EQ(a->sample_type, PREC_SAMPLE_BASE | PERF_SAMPLE_PERIOD | PERF_SAMPLE_RAW);
	CHECK(!a->freq && a->sample_period == 1);
	/* -a with a command enables at once, not on exec. */
	CHECK(!a->enable_on_exec && !a->inherit);
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
}

/* A user refused kernel samples: every event that counts user space is
 * made user-only and named as perf renames it; :k keeps its bits (its open
 * then says what it needs); the dummy changes but is not counted. */
static void test_user_only(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };

	CHECK_EQ(parse(&o, ARGV("true")), 0);
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock,page-faults:u,task-clock:k,cpu-clock:uk", NULL, NULL), 0);
	prec_evlist__config(&el, &o, true, true);
	CHECK(!prec_evlist__exclude_kernel(&el));
	CHECK_EQ(prec_evlist__user_only(&el), 2);
	CHECK(!strcmp(el.evsel[0].name, "dummy"));
	CHECK(el.evsel[0].attr.exclude_kernel && el.evsel[0].attr.exclude_hv);
	CHECK(!strcmp(el.evsel[1].name, "cpu-clock:u"));
	CHECK(el.evsel[1].attr.exclude_kernel && el.evsel[1].attr.exclude_hv &&
	      !el.evsel[1].attr.exclude_user);
	CHECK(!strcmp(el.evsel[2].name, "page-faults:u"));
	CHECK(!strcmp(el.evsel[3].name, "task-clock:k"));
	CHECK(el.evsel[3].attr.exclude_user && !el.evsel[3].attr.exclude_kernel);
	CHECK(!strcmp(el.evsel[4].name, "cpu-clock:uku"));
	CHECK(el.evsel[4].attr.exclude_kernel);
	CHECK(!prec_evlist__exclude_kernel(&el)); /* task-clock:k */
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
}

/* Groups: leaders and sizes from {a,b}, a tracking event put first after
 * them (indexes move), --group over everything, perf's group rules in the
 * attrs, and the braces refused where they do not pair. Then opened on the
 * real kernel: a member's fd reads the group through its leader. */
static void test_groups(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	struct prec_evsel *e;
	uint64_t v[1 + 3 * 3]; /* nr, then value, id, lost of each */
	int cpu = 0;
	pid_t self = -1;

	CHECK_EQ(parse(&o, ARGV("true")), 0);
	CHECK_EQ(prec_evlist__add(&el, "task-clock,{cpu-clock,page-faults:u}:Sk", NULL, NULL), 0);
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	e = el.evsel;
	CHECK(e[0].tracking && e[0].leader == -1 && e[1].leader == -1);
	CHECK(e[2].leader == 2 && e[2].nr_members == 2 && e[3].leader == 2);
	/* :Sk over page-faults:u adds k to its u: user and kernel, no hv */
	CHECK(!e[3].attr.exclude_user && !e[3].attr.exclude_kernel && e[3].attr.exclude_hv);
	CHECK(e[2].attr.exclude_user && !e[2].attr.exclude_kernel);
	prec_evlist__config(&el, &o, true, true);
	CHECK(e[2].attr.disabled && e[2].attr.enable_on_exec && !e[2].attr.inherit);
	CHECK(!e[3].attr.disabled && !e[3].attr.enable_on_exec && !e[3].attr.inherit);
	CHECK_EQ(e[2].attr.read_format, PERF_FORMAT_ID | PERF_FORMAT_GROUP | PERF_FORMAT_LOST);
	CHECK(e[2].attr.sample_type & PERF_SAMPLE_READ);
	CHECK(!e[3].attr.freq && !e[3].attr.sample_period);
	CHECK_EQ(e[3].attr.sample_type, e[2].attr.sample_type);
	CHECK(e[1].attr.inherit && !(e[1].attr.read_format & PERF_FORMAT_GROUP));
	prec_evlist__group_all(&el);
	CHECK(e[0].leader == -1 && e[1].leader == 1 && e[3].leader == 1 && e[1].nr_members == 3);
	/* As root (CPU-wide events): cpu-clock, opened with task-clock's fd
	 * as group_fd, reads the group of three through its leader. */
	if (geteuid() == 0 && !test_syscall_missing(SYS_perf_event_open)) {
		CHECK_EQ(prec_evlist__open(&el, &cpu, 1, &self, 1, 4), 0);
		CHECK_EQ(read(el.fds[2], v, sizeof(v)), (long long)sizeof(v));
		CHECK_EQ(v[0], 3);
		CHECK(v[2] == el.ids[1] && v[5] == el.ids[2] && v[8] == el.ids[3]);
	}
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "{cpu-clock,{page-faults}}", NULL, NULL), -EINVAL);
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "{cpu-clock", NULL, NULL), -EINVAL);
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock}:S", NULL, NULL), -EINVAL);
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "{cpu-clock}x", NULL, NULL), -EINVAL);
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
}

/* Blanks as perf 6.1's lexer takes them: dropped between its tokens, a
 * blank before modifier letters their ':', the event named as written
 * (between a group's braces; a tracepoint system:name); a blank inside a
 * word or a breakpoint's mem:ADDR:rwx an event syntax error. */
static void test_blanks(void)
{
	struct prec_evlist el = { 0 };
	struct prec_evsel *e;

	CHECK_EQ(prec_evlist__add(&el, " { cpu-clock ,task-clock/period = 7/ }: u ,cs k", NULL, NULL), 0);
	e = el.evsel;
	CHECK_EQ(el.nr, 3);
	CHECK(!strcmp(e[0].name, " cpu-clock "));
	CHECK(!strcmp(e[1].name, "task-clock/period = 7/ "));
	CHECK(!strcmp(e[2].name, "cs k"));
	CHECK(e[0].leader == 0 && e[1].leader == 0 && e[0].nr_members == 2 && e[2].leader == -1);
	CHECK(e[0].attr.exclude_kernel && e[1].attr.exclude_kernel && !e[0].attr.exclude_user);
	CHECK_EQ(e[1].attr.sample_period, 7);
	CHECK(e[2].attr.exclude_user && !e[2].attr.exclude_kernel);
	CHECK_EQ(e[2].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	prec_evlist__exit(&el);
	/* a breakpoint whole, modifiers after a blank */
	CHECK_EQ(prec_evlist__add(&el, "mem:0x1000:w :u,mem:0x2000: u,\tmem:0x3000 ", NULL, NULL), 0);
	CHECK_EQ(prec_evlist__add(&el, "mem: 0x4000 / 8", NULL, NULL), 0);
	CHECK_EQ(prec_evlist__add(&el, "mem:0x5000/ 2 :k", NULL, NULL), 0);
	e = el.evsel;
	CHECK(e[3].attr.bp_addr == 0x4000 && e[3].attr.bp_len == 8);
	CHECK(e[4].attr.bp_len == 2 && e[4].attr.exclude_user && !e[4].attr.exclude_kernel);
	CHECK(e[0].attr.bp_type == HW_BREAKPOINT_W && e[0].attr.exclude_kernel);
	CHECK(e[1].attr.bp_type == (HW_BREAKPOINT_R | HW_BREAKPOINT_W) && e[1].attr.exclude_kernel);
	CHECK(e[2].attr.bp_addr == 0x3000 && !e[2].attr.exclude_kernel);
	CHECK(!strcmp(e[2].name, "\tmem:0x3000 "));
	prec_evlist__exit(&el);
	if (prec_tracefs__root()) {
		CHECK_EQ(prec_evlist__add(&el, "sched : sched_switch", NULL, NULL), 0);
		CHECK(!strcmp(el.evsel[0].name, "sched:sched_switch"));
		prec_evlist__exit(&el);
	}
	static const char *const bad[] = { "cpu- clock", "cpu-clock x", "cpu-clock:u k",
		"cpu-clock/period=1 u/", "mem:0x1000 :rw", "mem: 0x1000:rw", "mem:0x1000: :u",
		"mem:0x1000/4 :w", "mem: 0x1000/8:u", "mem:0x1000 /8 u", "mem:0x1000::u", "mem :0x1000", "cpu-clock, ,cs", " ", "{cpu-clock} u" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(prec_evlist__add(&el, bad[i], NULL, NULL), -EINVAL);
		prec_evlist__exit(&el);
	}
}

/* A breakpoint's /LEN opens no terms: a ',' after it parts events, as
 * perf's; each event named as perf's lexer names it (the text before a
 * lone '/', NAME/.../REST over a ',' too). */
static void test_perf_names(void)
{
	struct prec_evlist el = { 0 };
	struct prec_evsel *e;

	CHECK_EQ(prec_evlist__add(&el, "mem:0x1000/8,cpu-clock,{mem:0x2000/2:w,cs}:u", NULL, NULL), 0);
	e = el.evsel;
	CHECK_EQ(el.nr, 4);
	/* perf 6.1's name: NAME/.../REST reaches the next '/' */
	CHECK(!strcmp(e[0].name, "mem:0x1000/8,cpu-clock,{mem:0x2000/2:w") && e[0].attr.bp_len == 8);
	CHECK(!strcmp(e[1].name, "cpu-clock") && e[1].attr.type == PERF_TYPE_SOFTWARE);
	CHECK(!strcmp(e[2].name, "mem:0x2000") && e[2].attr.bp_len == 2 && e[2].leader == 2);
	CHECK(e[2].attr.bp_type == HW_BREAKPOINT_W && e[2].attr.exclude_kernel && e[3].leader == 2);
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "mem:0x1000/8,cpu-clock", NULL, NULL), 0);
	CHECK(el.nr == 2 && !strcmp(el.evsel[0].name, "mem:0x1000") && !strcmp(el.evsel[1].name, "cpu-clock"));
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "mem:0x1000/8:w,mem:0x2000/4,cpu-clock/period=3/u", NULL, NULL), 0);
	e = el.evsel;
	CHECK(!strcmp(e[0].name, "mem:0x1000/8:w,mem:0x2000/4"));
	CHECK(!strcmp(e[1].name, "mem:0x2000/4,cpu-clock/period=3"));
	CHECK(!strcmp(e[2].name, "cpu-clock/period=3/u"));
	prec_evlist__exit(&el);
	CHECK_EQ(prec_evlist__add(&el, "mem: 0x4000 / 8", NULL, NULL), 0);
	CHECK(!strcmp(el.evsel[0].name, "mem: 0x4000 ") && el.evsel[0].attr.bp_len == 8);
	prec_evlist__exit(&el);
}

/* perf's overwrite / no-overwrite / period terms on named events,
 * tracepoints and PMUs, and the channels they choose. */
static void test_channels(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	long ps = sysconf(_SC_PAGESIZE);
	struct prec_evsel *ev;

	CHECK_EQ(parse(&o, ARGV("-m", "16")), 0);
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/overwrite/,cs/no-overwrite,period=7/u,faults", NULL, NULL), 0);
	CHECK_EQ(el.nr, 4);
	ev = el.evsel;
	CHECK(!strcmp(ev[1].name, "cpu-clock/overwrite/"));
	CHECK_EQ(ev[1].attr.config, PERF_COUNT_SW_CPU_CLOCK);
	CHECK_EQ(ev[1].ow_term, PREC_OW_ON);
	CHECK_EQ(ev[2].attr.config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	CHECK_EQ(ev[2].ow_term, PREC_OW_OFF);
	CHECK_EQ(ev[2].term_period, 7);
	CHECK(ev[2].attr.exclude_kernel);
	CHECK_EQ(ev[3].ow_term, PREC_OW_DEFAULT);
	/* Only the term's event writes backward without --overwrite. */
	CHECK_EQ(prec_evlist__channels(&el, &o), 1);
	CHECK(el.overwrite && !ev[0].overwrite && ev[1].overwrite && !ev[2].overwrite &&
	      !ev[3].overwrite);
	CHECK(el.drain_pages == 16 && el.flight_pages == 16);
	prec_evlist__config(&el, &o, false, false);
	CHECK(!ev[0].attr.write_backward && ev[1].attr.write_backward &&
	      !ev[2].attr.write_backward && !ev[3].attr.write_backward);
	CHECK(!ev[2].attr.freq && ev[2].attr.sample_period == 7);
	/* As perf: the term wins over -F (and -c). */
	CHECK_EQ(parse(&o, ARGV("-m", "16", "-F", "99")), 0);
	prec_evlist__config(&el, &o, false, false);
	CHECK(!ev[2].attr.freq && ev[2].attr.sample_period == 7);
	CHECK(ev[1].attr.freq && ev[1].attr.sample_freq == 99);
	/* --overwrite: every sampling event but a no-overwrite one; never the
	 * tracking event. */
	CHECK_EQ(parse(&o, ARGV("--overwrite", "-m", "16")), 0);
	CHECK_EQ(prec_evlist__channels(&el, &o), 2);
	CHECK(!ev[0].overwrite && ev[1].overwrite && !ev[2].overwrite && ev[3].overwrite);
	prec_evlist__exit(&el);

	/* Nothing drained but the side band: its rings get their own size,
	 * and the tracking event wakes at a quarter of it. */
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock", NULL, NULL), 0);
	CHECK_EQ(prec_evlist__channels(&el, &o), 1);
	CHECK_EQ(el.drain_pages * (size_t)ps, PREC_RECORD_SIDEBAND_RING);
	CHECK_EQ(el.flight_pages, 16);
	prec_evlist__config(&el, &o, false, false);
	CHECK_EQ(el.evsel[0].attr.wakeup_watermark, PREC_RECORD_SIDEBAND_RING / 4);
	CHECK_EQ(el.evsel[1].attr.wakeup_watermark, 16 * ps / 4);
	CHECK(el.evsel[1].attr.write_backward && !el.evsel[0].attr.write_backward);
	/* No overwrite anywhere: one channel, -m's rings. */
	CHECK_EQ(parse(&o, ARGV("-m", "16")), 0);
	CHECK_EQ(prec_evlist__channels(&el, &o), 0);
	CHECK(!el.overwrite && el.drain_pages == 16 && !el.flight_pages);
	prec_evlist__config(&el, &o, false, false);
	CHECK(!el.evsel[1].attr.write_backward);

	/* as perf's overwrite=N, no-overwrite=N: a number, 0 the other way */
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/overwrite=1/,cs/overwrite=0/,faults/no-overwrite=0/", NULL, NULL), 0);
	CHECK_EQ(el.evsel[el.nr - 3].ow_term, PREC_OW_ON);
	CHECK_EQ(el.evsel[el.nr - 2].ow_term, PREC_OW_OFF);
	CHECK_EQ(el.evsel[el.nr - 1].ow_term, PREC_OW_ON);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/overwrite=x/", NULL, NULL), -EINVAL);
	/* as perf: period=0 is a period of 0 (the event samples nothing) */
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/period=0/", NULL, NULL), 0);
	CHECK(el.evsel[el.nr - 1].terms.zero_period && !el.evsel[el.nr - 1].term_period);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/period=-1/", NULL, NULL), -EINVAL);
	/* as perf's grammar: a number term alone is 1 */
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/period/", NULL, NULL), 0);
	CHECK_EQ(el.evsel[el.nr - 1].attr.sample_period, 1);
	/* as perf: config= on a named event sets the attr's config */
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/config=1/", NULL, NULL), 0);
	CHECK_EQ(el.evsel[el.nr - 1].attr.config, 1);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/config=x/", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/overwrite", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock/overwrite/x", NULL, NULL), -EINVAL);
	CHECK_EQ(prec_evlist__add(&el, "nosuch/overwrite/", NULL, NULL), -EINVAL);
	if (prec_tracefs__root()) {
		int n = el.nr;

		CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:sys_enter/no-overwrite/", NULL, NULL), 0);
		CHECK_EQ(el.evsel[n].attr.type, PERF_TYPE_TRACEPOINT);
		CHECK(!strcmp(el.evsel[n].tp_name, "sys_enter"));
		CHECK_EQ(el.evsel[n].ow_term, PREC_OW_OFF);
		CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:sys_enter/nosuch/", NULL, NULL), -EINVAL);
		/* perf's tracepoint terms only: period=, name=, config= ...
		 * are its "unknown term" there (config= would name another
		 * tracepoint) */
		static const char *const tp_bad[] = { "period=2", "freq=2", "name=x", "time=1",
			"config=1", "config1=1", "metric-id=x", "percore" };
		for (size_t i = 0; i < sizeof(tp_bad) / sizeof(tp_bad[0]); i++) {
			char spec[64];

			snprintf(spec, sizeof(spec), "raw_syscalls:sys_enter/%s/", tp_bad[i]);
			CHECK_EQ(prec_evlist__add(&el, spec, NULL, NULL), -EINVAL);
		}
		CHECK_EQ(prec_evlist__add(&el, "raw_syscalls:sys_enter/nr=2,max-stack=3,no-inherit,aux-output=0/", NULL, NULL), 0);
	}
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
}

/* A PMU event takes the terms too; and an AUX event is refused in a flight
 * recording however the overwrite comes. */
static void test_pmu_overwrite(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	char *root = test_tmpdir("pmuow");

	make_pmus(root);
	CHECK_EQ(parse(&o, ARGV("-m", "16")), 0);
	CHECK_EQ(prec_evlist__add(&el, "fake/event=0x3c,overwrite/", NULL, root), 0);
	CHECK_EQ(el.evsel[0].attr.config, 0x3c);
	CHECK_EQ(el.evsel[0].ow_term, PREC_OW_ON);
	/* perf's no-overwrite=N: N not 0 is no-overwrite */
	CHECK_EQ(prec_evlist__add(&el, "fake/no-overwrite=2/", NULL, root), 0);
	CHECK_EQ(el.evsel[1].ow_term, PREC_OW_OFF);
	/* Stand-in for an AUX event (aux_setup's result). */
	el.aux_bytes = 1 << 20;
	el.aux_owner = 0;
	CHECK_EQ(prec_evlist__channels(&el, &o), -EINVAL);
	el.evsel[0].ow_term = PREC_OW_DEFAULT;
	CHECK_EQ(prec_evlist__channels(&el, &o), 0);
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
	test_rmdir(root);
	free(root);
}

static void spin_ms(int ms)
{
	uint64_t end = prec_now_ns(CLOCK_MONOTONIC) + (uint64_t)ms * 1000000ull;
	volatile uint64_t x = 0;

	while (prec_now_ns(CLOCK_MONOTONIC) < end)
		x++;
}

/* Real kernel: one ring on this CPU, SET_OUTPUT for the other events,
 * distinct ids, samples land in the shared ring. */
static int test_open(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	int cpu = sched_getcpu();
	pid_t task = -1;
	uint64_t head;
	int err;

	CHECK_EQ(parse(&o, ARGV("-F", "10000", "-m", "16")), 0);
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock,cs", NULL, NULL), 0);
	prec_evlist__config(&el, &o, false, false);
	err = prec_evlist__open(&el, &cpu, 1, &task, 1, o.mmap_pages);
	if (err == -EACCES || err == -EPERM) {
		prec_evlist__exit(&el);
		prec_record_opts__exit(&o);
		return TEST_SKIP;
	}
	CHECK_EQ(err, 0);
	CHECK(el.ring_fd[0] == el.fds[0]);
	CHECK(el.rings[0].map && el.rings[0].size == 16 * (uint64_t)sysconf(_SC_PAGESIZE));
	for (int i = 0; i < 3; i++) {
		CHECK(el.fds[i] >= 0 && el.ids[i]);
		for (int j = 0; j < i; j++)
			CHECK(el.ids[i] != el.ids[j]);
	}
	CHECK_EQ(prec_evlist__enable(&el), 0);
	spin_ms(50);
	prec_evlist__disable(&el);
	head = __atomic_load_n(&el.rings[0].page->data_head, __ATOMIC_ACQUIRE);
	/* 50 ms at 10 kHz: a few hundred cpu-clock samples of 48 bytes. */
	CHECK(head >= 48 * 20);
	CHECK_EQ(prec_evlist__lost(&el, 0), 0);
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
	return 0;
}

/* Real kernel: an overwrite event and a drained one on this CPU, each in a
 * ring of its own (the kernel refuses SET_OUTPUT across write_backward):
 * the flight ring read-only and written downward, the drained ring by the
 * tracking event and cs. */
static int test_open_channels(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	int cpu = sched_getcpu();
	pid_t task = -1;
	uint64_t head;
	int err;

	CHECK_EQ(parse(&o, ARGV("-F", "10000", "-m", "16", "--overwrite")), 0);
	CHECK_EQ(prec_evlist__add_tracking(&el), 0);
	CHECK_EQ(prec_evlist__add(&el, "cpu-clock,cs/no-overwrite/,task-clock", NULL, NULL), 0);
	CHECK_EQ(prec_evlist__channels(&el, &o), 2);
	prec_evlist__config(&el, &o, false, false);
	err = prec_evlist__open(&el, &cpu, 1, &task, 1, o.mmap_pages);
	if (err == -EACCES || err == -EPERM) {
		prec_evlist__exit(&el);
		prec_record_opts__exit(&o);
		return TEST_SKIP;
	}
	CHECK_EQ(err, 0);
	CHECK(el.ring_fd[0] == el.fds[0] && el.flight_ring_fd[0] == el.fds[1]);
	CHECK(el.rings[0].map && !el.rings[0].overwrite);
	CHECK(el.flight_rings[0].map && el.flight_rings[0].overwrite);
	/* cs is drained: -m's size, not the side band's own. */
	CHECK_EQ(el.rings[0].size, 16 * (uint64_t)sysconf(_SC_PAGESIZE));
	CHECK_EQ(el.flight_rings[0].size, 16 * (uint64_t)sysconf(_SC_PAGESIZE));
	CHECK_EQ(prec_evlist__enable(&el), 0);
	spin_ms(50);
	usleep(1000);
	prec_evlist__disable(&el);
	/* The flight ring grows down from 0; the drained one up. */
	head = __atomic_load_n(&el.flight_rings[0].page->data_head, __ATOMIC_ACQUIRE);
	CHECK(head != 0 && (int64_t)head < -48 * 20);
	head = __atomic_load_n(&el.rings[0].page->data_head, __ATOMIC_ACQUIRE);
	CHECK(head > 0 && head < 1u << 30);
	CHECK_EQ(prec_evlist__lost(&el, 0), 0);
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
	return 0;
}

static void test_hw_error(void)
{
	struct prec_record_opts o = { 0 };
	struct prec_evlist el = { 0 };
	int cpu = 0, err;
	pid_t task = -1;

	CHECK_EQ(parse(&o, ARGV("-a")), 0);
	CHECK_EQ(prec_evlist__add(&el, "cycles", NULL, NULL), 0);
	prec_evlist__config(&el, &o, false, false);
	err = prec_evlist__open(&el, &cpu, 1, &task, 1, 1);
	/* Works where there is a PMU; on this VM ENOENT or EOPNOTSUPP. */
	CHECK(err == 0 || err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV ||
	      err == -EACCES);
	prec_evlist__exit(&el);
	prec_record_opts__exit(&o);
}

static void test_workload(void)
{
	struct prec_workload w;
	char *nosuch[] = { "prec-no-such-command-xyz", NULL };
	char *exit3[] = { "/bin/sh", "-c", "exit 3", NULL };
	char *killed[] = { "/bin/sh", "-c", "kill -9 $$", NULL };
	char *dir = test_tmpdir("wl"), path[512];
	char *noexec[] = { path, NULL };

	CHECK_EQ(prec_workload__prepare(&w, nosuch), -ENOENT);
	CHECK_EQ(prec_workload__prepare(&w, exit3), 0);
	CHECK_EQ(prec_workload__start(&w), 0);
	/* exited() only looks: the zombie stays for the stop's tail, its
	 * comm in /proc, until reap() */
	for (int i = 0; i < 5000 && !prec_workload__exited(&w); i++)
		usleep(1000);
	CHECK_EQ(prec_workload__exited(&w), 1);
	CHECK(!w.exited);
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)w.pid);
	CHECK(access(path, F_OK) == 0);
	CHECK_EQ(prec_workload__reap(&w, false), 1);
	CHECK(access(path, F_OK) != 0);
	CHECK_EQ(prec_workload__exited(&w), 1);
	CHECK_EQ(prec_workload__exit_code(&w), 3);
	CHECK_EQ(prec_workload__term_signal(&w), 0);
	CHECK_EQ(prec_workload__prepare(&w, killed), 0);
	CHECK_EQ(prec_workload__start(&w), 0);
	CHECK_EQ(prec_workload__reap(&w, true), 1);
	CHECK_EQ(prec_workload__exit_code(&w), 137);
	CHECK_EQ(prec_workload__term_signal(&w), SIGKILL);
	/* Found but not executable: the exec error comes back by the pipe. */
	put(dir, "noexec", "#!/bin/sh\nexit 0\n");
	snprintf(path, sizeof(path), "%s/noexec", dir);
	chmod(path, 0644);
	CHECK_EQ(prec_workload__prepare(&w, noexec), 0);
	CHECK_EQ(prec_workload__start(&w), -EACCES);
	CHECK_EQ(prec_workload__reap(&w, true), 1);
	CHECK_EQ(prec_workload__exit_code(&w), 127);
	test_rmdir(dir);
	free(dir);
	/* Never started: abort makes the child leave without exec. */
	CHECK_EQ(prec_workload__prepare(&w, exit3), 0);
	prec_workload__abort(&w);
	CHECK(w.exited);
	CHECK_EQ(prec_workload__exit_code(&w), 0);
}

int main(void)
{
	prec_log_level = PREC_LOG_ERR;
	test_options();
	test_perf_sample_options();
	test_option_values();
	test_options_bad();
	test_cpu_list();
	test_named();
	test_tracepoint();
	test_pmu();
	test_config();
	test_tracepoint_config();
	test_user_only();
	test_channels();
	test_groups();
	test_blanks();
	test_perf_names();
	test_pmu_overwrite();
	test_workload();
	/* the rest opens events (test_groups's open too) */
	if (test_syscall_missing(SYS_perf_event_open)) {
		printf("perf_event_open: %s (an emulator?): skipping the rest\n", strerror(ENOSYS));
		return TEST_SKIP;
	}
	test_hw_error();
	if (test_open_channels() == TEST_SKIP)
		return TEST_SKIP;
	return test_open();
}
