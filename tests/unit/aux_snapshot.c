// SPDX-License-Identifier: MIT
// perf record -S and --aux-sample without an AUX PMU: the snapshot range
// rule (never wrapped: all that was written, then what is new; wrapped:
// the newest SIZE bytes ending at aux_head, for a head within the area as
// intel_pt's and for one that runs on), snapshots of two simulated rings
// (a wrapped 256 KiB area, one that never wrapped) into flight shards,
// byte for byte, in AUX chunks of consecutive offsets (RUN, CONT); the AUX event's fds
// disabled after an exit snapshot and enabled after the others (real
// software events stand in for it); the merge's AUXTRACE records, one per
// snapshot whatever its chunks (offset, size, idx, cpu), and index, the intel_pt AUXTRACE_INFO snapshot word, and
// perf's own reading of both (perf script -D, perf report without a
// warning); a SAMPLE carrying PERF_SAMPLE_AUX merged and parsed by perf;
// the option grammar of -S and --aux-sample.
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "read/read.h"
#include "record/aux_mode.h"
#include "record/aux_snapshot.h"
#include "record/auxpmu.h"
#include "record/internal.h"
#include "record/options.h"
#include "record/ring.h"
#include "store/store.h"
#include "../lib/test.h"
#include "util/bytes.h"

#define DATA_SIZE (16u * 1024u)
#define AUX_BIG (256u * 1024u)     /* ring 0: wraps */
#define AUX_SMALL (64u * 1024u)    /* ring 1: never wraps */
#define SNAP (200u * 1024u)        /* the snapshot size */
#define PT_TYPE 8u
#define EVENT_ID 7u
#define SAMPLE_ID 9u
#define REC_AUXTRACE_INFO 70u
#define REC_AUXTRACE 71u
#define FEAT_AUXTRACE 18

static char *tmp;
static int dirfd_tmp;
static uint64_t rng;

/* ---- the range rule ---- */

static void test_range(void)
{
	static uint8_t area[65536];
	uint64_t prev = 0, off, len;
	bool wrapped = false;

	/* never wrapped: everything written, then only what is new */
	memset(area, 0, sizeof(area));
	memset(area, 0xa5, 3000);
	prec_aux_snapshot__range(area, sizeof(area), 3000, sizeof(area), &prev, &wrapped,
				 &off, &len);
	CHECK_EQ(off, 0);
	CHECK_EQ(len, 3000);
	CHECK(!wrapped);
	memset(area + 3000, 0xa5, 1000);
	prec_aux_snapshot__range(area, sizeof(area), 4000, sizeof(area), &prev, &wrapped,
				 &off, &len);
	CHECK_EQ(off, 3000);
	CHECK_EQ(len, 1000);
	/* nothing new: nothing */
	prec_aux_snapshot__range(area, sizeof(area), 4000, sizeof(area), &prev, &wrapped,
				 &off, &len);
	CHECK_EQ(len, 0);
	/* at most the snapshot size of the new bytes, the newest */
	memset(area + 4000, 0xa5, 2000);
	prec_aux_snapshot__range(area, sizeof(area), 6000, 500, &prev, &wrapped, &off, &len);
	CHECK_EQ(off, 5500);
	CHECK_EQ(len, 500);
	/* the last 4 KiB written: wrapped (intel_pt's head stays within the
	 * area), the newest bytes end at head, offsets run on by a size */
	memset(area, 0xa5, sizeof(area));
	prec_aux_snapshot__range(area, sizeof(area), 100, 1000, &prev, &wrapped, &off, &len);
	CHECK(wrapped);
	CHECK_EQ(off, 100 + sizeof(area) - 1000);
	CHECK_EQ(len, 1000);
	CHECK_EQ(off & (sizeof(area) - 1), sizeof(area) - 900);
	/* wrapped stays: the whole area with a snapshot as big */
	prec_aux_snapshot__range(area, sizeof(area), 200, sizeof(area), &prev, &wrapped,
				 &off, &len);
	CHECK_EQ(off, 200);
	CHECK_EQ(len, sizeof(area));
	/* a head that runs on past the end: wrapped, whatever the bytes */
	memset(area, 0, sizeof(area));
	prev = 0;
	wrapped = false;
	prec_aux_snapshot__range(area, sizeof(area), 3 * sizeof(area) + 5, 4096, &prev,
				 &wrapped, &off, &len);
	CHECK(wrapped);
	CHECK_EQ(len, 4096);
	CHECK_EQ((off + len) & (sizeof(area) - 1), 5);
}

/* ---- snapshots of simulated rings ---- */

static struct prec_ring rings[2];
static uint8_t *want[2];           /* the bytes each snapshot must hold */
static uint64_t want_len[2], want_off[2];
static uint32_t chunk_len[2][16];
static uint32_t nr_chunks[2];

/* n pseudo-random bytes at the ring's aux_head, as a PMU writes them in
 * overwrite mode: head stays within the area (intel_pt's way). */
static void write_aux(struct prec_ring *r, uint64_t n)
{
	uint64_t head = r->page->aux_head;

	for (uint64_t i = 0; i < n; i++)
		r->aux[(head + i) & (r->aux_size - 1)] = (uint8_t)(test_rand(&rng) >> 29) | 1;
	__atomic_store_n(&r->page->aux_head, (head + n) & (r->aux_size - 1), __ATOMIC_RELEASE);
}

/* A counting software event standing in for ring i's AUX event: enabled,
 * its enabled time tells whether it still is. */
static int stand_in(void)
{
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
				     .config = PERF_COUNT_SW_CPU_CLOCK,
				     .read_format = PERF_FORMAT_TOTAL_TIME_ENABLED };
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return (int)fd;
}

static uint64_t enabled_ns(int fd)
{
	uint64_t v[2] = { 0, 0 };

	CHECK_EQ(read(fd, v, sizeof(v)), (ssize_t)sizeof(v));
	return v[1];
}

static bool runs(int fd)
{
	uint64_t a = enabled_ns(fd);

	usleep(2000);
	return enabled_ns(fd) > a;
}

static void open_writers(const uint8_t sid[16], struct prec_shard_writer **w,
			 const char *fmt)
{
	struct prec_shard_writer_opts wo = { 0 };

	memcpy(wo.session_id, sid, 16);
	for (int c = 0; c < 2; c++) {
		char name[32];

		wo.cpu = c;
		snprintf(name, sizeof(name), fmt, c);
		CHECK_EQ(prec_shard_writer__open(&w[c], dirfd_tmp, name, &wo), 0);
	}
}

static void snapshot_rings(const uint8_t sid[16])
{
	struct prec_shard_writer *w[2];
	int cpus[2] = { 0, 1 }, fds[2] = { stand_in(), stand_in() };
	struct prec_aux_snapshot_opts ao = { .rings = rings, .writers = w, .cpus = cpus,
		.nr = 2, .fds = fds, .fds_per_ring = 1, .size = SNAP };
	struct prec_aux_snapshot *s;
	struct prec_aux_snapshot_stats st;
	uint64_t h;

	CHECK(fds[0] >= 0 && fds[1] >= 0);
	open_writers(sid, w, "cpu%03d.flight.shard");
	/* a snapshot bigger than ring 1's area is refused */
	CHECK_EQ(prec_aux_snapshot__new(&s, &ao), -EINVAL);
	ao.size = AUX_SMALL;

	/* ring 0: 2.5 areas written, wrapping; ring 1: 40000 bytes */
	write_aux(&rings[0], AUX_BIG);
	write_aux(&rings[0], AUX_BIG + AUX_BIG / 2 + 12345);
	write_aux(&rings[1], 40000);
	h = rings[0].page->aux_head;
	want[0] = malloc(SNAP);
	want[1] = malloc(40000);
	CHECK(want[0] && want[1]);
	/* ring 0: its newest 64 KiB, ending at head */
	want_len[0] = AUX_SMALL;
	want_off[0] = h + AUX_BIG - AUX_SMALL;
	for (uint64_t i = 0; i < AUX_SMALL; i++)
		want[0][i] = rings[0].aux[(want_off[0] + i) & (AUX_BIG - 1)];
	/* ring 1: all it holds */
	want_len[1] = 40000;
	want_off[1] = 0;
	memcpy(want[1], rings[1].aux, 40000);

	CHECK_EQ(prec_aux_snapshot__new(&s, &ao), 0);
	CHECK_EQ(prec_aux_snapshot__take(s, false), 0);
	/* the stand-ins are on again after an ordinary snapshot */
	CHECK(runs(fds[0]));
	CHECK(runs(fds[1]));
	prec_aux_snapshot__stats(s, &st);
	CHECK_EQ(st.snapshots, 1);
	CHECK_EQ(st.bytes, AUX_SMALL + 40000);
	prec_aux_snapshot__delete(s);
	for (int c = 0; c < 2; c++)
		CHECK_EQ(prec_shard_writer__close(w[c]), 0);

	/* an exit snapshot (perf's -Se) leaves them off */
	open_writers(sid, w, "exit%03d.shard");
	CHECK_EQ(prec_aux_snapshot__new(&s, &ao), 0);
	CHECK_EQ(prec_aux_snapshot__take(s, true), 0);
	CHECK(!runs(fds[0]));
	CHECK(!runs(fds[1]));
	prec_aux_snapshot__delete(s);
	for (int c = 0; c < 2; c++) {
		char name[32];

		CHECK_EQ(prec_shard_writer__close(w[c]), 0);
		snprintf(name, sizeof(name), "exit%03d.shard", c);
		CHECK_EQ(unlinkat(dirfd_tmp, name, 0), 0);
	}
	close(fds[0]);
	close(fds[1]);
}

/* A bigger snapshot, split at the payload cap: ring 0 alone. */
static void snapshot_big(const uint8_t sid[16])
{
	struct prec_shard_writer_opts wo = { .cpu = 0 };
	struct prec_shard_writer *w;
	int cpu = 0;
	struct prec_aux_snapshot_opts ao = { .rings = rings, .writers = &w, .cpus = &cpu,
		.nr = 1, .size = SNAP };
	struct prec_aux_snapshot *s;
	uint64_t h;

	memcpy(wo.session_id, sid, 16);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd_tmp, "cpu000.flight.shard", &wo), 0);
	write_aux(&rings[0], 77777);
	h = rings[0].page->aux_head;
	for (uint64_t i = 0; i < SNAP; i++)
		want[0][i] = rings[0].aux[(h + AUX_BIG - SNAP + i) & (AUX_BIG - 1)];
	want_len[0] = SNAP;
	want_off[0] = h + AUX_BIG - SNAP;
	CHECK_EQ(prec_aux_snapshot__new(&s, &ao), 0);
	CHECK_EQ(prec_aux_snapshot__take(s, false), 0);
	prec_aux_snapshot__delete(s);
	CHECK_EQ(prec_shard_writer__close(w), 0);
}

/* Each flight shard: AUX chunks of consecutive offsets holding want[c]. */
static void check_shard(int c)
{
	struct prec_shard_reader *r;
	struct prec_chunk ch;
	uint64_t pos = 0;
	char name[32];
	int n;

	snprintf(name, sizeof(name), "cpu%03d.flight.shard", c);
	CHECK_EQ(prec_shard_reader__open(&r, dirfd_tmp, name), 0);
	nr_chunks[c] = 0;
	while ((n = prec_shard_reader__next(r, &ch)) > 0) {
		CHECK_EQ(ch.hdr.type, PREC_CHUNK_AUX);
		CHECK_EQ(ch.hdr.aux_offset, want_off[c] + pos);
		CHECK(ch.len <= PREC_CHUNK_MAX_PAYLOAD);
		CHECK(ch.hdr.first_time > 0);
		CHECK(pos + ch.len <= want_len[c]);
		CHECK(!memcmp(ch.payload, want[c] + pos, ch.len));
		CHECK(nr_chunks[c] < 16);
		/* a snapshot of several pieces: RUN, then CONTs */
		CHECK_EQ(ch.hdr.flags, !pos ? (ch.len < want_len[c] ? PREC_AUX_CHUNK_RUN : 0) :
				       PREC_AUX_CHUNK_CONT);
		chunk_len[c][nr_chunks[c]++] = ch.len;
		pos += ch.len;
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(pos, want_len[c]);
	prec_shard_reader__close(r);
}

/* ---- the merge ---- */

static uint64_t *pt_words;
static uint32_t pt_nr;

/* intel_pt's words as prec record writes them with -S (fake sysfs). */
static void make_pt_words(bool snapshot)
{
	char *root = test_tmpdir("auxsnap-sysfs"), dir[600];
	struct prec_auxpmu_src s = { .root = root, .pmu = "intel_pt", .pmu_type = PT_TYPE,
				     .have_sched_switch = 3, .per_cpu_mmaps = true,
				     .snapshot = snapshot };
	uint32_t type;

	snprintf(dir, sizeof(dir), "%s/intel_pt", root);
	CHECK_EQ(mkdir(dir, 0700), 0);
	test_put(dir, "type", "8");
	snprintf(dir, sizeof(dir), "%s/intel_pt/format", root);
	CHECK_EQ(mkdir(dir, 0700), 0);
	test_put(dir, "tsc", "config:10");
	free(pt_words);
	CHECK_EQ(prec_auxpmu__info(&s, &type, &pt_words, &pt_nr), 0);
	CHECK_EQ(type, PREC_AUXTRACE_INTEL_PT);
	CHECK_EQ(pt_words[8], snapshot); /* perf's INTEL_PT_SNAPSHOT_MODE */
	test_rmdir(root);
	free(root);
}

static void empty_shard(const uint8_t sid[16], const char *name, int cpu)
{
	struct prec_shard_writer_opts wo = { .cpu = cpu };
	struct prec_shard_writer *w;

	memcpy(wo.session_id, sid, 16);
	CHECK_EQ(prec_shard_writer__open(&w, dirfd_tmp, name, &wo), 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
}

/* The recording's manifest: the AUX event (intel_pt, perf clock) with an
 * id per CPU, and sample_event (cpu-clock) carrying PERF_SAMPLE_AUX. */
static void write_manifest(const uint8_t sid[16], bool flight, uint64_t aux_sample)
{
	struct prec_manifest *m = prec_manifest__new();
	struct perf_event_attr a = { .type = PT_TYPE, .size = 128, .config = 0x400,
				     .sample_type = PREC_SAMPLE_BASE, .sample_id_all = 1,
				     .sample_period = 1 };
	uint8_t attr[128] = { 0 };
	const char *names[5] = { "cpu000.shard", "cpu001.shard", "sideband.shard",
				 "cpu000.flight.shard", "cpu001.flight.shard" };
	int cpu[5] = { 0, 1, -1, 0, 1 };

	CHECK(m);
	m->state = PREC_STATE_COMPLETE;
	memcpy(m->session_id, sid, 16);
	m->clockid = PREC_CLOCK_PERF;
	m->sample_type = PREC_SAMPLE_BASE;
	CHECK_EQ(prec_time_layout__init(&m->time_layout, PREC_SAMPLE_BASE), 0);
	memcpy(attr, &a, sizeof(a));
	CHECK_EQ(prec_manifest__add_event(m, attr, "intel_pt//"), 0);
	for (int c = 0; c < 2; c++)
		CHECK_EQ(prec_manifest__add_event_id(m, 0, EVENT_ID + (uint64_t)c, c, -1), 0);
	if (aux_sample) {
		a = (struct perf_event_attr){ .type = PERF_TYPE_SOFTWARE, .size = 128,
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_type = PREC_SAMPLE_BASE | PERF_SAMPLE_AUX,
			.sample_id_all = 1, .sample_period = 100000,
			.aux_sample_size = (uint32_t)aux_sample };
		memcpy(attr, &a, sizeof(a));
		CHECK_EQ(prec_manifest__add_event(m, attr, "cpu-clock"), 1);
		CHECK_EQ(prec_manifest__add_event_id(m, 1, SAMPLE_ID, 0, -1), 0);
	}
	for (int i = 0; i < (flight ? 5 : 3); i++) {
		struct prec_manifest_shard sh = { .name = (char *)names[i], .cpu = cpu[i] };

		CHECK_EQ(prec_manifest__add_shard(m, &sh), 0);
	}
	m->auxtrace_type = PREC_AUXTRACE_INTEL_PT;
	m->nr_auxtrace_priv = pt_nr;
	m->auxtrace_priv = malloc(pt_nr * sizeof(*pt_words));
	CHECK(m->auxtrace_priv);
	memcpy(m->auxtrace_priv, pt_words, pt_nr * sizeof(*pt_words));
	CHECK_EQ(prec_manifest__write(m, dirfd_tmp), 0);
	prec_manifest__delete(m);
}

/* Every AUXTRACE of the merged file: in each CPU's order, the chunks'
 * offsets and sizes, idx and cpu the CPU, tid -1, the bytes; the index
 * at exactly those headers. */
static void check_merged(const uint8_t *f, size_t len)
{
	uint64_t off = prec_ld64(f + 40), end = off + prec_ld64(f + 48), at[32], nat = 0;
	uint64_t pos[2] = { 0, 0 }, sec;
	uint32_t seen[2] = { 0, 0 }, info = 0;

	CHECK(end <= len);
	while (off < end) {
		const struct perf_event_header *h = (const void *)(f + off);
		uint64_t step = h->size;

		CHECK(h->size >= 8);
		if (h->type == REC_AUXTRACE_INFO) {
			CHECK_EQ(prec_ld64(f + off + 16 + 8 * 8), 1); /* snapshot mode */
			info++;
		} else if (h->type == REC_AUXTRACE) {
			const uint8_t *p = f + off;
			uint32_t cpu = (uint32_t)prec_ld64(p + 40);
			uint64_t size = prec_ld64(p + 8), aoff = prec_ld64(p + 16), real;

			CHECK_EQ(h->size, 48);
			CHECK(cpu < 2);
			CHECK_EQ((uint32_t)prec_ld64(p + 32), cpu);      /* idx */
			CHECK_EQ((uint32_t)(prec_ld64(p + 32) >> 32), 0xffffffffu); /* tid */
			/* one AUXTRACE per snapshot, however many chunks */
			CHECK_EQ(seen[cpu], 0);
			seen[cpu]++;
			real = want_len[cpu];
			CHECK_EQ(size, (real + 7) & ~7ull);
			CHECK_EQ(aoff, want_off[cpu]);
			CHECK(!memcmp(p + 48, want[cpu], real));
			for (uint64_t i = real; i < size; i++)
				CHECK_EQ(p[48 + i], 0);
			pos[cpu] += real;
			CHECK(nat < 32);
			at[nat++] = off;
			step += size;
		}
		off += step;
	}
	CHECK_EQ(off, end);
	CHECK_EQ(info, 1);
	for (int c = 0; c < 2; c++) {
		CHECK_EQ(seen[c], !!want_len[c]);
		CHECK_EQ(pos[c], want_len[c]);
	}
	sec = test_perfdata_feature(f, len, FEAT_AUXTRACE);
	CHECK_EQ(prec_ld64(f + sec), nat);
	for (uint64_t i = 0; i < nat; i++)
		CHECK_EQ(prec_ld64(f + sec + 8 + 16 * i), at[i]);
}

/* perf's verdict: out runs cmd (stdout and stderr), every line of need[]
 * is in what it printed, none of bad[]. Skipped without perf. */
static void perf_says(const char *cmd, const char *const *need, int nr_need)
{
	static const char *const bad[] = { "Warning", "WARNING", "rror", "failed",
					   "nvalid", "ncompatible", "Can't" };
	char line[1024];
	uint32_t seen = 0;
	FILE *p = popen(cmd, "r");

	CHECK(p);
	int said = 0;

	while (fgets(line, sizeof(line), p)) {
		for (int i = 0; i < nr_need; i++)
			if (strstr(line, need[i]))
				seen |= 1u << i;
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			said += !!strstr(line, bad[i]);
		/* what it said, and the lines after */
		if (said && said++ < 8)
			fprintf(stderr, "%s: %s", cmd, line);
	}
	CHECK_EQ(said, 0);
	CHECK_EQ(pclose(p), 0);
	CHECK_EQ(seen, (1u << nr_need) - 1);
}

static void test_merge_snapshots(void)
{
	char out[600], cmd[800], l0[160], l1[160];
	char *argv[] = { "merge", "-o", out, tmp, NULL };
	const char *need[4] = { "Snapshot mode       1", "Per-cpu maps        1", l0, l1 };
	uint8_t *f;
	size_t len;

	snprintf(out, sizeof(out), "%s.perf.data", tmp);
	CHECK_EQ(prec_cmd_merge(4, argv), 0);
	f = test_load(out, &len);
	CHECK(len > 104 && !memcmp(f, "PERFILE2", 8));
	check_merged(f, len);
	free(f);
	if (system("perf --version >/dev/null 2>&1")) {
		unlink(out);
		return;
	}
	/* perf -D's AUXTRACE line of each CPU's first record */
	snprintf(l0, sizeof(l0), "size: %#llx  offset: %#llx  ref: 0  idx: 0  tid: -1  cpu: 0",
		 (unsigned long long)((want_len[0] + 7) & ~7ull), (unsigned long long)want_off[0]);
	snprintf(l1, sizeof(l1), "size: %#llx  offset: 0  ref: 0  idx: 1  tid: -1  cpu: 1",
		 (unsigned long long)((want_len[1] + 7) & ~7ull));
	snprintf(cmd, sizeof(cmd), "perf script -D -i %s 2>&1", out);
	perf_says(cmd, need, 4);
	/* and reads it without a word, its AUX data queued (not decoded:
	 * these bytes are no Intel PT) */
	snprintf(cmd, sizeof(cmd), "perf script --no-itrace -i %s 2>&1", out);
	perf_says(cmd, NULL, 0);
	unlink(out);
}

/* ---- --aux-sample: a SAMPLE carrying AUX bytes ---- */

#define AUX_SAMPLE_BYTES 4096u

static void sample_shard(const uint8_t sid[16], uint64_t t, uint8_t *rec, uint16_t *size)
{
	struct prec_shard_writer_opts wo = { .cpu = 0 };
	struct prec_chunk_meta meta = { .type = PREC_CHUNK_DATA, .records = 1,
					.first_time = t, .last_time = t, .watermark = t };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 0 };
	uint64_t w[6];
	struct prec_shard_writer *wr;
	struct iovec v;

	/* IDENTIFIER IP TID TIME CPU, then AUX: {size, bytes} */
	w[1] = SAMPLE_ID;
	w[2] = 0x401000;
	w[3] = 42ull | (42ull << 32);
	w[4] = t;
	w[5] = 0;
	h.size = (uint16_t)(sizeof(w) + 8 + AUX_SAMPLE_BYTES);
	memcpy(&w[0], &h, 8);
	memcpy(rec, w, sizeof(w));
	prec_st64(rec + sizeof(w), AUX_SAMPLE_BYTES);
	for (unsigned int i = 0; i < AUX_SAMPLE_BYTES; i++)
		rec[sizeof(w) + 8 + i] = (uint8_t)(i * 7 + 1);
	*size = h.size;
	memcpy(wo.session_id, sid, 16);
	CHECK_EQ(prec_shard_writer__open(&wr, dirfd_tmp, "cpu000.shard", &wo), 0);
	v = (struct iovec){ rec, h.size };
	CHECK(prec_shard_writer__append(wr, &meta, &v, 1) > 0);
	CHECK_EQ(prec_shard_writer__close(wr), 0);
}

static void test_aux_sample(const uint8_t sid[16])
{
	char out[600], cmd[800];
	char *argv[] = { "merge", "-o", out, tmp, NULL };
	static uint8_t rec[8192];
	/* parsed whole (a bad AUX size is "Can't parse sample") */
	const char *need[2] = { "PERF_RECORD_SAMPLE(IP, 0x2): 42/42: 0x401000",
				"cpu-clock:            401000" };
	uint64_t off, end;
	uint16_t size;
	uint8_t *f;
	size_t len;
	int found = 0;

	/* a fresh recording in tmp: the sample's shard, no flight shards */
	unlinkat(dirfd_tmp, "cpu000.flight.shard", 0);
	unlinkat(dirfd_tmp, "cpu001.flight.shard", 0);
	unlinkat(dirfd_tmp, "cpu000.shard", 0);
	sample_shard(sid, 1000000, rec, &size);
	make_pt_words(false);
	write_manifest(sid, false, AUX_SAMPLE_BYTES);
	snprintf(out, sizeof(out), "%s.perf.data", tmp);
	CHECK_EQ(prec_cmd_merge(4, argv), 0);
	f = test_load(out, &len);
	off = prec_ld64(f + 40);
	end = off + prec_ld64(f + 48);
	for (; off < end; off += ((const struct perf_event_header *)(f + off))->size) {
		const struct perf_event_header *h = (const void *)(f + off);

		if (h->type == PERF_RECORD_SAMPLE) {
			CHECK_EQ(h->size, size);
			CHECK(!memcmp(f + off, rec, size));
			found++;
		}
		CHECK(h->type != REC_AUXTRACE);
	}
	CHECK_EQ(found, 1);
	free(f);
	if (!system("perf --version >/dev/null 2>&1")) {
		/* perf parses the sample, its AUX field included */
		snprintf(cmd, sizeof(cmd), "perf script -D --no-itrace -i %s 2>&1", out);
		perf_says(cmd, need, 2);
		snprintf(cmd, sizeof(cmd), "perf script --no-itrace -i %s 2>&1", out);
		perf_says(cmd, NULL, 0);
	}
	unlink(out);
}

/* ---- the options ---- */

static void test_options(void)
{
	struct prec_record_opts o;
	char *ok1[] = { "record", "-S", "true", NULL };
	char *ok2[] = { "record", "-Se0x10000", "true", NULL };
	char *ok3[] = { "record", "--snapshot=4096", "true", NULL };
	char *ok4[] = { "record", "--aux-sample", "true", NULL };
	char *ok5[] = { "record", "--aux-sample=8192", "true", NULL };
	char *bad[][4] = {
		{ "record", "-Sx", "true", NULL },
		{ "record", "--snapshot=e-1", "true", NULL },
		{ "record", "--snapshot=4k", "true", NULL },
		{ "record", "--aux-sample=0x100000000", "true", NULL },
		{ "record", "--aux-sample=big", "true", NULL },
	};
	bool e;
	uint64_t sz;
	uint32_t s32;

	CHECK_EQ(prec_record_opts__parse(&o, 3, ok1), 0);
	CHECK(o.aux_snapshot && !o.aux_snapshot_on_exit && !o.aux_snapshot_size);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 3, ok2), 0);
	CHECK(o.aux_snapshot && o.aux_snapshot_on_exit);
	CHECK_EQ(o.aux_snapshot_size, 0x10000);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 3, ok3), 0);
	CHECK_EQ(o.aux_snapshot_size, 4096);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 3, ok4), 0);
	CHECK(o.aux_sample && !o.aux_sample_size);
	prec_record_opts__exit(&o);
	CHECK_EQ(prec_record_opts__parse(&o, 3, ok5), 0);
	CHECK_EQ(o.aux_sample_size, 8192);
	prec_record_opts__exit(&o);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(prec_record_opts__parse(&o, 3, bad[i]), -EINVAL);
		prec_record_opts__exit(&o);
	}
	CHECK_EQ(prec_aux_mode__parse_snapshot("e", &e, &sz), 0);
	CHECK(e && !sz);
	CHECK_EQ(prec_aux_mode__parse_snapshot("", &e, &sz), 0);
	CHECK(!e && !sz);
	CHECK_EQ(prec_aux_mode__parse_snapshot("010", &e, &sz), 0);
	CHECK_EQ(sz, 8); /* C's octal, as perf's strtoull(.., 0) */
	CHECK_EQ(prec_aux_mode__parse_sample("", &s32), 0);
	CHECK_EQ(s32, 0);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	uint8_t sid[16];
	void *mem0, *mem1;

	test_options();
	test_range();
	rng = test_seed();
	tmp = test_tmpdir("auxsnap");
	dirfd_tmp = open(tmp, O_RDONLY | O_DIRECTORY);
	CHECK(dirfd_tmp >= 0);
	for (int i = 0; i < 16; i++)
		sid[i] = (uint8_t)(0x50 + i);
	mem0 = calloc(1, 4096 + DATA_SIZE + AUX_BIG);
	mem1 = calloc(1, 4096 + DATA_SIZE + AUX_SMALL);
	CHECK(mem0 && mem1);
	prec_ring__init_mem(&rings[0], mem0, DATA_SIZE, AUX_BIG);
	prec_ring__init_mem(&rings[1], mem1, DATA_SIZE, AUX_SMALL);
	snapshot_rings(sid);
	check_shard(0);
	check_shard(1);
	empty_shard(sid, "cpu000.shard", 0);
	empty_shard(sid, "cpu001.shard", 1);
	empty_shard(sid, "sideband.shard", PREC_SIDEBAND_CPU);
	make_pt_words(true);
	write_manifest(sid, true, 0);
	test_merge_snapshots();
	/* a snapshot of 200 KiB: four chunks, merged as one AUXTRACE */
	unlinkat(dirfd_tmp, "cpu000.flight.shard", 0);
	snapshot_big(sid);
	check_shard(0);
	CHECK_EQ(nr_chunks[0], 4);
	test_merge_snapshots();
	test_aux_sample(sid);
	free(mem0);
	free(mem1);
	free(want[0]);
	free(want[1]);
	free(pt_words);
	close(dirfd_tmp);
	test_rmdir(tmp);
	printf("aux_snapshot: snapshots byte-exact (wrapped and not), AUX events toggled, AUXTRACE and PERF_SAMPLE_AUX read by perf\n");
	return 0;
}
