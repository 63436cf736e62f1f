// SPDX-License-Identifier: MIT
// prec info: a recording's manifest for people (or as JSON), and --check,
// which reads every chunk of every shard and compares what is there with the
// chunk headers and the manifest totals.
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "read/crash_window.h"
#include "read/internal.h"
#include "read/owner.h"
#include "read/live_scan.h"
#include "read/read.h"
#include "read/timeline.h"
#include "util/bytes.h"
#include "store/store.h"
#include "util/cli.h"
#include "util/escape.h"
#include "util/log.h"
#include "util/sat.h"

struct info {
	const char *dir;
	bool json, check, timeline, force;
	FILE *out;           /* where --check reports problems */
	unsigned long problems;
	uint32_t trailer;    /* sample_id bytes of a non-SAMPLE record */
	bool aux_ok;         /* an AUX event was recorded: AUX chunks belong */
	/* the shard being checked: its reader, whose segment file (a
	 * --max-disk shard's) a problem at an offset names */
	const struct prec_shard_reader *rd;
};

#define NS(t) (unsigned long long)((t) / 1000000000ull), (unsigned long long)((t) % 1000000000ull)

static const char *clock_name(int32_t id)
{
	switch (id) {
	case -1: return "perf clock";
	case 0: return "CLOCK_REALTIME";
	case 1: return "CLOCK_MONOTONIC";
	case 4: return "CLOCK_MONOTONIC_RAW";
	case 7: return "CLOCK_BOOTTIME";
	case 11: return "CLOCK_TAI";
	default: return "clock";
	}
}

/* A manifest string escaped for one printf: each call returns its own
 * buffer, kept until the call RING later, so a line may hold a few. "-"
 * for an absent string. */
#define RING 4
static const char *str(const char *s)
{
	static char *ring[RING];
	static unsigned int next;
	char **slot = &ring[next++ % RING];
	size_t len;
	FILE *f;

	if (!s)
		return "-";
	if (!strchr(s, '\\') && !prec_escape__needed(s, strlen(s)))
		return s;
	free(*slot);
	*slot = NULL;
	f = open_memstream(slot, &len);
	if (!f)
		return "?";
	prec_escape__put(f, s, strlen(s), 0);
	return fclose(f) == 0 ? *slot : "?";
}

/* The TSC conversion merged as TIME_CONV, when the recording has one. */
static void print_time_conv(const struct prec_time_conv *tc)
{
	if (!tc->cap_user_time_zero)
		return;
	printf("time conv:   shift %u, mult %u, zero %llu", tc->time_shift,
	       tc->time_mult, (unsigned long long)tc->time_zero);
	if (tc->cap_user_time_short)
		printf(", cycles %llu, mask %#llx", (unsigned long long)tc->time_cycles,
		       (unsigned long long)tc->time_mask);
	printf(" (TIME_CONV when merged)\n");
}

/* An argument as a shell would take it back: bare when it holds only
 * characters no shell treats specially, in single quotes when it holds no
 * control character, else in $'...' with escapes (bash, zsh, ksh and
 * POSIX.1-2024 sh read it back; raw, a newline would end the command and
 * an escape sequence would reach the terminal). */
static void print_shell_word(const char *w)
{
	if (*w && !w[strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			      "0123456789%+,-./:=@_")]) {
		fputs(w, stdout);
		return;
	}
	if (prec_escape__needed(w, strlen(w))) {
		fputs("$'", stdout);
		prec_escape__put(stdout, w, strlen(w), '\'');
		putchar('\'');
		return;
	}
	putchar('\'');
	for (; *w; w++) {
		if (*w == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*w);
	}
	putchar('\'');
}

static void print_host(const struct prec_manifest *m)
{
	if (m->state == PREC_STATE_COMPLETE || m->state == PREC_STATE_RECORDING)
		printf("state:       %s\n", m->state == PREC_STATE_COMPLETE ? "complete" :
		       "recording (did not finish, or still running)");
	else
		printf("state:       unknown (%u): read as a recording that did not finish\n",
		       m->state);
	printf("session:     ");
	for (int i = 0; i < 16; i++)
		printf("%02x", m->session_id[i]);
	printf("\nhost:        %s (%s, %s), %u cpus available, %u online, %llu kB memory\n",
	       str(m->hostname), str(m->os_release), str(m->arch), m->nr_cpus_avail,
	       m->nr_cpus_online, (unsigned long long)m->total_mem_kb);
	printf("cpu:         %s\n", str(m->cpu_desc));
	printf("recorder:    %s\n", str(m->version));
	printf("command:    ");
	for (uint32_t i = 0; i < m->argc; i++) {
		putchar(' ');
		print_shell_word(m->argv[i] ? m->argv[i] : "-");
	}
	printf("\nclock:       %s (id %d), resolution %llu ns%s\n", clock_name(m->clockid),
	       (int)m->clockid, (unsigned long long)m->clock_res_ns,
	       m->clockid < 0 ? " (no use_clockid: no CLOCKID/CLOCK_DATA when merged, as perf)" : "");
	print_time_conv(&m->time_conv);
	printf("time:        %llu.%09llu .. %llu.%09llu", NS(m->start_time), NS(m->stop_time));
	if (m->stop_time >= m->start_time && m->start_time)
		printf(" (%.3f s)", (double)(m->stop_time - m->start_time) / 1e9);
	printf("\nsample_type: 0x%llx\n", (unsigned long long)m->sample_type);
}

static void print_events(const struct prec_manifest *m)
{
	printf("events:      %u\n", m->nr_events);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[i];
		struct perf_event_attr a;
		uint64_t lost = 0;

		memset(&a, 0, sizeof(a));
		memcpy(&a, e->attr, sizeof(a) < sizeof(e->attr) ? sizeof(a) : sizeof(e->attr));
		printf("  %-24s type %u config 0x%llx sample_type 0x%llx %s %llu, %u ids",
		       str(e->name), a.type, (unsigned long long)a.config,
		       (unsigned long long)a.sample_type, a.freq ? "freq" : "period",
		       (unsigned long long)a.sample_period, e->nr_ids);
		/* its ids' PERF_FORMAT_LOST counts (ID_LOST), at most 2^64 - 1 */
		for (uint32_t j = 0; e->id_lost && j < e->nr_ids; j++)
			lost = lost + e->id_lost[j] < lost ? UINT64_MAX : lost + e->id_lost[j];
		if (lost)
			printf(", %llu samples lost", (unsigned long long)lost);
		putchar('\n');
	}
}

/* raw / stored: how much -z saved ("1.00x" for raw shards, "-" if empty). */
static const char *ratio(char *buf, size_t len, uint64_t raw, uint64_t stored)
{
	if (!stored)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2fx", (double)raw / (double)stored);
	return buf;
}

/* The "lost" column is the shard's LOST records' sum, the figure perf
 * reports and --json calls "lost". lost_samples is not added to it: the
 * recorder stores the same ring overflow there too (PERF_FORMAT_LOST). */
static void print_shards(const struct prec_manifest *m)
{
	uint64_t chunks = 0, records = 0, bytes = 0, raw = 0, lost = 0;
	int w = 16; /* the name column: as wide as the longest name, up to 40 */
	char r[32];

	for (uint32_t i = 0; i < m->nr_shards; i++) {
		int n = (int)strlen(str(m->shards[i].name));

		w = n > w ? (n < 40 ? n : 40) : w;
	}
	printf("shards:      %u\n", m->nr_shards);
	printf("  %-*s %4s %8s %10s %12s %12s %7s %8s %20s %20s\n", w, "name", "cpu",
	       "chunks", "records", "stored", "raw", "ratio", "lost", "first", "last");
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		const struct prec_manifest_shard *s = &m->shards[i];
		char first[32], last[32];

		snprintf(first, sizeof(first), "%llu.%09llu", NS(s->first_time));
		snprintf(last, sizeof(last), "%llu.%09llu", NS(s->last_time));
		printf("  %-*s %4d %8llu %10llu %12llu %12llu %7s %8llu %20s %20s\n",
		       w, str(s->name), (int)s->cpu, (unsigned long long)s->chunks,
		       (unsigned long long)s->records, (unsigned long long)s->bytes,
		       (unsigned long long)s->raw_bytes,
		       ratio(r, sizeof(r), s->raw_bytes, s->bytes),
		       (unsigned long long)s->lost, first, last);
		chunks = prec_add_sat(chunks, s->chunks);
		records = prec_add_sat(records, s->records);
		bytes = prec_add_sat(bytes, s->bytes);
		raw = prec_add_sat(raw, s->raw_bytes);
		lost = prec_add_sat(lost, s->lost);
	}
	printf("  %-*s %4s %8llu %10llu %12llu %12llu %7s %8llu\n", w, "total", "",
	       (unsigned long long)chunks, (unsigned long long)records,
	       (unsigned long long)bytes, (unsigned long long)raw,
	       ratio(r, sizeof(r), raw, bytes), (unsigned long long)lost);
}

/* --max-disk: the budget, what it dropped, and where a merge starts (w,
 * 0 for nothing dropped). */
static void print_max_disk(const struct prec_manifest *m, uint64_t w)
{
	const struct prec_manifest_max_disk *d = &m->max_disk;

	if (!d->limit)
		return;
	if (m->state != PREC_STATE_COMPLETE)
		printf("max disk:    %llu bytes, segments of %llu; dropped %s",
		       (unsigned long long)d->limit, (unsigned long long)d->segment,
		       w ? "the oldest chunks (counted in the final manifest only)" : "nothing yet");
	else
		printf("max disk:    %llu bytes, segments of %llu; dropped %llu segments, "
		       "%llu chunks, %llu records, %llu bytes", (unsigned long long)d->limit,
		       (unsigned long long)d->segment, (unsigned long long)d->segments,
		       (unsigned long long)d->chunks, (unsigned long long)d->records,
		       (unsigned long long)d->bytes);
	if (d->first_time && m->state == PREC_STATE_COMPLETE)
		printf(" (times %llu.%09llu .. %llu.%09llu)", NS(d->first_time), NS(d->last_time));
	if (w)
		printf("\n             window: from %llu.%09llu s (every CPU has data)", NS(w));
	putchar('\n');
}

static void print_rest(const struct prec_manifest *m, uint64_t window)
{
	print_max_disk(m, window);
	if (m->zstd_level)
		printf("compressed:  zstd level %u when merged (record -z; prec merge --no-compression-level: not)\n",
		       m->zstd_level);
	if (m->kcore.segments)
		printf("kcore:       kcore_dir/kcore, %u code segments, %llu bytes (with kallsyms, modules)\n",
		       m->kcore.segments, (unsigned long long)m->kcore.bytes);
	printf("build-ids:   %u\n", m->nr_buildids);
	/* Files whose path named another file (or none, or hung) when
	 * their build-id was read: their samples resolve without one. */
	if (m->buildids_unread)
		printf("  (%u mapped files replaced or unreadable: no build-id)\n",
		       m->buildids_unread);
	/* The table's bounds (docs/manifest-format.md): a workload mapped
	 * more distinct paths than a manifest keeps. */
	if (m->buildids_dropped)
		printf("  (%u (path, build-id) pairs over the table's bounds: dropped)\n",
		       m->buildids_dropped);
	for (uint32_t i = 0; i < m->nr_buildids; i++) {
		const struct prec_manifest_buildid *b = &m->buildids[i];

		printf("  ");
		for (unsigned int k = 0; k < b->size && k < sizeof(b->id); k++)
			printf("%02x", b->id[k]);
		printf(" %s\n", str(b->path));
	}
	printf("tracepoints: %u\n", m->nr_tracepoints);
	for (uint32_t i = 0; i < m->nr_tracepoints; i++)
		printf("  %s:%s id %llu\n", str(m->tracepoints[i].system),
		       str(m->tracepoints[i].name), (unsigned long long)m->tracepoints[i].id);
	if (m->offcpu.switch1)
		printf("off-cpu:     %s becomes %s at the merge (prev_state at raw +%u, %u bytes)\n",
		       str(m->events[m->offcpu.switch1 - 1].name), str(m->events[m->offcpu.event].name),
		       m->offcpu.state_off, m->offcpu.state_size);
}

/* A recording whose manifest is not final has no totals in it yet: take
 * them from the shards' whole chunks (the recorder may be appending, so
 * a chunk cut short at the end is where it writes, not an error). Returns
 * how many shards end in a chunk being written. */
static uint32_t live_totals(int dirfd, struct prec_manifest *m)
{
	uint32_t writing = 0;

	for (uint32_t i = 0; i < m->nr_shards; i++) {
		struct prec_manifest_shard *s = &m->shards[i];
		struct prec_live_totals t;
		const char *why = NULL;

		if (prec_live_scan__shard(dirfd, s->name, &m->time_layout, NULL, NULL, &t, &why) < 0) {
			pr_warn("shard %s: cannot read: %s", str(s->name), why ? why : "?");
			continue;
		}
		s->chunks = t.chunks;
		s->records = t.records;
		s->bytes = t.bytes;
		s->raw_bytes = t.raw_bytes;
		s->lost = t.lost;
		s->first_time = t.first_time;
		s->last_time = t.last_time;
		writing += t.torn;
	}
	return writing;
}

/* A manifest not final: the carry and the window as prec merge finds them
 * in the directory, taken before live_totals() sets the shards' first
 * times; the drop counts stay the manifest's (the final one has them).
 * Returns 0 or -ENOMEM. */
static int live_window(int dirfd, struct prec_manifest *m, uint64_t *window)
{
	uint64_t segments = m->max_disk.segments;
	int r = prec_crash_window__fill(dirfd, m);

	*window = prec_merge__window(m);
	m->max_disk.segments = segments;
	return r;
}

/* ---- --check ---- */

struct tally {
	uint64_t chunks, records, bytes, raw, lost, first, last;
	uint64_t wm;   /* highest watermark of the chunks before */
	uint32_t seq;
};

#define NO_OFFSET UINT64_MAX

/* "shard NAME: [segment file NAME.N: ]offset 0x...: ": the file a line
 * is about, and where in it. */
static void say_where(struct info *in, const char *shard, uint64_t off)
{
	const char *seg = in->rd ? prec_shard_reader__segment_file(in->rd) : NULL;

	fprintf(in->out, "shard %s: ", str(shard));
	if (off == NO_OFFSET)
		return;
	if (seg)
		fprintf(in->out, "segment file %s: ", str(seg));
	fprintf(in->out, "offset 0x%llx: ", (unsigned long long)off);
}

static void __attribute__((format(printf, 4, 5)))
problem(struct info *in, const char *shard, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	say_where(in, shard, off);
	va_start(ap, fmt);
	vfprintf(in->out, fmt, ap);
	va_end(ap);
	fputc('\n', in->out);
	in->problems++;
}

/* One problem per kind per chunk is enough to find it. */
static void check_times(struct info *in, const char *name, const struct prec_chunk *ch,
			uint64_t lo, uint64_t hi, const struct tally *t)
{
	if (!lo)
		return;
	if (lo < ch->hdr.first_time || hi > ch->hdr.last_time)
		problem(in, name, ch->offset,
			"record times %llu..%llu outside the header's %llu..%llu",
			(unsigned long long)lo, (unsigned long long)hi,
			(unsigned long long)ch->hdr.first_time,
			(unsigned long long)ch->hdr.last_time);
	if (t->wm >= PREC_WATERMARK_SLACK_NS && lo < t->wm - PREC_WATERMARK_SLACK_NS)
		problem(in, name, ch->offset,
			"record time %llu is more than the slack below an earlier watermark %llu",
			(unsigned long long)lo, (unsigned long long)t->wm);
}

static void check_data(struct info *in, const char *name, const struct prec_chunk *ch,
		       const struct prec_time_layout *tl, struct tally *t)
{
	const uint8_t *p = ch->payload;
	uint64_t lo = 0, hi = 0;
	uint32_t pos = 0, n = 0;

	while (pos < ch->len) {
		uint16_t size;
		uint32_t type;
		uint64_t time;
		const char *bad = prec_record__bad(tl, p + pos, ch->len - pos, &size);

		if (bad) {
			problem(in, name, ch->offset, "record at +0x%x (size %u): %s", pos, size, bad);
			return;
		}
		memcpy(&type, p + pos, sizeof(type));
		/* as the merge reads it: a KSYMBOL's time in its real trailer */
		time = prec_time_layout__time(tl, p + pos,
					      prec_record__size(p + pos, size, in->trailer));
		if (time && (!lo || time < lo))
			lo = time;
		if (time > hi)
			hi = time;
		if (type == PERF_RECORD_LOST && size >= 24)
			t->lost = prec_add_sat(t->lost, prec_ld64(p + pos + 16));
		pos += size;
		n++;
	}
	if (n != ch->hdr.records)
		problem(in, name, ch->offset, "%u records, header says %u", n, ch->hdr.records);
	check_times(in, name, ch, lo, hi, t);
}

static void add_chunk(struct info *in, const char *name, const struct prec_chunk *ch,
		      const struct prec_time_layout *tl, struct tally *t)
{
	if (ch->hdr.seq != t->seq)
		problem(in, name, ch->offset, "chunk seq %u, expected %u (chunks missing)",
			ch->hdr.seq, t->seq);
	t->seq = ch->hdr.seq + 1;
	if (ch->hdr.type == PREC_CHUNK_DATA)
		check_data(in, name, ch, tl, t);
	else if (ch->hdr.type == PREC_CHUNK_AUX && !in->aux_ok)
		problem(in, name, ch->offset, "AUX data in a recording without an AUX event");
	else if (ch->hdr.type != PREC_CHUNK_AUX && ch->hdr.type != PREC_CHUNK_MARKER)
		problem(in, name, ch->offset, "unknown chunk type %u", ch->hdr.type);
	t->chunks++;
	t->records += ch->hdr.records;
	t->bytes += ch->hdr.payload_len;
	t->raw += ch->hdr.raw_len;
	if (ch->hdr.first_time && (!t->first || ch->hdr.first_time < t->first))
		t->first = ch->hdr.first_time;
	if (ch->hdr.last_time > t->last)
		t->last = ch->hdr.last_time;
	if (ch->hdr.watermark > t->wm)
		t->wm = ch->hdr.watermark;
}

static void compare(struct info *in, const struct prec_manifest_shard *s,
		    const char *what, uint64_t manifest, uint64_t found)
{
	if (manifest != found)
		problem(in, s->name, NO_OFFSET, "manifest says %llu %s, the shard has %llu",
			(unsigned long long)manifest, what, (unsigned long long)found);
}

/* The LOST records of a trimmed shard's dropped chunks are gone; the
 * manifest counts every loss of the recording. */
static void compare_totals(struct info *in, const struct prec_manifest_shard *s,
			   const struct tally *t, bool trimmed)
{
	compare(in, s, "chunks", s->chunks, t->chunks);
	compare(in, s, "records", s->records, t->records);
	compare(in, s, "payload bytes", s->bytes, t->bytes);
	compare(in, s, "raw bytes", s->raw_bytes, t->raw);
	if (!trimmed)
		compare(in, s, "lost records", s->lost, t->lost);
	compare(in, s, "as first time", s->first_time, t->first);
	compare(in, s, "as last time", s->last_time, t->last);
}

static void check_header(struct info *in, const struct prec_manifest *m,
			 const struct prec_manifest_shard *s,
			 const struct prec_shard_reader *rd)
{
	const struct prec_shard_header *h = prec_shard_reader__header(rd);

	if (h->cpu != s->cpu)
		problem(in, s->name, 0, "header says cpu %d, manifest says %d", (int)h->cpu,
			(int)s->cpu);
	if (memcmp(h->session_id, m->session_id, sizeof(h->session_id)))
		problem(in, s->name, 0, "session id differs from the manifest's");
}

static void check_shard(struct info *in, int dirfd, const struct prec_manifest *m,
			const struct prec_manifest_shard *s, struct tally *t)
{
	struct prec_shard_reader *rd;
	struct prec_chunk ch;
	const char *why = NULL;
	int r;

	r = prec_shard_reader__open_why(&rd, dirfd, s->name, NULL, &why);
	if (r < 0) {
		problem(in, s->name, NO_OFFSET, "cannot open: %s", why);
		return;
	}
	check_header(in, m, s, rd);
	in->rd = rd;
	t->seq = prec_shard_reader__header(rd)->first_seq; /* 0 unless trimmed */
	while ((r = prec_shard_reader__next(rd, &ch)) > 0)
		add_chunk(in, s->name, &ch, &m->time_layout, t);
	if (r == -EBADMSG && m->state != PREC_STATE_COMPLETE &&
	    !strncmp(prec_shard_reader__why(rd), "torn", 4)) {
		/* The recorder died mid-write: expected, and every chunk
		 * before the tail was read and checked. */
		say_where(in, s->name, prec_shard_reader__offset(rd));
		fprintf(in->out, "%s (recording did not finish)\n", prec_shard_reader__why(rd));
	} else if (r < 0)
		problem(in, s->name, prec_shard_reader__offset(rd), "%s",
			*prec_shard_reader__why(rd) ? prec_shard_reader__why(rd) : strerror(-r));
	else if (m->state == PREC_STATE_COMPLETE)
		compare_totals(in, s, t, prec_shard_reader__header(rd)->flags & PREC_SHARD_TRIMMED);
	in->rd = NULL;
	prec_shard_reader__close(rd);
}

static void check_all(struct info *in, int dirfd, const struct prec_manifest *m)
{
	uint64_t chunks = 0, records = 0;

	in->trailer = prec_record__trailer_size(m->sample_type);
	in->aux_ok = m->auxtrace_type != 0;
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		struct tally t = { 0 };

		check_shard(in, dirfd, m, &m->shards[i], &t);
		chunks += t.chunks;
		records += t.records;
	}
	if (m->state != PREC_STATE_COMPLETE && m->state != PREC_STATE_RECORDING) {
		/* not one prec writes: nothing to vouch for the totals by */
		fprintf(in->out, "check: manifest state %u unknown: shard totals not compared\n",
			m->state);
		in->problems++;
	} else if (m->state != PREC_STATE_COMPLETE) {
		fprintf(in->out, "check: manifest not final: shard totals not compared\n");
	}
	fprintf(in->out, "check: %u shards, %llu chunks, %llu records: ", m->nr_shards,
		(unsigned long long)chunks, (unsigned long long)records);
	if (in->problems)
		fprintf(in->out, "%lu problems\n", in->problems);
	else
		fprintf(in->out, "ok\n");
}

/* ---- command line ---- */

static const struct {
	struct option opt;
	const char *help;
} options[] = {
	{ { "json", no_argument, NULL, 'j' }, "print the manifest as one JSON object" },
	{ { "check", no_argument, NULL, 'c' }, "read and validate every chunk of every shard" },
	{ { "timeline", no_argument, NULL, 't' }, "draw each shard's data rate and losses over time" },
	{ { "force", no_argument, NULL, 'f' }, "read a recording of another user's" },
	{ { "help", no_argument, NULL, 'h' }, "this text" },
};
#define NR_OPTIONS (sizeof(options) / sizeof(options[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: prec info DIR [options]\n");
	for (size_t i = 0; i < NR_OPTIONS; i++)
		fprintf(f, "  %c%c%c --%-8s %s\n", strchr("hf", options[i].opt.val) ? '-' : ' ',
			strchr("hf", options[i].opt.val) ? options[i].opt.val : ' ',
			strchr("hf", options[i].opt.val) ? ',' : ' ', options[i].opt.name,
			options[i].help);
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(struct info *in, int argc, char **argv)
{
	struct option opts[NR_OPTIONS + 1];
	int o;

	memset(opts, 0, sizeof(opts));
	for (size_t i = 0; i < NR_OPTIONS; i++)
		opts[i] = options[i].opt;
	optind = 0;
	opterr = 0;
	while ((o = getopt_long(argc, argv, "hf", opts, NULL)) != -1) {
		switch (o) {
		case 'j': in->json = true; break;
		case 'c': in->check = true; break;
		case 't': in->timeline = true; break;
		case 'f': in->force = true; break;
		case 'h': usage(stdout); return 0;
		default: prec_cli__bad_option("info", argv); return 2;
		}
	}
	if (optind != argc - 1) {
		prec_cli__bad_args("info", "want exactly one directory");
		return 2;
	}
	in->dir = argv[optind];
	return -1;
}

int prec_cmd_info(int argc, char **argv)
{
	struct info in = { .out = stdout };
	struct prec_manifest *m = NULL;
	const char *why = NULL;
	uint32_t live = 0;
	uint64_t window = 0;
	bool bad_window = false; /* --check counts it in its own words */
	int dirfd, r;

	r = parse_args(&in, argc, argv);
	if (r >= 0)
		return r;
	dirfd = open(in.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		pr_err("info %s: cannot open: %s", in.dir, strerror(errno));
		return 1;
	}
	if (prec_owner__check("info", in.dir, dirfd, in.force) < 0) {
		close(dirfd);
		return 1;
	}
	r = prec_manifest__read(&m, dirfd, &why);
	if (r < 0) {
		/* a recorder writes the start manifest before any record */
		pr_err("%s/%s: cannot read: %s%s", in.dir, PREC_MANIFEST_NAME,
		       why ? why : strerror(-r),
		       r == -ENOENT ? " (not a recording, or its recorder has not started yet)" : "");
		close(dirfd);
		return 1;
	}
	prec_merge__say_state(in.dir, m);
	if (m->state == PREC_STATE_COMPLETE)
		window = prec_merge__window(m);
	else if (live_window(dirfd, m, &window) < 0) {
		pr_err("info %s: %s", in.dir, strerror(ENOMEM));
		prec_manifest__delete(m);
		close(dirfd);
		return 1;
	}
	/* The window printed is the one merge would refuse: said here, as
	 * merge says it (the rest is printed all the same). */
	if (window) {
		char bad[256];

		bad_window = prec_crash_window__check(dirfd, m, bad, sizeof(bad)) < 0;
		if (bad_window)
			pr_err("info %s: %s: %s", in.dir, PREC_MANIFEST_NAME, bad);
	}
	/* --json too: its shards then hold the totals so far, and its
	 * state says "recording" */
	if (m->state != PREC_STATE_COMPLETE && !in.timeline)
		live = live_totals(dirfd, m);
	if (in.timeline) {
		r = prec_timeline__print(dirfd, m, in.dir, stdout);
	} else if (in.json) {
		r = prec_manifest__print_json(m, stdout);
		in.out = stderr; /* keep stdout valid JSON */
	} else {
		printf("directory:   %s\n", str(in.dir));
		print_host(m);
		print_events(m);
		if (m->state != PREC_STATE_COMPLETE)
			printf("live:        yes: totals read from the shards' whole chunks (%u shards with a chunk being written)\n",
			       live);
		print_shards(m);
		print_rest(m, window);
	}
	if (in.check)
		check_all(&in, dirfd, m);
	if (fflush(stdout) || r < 0)
		r = 1;
	prec_manifest__delete(m);
	close(dirfd);
	return r || in.problems || bad_window ? 1 : 0;
}
