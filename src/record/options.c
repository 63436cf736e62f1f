// SPDX-License-Identifier: MIT
// `prec record` command line: one table of options (names, handlers, help)
// from which getopt_long's arguments and the help text are derived.

#include "record/options.h"
#include "record/threads_spec.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "record/aux_mode.h"
#include "record/branch_modes.h"
#include "record/callgraph_mode.h"
#include "record/control_channel.h"
#include "record/options_perfconfig.h"
#include "record/sample_regs.h"
#include "util/cli.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/log.h"
#include "util/size.h"

typedef int (*opt_fn)(struct prec_record_opts *o, const char *arg);

struct opt {
	const char *lng;
	int shrt;              /* 0: long only */
	const char *argname;   /* NULL: no argument */
	opt_fn fn;             /* NULL: the option sets the bool at flag */
	const char *help;
	size_t flag;           /* FLAG(field) of struct prec_record_opts */
	/* perf's negation, --no-NAME (and --NAME or --no-no-NAME of an
	 * option named no-NAME): puts back what the option set. NULL: a flag
	 * option's bool is cleared, perf's writer options and what prec
	 * always does take it as nothing to undo, and any other option is
	 * refused one (perf refuses those, or crashes on them) */
	opt_fn unset;
};
#define FLAG(field) offsetof(struct prec_record_opts, field)

static int parse_base(const char *s, int base, uint64_t *v)
{
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, base);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

/* A number in C's bases (0x10, 010): prec's own options, and perf's that
 * read it so. */
static int parse_u64(const char *s, uint64_t *v)
{
	return parse_base(s, 0, v);
}


/* perf's OPT_INTEGER: strtol's decimal number (blanks and a sign before
 * it; none, '', is 0) and nothing after it, kept in its int: the low 32
 * bits (4294967297 is 1; past a long's range LONG_MAX's, -1). */
static int perf_int(const char *s, long long *v)
{
	char *end;
	long n = strtol(s, &end, 10);

	*v = (int32_t)(uint32_t)(unsigned long)n;
	return *end ? -EINVAL : 0;
}

/* perf's OPT_U64: no '-' anywhere, then strtoull's decimal number (blanks
 * and a + before it; none, '', is 0) and nothing after it. A number past
 * 64 bits is strtoull's ULLONG_MAX, which perf takes (it looks at no
 * errno). */
static int perf_u64(const char *s, uint64_t *v)
{
	char *end;

	if (strchr(s, '-'))
		return -EINVAL;
	*v = strtoull(s, &end, 10);
	return *end ? -EINVAL : 0;
}

/* perf's OPT_UINTEGER: the same, read by strtol into its unsigned int: a
 * number past 32 bits cut to them, one past a long's range LONG_MAX's,
 * all 32 bits set. */
static int perf_uint(const char *s, uint32_t *v)
{
	char *end;
	long n;

	if (strchr(s, '-'))
		return -EINVAL;
	n = strtol(s, &end, 10);
	if (*end)
		return -EINVAL;
	*v = (uint32_t)(unsigned long)n;
	return 0;
}

static int bad(const char *opt, const char *arg, const char *why)
{
	pr_err("option %s '%s': %s", opt, arg, why);
	return -EINVAL;
}

/* A size option's refusal for the errors of prec_size__split() that say
 * what its sizes are: a fraction, an unknown suffix (suffixes: the
 * option's own, "B, K, M or G" or "K, M or G"). 0 for the other errors,
 * which the caller words. */
static int bad_size(const char *opt, const char *arg, int err, const char *suffixes)
{
	char why[160];

	if (err == -EDOM)
		snprintf(why, sizeof(why), "sizes are whole numbers with %s, as perf's (1536M, not 1.5G)",
			 suffixes);
	else if (err == -EOPNOTSUPP)
		snprintf(why, sizeof(why), "unknown size suffix (use %s)", suffixes);
	else
		return 0;
	return bad(opt, arg, why);
}

/* perf's size tags (its parse_tag_value's, upper case only) and time
 * tags (seconds) */
static const struct prec_size_tag size_tags[] = {
	{ 'B', 1 }, { 'K', 1ull << 10 }, { 'M', 1ull << 20 }, { 'G', 1ull << 30 }, { 0, 0 },
};
static const struct prec_size_tag time_tags[] = {
	{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 }, { 0, 0 },
};

/* A size perf refuses (prec_size__perf_tag() found none): the lenient
 * parser's reason where it has one (a fraction, an unknown suffix), else
 * perf's syntax. */
static int bad_perf_size(const char *opt, const char *arg, const char *shown)
{
	uint64_t v, mult;
	int err = prec_size__split(arg, PREC_SIZE_BYTES, &v, &mult);

	if (bad_size(opt, shown, err, "B, K, M or G"))
		return -EINVAL;
	return bad(opt, shown, "expected a number and its unit, B, K, M or G in capitals, as perf's (500M)");
}

/* One part of -m as perf 6.1's parse_pages_arg reads it: a size with
 * perf's tags (its pages, rounded up; a size within a page of 2^64 wraps
 * to 0 pages in perf's align), else strtoul's decimal number of pages
 * (a sign and leading blanks taken, past 2^64 its ULONG_MAX). A count
 * that is no power of two is rounded up to one (*rounded), where 0, and
 * a count past 2^63 (perf's roundup_pow_of_two shifts by 64 there, which
 * the CPU takes as 0), is 1 page. Where perf says "Invalid argument for
 * --mmap_pages/-m": -EINVAL for neither a size nor a number, -ERANGE for
 * above UINT_MAX pages. */
static int perf_pages(const char *arg, uint64_t *pages, bool *rounded)
{
	uint64_t v, ps = (uint64_t)sysconf(_SC_PAGESIZE);
	char *end;

	if (!prec_size__perf_tag(arg, size_tags, &v)) {
		v = v > UINT64_MAX - (ps - 1) ? 0 : (v + ps - 1) / ps;
	} else {
		v = strtoull(arg, &end, 10);
		if (*end)
			return -EINVAL;
	}
	*rounded = !v || (v & (v - 1));
	if (*rounded)
		v = !v || v > (1ull << 63) ? 1 : 1ull << (64 - __builtin_clzll(v - 1));
	if (v > UINT_MAX)
		return -ERANGE;
	*pages = v;
	return 0;
}

static int opt_dir(struct prec_record_opts *o, const char *arg)
{
	if (!*arg)
		return bad("-d", arg, "empty directory name");
	/* getopt gives -d the next word whatever it is: perf's own -d
	 * (--data) before another option, or a "--", would name a directory
	 * "-e" or "--" and take the option's value for the command. */
	if (arg[0] == '-')
		return bad("-d", arg, "a directory name starting with '-' (perf's -d is prec's --data; a directory so named: ./NAME)");
	o->dir = arg;
	o->dir_set = true;
	return 0;
}

/* -o as perf's: a file; the shards go to a directory beside it. */
static int opt_output(struct prec_record_opts *o, const char *arg)
{
	if (!*arg)
		return bad("-o", arg, "empty file name");
	o->output = arg;
	return 0;
}

/* perf's options for what prec's samples and files always carry. */
static int opt_always(struct prec_record_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	return 0;
}

static int opt_event(struct prec_record_opts *o, const char *arg)
{
	struct prec_event_spec *n;

	n = realloc(o->specs, (size_t)(o->nr_specs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	o->specs = n;
	n[o->nr_specs].text = strdup(arg);
	n[o->nr_specs].filter = NULL;
	n[o->nr_specs].exclude_self = false;
	n[o->nr_specs].pfm = false;
	if (!n[o->nr_specs].text)
		return -ENOMEM;
	o->nr_specs++;
	return 0;
}

/* perf's --pfm-events: libpfm4's names, in the -e order (perf keeps one
 * list of both). */
static int opt_pfm_events(struct prec_record_opts *o, const char *arg)
{
	int err = opt_event(o, arg);

	if (!err)
		o->specs[o->nr_specs - 1].pfm = true;
	return err;
}

static int opt_filter(struct prec_record_opts *o, const char *arg)
{
	struct prec_event_spec *sp;

	if (!o->nr_specs)
		return bad("--filter", arg, "must follow the -e tracepoint it applies to");
	sp = &o->specs[o->nr_specs - 1];
	free(sp->filter);
	sp->filter = strdup(arg);
	return sp->filter ? 0 : -ENOMEM;
}

/* --exclude-perf as perf: a filter on the tracepoints of the -e before
 * it (checked once they are parsed); prec's is every thread of its own. */
static int opt_exclude_perf(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	if (!o->nr_specs) {
		pr_err("option --exclude-perf: must follow the -e tracepoint it applies to");
		return -EINVAL;
	}
	o->specs[o->nr_specs - 1].exclude_self = true;
	return 0;
}

/* --switch-output-event, as perf: every one given is a side-band event. */
static int opt_switch_event(struct prec_record_opts *o, const char *arg)
{
	char *n;

	if (!*arg)
		return bad("--switch-output-event", arg, "empty event list");
	if (!o->switch_event)
		n = strdup(arg);
	else if (asprintf(&n, "%s,%s", o->switch_event, arg) < 0)
		n = NULL;
	if (!n)
		return -ENOMEM;
	free(o->switch_event);
	o->switch_event = n;
	return 0;
}

static int opt_proc_map_timeout(struct prec_record_opts *o, const char *arg)
{
	/* as perf's OPT_UINTEGER, a larger number in its 32 bits */
	if (perf_uint(arg, &o->proc_map_timeout_ms) < 0)
		return bad("--proc-map-timeout", arg, "expected milliseconds");
	return 0;
}

/* -G as perf takes it: names for the events given before it (checked
 * against them once the events are parsed, record/cgroup.c). */
static int opt_cgroup(struct prec_record_opts *o, const char *arg)
{
	struct prec_cgroup_spec *n;

	if (!o->nr_specs)
		return bad("-G", arg, "must define events before cgroups (give -e first, as perf)");
	n = realloc(o->cgroups, (size_t)(o->nr_cgroups + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	o->cgroups = n;
	n[o->nr_cgroups].names = strdup(arg);
	n[o->nr_cgroups].after_specs = o->nr_specs;
	if (!n[o->nr_cgroups].names)
		return -ENOMEM;
	o->nr_cgroups++;
	return 0;
}

static int max_sample_rate(uint64_t *v)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	unsigned long long r = 0;
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "%llu", &r);
	fclose(f);
	if (n != 1 || !r)
		return -EINVAL;
	*v = r;
	return 0;
}

static int opt_freq(struct prec_record_opts *o, const char *arg)
{
	uint64_t v = 0;

	/* as perf reads it (atoi into its unsigned rate): blanks and a sign,
	 * the leading decimal digits, the rest ignored (-F 010 is 10 Hz, -F
	 * 1.5 is 1, -F -5 above any maximum, so the maximum); max in any
	 * case */
	if (!strcasecmp(arg, "max")) {
		if (max_sample_rate(&v) < 0)
			return bad("-F", arg, "cannot read /proc/sys/kernel/perf_event_max_sample_rate");
	} else {
		v = (unsigned int)(int)strtol(arg, NULL, 10);
		if (!v)
			return bad("-F", arg, "expected a frequency in Hz (> 0) or 'max'");
		/* all 32 bits are perf's "no -F given": its default rate */
		if (v == UINT32_MAX)
			v = 0;
	}
	o->freq = v;
	o->freq_max = !strcasecmp(arg, "max");
	return 0;
}

static int opt_count(struct prec_record_opts *o, const char *arg)
{
	uint64_t v;

	/* as perf's OPT_U64: decimal (-c 010 is 10; 0x10 refused), blanks
	 * and a + before it; 0 (or '') as perf: no period, so the default
	 * frequency */
	if (perf_u64(arg, &v) < 0)
		return bad("-c", arg, "expected a sample period, a decimal number (0: the default frequency)");
	/* all 64 bits set (what a number past them reads as too) is perf's
	 * mark of no -c (its user_interval's default): none given, as perf
	 * takes it, not a period the kernel refuses */
	o->period = v == UINT64_MAX ? 0 : v;
	o->period_given = v != UINT64_MAX;
	return 0;
}

/* -g as perf's: call chains in the mode a --call-graph before it chose
 * (--call-graph dwarf -g is dwarf), else perf's config's
 * (call-graph.record-mode, options_perfconfig.c), else frame pointers.
 * The config's dwarf, unlike --call-graph's, leaves the data addresses
 * off, as perf's -g does. */
static int opt_g(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	if (o->callgraph != PREC_CG_NONE)
		return 0;
	o->callgraph = PREC_CG_FP;
	if (o->config_callgraph.mode != PREC_CG_NONE) {
		o->callgraph = o->config_callgraph.mode;
		o->stack_size = o->config_callgraph.stack_size;
		o->max_stack = o->config_callgraph.max_stack;
	}
	return 0;
}

/* --call-graph MODE[,ARG] read as perf reads it (callgraph_mode.h). */
static int opt_callgraph(struct prec_record_opts *o, const char *arg)
{
	struct prec_callgraph_mode m;
	const char *why;

	if (prec_callgraph_mode__parse(arg, &m, &why))
		return bad("--call-graph", arg, why);
	o->callgraph = m.mode;
	o->max_stack = m.max_stack;
	if (m.mode != PREC_CG_DWARF)
		return 0;
	/* As perf: dwarf turns on its data addresses (--data's), which
	 * a later --call-graph fp leaves on; --no-data turns them off. */
	o->data = true;
	o->stack_size = m.stack_size;
	return 0;
}

static int opt_cpu(struct prec_record_opts *o, const char *arg)
{
	int *online = NULL, n, nr_online;
	const char *rest;

	free(o->cpus);
	o->cpus = NULL;
	n = prec_cpu_list__parse_perf(arg, &o->cpus, &rest);
	if (n == -ENOMEM)
		return n;
	if (n <= 0)
		return bad("-C", arg, "expected a CPU list such as 0-3,6 (each CPU once)");
	if (rest)
		pr_warn("option -C '%s': '%s' ignored, as perf ignores it (its list ends at an item that is no number)",
			arg, rest);
	nr_online = prec_cpu_list__online(&online);
	for (int i = 0; i < n && nr_online > 0; i++) {
		bool found = false;

		for (int j = 0; j < nr_online; j++)
			found |= online[j] == o->cpus[i];
		if (!found) {
			pr_err("option -C '%s': CPU %d is not online", arg, o->cpus[i]);
			free(online);
			return -EINVAL;
		}
	}
	free(online);
	o->nr_cpus = n;
	return 0;
}

/* One process id of -p or -t as perf reads it (strtol, base 10: blanks
 * and a sign may come before the digits, nothing after). */
static int parse_pid_item(const char *s, pid_t *pid)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v <= 0 || v >= INT_MAX)
		return -EINVAL;
	*pid = (pid_t)v;
	return 0;
}

static int push_pid(pid_t **out, int *nr, pid_t pid)
{
	pid_t *n = realloc(*out, (size_t)(*nr + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	*out = n;
	n[(*nr)++] = pid;
	return 0;
}

/* The most a file:// list of -p or -t is read of (a line a task). */
#define PID_FILE_MAX (1u << 20)

/* -p file://PATH (-t's too), as perf's lists read it: an id a line; an
 * empty line is an empty item, refused. A last line without its newline
 * is taken whole (perf's reader drops its last character). */
static int parse_pid_file(const char *opt, const char *arg, const char *path,
			  pid_t **out, int *nr)
{
	char *text = NULL, *line, *next, why[PATH_MAX + 64];
	size_t cap = 0;
	ssize_t len = prec_file__read_text(path, &text, &cap, PID_FILE_MAX);
	int err = 0, no = 1;

	if (len < 0) {
		snprintf(why, sizeof(why), "%s: %s", path, strerror((int)-len));
		free(text);
		return bad(opt, arg, why);
	}
	for (line = text; *line && !err; line = next, no++) {
		pid_t pid;

		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = 0;
		if (parse_pid_item(line, &pid) < 0) {
			snprintf(why, sizeof(why), "%s line %d: expected a process id", path, no);
			err = bad(opt, arg, why);
		} else {
			err = push_pid(out, nr, pid);
		}
	}
	free(text);
	return err;
}

/* -p and -t: ids separated by ',', as perf's list: an empty item is
 * refused but for one after a last comma ("1," is pid 1); an item
 * file://PATH is the ids in PATH. */
static int parse_pids(const char *opt, const char *arg, pid_t **out, int *nr)
{
	char *copy = strdup(arg), *p, *next;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	for (p = copy; *p && !err; p = next) {
		pid_t pid;

		next = p + strcspn(p, ",");
		if (*next)
			*next++ = 0;
		if (!strncmp(p, "file://", 7))
			err = parse_pid_file(opt, arg, p + 7, out, nr);
		else if (parse_pid_item(p, &pid) < 0)
			err = bad(opt, arg, "expected a list of process ids");
		else
			err = push_pid(out, nr, pid);
	}
	if (!err && !*nr)
		err = bad(opt, arg, "expected a list of process ids");
	free(copy);
	return err;
}

/* Two ids in the order perf 6.1's list keeps them: as decimal strings
 * ("10" before "9"). */
static int cmp_id_text(const void *a, const void *b)
{
	char x[16], y[16];

	snprintf(x, sizeof(x), "%d", (int)*(const pid_t *)a);
	snprintf(y, sizeof(y), "%d", (int)*(const pid_t *)b);
	return strcmp(x, y);
}

/* -p and -t as perf 6.1 takes them: the last one given is the list (an
 * earlier one is dropped), its ids sorted as strings, a repeated id kept
 * (perf opens its events once per repeat, as prec does). */
static int set_pids(const char *opt, const char *arg, pid_t **out, int *nr)
{
	int err;

	free(*out);
	*out = NULL;
	*nr = 0;
	err = parse_pids(opt, arg, out, nr);
	if (!err)
		qsort(*out, (size_t)*nr, sizeof(**out), cmp_id_text);
	return err;
}

static int opt_pid(struct prec_record_opts *o, const char *arg)
{
	return set_pids("-p", arg, &o->pids, &o->nr_pids);
}

static int opt_tid(struct prec_record_opts *o, const char *arg)
{
	return set_pids("-t", arg, &o->tids, &o->nr_tids);
}

/* The ring part of -m; errors show the whole option argument, shown. */
static int parse_ring_size(struct prec_record_opts *o, const char *arg,
			   const char *shown)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE), pages;
	bool rounded;
	int err = perf_pages(arg, &pages, &rounded);

	if (err == -ERANGE)
		return bad("-m", shown, "more pages than perf's 4294967295 (rounded up to a power of two)");
	if (err)
		return bad_perf_size("-m", arg, shown);
	/* perf 6.1 keeps a ring's mask in an int: from 2G of data up, its
	 * rings map no data page and it records no sample (exit 0) */
	if (pages * ps > (uint64_t)INT_MAX + 1)
		return bad("-m", shown, "ring too large: 2G of data at most (perf 6.1 takes more but maps no data page then, and records no sample)");
	o->mmap_pages = (size_t)pages;
	o->mmap_set = true;
	o->mmap_rounded = rounded;
	return 0;
}

static const struct {
	const char *name;
	int id;
} clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI }, { "perf", PREC_CLOCK_PERF },
};

/* The clock's name as -k takes it, or its number, in buf. */
static const char *clock_label(int clockid, char *buf, size_t len)
{
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (clocks[i].id == clockid)
			return clocks[i].name;
	snprintf(buf, len, "%d", clockid);
	return buf;
}

static int opt_clock(struct prec_record_opts *o, const char *arg)
{
	struct timespec ts;
	const char *name = arg;
	uint64_t v;

	/* perf's "no setting it twice" (a --no-clockid between is fine) */
	if (o->clock_set)
		return bad("-k", arg, "a second clock, which perf refuses too (--no-clockid undoes the first)");
	o->clock_set = true;
	if (!strncasecmp(name, "CLOCK_", 6))
		name += 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (!strcasecmp(name, clocks[i].name)) {
			o->clockid = clocks[i].id;
			return 0;
		}
	}
	/* a number as perf reads it (sscanf's %d): blanks and a sign, then
	 * decimal digits, the rest ignored (-k 0x4 is 0, realtime); one the
	 * kernel has no clock for, perf fails on at its first open */
	errno = 0;
	name = arg + strspn(arg, " \t\n\v\f\r");
	name += *name == '+';
	v = isdigit((unsigned char)*name) ? strtoull(name, NULL, 10) : UINT64_MAX;
	if (errno || v > 64 || clock_getres((clockid_t)v, &ts))
		return bad("-k", arg, "expected monotonic, monotonic_raw, realtime, boottime, tai, perf or a clock number");
	o->clockid = (int)v;
	return 0;
}

static int opt_round(struct prec_record_opts *o, const char *arg)
{
	uint64_t v;

	if (parse_u64(arg, &v) < 0 || !v || v > 60000)
		return bad("--round-ms", arg, "expected milliseconds, 1..60000");
	o->round_ms = v;
	return 0;
}

static int opt_nocopy(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->copy = false;
	return 0;
}

static int opt_nodirect(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->direct_io = false;
	return 0;
}

/* 0 is prec's own: drainers under the fair scheduler (perf's default). */
static int opt_realtime(struct prec_record_opts *o, const char *arg)
{
	long long v;

	/* read as perf's OPT_INTEGER; what the kernel would refuse perf
	 * fails on when it sets it, prec at once */
	if (perf_int(arg, &v) < 0 || v < 0 || v > 99)
		return bad("-r", arg, "expected a SCHED_FIFO priority, 1..99, or 0 for none");
	o->rt_prio = (int)v;
	o->rt_prio_set = true;
	return 0;
}

/* lz4's own scale: HC levels run 1..12 (LZ4HC_CLEVEL_MAX); 0 is the fast
 * codec, which is what -z alone means. The level read as perf's
 * record__parse_comp_level reads it: strtol's number in C's bases (past a
 * long's range LONG_MAX or LONG_MIN) and whatever follows it ignored,
 * kept in perf's unsigned int: its low 32 bits (so -1 is above zstd's
 * highest, 2^32 + 5 is 5), 0 -z alone, above zstd's highest its
 * highest. */
static int opt_zlevel(struct prec_record_opts *o, const char *arg)
{
	uint32_t v = 0;

	if (arg)
		v = (uint32_t)(unsigned long)strtol(arg, NULL, 0);
	if (v > 22)
		v = 22;
	o->compress = true;
	o->compress_level = (int)v;
	o->compress_level_arg = arg;
	return 0;
}

/* Resolved now, in the single-threaded parser: the workload's child only
 * applies the ids (no NSS lookups after fork). */
static int opt_user(struct prec_record_opts *o, const char *arg)
{
	struct passwd *pw;
	uint64_t v;

	errno = 0;
	pw = getpwnam(arg);
	if (!pw && parse_u64(arg, &v) == 0 && v < UINT32_MAX)
		pw = getpwuid((uid_t)v);
	if (!pw)
		return bad("--user", arg, errno ? strerror(errno) : "no such user");
	if (geteuid() != 0 && pw->pw_uid != geteuid())
		return bad("--user", arg, "only root may run the command as another user");
	o->user = arg;
	o->user_uid = pw->pw_uid;
	o->user_gid = pw->pw_gid;
	return 0;
}

/* -m PAGES[,AUX] as perf takes it: ",AUX" alone sets only the AUX area. */
static int opt_mmap_aux(struct prec_record_opts *o, const char *arg)
{
	const char *comma = strchr(arg, ',');
	char data[64];
	uint64_t aux;
	bool rounded;

	/* perf's: an empty ring part sets nothing (-m '', -m ,AUX); an
	 * empty AUX part is strtoul's 0, one page (-m 1,) */
	if (!comma)
		return *arg ? parse_ring_size(o, arg, arg) : 0;
	switch (perf_pages(comma + 1, &aux, &rounded)) {
	case 0:
		break;
	case -ERANGE:
		return bad("-m", arg, "AUX area of more pages than perf's 4294967295 (rounded up to a power of two)");
	default:
		return bad_perf_size("-m", comma + 1, arg);
	}
	o->aux_bytes = (size_t)(aux * (uint64_t)sysconf(_SC_PAGESIZE));
	o->aux_rounded = rounded;
	if (comma == arg)
		return 0;
	if ((size_t)(comma - arg) >= sizeof(data))
		return bad("-m", arg, "ring size too long");
	memcpy(data, arg, (size_t)(comma - arg));
	data[comma - arg] = 0;
	return parse_ring_size(o, data, arg);
}

static int opt_aux_size(struct prec_record_opts *o, const char *arg)
{
	uint64_t aux;
	int err = prec_size__parse(arg, (size_t)sysconf(_SC_PAGESIZE), &aux);

	if (err == -EDOM || err == -EOPNOTSUPP)
		return bad_size("--aux-size", arg, err, "K, M or G");
	if (err)
		return bad("--aux-size", arg, "expected pages or a size such as 4M");
	o->aux_bytes = (size_t)aux;
	o->aux_rounded = false; /* prec's own option rounds without a word */
	return 0;
}

/* --max-size: bytes as perf's parse_tag_value reads them (B, K, M or G;
 * 0B, as perf's, no limit). */
static int opt_max_size(struct prec_record_opts *o, const char *arg)
{
	if (prec_size__perf_tag(arg, size_tags, &o->max_size) < 0)
		return bad_perf_size("--max-size", arg, arg);
	return 0;
}

/* --max-disk: as --max-size's sizes; 0 is no budget, refused. The floor a
 * segment needs is checked once the CPUs are known (cmd_record.c). */
static int opt_max_disk(struct prec_record_opts *o, const char *arg)
{
	int err = prec_size__bytes(arg, PREC_SIZE_BYTES, 1, &o->max_disk);

	if (err == -EDOM || err == -EOPNOTSUPP)
		return bad_size("--max-disk", arg, err, "B, K, M or G");
	if (err == -ERANGE)
		return bad("--max-disk", arg, "too large");
	if (err || !o->max_disk)
		return bad("--max-disk", arg, "expected a size such as 500M or 2G");
	o->max_disk_arg = arg;
	return 0;
}

/* --max-staging: 0 is allowed (the staging then never grows). */
static int opt_max_staging(struct prec_record_opts *o, const char *arg)
{
	int err = 0;

	o->max_staging = 0;
	if (strcmp(arg, "0"))
		err = prec_size__bytes(arg, PREC_SIZE_BYTES, 1, &o->max_staging);
	if (err == -EDOM || err == -EOPNOTSUPP)
		return bad_size("--max-staging", arg, err, "B, K, M or G");
	if (err == -ERANGE || o->max_staging > ((uint64_t)1 << 40))
		return bad("--max-staging", arg, "too large");
	if (err)
		return bad("--max-staging", arg, "expected a size such as 64M, or 0");
	o->max_staging_set = true;
	return 0;
}

static int opt_control(struct prec_record_opts *o, const char *arg)
{
	if (prec_control__check_spec(arg) < 0)
		return bad("--control", arg, "expected fifo:CTL[,ACK] or fd:CTL[,ACK]");
	o->control = arg;
	return 0;
}

/* --switch-output[=signal|SIZE|TIME] as perf takes it: SIZE with a unit
 * (B, K, M, G), TIME with s, m, h or d ("5m" is minutes, "5M" bytes). */
static int opt_switch_output(struct prec_record_opts *o, const char *arg)
{
	/* perf takes 0B and 0s and then never switches, where prec's
	 * switch without a size or time is the signal's */
	static const char zero[] = "a size or time of 0 never switches (perf's takes it so); give signal, or more than 0";
	uint64_t v;

	o->switch_output = true;
	o->switch_ms = o->switch_bytes = 0; /* the last one given counts */
	if (!arg || !strcmp(arg, "signal"))
		return 0;
	/* as perf's switch_output_setup: perf's size tags, then its time
	 * tags, each as parse_tag_value reads them ("5m" minutes, "5M"
	 * bytes, "1M5" 1M) */
	if (!prec_size__perf_tag(arg, size_tags, &v)) {
		if (!v)
			return bad("--switch-output", arg, zero);
		o->switch_bytes = v;
		return 0;
	}
	if (!prec_size__perf_tag(arg, time_tags, &v)) {
		if (!v)
			return bad("--switch-output", arg, zero);
		/* kept in ns (switch_trigger.c): 584 years at most */
		if (v > UINT64_MAX / 1000000000)
			return bad("--switch-output", arg, "a time too long (at most 584 years)");
		o->switch_ms = v * 1000;
		return 0;
	}
	return bad("--switch-output", arg,
		   "expected signal, a size such as 100M (B, K, M, G) or a time such as 30s (s, m, h, d)");
}

static int opt_switch_max_files(struct prec_record_opts *o, const char *arg)
{
	long long v;

	/* 0 keeps every epoch, as perf's; read as its OPT_INTEGER, any
	 * int it keeps (its calloc refuses a negative one) */
	if (perf_int(arg, &v) < 0 || v < 0)
		return bad("--switch-max-files", arg, "expected a number of epochs to keep, or 0 for all");
	o->switch_max_files = (uint32_t)v;
	return 0;
}

/* -D: milliseconds >= 0, or -1 (start disabled). 0 or -EINVAL. */
/* -D MS as perf's str_to_delay reads it: strtol's number (blanks and a
 * sign before it), nothing after, -1..INT_MAX. 0 is no delay for perf: it
 * reads the text as ranges then, which refuses it. */
static int parse_delay(const char *arg, int64_t *ms)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < -1 || v > INT_MAX || !v)
		return -EINVAL;
	*ms = v;
	return 0;
}

/* One number of a -D range, as perf's sscanf("%u") into an int: blanks,
 * a sign or none, decimal digits; strtoul's unsigned long (a '-' negates
 * it, past its bits all set) kept in 32 bits, as the int perf keeps (so
 * -5 and 4294967291 are -5). NULL when there is none. */
static const char *range_ms(const char *p, int32_t *v)
{
	unsigned long x;
	char *end;

	while (isspace((unsigned char)*p))
		p++;
	if (!isdigit((unsigned char)p[*p == '+' || *p == '-']))
		return NULL;
	x = strtoul(p, &end, 10);
	*v = (int32_t)(uint32_t)x;
	return end;
}

static const char *blanks(const char *p)
{
	while (isspace((unsigned char)*p))
		p++;
	return p;
}

/* perf's -D A-B,C-D... (its "%u - %u" then " , %u - %u" per range, blanks
 * around each part, ints): ms after the start, each range starting after
 * the end of the one before. A first start below 0 is perf's initial
 * delay below 0: the events start disabled (until 'enable', as -D -1)
 * and perf's timer runs its edges from 0 to B - A, C - A, ...: so kept,
 * -A added to each (the first 0, delay_ms -1). */
static int parse_delay_ranges(struct prec_record_opts *o, const char *arg)
{
	size_t n = 0, cap = 0;
	int32_t *ms = NULL, *t;
	uint64_t *e;

	for (const char *p = arg; *p;) {
		int32_t a, b;

		if (n) {
			p = blanks(p);
			if (*p++ != ',')
				goto bad_range;
		}
		p = range_ms(p, &a);
		if (!p)
			goto bad_range;
		p = blanks(p);
		if (*p++ != '-')
			goto bad_range;
		p = range_ms(p, &b);
		if (!p || a >= b || (n && a <= ms[n - 1]))
			goto bad_range;
		p = blanks(p);
		if (n + 2 > cap) {
			cap = cap ? 2 * cap : 8;
			t = realloc(ms, cap * sizeof(*ms));
			if (!t) {
				free(ms);
				return -ENOMEM;
			}
			ms = t;
		}
		ms[n++] = a;
		ms[n++] = b;
	}
	if (!n)
		goto bad_range;
	e = calloc(n, sizeof(*e));
	if (!e) {
		free(ms);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		e[i] = (uint64_t)((int64_t)ms[i] - (ms[0] < 0 ? ms[0] : 0));
	free(o->delay_edges);
	o->delay_edges = e;
	o->nr_delay_edges = (int)n;
	o->delay_ms = ms[0] < 0 ? -1 : ms[0];
	free(ms);
	return 0;
bad_range:
	free(ms);
	return bad("-D", arg, "expected milliseconds, -1 to start disabled, or ascending ranges START-END,... in ms");
}

/* As perf's: a number that is a delay, else ranges. */
static int opt_delay(struct prec_record_opts *o, const char *arg)
{
	int64_t ms;

	if (parse_delay(arg, &ms) < 0)
		return parse_delay_ranges(o, arg);
	o->delay_ms = ms;
	free(o->delay_edges);
	o->delay_edges = NULL;
	o->nr_delay_edges = 0;
	return 0;
}

static int opt_verbose(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->verbose++;
	o->quiet = false;
	return 0;
}

static int opt_quiet(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->quiet = true;
	o->verbose = 0;
	return 0;
}

static const char *const affinity_names[] = {
	[PREC_AFFINITY_AUTO] = "auto", [PREC_AFFINITY_NONE] = "none",
	[PREC_AFFINITY_CPU] = "cpu", [PREC_AFFINITY_PACKAGE] = "package",
	[PREC_AFFINITY_OTHERS] = "others", [PREC_AFFINITY_NODE] = "node",
};

const char *prec_affinity__name(enum prec_affinity a)
{
	return affinity_names[a];
}

/* As perf's: a name in any case; another (perf knows node and cpu
 * alone) keeps the default, said once. */
static int opt_affinity(struct prec_record_opts *o, const char *arg)
{
	for (size_t i = 0; i < sizeof(affinity_names) / sizeof(affinity_names[0]); i++) {
		if (!strcasecmp(arg, affinity_names[i])) {
			o->affinity = (enum prec_affinity)i;
			return 0;
		}
	}
	o->affinity = PREC_AFFINITY_AUTO;
	pr_warn("option --affinity '%s': not auto, cpu, node, others, package or none: auto kept, as perf keeps its default",
		arg);
	return 0;
}

/* perf's -j: its names (branch_modes.c), once with -b */
static int opt_branch_filter(struct prec_record_opts *o, const char *arg)
{
	uint64_t mode = 0;
	const char *word;
	size_t len;

	if (o->sample.branch_type)
		return bad("-j", arg, "branch sampling given twice (-b and -j are one setting)");
	if (prec_branch_modes__bits(arg, &mode, &word, &len)) {
		pr_err("option -j '%s': unknown branch filter '%.*s' (perf's: any, any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type, stack, priv, u, k, hv)",
		       arg, (int)len, word);
		return -EINVAL;
	}
	o->sample.branch_type = prec_branch_modes__settle(mode);
	return 0;
}

static int opt_branch_any(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	if (o->sample.branch_type)
		return bad("-b", "", "branch sampling given twice (-b and -j are one setting)");
	o->sample.branch_type = PERF_SAMPLE_BRANCH_ANY;
	return 0;
}

static int regs_opt(const char *opt, const char *arg, bool user, uint64_t *mask)
{
	/* perf's '?': the list on stderr, and perf's exit status for it;
	 * an empty list (--user-regs=) names no register, refused as perf */
	int err;

	/* perf's "cannot set it twice" (prec's --no- form, unlike perf's,
	 * undoes the first) */
	if (*mask)
		return bad(opt, arg ? arg : "", "registers given twice, which perf refuses too");
	err = arg && !*arg ? -EINVAL : prec_sample_regs__parse(arg, user, mask, stderr);
	if (err < 0)
		return bad(opt, arg ? arg : "", "unknown register name (use '?' for the list)");
	return err ? PREC_RECORD_OPTS_LISTED : 0;
}

/* -S and --aux-sample: perf's grammar (aux_mode.c). */
static int opt_snapshot(struct prec_record_opts *o, const char *arg)
{
	o->aux_snapshot = true;
	if (prec_aux_mode__parse_snapshot(arg, &o->aux_snapshot_on_exit, &o->aux_snapshot_size))
		return bad("-S/--snapshot", arg, "expected [e][SIZE]: e for a snapshot at the exit too, SIZE in bytes (4096, 0x100000)");
	return 0;
}

static int opt_aux_sample(struct prec_record_opts *o, const char *arg)
{
	o->aux_sample = true;
	if (prec_aux_mode__parse_sample(arg, &o->aux_sample_size))
		return bad("--aux-sample", arg, "expected a size in bytes (4096, 0x2000)");
	return 0;
}

static int opt_intr_regs(struct prec_record_opts *o, const char *arg)
{
	return regs_opt("-I", arg, false, &o->sample.regs_intr);
}

static int opt_user_regs(struct prec_record_opts *o, const char *arg)
{
	return regs_opt("--user-regs", arg, true, &o->sample.regs_user);
}

/* -u: as perf 6.1, the user's processes that exist at the start (and the
 * children they make then), found in /proc. */
static int opt_uid(struct prec_record_opts *o, const char *arg)
{
	struct passwd *pw;
	uint64_t v;

	errno = 0;
	pw = getpwnam(arg);
	if (pw) {
		o->uid = pw->pw_uid;
	} else if (parse_u64(arg, &v) == 0 && v < UINT32_MAX) {
		o->uid = (uid_t)v;
	} else {
		return bad("-u", arg, errno ? strerror(errno) : "no such user");
	}
	o->uid_set = true;
	return 0;
}

/* perf's --synth: what the start's /proc read synthesizes. As perf reads
 * the list, in order and in any case: no (or none) and all end it
 * whatever follows, task, mmap and cgroup add up, anything else (an empty
 * item, '' too) is refused. */
static int opt_synth(struct prec_record_opts *o, const char *arg)
{
	bool tasks = false, maps = false;

	for (const char *p = arg;; p++) {
		size_t len = strcspn(p, ",");

		if ((len == 2 && !strncasecmp(p, "no", 2)) ||
		    (len == 4 && !strncasecmp(p, "none", 4)) ||
		    (len == 3 && !strncasecmp(p, "all", 3))) {
			tasks = maps = len == 3;
			break;
		}
		if (len == 4 && !strncasecmp(p, "task", 4))
			tasks = true;
		else if (len == 4 && !strncasecmp(p, "mmap", 4))
			tasks = maps = true;
		else if (len != 6 || strncasecmp(p, "cgroup", 6))
			return bad("--synth", arg, "expected a list of task, mmap or cgroup, or no, none or all");
		p += len;
		if (!*p)
			break;
	}
	o->synth_tasks = tasks;
	o->synth_maps = maps;
	return 0;
}

/* perf's options for the writer it has and prec has not: its threads,
 * aio blocks and flush sizes. prec's per-CPU drainers and io_uring do
 * their work; the options are taken so a perf command line runs, and
 * said once (prec_record_opts__parse). */
static int opt_replaced(struct prec_record_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	return 0;
}

/* perf's writer and synthesis options whose values perf checks before it
 * records: taken and noted as opt_replaced, refused where perf refuses
 * them. */

/* --aio[=N]: perf's strtol(N, base 0), whatever follows it, kept in its
 * int; below 0 (-1, 2147483648) its AIO buffers fail to map ("failed to
 * mmap with 12"), so refused; else taken and noted. */
static int opt_aio(struct prec_record_opts *o, const char *arg)
{
	(void)o;
	if (arg && (int32_t)(uint32_t)strtol(arg, NULL, 0) < 0)
		return bad("--aio", arg, "a count of AIO blocks below 0 in perf's int: its buffers fail to map");
	return 0;
}

/* --num-thread-synthesize, perf's OPT_UINTEGER: no '-' anywhere, then
 * strtol's decimal number and nothing after it ('' is 0). */
static int opt_synth_threads(struct prec_record_opts *o, const char *arg)
{
	char *end;

	(void)o;
	if (strchr(arg, '-'))
		return bad("--num-thread-synthesize", arg, "expects an unsigned numerical value");
	(void)strtol(arg, &end, 10);
	if (*end)
		return bad("--num-thread-synthesize", arg, "expects a numerical value");
	return 0;
}

/* --vmlinux: perf refuses a file it cannot read (its "Invalid file"). */
static int opt_vmlinux(struct prec_record_opts *o, const char *arg)
{
	(void)o;
	if (access(arg, R_OK))
		return bad("--vmlinux", arg, errno == ENOENT ? "Invalid file: no such file" :
			   "Invalid file: cannot be read");
	return 0;
}

/* --threads[=SPEC], checked once -C is known (threads_spec.c). */
static int opt_threads(struct prec_record_opts *o, const char *arg)
{
	o->threads_set = true;
	o->threads_spec = arg;
	return 0;
}

static bool replaced(int (*fn)(struct prec_record_opts *, const char *))
{
	return fn == opt_replaced || fn == opt_synth_threads || fn == opt_vmlinux ||
	       fn == opt_threads || fn == opt_aio;
}

static int opt_help(struct prec_record_opts *o, const char *arg)
{
	(void)o;
	(void)arg;
	return PREC_RECORD_OPTS_HELP;
}

static void defaults(struct prec_record_opts *o)
{
	long ps = sysconf(_SC_PAGESIZE);

	memset(o, 0, sizeof(*o));
	o->dir = "prec.data";
	o->mmap_pages = ps > 0 && (size_t)ps < PREC_RECORD_DEFAULT_RING ?
			PREC_RECORD_DEFAULT_RING / (size_t)ps : 1;
	o->clockid = CLOCK_MONOTONIC;
	o->round_ms = 100;
	o->affinity = PREC_AFFINITY_AUTO;
	o->rt_prio = -1;
	o->copy = true;
	o->direct_io = true;
	o->stack_size = PREC_RECORD_DEFAULT_STACK;
	o->synth_tasks = o->synth_maps = true;
	o->proc_map_timeout_ms = PREC_RECORD_DEFAULT_PROC_MAP_TIMEOUT_MS;
}

/* The negations (struct opt's unset): each puts back the default of
 * defaults() or, for an integer perf negates to 0, perf's 0. */

static int unset_dir(struct prec_record_opts *o, const char *arg)
{
	struct prec_record_opts def;

	(void)arg;
	defaults(&def);
	o->dir = def.dir;
	o->dir_set = false;
	return 0;
}

static int unset_output(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->output = NULL;
	return 0;
}

/* As --exclude-perf: of the -e before it (perf 6.1 takes the negation
 * as the option itself). */
static int unset_exclude_perf(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	if (!o->nr_specs) {
		pr_err("option --no-exclude-perf: must follow the -e tracepoint it applies to");
		return -EINVAL;
	}
	o->specs[o->nr_specs - 1].exclude_self = false;
	return 0;
}

static int unset_count(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->period = 0;
	o->period_given = true; /* perf's OPT_U64 negated is 0, given */
	return 0;
}

/* perf's --no-period drops PERIOD from every sample; prec's keep it where
 * the period varies (a frequency, a tracepoint's hits): said once. */
static int unset_period(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->sample_period = false;
	o->kept_period = true;
	return 0;
}

/* perf's --no-timestamp drops TIME; prec's merge orders by it: said once. */
static int unset_timestamp(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->kept_time = true;
	return 0;
}

static int unset_callgraph(struct prec_record_opts *o, const char *arg)
{
	struct prec_record_opts def;

	(void)arg;
	defaults(&def);
	o->callgraph = def.callgraph;
	o->stack_size = def.stack_size;
	o->max_stack = def.max_stack;
	/* as perf's: the config's mode goes too (a -g after is fp) */
	o->config_callgraph.mode = PREC_CG_NONE;
	return 0;
}

/* -b and -j are one setting, as in perf */
static int unset_branch(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->sample.branch_type = 0;
	return 0;
}

static int unset_intr_regs(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->sample.regs_intr = 0;
	return 0;
}

/* What -g and --call-graph add is added once the parse ends. */
static int unset_user_regs(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->sample.regs_user = 0;
	return 0;
}

static int unset_cpu(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	free(o->cpus);
	o->cpus = NULL;
	o->nr_cpus = 0;
	return 0;
}

static int unset_pid(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	free(o->pids);
	o->pids = NULL;
	o->nr_pids = 0;
	return 0;
}

static int unset_tid(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	free(o->tids);
	o->tids = NULL;
	o->nr_tids = 0;
	return 0;
}

static int unset_uid(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->uid = 0;
	o->uid_set = false;
	return 0;
}

static int unset_max_size(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->max_size = 0;
	return 0;
}

static int unset_max_disk(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->max_disk = 0;
	o->max_disk_arg = NULL;
	return 0;
}

static int unset_clock(struct prec_record_opts *o, const char *arg)
{
	struct prec_record_opts def;

	(void)arg;
	defaults(&def);
	o->clockid = def.clockid;
	o->clock_set = false;
	return 0;
}

static int unset_round(struct prec_record_opts *o, const char *arg)
{
	struct prec_record_opts def;

	(void)arg;
	defaults(&def);
	o->round_ms = def.round_ms;
	return 0;
}

static int unset_nocopy(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->copy = true;
	return 0;
}

static int unset_nodirect(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->direct_io = true;
	return 0;
}

static int unset_max_staging(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->max_staging = 0;
	o->max_staging_set = false;
	return 0;
}

/* perf's --no-realtime is priority 0, which both read as no SCHED_FIFO. */
static int unset_realtime(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->rt_prio = 0;
	o->rt_prio_set = true;
	return 0;
}

static int unset_affinity(struct prec_record_opts *o, const char *arg)
{
	struct prec_record_opts def;

	(void)arg;
	defaults(&def);
	o->affinity = def.affinity;
	return 0;
}

/* --compress and -z are one setting. */
static int unset_compress(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->compress = false;
	o->compress_level = 0;
	o->compress_level_arg = NULL;
	return 0;
}

static int unset_user(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->user = NULL;
	o->user_uid = 0;
	o->user_gid = 0;
	return 0;
}

static int unset_aux_size(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->aux_bytes = 0;
	o->aux_rounded = false;
	return 0;
}

/* perf's --no-proc-map-timeout is 0 ms, not its default. */
static int unset_proc_map_timeout(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->proc_map_timeout_ms = 0;
	return 0;
}

static int unset_snapshot(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->aux_snapshot = o->aux_snapshot_on_exit = false;
	o->aux_snapshot_size = 0;
	return 0;
}

static int unset_aux_sample(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->aux_sample = false;
	o->aux_sample_size = 0;
	return 0;
}

static int unset_switch_max_files(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->switch_max_files = 0;
	return 0;
}

static int unset_delay(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->delay_ms = 0;
	free(o->delay_edges);
	o->delay_edges = NULL;
	o->nr_delay_edges = 0;
	return 0;
}

static int unset_verbose(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->verbose = 0;
	return 0;
}

static int unset_quiet(struct prec_record_opts *o, const char *arg)
{
	(void)arg;
	o->quiet = false;
	return 0;
}

static const struct opt table[] = {
	{ "dir", 'd', "DIR", opt_dir, "keep the recording in DIR (prec merge, info, dump, follow read it); without -d or -o, -o perf.data (-o - when stdout is a pipe, as perf)", 0, unset_dir },
	{ "output", 'o', "FILE", opt_output, "as perf: a perf.data FILE, merged from shards recorded beside it (FILE.prec) when the recording ends; - streams perf's pipe format to stdout while recording", 0, unset_output },
	{ "keep-shards", 0, NULL, NULL, "with -o: keep FILE.prec, the recording FILE was merged from", FLAG(keep_shards), NULL },
	{ "timestamp-filename", 0, NULL, NULL, "with -o: FILE gets the time of the end appended (FILE.YYYYMMDDhhmmssmmm), as perf", FLAG(timestamp_filename), NULL },
	{ "event", 'e', "LIST", opt_event, "events in perf's grammar: names (cpu-clock, cycles, L1-dcache-load-misses ...), rNNN, mem:ADDR[/LEN][:rwx], sys:tracepoint (or sys:glob*), pmu/t=v/, pmu/alias/, {a,b} groups; perf's modifiers :u :k :h :G :H :I :p :P :S :D :e :W; terms on any: name/period=N,freq=N,call-graph=fp,overwrite,.../ (docs/events.md)", 0, NULL },
	{ "pfm-events", 0, "EVENTS", opt_pfm_events, "events by libpfm4's names (PMU::EVENT:UMASK:MOD=V, as perf), comma separated, {a,b} a group (docs/events.md)", 0, NULL },
	{ "filter", 0, "FILTER", opt_filter, "tracepoint filter for every event of the preceding -e", 0, NULL },
	{ "exclude-perf", 0, NULL, opt_exclude_perf, "the tracepoints of the preceding -e do not count prec's own threads (a filter on common_pid, as perf's on its own)", 0, unset_exclude_perf },
	{ "group", 0, NULL, NULL, "put every event of the -e options in one group, led by the first (as perf; {a,b} groups some)", FLAG(group), NULL },
	{ "freq", 'F', "HZ", opt_freq, "sampling frequency (default 4000; 'max'); tracepoints without -F/-c: every hit", 0, NULL },
	{ "count", 'c', "N", opt_count, "sample period instead of a frequency (0: none, as perf)", 0, unset_count },
	{ "period", 'P', NULL, NULL, "record each sample's period (always so with -F); with -c a software event is sampled at every hit, as perf", FLAG(sample_period), unset_period },
	{ NULL, 'g', NULL, opt_g, "frame-pointer call chains", 0, NULL },
	{ "call-graph", 0, "fp[,frames]|dwarf[,size]|lbr", opt_callgraph, "call chains (fp,N: at most N frames when below kernel.perf_event_max_stack; dwarf: user regs + stack, default 8192 bytes; lbr: the PMU's call stack)", 0, unset_callgraph },
	{ "kernel-callchains", 0, NULL, NULL, "call chains of the kernel only (as perf)", FLAG(sample.kernel_callchains), NULL },
	{ "user-callchains", 0, NULL, NULL, "call chains of user space only (as perf)", FLAG(sample.user_callchains), NULL },
	{ "branch-any", 'b', NULL, opt_branch_any, "sample any taken branches (branch stack, as perf)", 0, unset_branch },
	{ "branch-filter", 'j', "MODES", opt_branch_filter, "branch stack filter: any, any_call, any_ret, ind_call, ind_jmp, call, cond, abort_tx, in_tx, no_tx, save_type, stack, priv, u, k, hv", 0, unset_branch },
	{ "intr-regs", 'I', "[=REGS]", opt_intr_regs, "sample these machine registers at the interrupt (default all; '?' lists them)", 0, unset_intr_regs },
	{ "user-regs", 0, "[=REGS]", opt_user_regs, "sample these user-space registers (default all; '?' lists them)", 0, unset_user_regs },
	{ "weight", 'W', NULL, NULL, "samples carry a weight (as perf: WEIGHT_STRUCT on x86, WEIGHT elsewhere; on events that give one)", FLAG(sample.weight), NULL },
	{ "transaction", 0, NULL, NULL, "samples carry transaction flags", FLAG(sample.transaction), NULL },
	{ "phys-data", 0, NULL, NULL, "samples carry the physical data address", FLAG(sample.phys_data), NULL },
	{ "data-page-size", 0, NULL, NULL, "samples carry the data address's page size", FLAG(sample.data_page_size), NULL },
	{ "code-page-size", 0, NULL, NULL, "samples carry the code address's page size", FLAG(sample.code_page_size), NULL },
	{ "raw-samples", 'R', NULL, NULL, "samples carry raw data (and the CPU), as perf -R", FLAG(sample.raw), NULL },
	{ "no-samples", 'n', NULL, NULL, "count, do not sample (the side band is recorded)", FLAG(sample.no_samples), NULL },
	{ "no-buffering", 0, NULL, NULL, "a wakeup per record rather than per quarter ring", FLAG(sample.no_buffering), NULL },
	{ "running-time", 0, NULL, NULL, "counts read carry their enabled and running times", FLAG(sample.running_time), NULL },
	{ "stat", 's', NULL, NULL, "per-thread counts: each exiting child's in a READ record", FLAG(sample.inherit_stat), NULL },
	{ "strict-freq", 0, NULL, NULL, "fail when -F exceeds the kernel's maximum rate instead of lowering it", FLAG(strict_freq), NULL },
	{ "timestamp", 'T', NULL, opt_always, "samples carry their time (always so in prec)", 0, unset_timestamp },
	{ "sample-cpu", 0, NULL, opt_always, "samples carry their CPU (always so in prec)", 0, NULL },
	{ "sample-identifier", 0, NULL, opt_always, "samples carry their id first (always so in prec)", 0, NULL },
	{ "timestamp-boundary", 0, NULL, opt_always, "the first and last sample times in the header (always so in prec merge)", 0, NULL },
	{ "buildid-all", 0, NULL, opt_always, "build-ids of every mapped file (always so in prec)", 0, NULL },
	{ "all-cpus", 'a', NULL, NULL, "every CPU (default without a command or -p/-t)", FLAG(all_cpus), NULL },
	{ "cpu", 'C', "LIST", opt_cpu, "only these CPUs, e.g. 0-3,6", 0, unset_cpu },
	{ "cgroup", 'G', "NAME,...", opt_cgroup, "the events before it count only in these cgroups (paths below the cgroup mount), one per event as perf; needs -a or -C", 0, NULL },
	{ "all-cgroups", 0, NULL, NULL, "samples carry their cgroup; CGROUP records name every cgroup (perf report --sort cgroup)", FLAG(all_cgroups), NULL },
	{ "data", 0, NULL, NULL, "samples carry their data address (PERF_SAMPLE_ADDR: perf's -d, perf script -F addr)", FLAG(data), NULL },
	{ "pid", 'p', "PID,...", opt_pid, "existing processes (all their threads)", 0, unset_pid },
	{ "uid", 'u', "USER", opt_uid, "the user's processes at the start (as perf 6.1)", 0, unset_uid },
	{ "tid", 't', "TID,...", opt_tid, "existing threads", 0, unset_tid },
	{ "no-inherit", 'i', NULL, NULL, "child tasks (of the command or of -p's processes) are not recorded", FLAG(no_inherit), NULL },
	{ "off-cpu", 0, NULL, NULL, "perf's offcpu-time event: each sleep (S or D) of the target's tasks as a sample, its period the ns off the CPU, its user call chain where it slept (from sched:sched_switch, no BPF; needs root or CAP_PERFMON)", FLAG(off_cpu), NULL },
	{ "switch-events", 0, NULL, NULL, "record context switches (PERF_RECORD_SWITCH, as perf)", FLAG(switch_events), NULL },
	{ "namespaces", 0, NULL, NULL, "record namespace changes (PERF_RECORD_NAMESPACES, as perf)", FLAG(namespaces), NULL },
	{ "synth", 0, "no|all|task|mmap|cgroup", opt_synth, "what the /proc read at the start gives of existing tasks (default all)", 0, NULL },
	{ "dry-run", 0, NULL, NULL, "parse the options, build the events' attrs (-vv prints them), exit", FLAG(dry_run), NULL },
	{ "aio", 0, "[=N]", opt_aio, "perf's writer; prec's drainers write with io_uring (taken, noted)", 0, NULL },
	{ "threads", 0, "[=SPEC]", opt_threads, "perf's writer threads; prec has one drainer per CPU (taken, noted)", 0, NULL },
	{ "mmap-flush", 0, "N", opt_replaced, "perf's writer; prec drains by rounds and watermarks (taken, noted)", 0, NULL },
	{ "num-thread-synthesize", 0, "N", opt_synth_threads, "perf's synthesis threads (taken, noted)", 0, NULL },
	{ "per-thread", 0, NULL, NULL, "as perf: child tasks are not recorded (perf's per-thread rings cannot follow them, its events have no inherit; with -a or -C they keep it); prec's rings stay per CPU", FLAG(per_thread), NULL },
	{ "vmlinux", 0, "PATH", opt_vmlinux, "perf's kernel image for kcore; prec merge's [kernel.kallsyms] map serves (taken, noted)", 0, NULL },
	{ "debuginfod", 0, "[=URLS]", opt_replaced, "perf's debuginfod cache fill (taken, noted)", 0, NULL },
	{ "clang-path", 0, "PATH", opt_replaced, "perf's BPF scriptlets (taken, noted)", 0, NULL },
	{ "clang-opt", 0, "OPTS", opt_replaced, "perf's BPF scriptlets (taken, noted)", 0, NULL },
	{ "no-buildid", 'B', NULL, NULL, "no build-id table in the recording (nor in the perf.data merged from it), as perf -B", FLAG(no_buildid), NULL },
	{ "no-buildid-cache", 'N', NULL, NULL, "do not fill perf's build-id cache (~/.debug) at the end, as perf -N", FLAG(no_buildid_cache), NULL },
	{ "buildid-mmap", 0, NULL, NULL, "the kernel's build-ids in MMAP2 records (attr.build_id, as perf); off by default: kernels 5.12 to at least 6.18 then put a bogus build-id flag on other sessions' MMAP2s, which crashes a perf record beside prec", FLAG(buildid_mmap), NULL },
	{ "no-bpf-event", 0, NULL, NULL, "no BPF program load/unload records (BPF_EVENT) nor the programs' info; their symbols (KSYMBOL) stay, as perf", FLAG(no_bpf_event), NULL },
	{ "all-user", 0, NULL, NULL, "every event counts in user space only (as :u on each)", FLAG(all_user), NULL },
	{ "all-kernel", 0, NULL, NULL, "every event counts in the kernel only (as :k on each)", FLAG(all_kernel), NULL },
	{ "max-size", 0, "SIZE", opt_max_size, "stop once this much is recorded, e.g. 500M (as perf; stops the command)", 0, unset_max_size },
	{ "max-disk", 0, "SIZE", opt_max_disk, "disk flight recorder: hold at most SIZE on disk, the oldest chunks dropped first (merge starts where every CPU has data)", 0, unset_max_disk },
	{ "mmap-pages", 'm', "PAGES|SIZE", opt_mmap_aux, "per-CPU ring[,AUX area]: pages (rounded up to a power of two, as perf) or 512K, 4M (default 1M)", 0, NULL },
	{ "clockid", 'k', "CLOCK", opt_clock, "monotonic (default), monotonic_raw, realtime, boottime, tai, N, or perf (perf's own; intel_pt's)", 0, unset_clock },
	{ "round-ms", 0, "MS", opt_round, "longest round before an idle CPU writes a marker (default 100)", 0, unset_round },
	{ "force", 'f', NULL, NULL, "replace an existing directory", FLAG(force), NULL },
	{ "copy", 0, NULL, NULL, "drainers copy ring data out, then write it (default)", FLAG(copy), NULL },
	{ "no-copy", 0, NULL, opt_nocopy, "drainers write straight from the ring (less CPU, holds the ring until written)", 0, unset_nocopy },
	{ "no-direct-io", 0, NULL, opt_nodirect, "copy mode writes through the page cache, not O_DIRECT (more CPU per byte)", 0, unset_nodirect },
	{ "max-staging", 0, "SIZE", opt_max_staging, "O_DIRECT staging per CPU may grow to SIZE while the disk stalls (default a CPU's share of 1/16 of memory, at most 1G; 0: never)", 0, unset_max_staging },
	{ "realtime", 'r', "PRIO", opt_realtime, "drainer threads run SCHED_FIFO at PRIO (as perf record -r); default 1 where allowed, 0 = fair scheduler", 0, unset_realtime },
	{ "affinity", 0, "auto|cpu|node|others|package|none", opt_affinity, "drainer CPUs: auto (default: the ring's CPU for SCHED_FIFO drainers, else others), the ring's CPU, its NUMA node (as perf), its package less that CPU, the whole package, or anywhere", 0, unset_affinity },
	{ "compress", 0, NULL, NULL, "lz4-compress each chunk (implies --copy); with -o FILE, FILE is zstd-compressed too (as perf -z)", FLAG(compress), unset_compress },
	{ "compression-level", 'z', "[=N]", opt_zlevel, "shards: 0 = lz4 fast (default), 1..12 = lz4 HC; with -o FILE: zstd 1..22 of FILE (default 1), as perf; implies -z", 0, unset_compress },
	{ "user", 0, "USER", opt_user, "run the command as USER (prec keeps its own privileges)", 0, unset_user },
	{ "aux-size", 0, "PAGES|SIZE", opt_aux_size, "AUX area per CPU for intel_pt//, arm_spe//, cs_etm// (>= 8K, 4K with -S/--aux-sample; default 4M as root, else 128K)", 0, unset_aux_size },
	{ "markers", 0, NULL, NULL, "record trace_marker writes (prec mark) as ftrace:print", FLAG(markers), NULL },
	{ "overwrite", 0, NULL, NULL, "flight recorder: sampling events keep the last ring's worth, written on a snapshot (side band drained)", FLAG(overwrite), NULL },
	{ "control", 0, "fifo:CTL[,ACK]|fd:CTL[,ACK]", opt_control, "commands: enable, disable, snapshot, switch, stop, ping (each acked)", 0, NULL },
	{ "switch-output", 0, "[=signal|SIZE|TIME]", opt_switch_output, "cut the recording into files FILE.<timestamp> as perf (with -d: epochs DIR/epoch.NNNNNN, each a recording of its own): on SIGUSR2 or 'switch' (default), every SIZE drained (100M) or every TIME (30s, 5m, 1h, 1d)", 0, NULL },
	{ "switch-output-event", 0, "EVENT", opt_switch_event, "cut as SIGUSR2 does whenever EVENT occurs on any CPU (perf's grammar; implies --switch-output=signal, as perf)", 0, NULL },
	{ "tail-synthesize", 0, NULL, NULL, "name the tasks of /proc (COMM, MMAP2) at the end of the recording rather than at its start, as perf (with --overwrite: at each snapshot only)", FLAG(tail_synthesize), NULL },
	{ "proc-map-timeout", 0, "MS", opt_proc_map_timeout, "at most MS ms reading one /proc/PID/maps (default 500): the last map read is marked truncated, as perf", 0, unset_proc_map_timeout },
	{ "snapshot", 'S', "[=[e]SIZE]", opt_snapshot, "AUX area snapshot mode (perf's): the AUX area is overwritten, its newest SIZE bytes (default: all) written on SIGUSR2 or 'snapshot'; e: and at the exit", 0, unset_snapshot },
	{ "aux-sample", 0, "[=SIZE]", opt_aux_sample, "AUX area sampling (perf's): the members of a group led by the AUX event, e.g. '{intel_pt//,cpu-clock}', carry its newest SIZE bytes (default 4096, at most 61440)", 0, unset_aux_sample },
	{ "kcore", 0, NULL, NULL, "as perf: copy the kernel's and modules' code from /proc/kcore, with kallsyms and modules, into kcore_dir (root)", FLAG(kcore), NULL },
	{ "switch-max-files", 0, "N", opt_switch_max_files, "with --switch-output: keep the newest N files or epochs (older ones removed)", 0, unset_switch_max_files },
	{ "delay", 'D', "MS|RANGES", opt_delay, "enable the sampling events MS ms after the start (the side band does not wait); -1: wait for 'enable'; START-END,... (as perf): enabled in each range of ms after the start only", 0, unset_delay },
	{ "verbose", 'v', NULL, opt_verbose, "more messages; -vv also prints each event's perf_event_attr before opening it, as perf record -vv", 0, unset_verbose },
	{ "quiet", 'q', NULL, opt_quiet, "errors only (no status line, no summary)", 0, unset_quiet },
	{ "help", 'h', NULL, opt_help, "this text", 0, NULL },
};
#define NR_OPTS (sizeof(table) / sizeof(table[0]))

/* An argument named "[=...]" is optional (--opt or --opt=ARG). */
static bool optional(const struct opt *op)
{
	return op->argname && op->argname[0] == '[';
}

/* What --no-NAME does to the option op (struct opt's unset). */
enum negation { NEG_RESET, NEG_NOTHING, NEG_REFUSED };

static enum negation negation_of(const struct opt *op)
{
	if (op->unset || !op->fn)
		return NEG_RESET;
	/* perf's writer settings back to perf's default, or what prec
	 * does whatever is asked: nothing to undo */
	if (replaced(op->fn) || op->fn == opt_always)
		return NEG_NOTHING;
	return NEG_REFUSED;
}

static void usage(FILE *f)
{
	const char *sep = "";

	fprintf(f, "usage: prec record [-d DIR] [options] [-- command args...]\n\n");
	for (size_t i = 0; i < NR_OPTS; i++) {
		char left[64];
		int n = 0;

		if (table[i].shrt)
			n = snprintf(left, sizeof(left), "-%c%s", table[i].shrt,
				     table[i].lng ? ", " : "");
		else
			n = snprintf(left, sizeof(left), "    ");
		if (table[i].lng)
			n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s", table[i].lng);
		if (table[i].argname)
			snprintf(left + n, sizeof(left) - (size_t)n,
				 optional(&table[i]) ? "%s" : " %s", table[i].argname);
		fprintf(f, "  %-32s %s\n", left, table[i].help);
	}
	fprintf(f, "\nAs in perf, --no-NAME undoes the long option --NAME (and for one named\n"
		   "no-NAME, --NAME or --no-no-NAME do); prec-record(1) says to what. Not for:");
	for (size_t i = 0; i < NR_OPTS; i++) {
		if (table[i].lng && negation_of(&table[i]) == NEG_REFUSED) {
			fprintf(f, "%s --%s", sep, table[i].lng);
			sep = ",";
		}
	}
	fprintf(f, ".\n");
}

/* getopt_long's value for the negation of table[i] */
#define NEGATION(i) (256 + (int)NR_OPTS + (int)(i))

/* getopt_long's arguments: each option of the table, then the
 * negations of its long ones (their names kept in negated). */
struct getopt_args {
	char shorts[3 * NR_OPTS + 2];
	struct option longs[3 * NR_OPTS + 1];
	char negated[2 * NR_OPTS][40];
	int nr_longs, nr_negated;
};

/* A negation named prefix+name, unless an option of the table has that
 * name (--copy and --no-copy are options of their own, which say the
 * same). */
static void add_negation(struct getopt_args *g, const char *prefix,
			 const char *name, int val)
{
	char *buf = g->negated[g->nr_negated];
	size_t room = sizeof(g->negated[0]);

	if ((size_t)snprintf(buf, room, "%s%s", prefix, name) >= room)
		return; /* none is that long: unit/perf_record_options negates each */
	for (int i = 0; i < g->nr_longs; i++)
		if (!strcmp(g->longs[i].name, buf))
			return;
	g->nr_negated++;
	g->longs[g->nr_longs++] = (struct option){ buf, no_argument, NULL, val };
}

static void build_getopt(struct getopt_args *g)
{
	int ns = 0;

	g->nr_longs = g->nr_negated = 0;
	/* '+': stop at the first non-option, the command (as perf does). */
	g->shorts[ns++] = '+';
	for (size_t i = 0; i < NR_OPTS; i++) {
		int val = table[i].shrt ? table[i].shrt : 256 + (int)i;

		if (table[i].shrt) {
			g->shorts[ns++] = (char)table[i].shrt;
			if (table[i].argname)
				g->shorts[ns++] = ':';
			if (optional(&table[i]))
				g->shorts[ns++] = ':';
		}
		if (table[i].lng)
			g->longs[g->nr_longs++] = (struct option){ table[i].lng,
				optional(&table[i]) ? optional_argument :
				table[i].argname ? required_argument : no_argument,
				NULL, val };
	}
	/* As perf's parse-options: --no-NAME; and for no-NAME also NAME
	 * (--buildid) besides --no-no-NAME. Refused ones too, so that their
	 * line names them. */
	for (size_t i = 0; i < NR_OPTS; i++) {
		if (!table[i].lng)
			continue;
		add_negation(g, "no-", table[i].lng, NEGATION(i));
		if (!strncmp(table[i].lng, "no-", 3))
			add_negation(g, "", table[i].lng + 3, NEGATION(i));
	}
	g->shorts[ns] = 0;
	g->longs[g->nr_longs] = (struct option){ 0 };
}

static const struct opt *lookup(int val)
{
	if (val >= 256 && val < 256 + (int)NR_OPTS)
		return &table[val - 256];
	for (size_t i = 0; i < NR_OPTS; i++)
		if (table[i].shrt && table[i].shrt == val)
			return &table[i];
	return NULL;
}

/* Whether typed is --NAME=VALUE of an option that takes no value (a
 * negation, a flag), then said as perf says it. */
static bool valued_flag(const struct getopt_args *g, const char *typed)
{
	const char *eq = strchr(typed, '=');

	if (strncmp(typed, "--", 2) || !eq)
		return false;
	for (int i = 0; i < g->nr_longs; i++) {
		const char *name = g->longs[i].name;

		if (g->longs[i].has_arg == no_argument && strlen(name) == (size_t)(eq - typed - 2) &&
		    !strncmp(name, typed + 2, strlen(name))) {
			pr_err("record: option '%s': --%s takes no value", typed, name);
			return true;
		}
	}
	return false;
}

/* The negation of op, typed as given. */
static int negate(struct prec_record_opts *o, const struct opt *op, const char *typed)
{
	switch (negation_of(op)) {
	case NEG_RESET:
		if (op->unset)
			return op->unset(o, NULL);
		*(bool *)((char *)o + op->flag) = false;
		return 0;
	case NEG_NOTHING:
		/* perf's --no-threads is --threads (its callback sets the
		 * CPU spec when unset): a SPEC before it goes */
		if (op->fn == opt_threads)
			o->threads_spec = NULL;
		return 0;
	case NEG_REFUSED:
		break;
	}
	pr_err("record: option '%s': --%s cannot be negated (see 'prec record --help')",
	       typed, op->lng);
	return -EINVAL;
}

/* perf's size label: the unit goes up while more than one of the next
 * is left (so 1 MiB is "1024K"). */
static void size_label(uint64_t bytes, char *buf, size_t len)
{
	static const char units[] = "BKMG";
	int u = 0;

	while (bytes / 1024 > 1 && u < 3) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}

/* What the options took otherwise than asked, said once (not with -q). */
static void notes(const struct prec_record_opts *o)
{
	uint64_t ps = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t rounded[2] = { o->mmap_rounded ? o->mmap_pages * ps : 0,
				o->aux_rounded ? o->aux_bytes : 0 };

	if (o->quiet)
		return;
	/* perf's words, for the ring and then the AUX area */
	for (int i = 0; i < 2; i++) {
		char label[32];

		if (!rounded[i])
			continue;
		size_label(rounded[i], label, sizeof(label));
		pr_info("rounding mmap pages size to %s (%llu pages)", label,
			(unsigned long long)(rounded[i] / ps));
	}
	if (o->freq_max)
		pr_info("note: -F max: sampling at kernel.perf_event_max_sample_rate, %llu Hz",
			(unsigned long long)o->freq);
	if (o->kept_time)
		pr_info("note: --no-timestamp: prec's samples carry their time still (its merge orders the CPUs by it)");
	if (o->kept_period)
		pr_info("note: --no-period: prec's samples at a frequency, and tracepoints', carry their period still");
	if (o->nr_replaced) {
		char list[256];
		size_t n = 0;

		list[0] = 0;
		for (int i = 0; i < o->nr_replaced && n < sizeof(list); i++)
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s--%s", i ? ", " : "",
					      o->replaced[i]);
		pr_info("note: %s: perf's own writer and synthesis settings, taken as given; prec's per-CPU drainer threads do that work",
			list);
	}
}

/* One target over another, as perf's target__validate: -p/-t over -C, -u
 * and -a; -p over -t (as perf's thread map); -u over -C and -a; -a or -C over --per-thread (prec's rings
 * are per CPU anyway: the option then changes nothing). The one overridden
 * is dropped, and the first override said in perf's words: perf takes
 * these command lines with that warning, so prec does too. */
static void override_targets(struct prec_record_opts *o)
{
	bool tasks = o->nr_pids || o->nr_tids;
	const char *said = NULL;

	if (tasks && o->cpus)
		said = "PID/TID switch overriding CPU";
	else if (tasks && o->uid_set)
		said = "PID/TID switch overriding UID";
	else if (o->uid_set && o->cpus)
		said = "UID switch overriding CPU";
	else if (tasks && o->all_cpus)
		said = "PID/TID switch overriding SYSTEM";
	else if (o->uid_set && o->all_cpus)
		said = "UID switch overriding SYSTEM";
	else if (o->per_thread && (o->all_cpus || o->cpus))
		said = "SYSTEM/CPU switch overriding PER-THREAD";
	/* -p over -t, unsaid: perf's thread map is -p's; -t given still
	 * turns its inherit off */
	if (o->nr_pids && o->nr_tids) {
		free(o->tids);
		o->tids = NULL;
		o->nr_tids = 0;
		o->no_inherit = true;
	}
	if (tasks)
		o->uid_set = false;
	if (tasks || o->uid_set) {
		free(o->cpus);
		o->cpus = NULL;
		o->nr_cpus = 0;
		o->all_cpus = false;
	}
	if (said)
		pr_warn("%s", said);
}

static int check_combination(struct prec_record_opts *o)
{
	bool tasks;

	override_targets(o);
	tasks = o->nr_pids || o->nr_tids || o->uid_set;
	if (prec_threads_spec__check(o))
		return -EINVAL;

	/* as perf's: -c 0 or --no-count is a period given too */
	if (o->freq && o->period_given) {
		pr_err("options -F and -c: give a frequency or a period, not both");
		return -EINVAL;
	}
	/* As perf: -F above the kernel's maximum rate (which the kernel
	 * lowers itself under load) is lowered to it, said once; with
	 * --strict-freq refused. */
	if (o->freq) {
		uint64_t max;

		if (!max_sample_rate(&max) && o->freq > max) {
			if (o->strict_freq) {
				pr_err("option -F '%llu': above kernel.perf_event_max_sample_rate, %llu Hz (--strict-freq)",
				       (unsigned long long)o->freq, (unsigned long long)max);
				return -EINVAL;
			}
			pr_warn("-F %llu: above kernel.perf_event_max_sample_rate, sampling at %llu Hz",
				(unsigned long long)o->freq, (unsigned long long)max);
			o->freq = max;
		}
	}
	/* As perf: --switch-output leaves the build-id cache alone (perf,
	 * to keep its switches short, drops its build-id pass too; prec's
	 * table costs no pass and stays). */
	if (o->switch_output)
		o->no_buildid_cache = true;
	if (o->all_user && o->all_kernel) {
		pr_err("options --all-user and --all-kernel: give one of them, not both");
		return -EINVAL;
	}
	if (o->user && !o->argv) {
		pr_err("option --user: needs a command to run");
		return -EINVAL;
	}
	if (o->uid_set && o->argv) {
		pr_err("option -u: the user's processes are the target; not with a command");
		return -EINVAL;
	}
	if (o->output && o->dir_set) {
		pr_err("options -o and -d: -o FILE writes a perf.data (its shards in FILE.prec), -d DIR keeps the recording; give one");
		return -EINVAL;
	}
	/* As perf: the event is the signal, whatever size or time was given. */
	if (o->switch_event) {
		o->switch_output = true;
		o->switch_ms = o->switch_bytes = 0;
	}
	/* As perf: perf.data, unless the recording is the product; with
	 * --switch-output, FILE.<timestamp> per epoch (file_output.c). A
	 * FIFO on stdout takes perf's pipe format instead, as -o - (perf's
	 * data file opens stdout when no -o names a path and it is a FIFO:
	 * `perf record -- cmd | perf report` needs no -o -). */
	if (!o->dir_set && !o->output) {
		struct stat st;

		o->output_piped = !fstat(STDOUT_FILENO, &st) && S_ISFIFO(st.st_mode);
		o->output = o->output_piped ? "-" : "perf.data";
	}
	if ((o->keep_shards || o->timestamp_filename) && !o->output) {
		pr_err("option %s: needs -o FILE", o->keep_shards ? "--keep-shards" : "--timestamp-filename");
		return -EINVAL;
	}
	/* SIGUSR2 and 'snapshot' take the flight recorder's snapshots, and
	 * the markers thread writes the first epoch's side band. */
	if (o->switch_output && o->overwrite) {
		pr_err("options --switch-output and --overwrite: SIGUSR2 takes either a snapshot or a switch; give one of them");
		return -EINVAL;
	}
	if (o->switch_output && o->markers) {
		pr_err("options --switch-output and --markers: not supported together");
		return -EINVAL;
	}
	/* Each epoch would need a budget and a carry of its own. */
	if (o->switch_output && o->max_disk) {
		pr_err("options --switch-output and --max-disk: give one of them (--switch-max-files bounds the epochs kept)");
		return -EINVAL;
	}
	/* The carry would need a tail of its own, at each drop. */
	if (o->tail_synthesize && o->max_disk) {
		pr_err("options --tail-synthesize and --max-disk: not supported together");
		return -EINVAL;
	}
	/* The tail comes at the end, stamped before every record, where -o -
	 * merges the recording as it goes (perf's pipe gets its attrs at the
	 * end then: perf script reads none of its samples). */
	if (o->tail_synthesize && o->output && !strcmp(o->output, "-")) {
		pr_err("options --tail-synthesize and -o -: not supported together (the tail is written at the end; -o FILE or -d DIR)");
		return -EINVAL;
	}
	/* perf's pipe format has no directory to carry kcore_dir in (perf
	 * fails on it too), and each epoch would need a copy of its own. */
	if (o->kcore && (o->switch_output || (o->output && !strcmp(o->output, "-")))) {
		pr_err("option --kcore: not with %s: kcore_dir needs a directory (-o FILE or -d DIR)",
		       o->switch_output ? "--switch-output" :
		       o->output_piped ? "the pipe format, which a pipe on stdout gets without -o (as perf's)" :
		       "-o - (the pipe format)");
		return -EINVAL;
	}
	if (o->switch_max_files && !o->switch_output)
		pr_info("note: --switch-max-files: no --switch-output, no epoch to remove (taken, as perf)");
	/* The markers' ftrace instance stamps on the events' clock, which
	 * must be one prec can read for the watermarks (not the perf clock)
	 * and one the kernel takes for their ftrace:print tracepoint. Said
	 * here, before anything is created. */
	if (o->markers && !prec_clock__nmi_safe(o->clockid)) {
		char num[16];

		pr_err("options --markers and -k %s: markers need -k monotonic or monotonic_raw",
		       clock_label(o->clockid, num, sizeof(num)));
		return -EINVAL;
	}
	/* Both keep the newest data in a bounded room; perf refuses
	 * --switch-output with --overwrite alike. */
	if (o->max_disk && o->overwrite) {
		pr_err("options --max-disk and --overwrite: give one of them, not both");
		return -EINVAL;
	}
	/* -C is system-wide on those CPUs; no target at all means -a. */
	if (o->cpus || (!tasks && !o->argv))
		o->all_cpus = true;
	/* as perf: per-thread rings follow no child, but CPU-wide events
	 * keep their inherit bit */
	if (o->per_thread && !o->all_cpus)
		o->no_inherit = true;
	/* The kernel counts a cgroup per CPU only (PERF_FLAG_PID_CGROUP). */
	if (o->nr_cgroups && !o->all_cpus) {
		pr_err("option -G '%s': cgroup monitoring only available in system-wide mode (-a or -C)",
		       o->cgroups[0].names);
		return -EINVAL;
	}
	return 0;
}

/* prec's own long options that share a beginning with one of perf's: an
 * abbreviation perf takes for its option (--comp=5, --max-s 1M, --ke,
 * --aux-s) is ambiguous to getopt_long with these beside it. */
static const char *const own_beside_perf[] = {
	"aux-size", "compress", "keep-shards", "markers", "max-disk", "max-staging",
};

/* The option typed (argv[optind - 1], which getopt_long found ambiguous)
 * abbreviates when prec's own options of own_beside_perf are left out:
 * perf's parse-options takes it for that one, so prec does. NULL when
 * it does not. */
static const struct opt *perf_abbreviation(const char *typed)
{
	const struct opt *found = NULL;
	size_t len;

	if (strncmp(typed, "--", 2) || !strncmp(typed, "--no-", 5))
		return NULL;
	typed += 2;
	len = strcspn(typed, "=");
	for (size_t i = 0; i < NR_OPTS; i++) {
		bool own = false;

		if (!table[i].lng || strncmp(table[i].lng, typed, len))
			continue;
		for (size_t j = 0; j < sizeof(own_beside_perf) / sizeof(own_beside_perf[0]); j++)
			own |= !strcmp(table[i].lng, own_beside_perf[j]);
		if (own)
			continue;
		if (found)
			return NULL;
		found = &table[i];
	}
	return found;
}

/* An option's effect, its value arg (NULL for none). */
static int apply(struct prec_record_opts *o, const struct opt *op, const char *arg)
{
	int err;

	if (!op->fn) {
		*(bool *)((char *)o + op->flag) = true;
		return 0;
	}
	if (replaced(op->fn) && o->nr_replaced < (int)(sizeof(o->replaced) / sizeof(o->replaced[0])))
		o->replaced[o->nr_replaced++] = op->lng;
	err = op->fn(o, arg);
	if (err == PREC_RECORD_OPTS_HELP)
		usage(stdout);
	return err;
}

/* argv[optind - 1] as perf_abbreviation() reads it, its value after '='
 * or in the next word (optind moved past it). 1 when it is none. */
static int apply_abbreviation(struct prec_record_opts *o, int argc, char **argv)
{
	const char *typed = argv[optind - 1], *eq = strchr(typed, '='), *arg = NULL;
	const struct opt *op = perf_abbreviation(typed);

	if (!op)
		return 1;
	if (eq && !op->argname) {
		pr_err("record: option '%s': --%s takes no value", typed, op->lng);
		return -EINVAL;
	}
	if (eq)
		arg = eq + 1;
	else if (op->argname && !optional(op)) {
		if (optind >= argc)
			return 1;
		arg = argv[optind++];
	}
	return apply(o, op, arg);
}

int prec_record_opts__parse(struct prec_record_opts *o, int argc, char **argv)
{
	struct getopt_args g;
	int c, err;

	defaults(o);
	/* perf's config first: the command line overrides it */
	err = prec_record_opts__apply_perfconfig(o);
	if (err)
		return err;
	build_getopt(&g);
	optind = 0; /* full reset: parse may run more than once (tests) */
	opterr = 0;
	while ((c = getopt_long(argc, argv, g.shorts, g.longs, NULL)) != -1) {
		bool negated = c >= NEGATION(0) && c < NEGATION(NR_OPTS);
		const struct opt *op = negated ? &table[c - NEGATION(0)] : lookup(c);

		if (c == '?' && optind > 0 && (err = apply_abbreviation(o, argc, argv)) <= 0) {
			if (err)
				return err;
			continue;
		}
		if (c == '?' || c == ':' || !op) {
			if (!valued_flag(&g, argv[optind - 1]))
				prec_cli__bad_option("record", argv);
			return -EINVAL;
		}
		if (negated) {
			err = negate(o, op, argv[optind - 1]);
			if (err)
				return err;
			continue;
		}
		err = apply(o, op, optarg);
		if (err)
			return err;
	}
	if (optind < argc) {
		o->argv = argv + optind;
		o->argc = argc - optind;
	}
	/* As perf's record: fp callchains sample the leaf's caller register
	 * too, on every event (perf's arch__add_leaf_frame_record_opts). */
	if (o->callgraph == PREC_CG_FP)
		o->sample.regs_user |= prec_sample_regs__fp_leaf();
	/* As perf's -s: the READ records of each child carry its times,
	 * after any --no-running-time */
	if (o->sample.inherit_stat)
		o->sample.running_time = true;
	/* notes on a command line that is taken only: a refusal is one line */
	err = check_combination(o);
	if (!err)
		notes(o);
	return err;
}

void prec_record_opts__exit(struct prec_record_opts *o)
{
	if (!o)
		return;
	for (int i = 0; i < o->nr_specs; i++) {
		free(o->specs[i].text);
		free(o->specs[i].filter);
	}
	free(o->specs);
	free(o->switch_event);
	free(o->delay_edges);
	for (int i = 0; i < o->nr_cgroups; i++)
		free(o->cgroups[i].names);
	free(o->cgroups);
	free(o->cpus);
	free(o->pids);
	free(o->tids);
	memset(o, 0, sizeof(*o));
}

