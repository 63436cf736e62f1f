// SPDX-License-Identifier: MIT
// perf record's options that e2e/record_* check against perf, parsed:
// -D ranges, --switch-output-event (joined, implying signal mode),
// --exclude-perf after its -e, --proc-map-timeout, --affinity node,
// --tail-synthesize (taken with --switch-output, not --max-disk), --kcore
// and its refusals (-o -, --switch-output), --off-cpu taken, and the
// refused -S, --aux-sample;
// the O_DIRECT staging's default bound, resolved (alone, under --max-disk,
// and --max-staging's own); perf's negations (--no-NAME, --NAME and
// --no-no-NAME of a no-NAME option) and those perf refuses or crashes on;
// -c 0, and -c's, --proc-map-timeout's, -r's, --switch-max-files' and -z's
// numbers past their bits; -m rounded up to a power of two of pages, said
// as perf says it; -I? and --user-regs=? as perf's list on stderr;
// --synth's list.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/evlist_internal.h"
#include "record/options.h"
#include "record/sample_regs.h"
#include "../lib/test.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof(a[0])) - 1)

static void test_delay_ranges(void)
{
	struct prec_record_opts o;
	char *r[] = { "record", "-D", "10-20,30-40", "true", NULL };
	char *z[] = { "record", "-D", "0-5", "true", NULL };
	char *last[] = { "record", "-D", "10-20", "-D", "7", "true", NULL };
	char *blank[] = { "record", "-D", " 1 - 5 , +6 -7 ", "true", NULL };
	char *big[] = { "record", "-D", "2147483647", "true", NULL };
	char *neg[] = { "record", "-D", "-5-6,10-20", "true", NULL };
	char *wrap[] = { "record", "-D", "4294967291-6", "true", NULL };
	/* as perf: 0 is no delay and no range; ranges may not touch; at most
	 * INT_MAX ms */
	const char *bad[] = { "20-10", "10-20,15-30", "10-20,", "10-", "-5-6,6-7", "1-2,x", "0",
			      "00", "1-5,5-7", "1-5x", "2147483648", "1-2147483648", "" };

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
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(blank), blank), 0);
	CHECK_EQ(o.nr_delay_edges, 4);
	CHECK(o.delay_edges[0] == 1 && o.delay_edges[1] == 5 &&
	      o.delay_edges[2] == 6 && o.delay_edges[3] == 7);
	prec_record_opts__exit(&o);
	/* as perf's sscanf("%u") into an int: a first start below 0 is its
	 * initial delay below 0 (disabled, as -1), its timer's edges later
	 * by 5 ms; 4294967291 is -5 too */
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(neg), neg), 0);
	CHECK_EQ(o.delay_ms, -1);
	CHECK_EQ(o.nr_delay_edges, 4);
	CHECK(o.delay_edges[0] == 0 && o.delay_edges[1] == 11 &&
	      o.delay_edges[2] == 15 && o.delay_edges[3] == 25);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(wrap), wrap), 0);
	CHECK(o.delay_ms == -1 && o.nr_delay_edges == 2 && o.delay_edges[1] == 11);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(big), big), 0);
	CHECK_EQ(o.delay_ms, 2147483647);
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
	char *dflt[] = { "record", "--switch-output", "true", NULL };

	CHECK_EQ(prec_record_opts__parse(&o, ARGC(a), a), 0);
	CHECK(o.switch_event && !strcmp(o.switch_event, "a:b,c"));
	CHECK(o.switch_output);
	CHECK_EQ(o.switch_bytes, 0); /* signal mode, as perf */
	prec_record_opts__exit(&o);
	/* as perf: x.data.<timestamp> per switch (file_output.c) */
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(o_file), o_file), 0);
	CHECK(o.switch_output && o.output && !strcmp(o.output, "x.data"));
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(dflt), dflt), 0);
	CHECK(o.switch_output && o.output && !strcmp(o.output, "perf.data"));
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
	CHECK_EQ(prec_record_opts__parse(&o, ARGC(tail_sw), tail_sw), 0); /* as perf */
	CHECK(o.tail_synthesize && o.switch_output);
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

/* parse "record WORDS... true" (at most 15 words) into o; its return */
static int parse_words(struct prec_record_opts *o, const char *words)
{
	static char buf[512];
	char *argv[20] = { "record" };
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", words);
	for (char *w = strtok(buf, " "); w && argc < 18; w = strtok(NULL, " "))
		argv[argc++] = w;
	argv[argc++] = "true";
	argv[argc] = NULL;
	return prec_record_opts__parse(o, argc, argv);
}

/* What the options below set is as in def, the defaults. */
static bool as_defaults(const struct prec_record_opts *o, const struct prec_record_opts *def)
{
	return !memcmp(&o->sample, &def->sample, sizeof(o->sample)) &&
	       o->period == def->period && !o->sample_period && o->callgraph == def->callgraph &&
	       o->stack_size == def->stack_size && !o->nr_cpus && !o->nr_pids && !o->nr_tids &&
	       !o->uid_set && !o->delay_ms && !o->nr_delay_edges && !o->delay_edges &&
	       o->clockid == def->clockid && !o->clock_set && !o->max_size && !o->max_disk &&
	       o->affinity == def->affinity && !o->compress && !o->aux_snapshot &&
	       !o->aux_sample && !o->verbose && !o->quiet && o->round_ms == def->round_ms &&
	       o->copy == def->copy && o->direct_io == def->direct_io && !o->max_staging_set &&
	       !o->aux_bytes && !o->markers && !o->force && o->output &&
	       !strcmp(o->output, def->output) && !o->no_inherit && !o->no_buildid &&
	       !o->no_buildid_cache && !o->no_bpf_event && !o->strict_freq && !o->group &&
	       !o->all_cgroups && !o->switch_events && !o->namespaces && !o->off_cpu &&
	       !o->all_user && !o->all_kernel && !o->buildid_mmap && !o->kcore &&
	       !o->overwrite && !o->tail_synthesize && !o->dry_run &&
	       !o->timestamp_filename && !o->data;
}

/* Each negation puts back what its option set: the options as given, then
 * negated, end as the defaults do (perf 6.1 accepts every one of these). */
static void test_negations(void)
{
	static const char *const undone[] = {
		"-R --no-raw-samples", "-W --no-weight", "--transaction --no-transaction",
		"--phys-data --no-phys-data", "--data-page-size --no-data-page-size",
		"--code-page-size --no-code-page-size", "-n --samples", "-n --no-no-samples",
		"--no-buffering --buffering", "--no-buffering --no-no-buffering",
		"--running-time --no-running-time", "-s --no-stat", "--data --no-data",
		"-i --inherit", "-i --no-no-inherit", "-B --buildid", "-B --no-no-buildid",
		"-N --buildid-cache", "--no-bpf-event --bpf-event", "--strict-freq --no-strict-freq",
		"--group --no-group", "-a --no-all-cpus", "--all-cgroups --no-all-cgroups",
		"--switch-events --no-switch-events", "--namespaces --no-namespaces",
		"--off-cpu --no-off-cpu", "--all-user --no-all-user", "--all-kernel --no-all-kernel",
		"--buildid-mmap --no-buildid-mmap", "--kcore --no-kcore", "--overwrite --no-overwrite",
		"--tail-synthesize --no-tail-synthesize", "--dry-run --no-dry-run",
		"--timestamp-filename --no-timestamp-filename",
		"-c 1000 --no-count", "-g --no-call-graph", "--call-graph fp,4 --no-call-graph",
		"--no-call-graph",
		"-C 0 --no-cpu",
		"-p 1 --no-pid", "-t 1 --no-tid", "-u 0 --no-uid", "-D 10-20,30-40 --no-delay",
		"-D 5 --no-delay", "-k raw --no-clockid", "--max-size 1M --no-max-size",
		"--affinity cpu --no-affinity", "-z3 --no-compression-level", "--compress --no-compress",
		"-S --no-snapshot", "--aux-sample=8192 --no-aux-sample", "-v --no-verbose",
		"-q --no-quiet", "--round-ms 7 --no-round-ms", "--no-copy --copy",
		"--no-copy --no-no-copy", "--no-direct-io --direct-io", "--max-staging 8M --no-max-staging",
		"--aux-size 4M --no-aux-size", "--markers --no-markers", "-f --no-force",
		"--max-disk 1G --no-max-disk", "-o x.data --no-output",
		"-T --no-sample-cpu --no-sample-identifier --no-timestamp-boundary --no-buildid-all",
		"--aio --no-aio --threads --no-threads --no-mmap-flush --no-per-thread",
		"--no-vmlinux --no-debuginfod --no-clang-path --no-clang-opt --no-num-thread-synthesize",
	};
	struct prec_record_opts def, o;

	CHECK_EQ(parse_words(&def, ""), 0);
	/* as perf: dwarf's data addresses stay after --no-call-graph */
	CHECK_EQ(parse_words(&o, "--call-graph dwarf,4096 --no-call-graph"), 0);
	CHECK(o.callgraph == PREC_CG_NONE && o.data);
	prec_record_opts__exit(&o);
	for (size_t i = 0; i < sizeof(undone) / sizeof(undone[0]); i++) {
		int rc = parse_words(&o, undone[i]);

		if (rc || !as_defaults(&o, &def))
			fprintf(stderr, "%s: %s\n", undone[i], rc ? "refused" : "not undone");
		CHECK(!rc && as_defaults(&o, &def));
		prec_record_opts__exit(&o);
	}
	prec_record_opts__exit(&def);
}

/* The negations that are not a return to the defaults, and the refused. */
static void test_negations_special(void)
{
	static const char *const refused[] = {
		/* perf 6.1 refuses these (--freq, --mmap-pages) or crashes */
		"--no-event", "--no-filter", "--no-freq", "--no-mmap-pages", "--no-cgroup",
		"--no-synth", "--no-control", "--no-switch-output", "--no-switch-output-event",
		"--no-pfm-events", "--no-help",
		/* as perf: a negation takes no value; --exclude-perf's needs an -e */
		"--no-count=5", "--no-timestamp=1", "--no-exclude-perf",
		"-e cpu-clock --no-event",
	};
	struct prec_record_opts o;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int rc = parse_words(&o, refused[i]);

		if (rc != -EINVAL)
			fprintf(stderr, "%s: taken\n", refused[i]);
		CHECK_EQ(rc, -EINVAL);
		prec_record_opts__exit(&o);
	}
	/* the -e before it only */
	CHECK_EQ(parse_words(&o, "-e sched:sched_switch --exclude-perf -e sched:sched_wakeup "
				 "--exclude-perf --no-exclude-perf"), 0);
	CHECK(o.nr_specs == 2 && o.specs[0].exclude_self && !o.specs[1].exclude_self);
	prec_record_opts__exit(&o);
	/* perf's integer negation, 0: no SCHED_FIFO, and no time for maps */
	CHECK_EQ(parse_words(&o, "--no-realtime"), 0);
	CHECK(o.rt_prio == 0 && o.rt_prio_set);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--no-proc-map-timeout"), 0);
	CHECK_EQ(o.proc_map_timeout_ms, 0);
	prec_record_opts__exit(&o);
	/* registers given twice are refused, as perf's; a negation between
	 * undoes the first (perf's ignores it). sp: a name on x86-64 and
	 * arm64 alike (arm64 has no ip) */
	CHECK_EQ(parse_words(&o, "-I -I"), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--user-regs=sp --user-regs=sp"), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--user-regs=sp --no-user-regs --user-regs=sp"), 0);
	prec_record_opts__exit(&o);
	/* -s's times stay with --running-time given too */
	CHECK_EQ(parse_words(&o, "--running-time -s --no-stat"), 0);
	CHECK(o.sample.running_time && !o.sample.inherit_stat);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-s --no-running-time"), 0);
	CHECK(o.sample.running_time && o.sample.inherit_stat);
	prec_record_opts__exit(&o);
	/* taken, said: what they drop in perf prec keeps */
	CHECK_EQ(parse_words(&o, "-q --no-timestamp -P --no-period"), 0);
	CHECK(o.kept_time && o.kept_period && !o.sample_period);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-d x --no-dir"), 0);
	CHECK(!o.dir_set && !strcmp(o.dir, "prec.data") && !strcmp(o.output, "perf.data"));
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--user root --no-user"), 0);
	CHECK(!o.user);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--switch-output -d x --switch-max-files 3 --no-switch-max-files"), 0);
	CHECK_EQ(o.switch_max_files, 0);
	prec_record_opts__exit(&o);
	/* unambiguous abbreviations, as perf's */
	CHECK_EQ(parse_words(&o, "-R --no-raw"), 0);
	CHECK(!o.sample.raw);
	prec_record_opts__exit(&o);
}

/* perf's integer options are decimal: 010 is 10, 0x10 refused */
static void test_decimal(void)
{
	struct prec_record_opts o;

	CHECK_EQ(parse_words(&o, "--switch-output -d x --switch-max-files 010 --proc-map-timeout 010 -r 010"), 0);
	CHECK_EQ(o.switch_max_files, 10);
	CHECK_EQ(o.proc_map_timeout_ms, 10);
	CHECK_EQ(o.rt_prio, 10);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-r 0x10"), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--proc-map-timeout 0x10"), -EINVAL);
	prec_record_opts__exit(&o);
}

/* -c 0, as perf: no period, the default frequency; with -F refused, as
 * perf's (its period is given: perf 6.1 exits 234) */
static void test_count_zero(void)
{
	struct prec_record_opts o;

	CHECK_EQ(parse_words(&o, "-c 0"), 0);
	CHECK(!o.period && !o.freq);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-F 100 -c 0"), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--no-count -F 100"), -EINVAL);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-c 1000 -c 0"), 0);
	CHECK_EQ(o.period, 0);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-c -1"), -EINVAL);
	prec_record_opts__exit(&o);
}

/* Numbers past their option's bits, as perf's OPT_U64 and OPT_UINTEGER
 * take them (no errno looked at): -c's all 64 bits set, or a number past
 * them (strtoull's ULLONG_MAX), is perf's mark of no -c, so none given
 * (perf 6.1 records at its default frequency; prec opened the events
 * with a period the kernel refuses, or refused the option), and -F with
 * it is no conflict; --proc-map-timeout past a long's range is strtol's
 * LONG_MAX in 32 bits. */
static void test_past_bits(void)
{
	struct prec_record_opts o;

	CHECK_EQ(parse_words(&o, "-c 18446744073709551615"), 0);
	CHECK(!o.period && !o.period_given && !o.freq);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-c 1000 -c 99999999999999999999"), 0);
	CHECK(!o.period && !o.period_given);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-F 100 -c 18446744073709551615"), 0);
	CHECK(!o.period && o.freq == 100);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-c 18446744073709551614"), 0);
	CHECK(o.period == UINT64_MAX - 1 && o.period_given);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--proc-map-timeout 99999999999999999999"), 0);
	CHECK_EQ(o.proc_map_timeout_ms, UINT32_MAX);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--proc-map-timeout 9223372036854775808"), 0);
	CHECK_EQ(o.proc_map_timeout_ms, UINT32_MAX);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "--proc-map-timeout 4294967296"), 0);
	CHECK_EQ(o.proc_map_timeout_ms, 0);
	prec_record_opts__exit(&o);
	/* -r's and --switch-max-files' number in perf's int: 2^32 + 1 is 1,
	 * past a long's range -1 (refused, as perf's) */
	CHECK_EQ(parse_words(&o, "-r 4294967297 --switch-output -d x --switch-max-files 4294967299"), 0);
	CHECK(o.rt_prio == 1 && o.switch_max_files == 3);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-r 99999999999999999999"), -EINVAL);
	prec_record_opts__exit(&o);
	/* -z's level in perf's unsigned int: 2^32 + 5 is 5, 2^32 and a
	 * number below a long's range -z alone, -1 the highest */
	CHECK_EQ(parse_words(&o, "-o f -z4294967301"), 0);
	CHECK_EQ(o.compress_level, 5);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-o f -z4294967296"), 0);
	CHECK_EQ(o.compress_level, 0);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-o f -z-99999999999999999999"), 0);
	CHECK_EQ(o.compress_level, 0);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-o f -z-1"), 0);
	CHECK_EQ(o.compress_level, 22);
	prec_record_opts__exit(&o);
}

/* -m as perf: pages that are not a power of two rounded up to one, a size
 * to whole pages first; perf's note for each rounded. */
static void test_mmap_rounding(void)
{
	static const struct {
		const char *arg;
		uint64_t pages, aux_pages;
		bool rounded, aux_rounded;
	} cases[] = {
		{ "-m 3", 4, 0, true, false }, { "-m 5", 8, 0, true, false },
		{ "-m 4", 4, 0, false, false }, { "-m 1000", 1024, 0, true, false },
		{ "-m 5,3", 8, 4, true, true }, { "-m 4,3", 4, 4, false, true },
		{ "-m 3,4M", 4, 1024, true, false }, { "-m ,3", 0, 4, false, true },
	};
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	struct prec_record_opts o, def;

	CHECK_EQ(parse_words(&def, ""), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(parse_words(&o, cases[i].arg), 0);
		CHECK_EQ(o.mmap_pages, cases[i].pages ? cases[i].pages : def.mmap_pages);
		CHECK_EQ(o.aux_bytes, cases[i].aux_pages * ps);
		CHECK(o.mmap_rounded == cases[i].rounded && o.aux_rounded == cases[i].aux_rounded);
		prec_record_opts__exit(&o);
	}
	/* sizes: whole pages, then a power of two of them */
	CHECK_EQ(parse_words(&o, "-m 12K"), 0);
	CHECK(o.mmap_pages * ps == (ps > 4096 ? ps : 16384) && o.mmap_rounded == (ps == 4096));
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-m 1K"), 0);
	CHECK(o.mmap_pages == 1 && !o.mmap_rounded);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_words(&o, "-m 2049K"), 0);
	CHECK(o.mmap_pages * ps == 4u << 20 && o.mmap_rounded == (ps < 2049 * 1024u));
	prec_record_opts__exit(&o);
	prec_record_opts__exit(&def);
}

/* The bytes parse_words(words) writes to stderr, in buf; its return. */
static int parse_stderr(const char *words, char *buf, size_t len)
{
	struct prec_record_opts o;
	FILE *tmp = tmpfile();
	int saved = dup(2), rc;
	size_t n;

	CHECK(tmp && saved >= 0);
	fflush(stderr);
	CHECK(dup2(fileno(tmp), 2) == 2);
	rc = parse_words(&o, words);
	fflush(stderr);
	CHECK(dup2(saved, 2) == 2);
	close(saved);
	prec_record_opts__exit(&o);
	rewind(tmp);
	n = fread(buf, 1, len - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	return rc;
}

/* -F max: the rate it read, said once as perf says it ("Using a maximum
 * frequency rate of N Hz"); not under -q, nor for -F N */
static void test_freq_max(void)
{
	char buf[512], want[128];
	struct prec_record_opts o;

	CHECK_EQ(parse_words(&o, "-F max"), 0);
	snprintf(want, sizeof(want), "note: -F max: sampling at kernel.perf_event_max_sample_rate, %llu Hz\n",
		 (unsigned long long)o.freq);
	prec_record_opts__exit(&o);
	CHECK_EQ(parse_stderr("-F max", buf, sizeof(buf)), 0);
	CHECK(strstr(buf, want) != NULL);
	CHECK_EQ(parse_stderr("-q -F max", buf, sizeof(buf)), 0);
	CHECK(!strstr(buf, "-F max"));
	CHECK_EQ(parse_stderr("-F max -F 99", buf, sizeof(buf)), 0);
	CHECK(!strstr(buf, "-F max"));
}

/* '?' anywhere in -I's or --user-regs' list: perf's list on stderr, in
 * perf's spelling, and perf's exit status (cmd_record.c maps it to 129). */
static void test_regs_list(void)
{
	char out[512], first[512];

	CHECK_EQ(parse_stderr("--user-regs=?", first, sizeof(first)), PREC_RECORD_OPTS_LISTED);
	CHECK(!strncmp(first, "available registers: ", 21));
	CHECK(strlen(first) > 22 && !strcmp(first + strlen(first) - 2, " \n"));
#if defined(__x86_64__)
	CHECK(!strcmp(first, "available registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS "
			     "R8 R9 R10 R11 R12 R13 R14 R15 \n"));
#endif
	CHECK_EQ(parse_stderr("-I?", out, sizeof(out)), PREC_RECORD_OPTS_LISTED);
	CHECK(!strncmp(out, "available registers: ", 21));
	CHECK_EQ(parse_stderr("--intr-regs=?", out, sizeof(out)), PREC_RECORD_OPTS_LISTED);
	CHECK_EQ(parse_stderr("--user-regs=sp,?", out, sizeof(out)), PREC_RECORD_OPTS_LISTED);
	CHECK(!strcmp(out, first));
	/* as perf: a bad name before it is the answer */
	CHECK_EQ(parse_stderr("--user-regs=bogus,?", out, sizeof(out)), -EINVAL);
	CHECK(!strstr(out, "available registers"));
}

/* --synth as perf reads it: no/none and all end the list, the rest add
 * up, any case; an empty item (or '') refused. */
static void test_synth(void)
{
	static const struct {
		const char *arg;
		int rc, tasks, maps;
	} cases[] = {
		{ "no", 0, 0, 0 }, { "none", 0, 0, 0 }, { "NO", 0, 0, 0 }, { "all", 0, 1, 1 },
		{ "task", 0, 1, 0 }, { "TASK", 0, 1, 0 }, { "mmap", 0, 1, 1 },
		{ "cgroup", 0, 0, 0 }, { "task,no", 0, 0, 0 }, { "no,task", 0, 0, 0 },
		{ "no,bogus", 0, 0, 0 }, { "all,bogus", 0, 1, 1 }, { "cgroup,task", 0, 1, 0 },
		{ "", -EINVAL, 0, 0 }, { "task,", -EINVAL, 0, 0 }, { ",task", -EINVAL, 0, 0 },
		{ "task,,mmap", -EINVAL, 0, 0 }, { "bogus,all", -EINVAL, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "record", "--synth", (char *)cases[i].arg, "true", NULL };
		struct prec_record_opts o;
		int rc = prec_record_opts__parse(&o, ARGC(argv), argv);

		fprintf(stderr, "--synth '%s'\n", cases[i].arg);
		CHECK_EQ(rc, cases[i].rc);
		if (!rc) {
			CHECK_EQ(o.synth_tasks, cases[i].tasks);
			CHECK_EQ(o.synth_maps, cases[i].maps);
		}
		prec_record_opts__exit(&o);
	}
}

int main(void)
{
	test_delay_ranges();
	test_switch_event();
	test_misc();
	test_staging_bound();
	test_negations();
	test_negations_special();
	test_count_zero();
	test_past_bits();
	test_mmap_rounding();
	test_freq_max();
	test_regs_list();
	test_synth();
	test_decimal();
	printf("perf_record_options: -D ranges, --switch-output-event, --exclude-perf, --proc-map-timeout, --affinity node, refusals, staging bound, negations, -c 0, -m rounding, register lists, --synth, decimal numbers\n");
	return 0;
}
