// SPDX-License-Identifier: MIT
// prec dump: every record of a recording directory, in merged time order,
// one line each (time, cpu, pid/tid, type, key fields).
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/crash_window.h"
#include "read/filter_args.h"
#include "read/internal.h"
#include "read/owner.h"
#include "read/read.h"
#include "util/bytes.h"
#include "util/cli.h"
#include "util/escape.h"
#include "util/log.h"

struct dump {
	const char *dir;
	struct prec_merge_opts mo;
	bool *cpus;
	int nr_cpus;
	const char *cpu_arg;   /* --cpu as given, for messages */
	bool force;            /* -f: a recording of another user's too */
	uint64_t sample_type;
	struct prec_time_layout tl;
	uint64_t *marker_ids;  /* ids of ftrace:print (prec record --markers) */
	uint32_t nr_marker_ids;
};

/* ftrace:print samples as prec record --markers writes them:
 * IDENTIFIER|IP|TID|TIME|CPU|RAW, so the RAW size sits at byte 48 and the
 * print entry (8-byte trace_entry, u64 ip, text) right after it. */
#define MARKER_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			    PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			    PERF_SAMPLE_CPU | PERF_SAMPLE_RAW)
#define MARKER_RAW 48u

static void find_markers(struct dump *d, const struct prec_manifest *m)
{
	for (uint32_t e = 0; e < m->nr_events; e++) {
		const struct prec_manifest_event *ev = &m->events[e];
		uint64_t st, *n;

		memcpy(&st, ev->attr + 24, sizeof(st));
		if (!ev->name || strcmp(ev->name, "ftrace:print") || st != MARKER_SAMPLE_TYPE)
			continue;
		n = realloc(d->marker_ids, (d->nr_marker_ids + ev->nr_ids) * sizeof(*n));
		if (!n)
			return;
		memcpy(n + d->nr_marker_ids, ev->ids, ev->nr_ids * sizeof(*n));
		d->marker_ids = n;
		d->nr_marker_ids += ev->nr_ids;
	}
}

static const char *const kernel_types[] = {
	[1] = "MMAP", [2] = "LOST", [3] = "COMM", [4] = "EXIT",
	[5] = "THROTTLE", [6] = "UNTHROTTLE", [7] = "FORK", [8] = "READ",
	[9] = "SAMPLE", [10] = "MMAP2", [11] = "AUX", [12] = "ITRACE_START",
	[13] = "LOST_SAMPLES", [14] = "SWITCH", [15] = "SWITCH_CPU_WIDE",
	[16] = "NAMESPACES", [17] = "KSYMBOL", [18] = "BPF_EVENT",
	[19] = "CGROUP", [20] = "TEXT_POKE", [21] = "AUX_OUTPUT_HW_ID",
};

static const char *const user_types[] = {
	"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA",
	"HEADER_BUILD_ID", "FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO",
	"AUXTRACE", "AUXTRACE_ERROR", "THREAD_MAP", "CPU_MAP", "STAT_CONFIG",
	"STAT", "STAT_ROUND", "EVENT_UPDATE", "TIME_CONV", "HEADER_FEATURE",
	"COMPRESSED", "FINISHED_INIT",
};

static const char *type_name(uint32_t type, char *buf, size_t len)
{
	if (type < sizeof(kernel_types) / sizeof(kernel_types[0]) && kernel_types[type])
		return kernel_types[type];
	if (type >= 64 && type - 64 < sizeof(user_types) / sizeof(user_types[0]))
		return user_types[type - 64];
	snprintf(buf, len, "TYPE_%u", type);
	return buf;
}

/* Offset of the pid/tid pair: in the SAMPLE body, or the sample_id trailer
 * (TID comes right before TIME there). 0 when absent. */
static uint32_t tid_offset(const struct dump *d, uint32_t type, uint32_t size)
{
	uint32_t off = 8;

	if (!(d->sample_type & PERF_SAMPLE_TID))
		return 0;
	if (type == PERF_RECORD_SAMPLE) {
		off += d->sample_type & PERF_SAMPLE_IDENTIFIER ? 8 : 0;
		off += d->sample_type & PERF_SAMPLE_IP ? 8 : 0;
		return off + 8 <= size ? off : 0;
	}
	if (type >= 64 || size < 16u + d->tl.trailer_time_back)
		return 0;
	return size - d->tl.trailer_time_back - 8;
}

/* A name from a record (a comm, a file name, a symbol): the workload chose
 * it, so it is shown escaped, never as bytes a terminal would act on. */
static void print_str(FILE *f, const char *label, const uint8_t *p,
		      const uint8_t *end)
{
	fprintf(f, " %s ", label);
	if (p < end)
		prec_escape__put(f, p, (size_t)(end - p), 0);
}

static bool is_marker(const struct dump *d, const uint8_t *p, uint32_t size)
{
	uint64_t id;

	if (!d->nr_marker_ids || size < MARKER_RAW + 4 + 16)
		return false;
	id = prec_ld64(p + 8);
	for (uint32_t i = 0; i < d->nr_marker_ids; i++)
		if (d->marker_ids[i] == id)
			return true;
	return false;
}

/* The marker's text, without the newline trace_marker appends, escaped as
 * print_str() does (and a '"' as \"). */
static void print_marker(FILE *f, const uint8_t *p, uint32_t size)
{
	uint32_t raw = prec_ld32(p + MARKER_RAW);
	const uint8_t *text = p + MARKER_RAW + 4 + 16;
	size_t n;

	if (raw < 16 || raw > size - MARKER_RAW - 4)
		return;
	n = strnlen((const char *)text, raw - 16);
	if (n && text[n - 1] == '\n')
		n--;
	fputs(" marker \"", f);
	prec_escape__put(f, text, n, '"');
	fputc('"', f);
}

/* Kernel text that came or went (a BPF program, most often). */
static void print_ksym(FILE *f, const uint8_t *p, uint32_t type, uint32_t size)
{
	if (type == PERF_RECORD_KSYMBOL && size >= 24) {
		fprintf(f, " addr 0x%llx len %u%s", (unsigned long long)prec_ld64(p + 8),
			prec_ld32(p + 16), prec_ld16(p + 22) & 1 ? " unregister" : "");
		print_str(f, "name", p + 24, p + size);
	} else if (type == PERF_RECORD_BPF_EVENT && size >= 16) {
		fprintf(f, " prog %u %s", prec_ld32(p + 12),
			prec_ld16(p + 8) == 1 ? "load" : prec_ld16(p + 8) == 2 ? "unload" : "?");
	}
}

static void print_fields(FILE *f, const struct dump *d, const uint8_t *p,
			 uint32_t type, uint32_t size)
{
	const uint8_t *end = p + size;

	if (type == PERF_RECORD_SAMPLE && is_marker(d, p, size)) {
		print_marker(f, p, size);
		return;
	}

	switch (type) {
	case PERF_RECORD_SAMPLE:
		if ((d->sample_type & PERF_SAMPLE_IP) && size >= 24)
			fprintf(f, " ip 0x%llx", (unsigned long long)prec_ld64(
				p + (d->sample_type & PERF_SAMPLE_IDENTIFIER ? 16 : 8)));
		break;
	case PERF_RECORD_MMAP:
		print_str(f, "file", p + 40, end);
		break;
	case PERF_RECORD_MMAP2:
		print_str(f, "file", p + 72, end);
		break;
	case PERF_RECORD_COMM:
		print_str(f, "comm", p + 16, end);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (size >= 24)
			fprintf(f, " pid %u ppid %u", prec_ld32(p + 8), prec_ld32(p + 12));
		break;
	case PERF_RECORD_LOST:
		if (size >= 24)
			fprintf(f, " lost %llu", (unsigned long long)prec_ld64(p + 16));
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (size >= 16)
			fprintf(f, " lost %llu", (unsigned long long)prec_ld64(p + 8));
		break;
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
		print_ksym(f, p, type, size);
		break;
	case PERF_RECORD_CGROUP:
		if (size >= 16) {
			fprintf(f, " id %llu", (unsigned long long)prec_ld64(p + 8));
			print_str(f, "path", p + 16, end);
		}
		break;
	case PERF_RECORD_AUX:
		if (size >= 32)
			fprintf(f, " offset 0x%llx size %llu flags 0x%llx",
				(unsigned long long)prec_ld64(p + 8),
				(unsigned long long)prec_ld64(p + 16),
				(unsigned long long)prec_ld64(p + 24));
		break;
	}
}

static void print_rec(FILE *f, const struct dump *d, const struct prec_merge_rec *r)
{
	char cpu[16], tbuf[24];

	if (r->cpu == PREC_CARRY_CPU)
		snprintf(cpu, sizeof(cpu), "carry");
	else if (r->cpu < 0)
		snprintf(cpu, sizeof(cpu), "sb");
	else
		snprintf(cpu, sizeof(cpu), "%d", (int)r->cpu);
	fprintf(f, "%llu.%09llu %4s ", (unsigned long long)(r->time / 1000000000ull),
		(unsigned long long)(r->time % 1000000000ull), cpu);
	if (!r->rec) {
		fprintf(f, "-/- AUX_DATA offset 0x%llx size %u flags 0x%x\n",
			(unsigned long long)r->aux_offset, r->aux_len, r->aux_flags);
		return;
	}
	const uint8_t *p = r->rec;
	uint32_t type = prec_ld32(p);
	uint32_t toff = tid_offset(d, type, r->rec_len), tid_at = 4;

	if (type == PERF_RECORD_MMAP || type == PERF_RECORD_MMAP2 ||
	    type == PERF_RECORD_COMM)
		toff = r->rec_len >= 16 ? 8 : 0; /* the body has them */
	/* the body's pid, ppid, tid, ptid: the task's own pair, as perf shows it */
	if (type == PERF_RECORD_FORK || type == PERF_RECORD_EXIT) {
		toff = r->rec_len >= 24 ? 8 : 0;
		tid_at = 8;
	}
	if (toff)
		fprintf(f, "%d/%d ", (int)prec_ld32(p + toff), (int)prec_ld32(p + toff + tid_at));
	else
		fprintf(f, "-/- ");
	fputs(type_name(type, tbuf, sizeof(tbuf)), f);
	print_fields(f, d, p, type, r->rec_len);
	fputc('\n', f);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: prec dump DIR [--time START,END] [--cpu LIST] [--salvage] [-f]\n"
		"  -t, --time START,END  only samples with START <= time <= END (seconds, either may be empty)\n"
		"  -C, --cpu LIST        only these CPUs' samples, e.g. 0-3,7 (side band of all)\n"
		"      --salvage         exit 0 after corrupt data (its shard's rest is skipped anyway)\n"
		"  -f, --force           read a recording of another user's\n"
		"  -h, --help            this text\n");
}

static int parse_args(struct dump *d, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "time", required_argument, NULL, 't' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "salvage", no_argument, NULL, 's' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int o, r;

	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "t:C:fh", opts, NULL)) != -1) {
		switch (o) {
		case 't':
			r = prec_filter__parse_time(optarg, &d->mo.time_start, &d->mo.time_end);
			if (r < 0) {
				pr_err("dump: bad --time '%s' (%s)", optarg, r == -ERANGE ?
				       "END is before START" : "want START,END in seconds");
				return 2;
			}
			break;
		case 'C':
			d->cpu_arg = optarg;
			if (prec_filter__parse_cpus(optarg, &d->cpus, &d->nr_cpus) < 0) {
				pr_err("dump: bad --cpu '%s' (want a list like 0-3,7)", optarg);
				return 2;
			}
			d->mo.cpu_allowed = d->cpus;
			d->mo.nr_cpu_allowed = d->nr_cpus;
			break;
		case 's': d->mo.salvage = true; break;
		case 'f': d->force = true; break;
		case 'h': usage(stdout); return 0;
		default: prec_cli__bad_option("dump", argv); return 2;
		}
	}
	if (optind != argc - 1) {
		prec_cli__bad_args("dump", "want exactly one directory");
		return 2;
	}
	d->dir = argv[optind];
	return -1;
}

static int run(struct dump *d, int dirfd, const struct prec_manifest *m)
{
	struct prec_merge_rec rec;
	struct prec_merge *mg;
	int r;

	/* what prec merge leaves out, and says so, dump leaves out too */
	d->mo.window_start = prec_merge__window(m);
	prec_merge__say_window(d->mo.window_start);
	r = prec_merge__open(&mg, dirfd, m, &d->mo);
	if (r < 0) {
		pr_err("dump %s: cannot open the shards: %s", d->dir, strerror(-r));
		return 1;
	}
	while ((r = prec_merge__next(mg, &rec)) > 0) {
		print_rec(stdout, d, &rec);
		if (ferror(stdout))
			break;
	}
	if (fflush(stdout) || ferror(stdout)) {
		pr_err("dump: writing the output: %s", strerror(errno));
		r = -EIO;
	}
	if (prec_merge__inversions(mg))
		pr_warn("dump %s: %llu records out of time order", d->dir,
			(unsigned long long)prec_merge__inversions(mg));
	if (prec_merge__errors(mg) && r >= 0)
		prec_log(d->mo.salvage ? PREC_LOG_WARN : PREC_LOG_ERR,
			 "dump %s: %u corrupt chunks or shards: the rest of each skipped",
			 d->dir, prec_merge__errors(mg));
	if (prec_merge__errors(mg) && !d->mo.salvage)
		r = -EBADMSG;
	prec_merge__close(mg);
	return r < 0 ? 1 : 0;
}

int prec_cmd_dump(int argc, char **argv)
{
	struct dump d = { 0 };
	struct prec_manifest *m = NULL;
	const char *why = NULL;
	int dirfd, r;

	r = parse_args(&d, argc, argv);
	if (r >= 0)
		goto out_free;
	dirfd = open(d.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		pr_err("dump %s: cannot open: %s", d.dir, strerror(errno));
		r = 1;
		goto out_free;
	}
	if (prec_owner__check("dump", d.dir, dirfd, d.force) < 0) {
		r = 1;
		goto out_close;
	}
	r = prec_manifest__read(&m, dirfd, &why);
	if (r < 0) {
		pr_err("%s/%s: cannot read: %s", d.dir, PREC_MANIFEST_NAME,
		       why ? why : strerror(-r));
		r = 1;
		goto out_close;
	}
	/* a --max-disk recording that died: its window and carry, as the
	 * merge finds them */
	if (prec_crash_window__take(dirfd, m, "dump", d.dir) < 0) {
		r = 1;
		goto out_delete;
	}
	if (d.cpus) {
		char missing[256];
		int c = prec_merge__check_cpus(m, &d.mo, missing, sizeof(missing));

		if (c)
			prec_log(c < 0 ? PREC_LOG_ERR : PREC_LOG_WARN, "dump %s: --cpu %s: %s",
				 d.dir, d.cpu_arg, missing);
		if (c < 0) {
			r = 2;
			goto out_delete;
		}
	}
	if (m->state == PREC_STATE_RECORDING)
		pr_warn("dump %s: the recording did not finish; reading what is there", d.dir);
	prec_merge__say_state(d.dir, m);
	d.sample_type = m->sample_type;
	d.tl = m->time_layout;
	find_markers(&d, m);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	r = run(&d, dirfd, m);
out_delete:
	prec_manifest__delete(m);
out_close:
	close(dirfd);
out_free:
	free(d.cpus);
	free(d.marker_ids);
	return r;
}
