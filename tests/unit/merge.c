// SPDX-License-Identifier: MIT
// Merge iterator: synthetic shard sets (tests/helpers/mkshards) of 1..256
// shards come out globally sorted, complete (same multiset of record bytes,
// read independently with the shard reader), side band first, no forced
// release; time/CPU filters give exact subsets of the samples and keep the
// rest of the side band (COMMs in the CPU shards); a flipped byte is logged
// with shard and offset, counted, and everything but the rest of its shard
// still comes out; a torn tail is that too when the manifest says the
// recording finished, and only the end of the shard when it did not. Each
// check runs with the tree of fronts and with time slices (with their
// default room, and with the least room, which cuts slices short and
// drains them), and both give the records in the very same order, also
// for hand-made times (UINT64_MAX; an idle stretch before a burst).
// unit/merge_handmade has the AUX, bad-record and format 1.0 cases.
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/shard_gen.h"
#include "../lib/test.h"
#include "read/internal.h"
#include "store/store.h"

struct rec {
	uint64_t hash, time, chunk_off;
	int32_t cpu;
	bool sample;
};

struct recset {
	struct rec *r;
	size_t n, cap;
};

static char mkshards[PATH_MAX];
static uint64_t rng;

static void add(struct recset *s, const struct rec *r)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->r = realloc(s->r, s->cap * sizeof(*s->r));
		CHECK(s->r);
	}
	s->r[s->n++] = *r;
}

static uint64_t fnv(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

static void find_mkshards(const char *argv0)
{
	const char *b = getenv("PREC_BUILD");
	char tmp[PATH_MAX];

	if (b && *b) {
		snprintf(mkshards, sizeof(mkshards), "%s/tests/helpers/mkshards", b);
		return;
	}
	snprintf(tmp, sizeof(tmp), "%s", argv0);
	snprintf(mkshards, sizeof(mkshards), "%s/../helpers/mkshards", dirname(tmp));
}

static void gen(const char *dir, const char *args)
{
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && '%s' '%s' %s", dir, mkshards, dir, args);
	printf("  %s\n", cmd);
	fflush(stdout);
	CHECK_EQ(system(cmd), 0);
}

/* The input, read without the merge: every DATA record of every shard. */
static void read_input(int dirfd, const struct prec_manifest *m, struct recset *in)
{
	struct prec_time_layout tl;

	CHECK_EQ(prec_time_layout__init(&tl, m->sample_type), 0);
	for (uint32_t i = 0; i < m->nr_shards; i++) {
		struct prec_shard_reader *rd;
		struct prec_chunk ch;
		int r;

		CHECK_EQ(prec_shard_reader__open(&rd, dirfd, m->shards[i].name), 0);
		while ((r = prec_shard_reader__next(rd, &ch)) > 0) {
			const uint8_t *p = ch.payload;

			for (uint32_t pos = 0; ch.hdr.type == PREC_CHUNK_DATA && pos < ch.len;) {
				uint16_t size;
				uint32_t type;
				struct rec x = { .cpu = m->shards[i].cpu, .chunk_off = ch.offset };

				memcpy(&size, p + pos + 6, 2);
				CHECK(size >= 8 && size <= ch.len - pos);
				x.hash = fnv(p + pos, size);
				memcpy(&type, p + pos, 4);
				x.sample = type == 9;
				x.time = prec_time_layout__time(&tl, p + pos, size);
				add(in, &x);
				pos += size;
			}
		}
		CHECK_EQ(r, 0);
		prec_shard_reader__close(rd);
	}
}

struct result {
	int rc;
	uint64_t inversions, forced, drains;
	unsigned int errors;
};

/* How merge() orders: prec_merge_opts.slices and .slice_bytes. */
struct mode {
	const char *name;
	int slices;
	uint32_t slice_bytes;
};

static const struct mode modes[] = {
	{ "tree", -1, 0 },
	{ "slices", 1, 0 },
	{ "tight slices", 1, 1 }, /* the least room: 64 KiB */
};
static const struct mode auto_mode = { "auto", 0, 0 };
static struct mode mode = { "auto", 0, 0 };
static unsigned int damage_turn;
static uint64_t tight_drains; /* over every merge in tight slices */

/* Merge, checking the order as it goes. */
static struct result merge(int dirfd, const struct prec_manifest *m,
			   const struct prec_merge_opts *o, struct recset *out)
{
	struct prec_merge_rec mr;
	struct prec_merge *mg;
	struct result res = { 0 };
	struct prec_merge_opts oo = { 0 };
	uint64_t last = 0;
	bool timed = false;

	if (o)
		oo = *o;
	oo.slices = mode.slices;
	oo.slice_bytes = mode.slice_bytes;
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, &oo), 0);
	while ((res.rc = prec_merge__next(mg, &mr)) > 0) {
		struct rec x = { .hash = fnv(mr.rec, mr.rec_len), .time = mr.time, .cpu = mr.cpu };

		CHECK(mr.rec && mr.rec_len >= 8);
		x.sample = *(const uint32_t *)mr.rec == 9;
		CHECK_EQ(mr.cpu, m->shards[mr.shard].cpu);
		CHECK(mr.time >= last);
		if (mr.time)
			timed = true;
		else
			CHECK(!timed); /* side band (time 0) first */
		last = mr.time;
		add(out, &x);
	}
	res.inversions = prec_merge__inversions(mg);
	res.forced = prec_merge__forced(mg);
	res.errors = prec_merge__errors(mg);
	res.drains = prec_merge__drains(mg);
	if (mode.slice_bytes)
		tight_drains += res.drains;
	prec_merge__close(mg);
	return res;
}

static int cmp_hash(const void *a, const void *b)
{
	uint64_t x = ((const struct rec *)a)->hash, y = ((const struct rec *)b)->hash;

	return x < y ? -1 : x > y;
}

static void same_multiset(struct recset *want, struct recset *got)
{
	CHECK_EQ(got->n, want->n);
	qsort(want->r, want->n, sizeof(*want->r), cmp_hash);
	qsort(got->r, got->n, sizeof(*got->r), cmp_hash);
	for (size_t i = 0; i < want->n; i++)
		CHECK(want->r[i].hash == got->r[i].hash);
}

static void check_clean(struct result res)
{
	CHECK_EQ(res.rc, 0);
	CHECK_EQ(res.errors, 0);
	CHECK_EQ(res.inversions, 0);
	CHECK_EQ(res.forced, 0);
}

static void load(const char *dir, int *dirfd, struct prec_manifest **m, struct recset *in)
{
	const char *why = NULL;

	*dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(*dirfd >= 0);
	CHECK_EQ(prec_manifest__read(m, *dirfd, &why), 0);
	in->n = 0;
	read_input(*dirfd, *m, in);
}

static void test_full(int dirfd, const struct prec_manifest *m, const struct recset *in)
{
	struct recset want = { 0 }, got = { 0 };

	for (size_t i = 0; i < in->n; i++)
		add(&want, &in->r[i]);
	check_clean(merge(dirfd, m, NULL, &got));
	same_multiset(&want, &got);
	free(want.r);
	free(got.r);
}

static void test_time(int dirfd, const struct prec_manifest *m, const struct recset *in)
{
	struct recset want = { 0 }, got = { 0 };
	struct prec_merge_opts o = { 0 };
	uint64_t a = 0, b = 0;

	while (!a || !b) { /* two sample times, not side band zeros */
		a = in->r[test_rand(&rng) % in->n].time;
		b = in->r[test_rand(&rng) % in->n].time;
	}

	o.time_start = a < b ? a : b;
	o.time_end = a < b ? b : a;
	if (test_rand(&rng) % 4 == 0)
		o.time_end = 0; /* open end */
	for (size_t i = 0; i < in->n; i++) {
		uint64_t t = in->r[i].time;
		bool before_end = !o.time_end || t <= o.time_end;

		/* samples in the window; the rest of the side band up to END */
		if (!t || (before_end && (t >= o.time_start || !in->r[i].sample)))
			add(&want, &in->r[i]);
	}
	printf("  time %llu,%llu: %zu records\n", (unsigned long long)o.time_start,
	       (unsigned long long)o.time_end, want.n);
	check_clean(merge(dirfd, m, &o, &got));
	same_multiset(&want, &got);
	free(want.r);
	free(got.r);
}

static void test_cpus(int dirfd, const struct prec_manifest *m, const struct recset *in)
{
	struct recset want = { 0 }, got = { 0 };
	struct prec_merge_opts o = { 0 };
	int nr = (int)m->nr_shards;
	bool *allow = calloc((size_t)nr, sizeof(*allow));

	CHECK(allow);
	for (int c = 0; c < nr; c++)
		allow[c] = test_rand(&rng) % 3 == 0;
	o.cpu_allowed = allow;
	o.nr_cpu_allowed = nr - 1; /* the last CPU is outside the table: off */
	for (size_t i = 0; i < in->n; i++) {
		int32_t c = in->r[i].cpu;

		if (c < 0 || (c < nr - 1 && allow[c]) || !in->r[i].sample)
			add(&want, &in->r[i]);
	}
	check_clean(merge(dirfd, m, &o, &got));
	same_multiset(&want, &got);
	free(allow);
	free(want.r);
	free(got.r);
}

/* The tree and the slices hand out the very same sequence, of *n records
 * (n may be NULL); returns how many share their time with the one before. */
static size_t test_same_order(int dirfd, const struct prec_manifest *m, size_t *n)
{
	struct recset got[3] = { 0 };
	size_t ties = 0;

	for (size_t k = 0; k < 3; k++) {
		mode = modes[k];
		check_clean(merge(dirfd, m, NULL, &got[k]));
	}
	for (size_t k = 1; k < 3; k++) {
		CHECK_EQ(got[k].n, got[0].n);
		for (size_t i = 0; i < got[0].n; i++) {
			CHECK(got[k].r[i].hash == got[0].r[i].hash);
			CHECK(got[k].r[i].cpu == got[0].r[i].cpu);
			CHECK(got[k].r[i].time == got[0].r[i].time);
		}
	}
	/* equal times: in shard (here CPU) order, as the tree plays them */
	for (size_t i = 1; i < got[0].n; i++)
		if (got[0].r[i].time && got[0].r[i].time == got[0].r[i - 1].time) {
			CHECK(got[0].r[i].cpu >= got[0].r[i - 1].cpu);
			ties++;
		}
	if (n)
		*n = got[0].n;
	for (size_t k = 0; k < 3; k++)
		free(got[k].r);
	mode = auto_mode;
	return ties;
}

/* Every shard stamps its records at the same instants (no skew, one rate):
 * each time is shared by all of them, and the slices, kept-back records
 * among them, must still give the tree's order. */
static void run_ties(const char *dir)
{
	struct recset in = { 0 };
	struct prec_manifest *m;
	size_t ties;
	int dirfd;

	gen(dir, "--shards 5 --records-per-shard 2000 --seed 5 --rate 1000000000 --max-skew 0 "
		 "--start-jitter 0 --record-size 56-120 --comm-every 9");
	load(dir, &dirfd, &m, &in);
	ties = test_same_order(dirfd, m, NULL);
	printf("  %zu records share their time with the one before\n", ties);
	CHECK(ties > in.n / 2);
	prec_manifest__delete(m);
	close(dirfd);
	free(in.r);
}

static void flip(const char *dir, int cpu, uint64_t off)
{
	char path[PATH_MAX];
	uint8_t b;
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%03d.shard", dir, cpu);
	fd = open(path, O_RDWR);
	CHECK(fd >= 0);
	CHECK_EQ(pread(fd, &b, 1, (off_t)off), 1);
	b ^= 0x10;
	CHECK_EQ(pwrite(fd, &b, 1, (off_t)off), 1);
	close(fd);
}

/* Records of every shard but the one cut at (cpu, off). */
static void all_but(const struct recset *in, int32_t cpu, uint64_t off, struct recset *want)
{
	for (size_t i = 0; i < in->n; i++)
		if (in->r[i].cpu != cpu || in->r[i].chunk_off < off)
			add(want, &in->r[i]);
}

/* Merge with stderr captured into text (len bytes). */
static struct result merge_logged(const char *dir, int dirfd, const struct prec_manifest *m,
				  const struct prec_merge_opts *o, struct recset *got,
				  char *text, size_t len)
{
	char log[PATH_MAX];
	struct result res;
	int saved, fd;
	ssize_t n;

	snprintf(log, sizeof(log), "%s/stderr.log", dir);
	fflush(stderr);
	saved = dup(2);
	fd = open(log, O_CREAT | O_TRUNC | O_RDWR, 0600);
	CHECK(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	res = merge(dirfd, m, o, got);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, text, len - 1, 0);
	close(fd);
	CHECK(n > 0);
	text[n] = 0;
	fputs(text, stderr);
	return res;
}

/* Salvage or not, the merge logs the chunk, skips the rest of its shard and
 * goes on (salvage only changes the commands' exit status). */
static void test_corrupt(const char *dir, int dirfd, const struct prec_manifest *m,
			 const struct recset *in)
{
	struct recset want = { 0 }, got = { 0 };
	struct prec_merge_opts o = { .salvage = true };
	const struct rec *victim = &in->r[test_rand(&rng) % in->n];
	char text[4096], expect[128];
	struct result res;

	while (victim->cpu < 0)
		victim = &in->r[test_rand(&rng) % in->n];
	printf("  flip a byte in cpu%03d.shard chunk at 0x%llx\n", (int)victim->cpu,
	       (unsigned long long)victim->chunk_off);
	flip(dir, victim->cpu, victim->chunk_off + 64 + test_rand(&rng) % 56);
	all_but(in, victim->cpu, victim->chunk_off, &want);
	for (int salvage = 0; salvage < 2; salvage++) {
		got.n = 0;
		res = merge_logged(dir, dirfd, m, salvage ? &o : NULL, &got, text, sizeof(text));
		CHECK_EQ(res.rc, 0);
		CHECK_EQ(res.errors, 1);
		CHECK_EQ(res.inversions, 0);
		snprintf(expect, sizeof(expect), "shard cpu%03d.shard: corrupt chunk at offset 0x%llx: ",
			 (int)victim->cpu, (unsigned long long)victim->chunk_off);
		CHECK(strstr(text, expect));
		CHECK(!strchr(strchr(text, '\n') + 1, '\n')); /* one line */
		same_multiset(&want, &got);
	}
	free(want.r);
	free(got.r);
}

/* The last chunk of a shard cut short: the tail of a crashed recording
 * when the manifest says it did not finish (everything before it comes out,
 * no error), damage when it says it finished (logged, counted). */
static void test_torn(const char *dir, int dirfd, struct prec_manifest *m,
		      const struct recset *in)
{
	struct recset want = { 0 }, got = { 0 };
	uint64_t last = 0;
	char path[PATH_MAX], text[4096];
	struct result res;
	struct stat st;

	for (size_t i = 0; i < in->n; i++)
		if (in->r[i].cpu == 0 && in->r[i].chunk_off > last)
			last = in->r[i].chunk_off;
	snprintf(path, sizeof(path), "%s/cpu000.shard", dir);
	/* cut inside the last chunk's payload: halfway through it (a fixed
	 * cut past its header ran off the end of a one-record chunk, and
	 * truncate() then extended the file with zeros) */
	CHECK_EQ(stat(path, &st), 0);
	CHECK((uint64_t)st.st_size > last + 64 + 1);
	CHECK_EQ(truncate(path, (off_t)(last + 64 + ((uint64_t)st.st_size - last - 64) / 2)), 0);
	all_but(in, 0, last, &want);
	CHECK_EQ(m->state, PREC_STATE_COMPLETE);
	res = merge_logged(dir, dirfd, m, NULL, &got, text, sizeof(text));
	CHECK_EQ(res.rc, 0);
	CHECK_EQ(res.errors, 1);
	CHECK(strstr(text, "the file ends inside it, but the recording finished"));
	same_multiset(&want, &got);
	m->state = PREC_STATE_RECORDING;
	got.n = 0;
	check_clean(merge(dirfd, m, NULL, &got));
	same_multiset(&want, &got);
	free(want.r);
	free(got.r);
}

static void run_set(const char *dir, unsigned int shards, unsigned int records,
		    const char *extra, bool damage)
{
	unsigned int lo = 56 + 8 * (unsigned int)(test_rand(&rng) % 8);
	unsigned int hi = lo + 8 * (unsigned int)(test_rand(&rng) % 40);
	unsigned int rate = 1000 + (unsigned int)(test_rand(&rng) % 99000);
	struct recset in = { 0 };
	struct prec_manifest *m;
	char args[512];
	int dirfd;

	snprintf(args, sizeof(args),
		 "--shards %u --records-per-shard %u --seed %llu --record-size %u-%u --rate %u %s",
		 shards, records, (unsigned long long)(test_rand(&rng) >> 1), lo, hi, rate,
		 extra);
	gen(dir, args);
	load(dir, &dirfd, &m, &in);
	CHECK_EQ(in.n, (size_t)shards * records + 4); /* 4: mkshards' side band */
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		mode = modes[k];
		printf("  %s\n", mode.name);
		test_full(dirfd, m, &in);
		test_time(dirfd, m, &in);
		test_cpus(dirfd, m, &in);
	}
	test_same_order(dirfd, m, NULL);
	/* damage in turn under the tree and under tight slices */
	mode = modes[damage_turn++ % 2 ? 2 : 0];
	if (damage) {
		test_corrupt(dir, dirfd, m, &in);
		prec_manifest__delete(m);
		close(dirfd);
		gen(dir, args);
		load(dir, &dirfd, &m, &in);
		test_torn(dir, dirfd, m, &in);
	}
	mode = auto_mode;
	prec_manifest__delete(m);
	close(dirfd);
	free(in.r);
}

/* Data faster than the window holds: forced releases, still sorted. */
static void run_forced(const char *dir)
{
	struct recset in = { 0 }, got = { 0 };
	struct prec_manifest *m;
	struct result res;
	int dirfd;

	gen(dir, "--shards 2 --records-per-shard 60000 --seed 3 --rate 20000000 "
		 "--max-skew 50 --record-size 56-56");
	load(dir, &dirfd, &m, &in);
	for (size_t k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
		mode = modes[k];
		got.n = 0;
		res = merge(dirfd, m, NULL, &got);
		printf("  %s: forced releases: %llu\n", mode.name, (unsigned long long)res.forced);
		CHECK_EQ(res.rc, 0);
		CHECK(res.forced > 0);
		CHECK_EQ(res.inversions, 0);
		same_multiset(&in, &got);
	}
	mode = auto_mode;
	prec_manifest__delete(m);
	close(dirfd);
	free(in.r);
	free(got.r);
}

/* ---- hand-made times: extremes, and an idle stretch before a burst ---- */

/* The tree's and the slices' sequences, the same, of want records. */
static void same_order_made(int dirfd, const struct prec_manifest *m, size_t want)
{
	size_t n;

	test_same_order(dirfd, m, &n);
	CHECK_EQ(n, want);
}

/* Times at both ends of the range: a record at UINT64_MAX is a record. */
static void test_extreme_times(const char *tmp)
{
	static const uint64_t t0[] = { 5, UINT64_MAX }, t1[] = { 7 };
	struct prec_manifest *m = prec_manifest__new();
	int dirfd = open(tmp, O_RDONLY | O_DIRECTORY);

	printf("  times 5, 7 and UINT64_MAX\n");
	CHECK(m && dirfd >= 0);
	CHECK_EQ(prec_time_layout__init(&m->time_layout, TEST_SAMPLE_TYPE), 0);
	test_write_times(dirfd, m, 0, t0, 2);
	test_write_times(dirfd, m, 1, t1, 1);
	same_order_made(dirfd, m, 3);
	prec_manifest__delete(m);
	close(dirfd);
}

/* One shard ticks once a second for 20 s while 64 others are idle, then
 * all of them burst: the slices' cut has grown over the idle stretch, the
 * first slice of the burst fills up, and its drain gives way to slices
 * again after DRAIN_RECORDS. The order is still the tree's. */
static void test_idle_then_burst(const char *tmp)
{
	const uint64_t t0 = 1000000000ull, burst = t0 + 20000000000ull;
	uint64_t *times = malloc(3000 * sizeof(*times));
	struct prec_manifest *m = prec_manifest__new();
	int dirfd = open(tmp, O_RDONLY | O_DIRECTORY);

	printf("  65 shards, idle 20 s, then a burst\n");
	CHECK(times && m && dirfd >= 0);
	CHECK_EQ(prec_time_layout__init(&m->time_layout, TEST_SAMPLE_TYPE), 0);
	for (size_t k = 0; k < 2020; k++)
		times[k] = k < 20 ? t0 + k * 1000000000ull : burst + (k - 20) * 10000000ull;
	test_write_times(dirfd, m, 0, times, 2020);
	for (int cpu = 1; cpu <= 64; cpu++) {
		for (size_t k = 0; k < 3000; k++)
			times[k] = burst + k * 1000 + (uint64_t)cpu;
		test_write_times(dirfd, m, cpu, times, 3000);
	}
	same_order_made(dirfd, m, 2020 + 64 * 3000);
	for (int cpu = 0; cpu <= 64; cpu++) {
		char name[32];

		snprintf(name, sizeof(name), "cpu%03d.shard", cpu);
		unlinkat(dirfd, name, 0);
	}
	free(times);
	prec_manifest__delete(m);
	close(dirfd);
}

int main(int argc, char **argv)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *tmp = test_tmpdir("merge"), dir[PATH_MAX];

	(void)argc;
	rng = test_seed();
	find_mkshards(argv[0]);
	if (access(mkshards, X_OK) < 0) {
		printf("skip: %s not built\n", mkshards);
		return TEST_SKIP;
	}
	test_extreme_times(tmp);
	test_idle_then_burst(tmp);
	snprintf(dir, sizeof(dir), "%s/set", tmp);
	run_set(dir, 1, 5000, "", false);
	run_set(dir, 2, 3000, "", false);
	run_set(dir, 7, 3000, "--comm-every 50", true);
	run_set(dir, 64, 300, "--comm-every 7", false);
	run_set(dir, 256, 100, "", false);
	run_set(dir, 3, 2000, "--lz4", true);
	/* format 1.0's big chunks: raw ones in parts, lz4 ones whole; 16
	 * shards, so the readers' buffers are the merge's block (lent), and
	 * the lz4 ones outgrow them */
	run_set(dir, 16, 3000, "--chunk-bytes 256K", true);
	run_set(dir, 16, 2000, "--chunk-bytes 100K --lz4", true);
	run_forced(dir);
	run_ties(dir);
	printf("tight slices drained %llu times\n", (unsigned long long)tight_drains);
	CHECK(tight_drains > 0);
	test_rmdir(tmp);
	free(tmp);
	printf("ok\n");
	return 0;
}
