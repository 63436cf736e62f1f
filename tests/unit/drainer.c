// SPDX-License-Identifier: MIT
// Drainer tests: simulated rings fed by a synthetic producer (every wrap
// alignment, straddling headers, chunk cuts, markers, LOST sums, MMAP2
// dedup, AUX), threaded with a producer that respects data_tail (also across
// cuts to new shards, --switch-output's), and a real
// cpu-clock perf ring on CPU 0. Shards are read back and checked byte-exact.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../lib/test.h"
#include "record/capture.h"
#include "record/drainer.h"
#include "record/drainer_pool.h"
#include "record/internal.h"
#include "record/options.h"
#include "record/ring.h"
#include "store/store.h"

#define NPATHS 5
#define NIDS 3
#define MAX_MAPS (NPATHS * (NIDS * 2 + 1))

static uint64_t rng;
static char *tmpdir;
static struct prec_time_layout layout = { 32, 24 };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- synthetic producer ---- */

struct want_map {
	int path, id;      /* id -1: no build-id */
	uint8_t size;
};

struct producer {
	struct prec_ring *r;
	uint8_t *exp;      /* every byte produced, in order */
	size_t len, cap;
	uint64_t t;        /* next timestamp (0: use CLOCK_MONOTONIC) */
	bool clock;
	uint64_t lost, lost_samples, records;
	struct want_map maps[MAX_MAPS];
	int nr_maps;
	uint8_t *aux_exp;
	size_t aux_len;
	uint32_t aux_flags;
};

static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

static void put_hdr(uint8_t *p, uint32_t type, uint16_t misc, uint16_t size)
{
	struct perf_event_header h = { type, misc, size };

	memcpy(p, &h, sizeof(h));
}

static uint64_t next_time(struct producer *p)
{
	if (p->clock)
		return now_ns();
	p->t += 1 + test_rand(&rng) % 1000;
	return p->t;
}

/* Trailer: pid/tid, time, cpu/res, identifier. */
static uint16_t trailer(struct producer *p, uint8_t *rec, uint16_t at)
{
	put64(rec + at, 0x0000002a0000002aull);
	put64(rec + at + 8, next_time(p));
	put64(rec + at + 16, 0);
	put64(rec + at + 24, 7);
	return at + 32;
}

static void note_map(struct producer *p, int path, int id, uint8_t size)
{
	for (int i = 0; i < p->nr_maps; i++)
		if (p->maps[i].path == path && p->maps[i].id == id &&
		    p->maps[i].size == size)
			return;
	p->maps[p->nr_maps++] = (struct want_map){ path, id, size };
}

static void path_of(int i, char buf[96])
{
	/* Different lengths so MMAP2 sizes vary. */
	snprintf(buf, 96, "/usr/lib/x86_64-linux-gnu/lib%.*s.so.%d", 1 + 5 * i,
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopq", i);
}

static void build_id_of(int id, uint8_t out[20])
{
	for (int i = 0; i < 20; i++)
		out[i] = (uint8_t)(0x11 * (id + 1) + i);
}

static uint16_t make_mmap2(struct producer *p, uint8_t *rec)
{
	int path = (int)(test_rand(&rng) % NPATHS);
	int id = (int)(test_rand(&rng) % (NIDS + 1)) - 1;
	uint8_t size = id < 0 ? 0 : (test_rand(&rng) & 1) ? 20 : 16;
	uint16_t misc = path == 0 ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER;
	char name[96];
	uint16_t at;

	memset(rec, 0, 256);
	path_of(path, name);
	for (int i = 8; i < 40; i++)
		rec[i] = (uint8_t)test_rand(&rng);
	if (id >= 0) {
		misc |= 1 << 14;
		rec[40] = size;
		build_id_of(id, rec + 44);
	} else {
		/* maj, min, ino: the file's, one per path here. */
		put64(rec + 40, 0x0000000100000008ull + (uint64_t)path);
		put64(rec + 48, 1000 + (uint64_t)path);
		for (int i = 56; i < 64; i++)
			rec[i] = (uint8_t)test_rand(&rng);
	}
	at = 72 + (uint16_t)((strlen(name) + 8) & ~7u);
	memcpy(rec + 72, name, strlen(name));
	at = trailer(p, rec, at);
	put_hdr(rec, PERF_RECORD_MMAP2, misc, at);
	note_map(p, path, id, size);
	return at;
}

/* One random record into rec (>= 512 bytes); returns its size. */
static uint16_t make_record(struct producer *p, uint8_t *rec)
{
	uint64_t k = test_rand(&rng) % 100, v;
	uint16_t size;

	if (k < 80) {
		size = 48 + 8 * (uint16_t)(test_rand(&rng) % 4);
		memset(rec, 0xa5, size);
		put_hdr(rec, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, size);
		put64(rec + 8, 7);
		put64(rec + 32, next_time(p));
		return size;
	}
	if (k < 88) {
		v = 1 + test_rand(&rng) % 5000;
		p->lost += v;
		put64(rec + 8, 7);
		put64(rec + 16, v);
		size = trailer(p, rec, 24);
		put_hdr(rec, PERF_RECORD_LOST, 0, size);
		return size;
	}
	if (k < 94) {
		v = 1 + test_rand(&rng) % 300;
		p->lost_samples += v;
		put64(rec + 8, v);
		size = trailer(p, rec, 16);
		put_hdr(rec, PERF_RECORD_LOST_SAMPLES, 0, size);
		return size;
	}
	return make_mmap2(p, rec);
}

static uint64_t ring_free(const struct prec_ring *r)
{
	uint64_t head = r->page->data_head;
	uint64_t tail = __atomic_load_n(&r->page->data_tail, __ATOMIC_ACQUIRE);

	return r->size - (head - tail);
}

/* Copy into the ring at head (wrapping) and publish it, kernel style. */
static void ring_put(struct producer *p, const uint8_t *rec, uint16_t size)
{
	struct prec_ring *r = p->r;
	uint64_t head = r->page->data_head, off = head & (r->size - 1);
	uint64_t first = r->size - off < size ? r->size - off : size;

	memcpy(r->data + off, rec, first);
	memcpy(r->data, rec + first, size - first);
	__atomic_store_n(&r->page->data_head, head + size, __ATOMIC_RELEASE);
	if (p->len + size > p->cap) {
		p->cap = (p->cap + size) * 2;
		p->exp = realloc(p->exp, p->cap);
		CHECK(p->exp);
	}
	memcpy(p->exp + p->len, rec, size);
	p->len += size;
	p->records++;
}

/* Produce records until about bytes are written or the ring has less room
 * than the largest record. Returns false when it stopped for room. */
static bool produce(struct producer *p, uint64_t bytes)
{
	uint8_t rec[512];
	uint64_t done = 0;

	while (done < bytes) {
		uint16_t size;

		if (ring_free(p->r) < 256)
			return false;
		size = make_record(p, rec);
		ring_put(p, rec, size);
		done += size;
	}
	return true;
}

/* ---- reading a shard back ---- */

struct readback {
	uint8_t *data, *aux;
	size_t len, aux_len;
	uint64_t records, data_chunks, markers, aux_chunks;
	uint64_t max_wm, min_late;  /* watermark check (real rings) */
	uint64_t prev_time;
	bool times_sorted;
	uint32_t aux_flags[64];     /* flags of each AUX chunk */
};

static void *grow(void *buf, size_t need)
{
	void *p = realloc(buf, need ? need : 1);

	CHECK(p);
	return p;
}

static uint64_t rec_time(const uint8_t *rec, uint32_t size)
{
	struct perf_event_header h;
	uint64_t t = 0;

	memcpy(&h, rec, sizeof(h));
	if (h.type == PERF_RECORD_SAMPLE && size >= 40)
		memcpy(&t, rec + 32, 8);
	else if (h.type != PERF_RECORD_SAMPLE && size >= 32)
		memcpy(&t, rec + size - 24, 8);
	return t;
}

/* Parse one DATA payload: whole records, the header's count and times. */
static void check_data(const struct prec_chunk *c, struct readback *rb)
{
	const uint8_t *p = c->payload;
	uint64_t lo = UINT64_MAX, hi = 0;
	uint32_t pos = 0, n = 0;

	CHECK(c->len > 0 && c->len <= PREC_CHUNK_MAX_PAYLOAD);
	while (pos < c->len) {
		struct perf_event_header h;
		uint64_t t;

		CHECK(pos + 8 <= c->len);
		memcpy(&h, p + pos, sizeof(h));
		CHECK(h.size >= 8 && pos + h.size <= c->len);
		t = rec_time(p + pos, h.size);
		if (t) {
			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
			if (t < rb->prev_time)
				rb->times_sorted = false;
			rb->prev_time = t;
			if (rb->max_wm && t < rb->max_wm - PREC_WATERMARK_SLACK_NS)
				rb->min_late++;
		}
		pos += h.size;
		n++;
	}
	CHECK_EQ(c->hdr.records, n);
	CHECK_EQ(c->hdr.first_time, hi ? lo : 0);
	CHECK_EQ(c->hdr.last_time, hi);
	rb->records += n;
	rb->data_chunks++;
	rb->data = grow(rb->data, rb->len + c->len);
	memcpy(rb->data + rb->len, c->payload, c->len);
	rb->len += c->len;
}

static void check_aux(const struct prec_chunk *c, struct readback *rb)
{
	CHECK(c->len > 0 && c->len <= PREC_CHUNK_MAX_PAYLOAD);
	CHECK_EQ(c->hdr.aux_offset, rb->aux_len);
	if (rb->aux_chunks < 64)
		rb->aux_flags[rb->aux_chunks] = c->hdr.flags;
	rb->aux_chunks++;
	rb->aux = grow(rb->aux, rb->aux_len + c->len);
	memcpy(rb->aux + rb->aux_len, c->payload, c->len);
	rb->aux_len += c->len;
}

static void read_shard(const char *name, struct readback *rb)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint32_t seq = 0;
	char path[512];
	int rc;

	memset(rb, 0, sizeof(*rb));
	rb->times_sorted = true;
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	CHECK_EQ(prec_shard_reader__open(&r, AT_FDCWD, path), 0);
	while ((rc = prec_shard_reader__next(r, &c)) == 1) {
		CHECK_EQ(c.hdr.seq, seq++);
		CHECK(c.hdr.watermark >= rb->max_wm);
		if (c.hdr.type == PREC_CHUNK_DATA)
			check_data(&c, rb);
		else if (c.hdr.type == PREC_CHUNK_AUX)
			check_aux(&c, rb);
		else if (c.hdr.type == PREC_CHUNK_MARKER && c.len == 0)
			rb->markers++;
		else
			CHECK(!"unexpected chunk");
		rb->max_wm = c.hdr.watermark;
	}
	CHECK_EQ(rc, 0);
	prec_shard_reader__close(r);
}

static void free_readback(struct readback *rb)
{
	free(rb->data);
	free(rb->aux);
}

/* ---- setup helpers ---- */

static int dirfd_tmp = -1;

static struct prec_shard_writer *open_writer(const char *name, bool copy)
{
	struct prec_shard_writer_opts o = { .cpu = 0, .copy = copy };
	struct prec_shard_writer *w;

	CHECK_EQ(prec_shard_writer__open(&w, dirfd_tmp, name, &o), 0);
	return w;
}

static struct prec_drainer *new_drainer(struct prec_ring *r,
					struct prec_shard_writer *w, bool copy,
					uint64_t round_ns)
{
	struct prec_drainer_opts o = {
		.cpu = 0, .ring = r, .writer = w, .layout = layout,
		.clockid = CLOCK_MONOTONIC, .round_ns = round_ns,
		.copy = copy, .pin_cpu = -1,
		/* the simulated MMAP2s carry build-ids: --buildid-mmap */
		.build_id = true,
	};
	struct prec_drainer *d;

	CHECK_EQ(prec_drainer__new(&d, &o), 0);
	return d;
}

static void *sim_mem(uint64_t size, uint64_t aux_size, struct prec_ring *r)
{
	void *mem = calloc(1, 4096 + size + aux_size);

	CHECK(mem);
	prec_ring__init_mem(r, mem, size, aux_size);
	CHECK(r->data == (uint8_t *)mem + 4096);
	CHECK_EQ(r->page->data_offset, 4096);
	CHECK_EQ(r->page->data_size, size);
	CHECK_EQ(r->page->aux_size, aux_size);
	return mem;
}

/* The shard holds exactly what p produced; the drainer counted it. */
static void check_all(struct producer *p, struct prec_drainer *d,
		      const struct readback *rb)
{
	struct prec_drainer_stats st;
	const struct prec_seen_map *m;
	int nr;

	CHECK_EQ(rb->len, p->len);
	CHECK(!memcmp(rb->data, p->exp, p->len));
	CHECK_EQ(rb->records, p->records);
	prec_drainer__stats(d, &st);
	CHECK_EQ(st.records, p->records);
	CHECK_EQ(st.lost, p->lost);
	CHECK_EQ(st.lost_samples, p->lost_samples);
	m = prec_drainer__maps(d, &nr);
	CHECK_EQ(nr, p->nr_maps);
	for (int i = 0; i < p->nr_maps; i++) {
		const struct want_map *w = &p->maps[i];
		uint8_t id[20] = { 0 };
		char path[96];
		int j;

		path_of(w->path, path);
		if (w->id >= 0)
			build_id_of(w->id, id);
		for (j = 0; j < nr; j++)
			if (!strcmp(m[j].path, path) && m[j].size == w->size &&
			    !memcmp(m[j].id, id, w->size))
				break;
		CHECK(j < nr);
		CHECK_EQ(m[j].cpumode, w->path == 0 ? PERF_RECORD_MISC_KERNEL
						    : PERF_RECORD_MISC_USER);
		if (w->id < 0) {
			CHECK_EQ(m[j].maj, 8 + w->path);
			CHECK_EQ(m[j].min, 1);
			CHECK_EQ(m[j].ino, 1000 + w->path);
		}
	}
}

/* ---- tests ---- */

/* A tracking record (a pid/tid pair and a name, or a FORK's body) stamped
 * time, into rec (>= 256 bytes); returns its size. */
static uint16_t make_task_rec(uint8_t *rec, uint32_t type, uint64_t time)
{
	uint16_t at = type == PERF_RECORD_MMAP2 ? 72 : 8 + 8;
	struct producer p = { .t = time - 1 };
	char name[96];

	memset(rec, 0, 256);
	path_of(1, name);
	if (type == PERF_RECORD_MMAP2) {
		rec[8] = 9;
		put64(rec + 40, 0x0000000100000009ull);
		put64(rec + 48, 1001);
		memcpy(rec + 72, name, strlen(name));
		at = 72 + (uint16_t)((strlen(name) + 8) & ~7u);
	} else if (type == PERF_RECORD_COMM) {
		memcpy(rec + 16, "storm", 6);
		at = 24;
	} else if (type == PERF_RECORD_FORK) {
		at = 32; /* pid, ppid, tid, ptid, time */
	}
	/* next_time() adds 1 + rand % 1000: fix the time after it. */
	at = trailer(&p, rec, at);
	put64(rec + at - 24, time);
	put_hdr(rec, type, PERF_RECORD_MISC_USER, at);
	return at;
}

static uint16_t make_sample_at(uint8_t *rec, uint64_t time)
{
	memset(rec, 0xa5, 48);
	put_hdr(rec, PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, 48);
	put64(rec + 8, 7);
	put64(rec + 32, time);
	return 48;
}

/* A cut, deterministic (--switch-output's task records): the drainer thread
 * sleeps (no ring fd, a long round) until asked. Records published before
 * cut_all() are in the old shard, every one of them, however long the
 * drainer slept (were they drained after the move, a task exec'd and gone
 * before the new epoch's /proc read would have its samples there and its
 * COMM in the old one); those published after capture_all() and stamped
 * since its time are captured too, in ring order, and their MMAP2 counts
 * as a map of the new epoch; nothing after the move is captured. */
/* One drainer's cut, as the pool asks it. */
static int cut_one(struct prec_drainer *d, struct prec_drainer_cut *cut, struct prec_latch *l)
{
	prec_latch__begin(l, 1);
	prec_drainer__ask_cut(d, cut, l);
	return prec_latch__wait(l);
}

static void test_cut_capture(void)
{
	struct prec_ring r;
	void *mem = sim_mem(64 << 10, 0, &r);
	struct prec_shard_writer *w0 = open_writer("capture-0.shard", false);
	struct prec_shard_writer *w1 = open_writer("capture-1.shard", false);
	struct prec_drainer *d = new_drainer(&r, w0, false, 10000000000ull);
	struct producer old = { .r = &r }, cap = { .r = &r }, after = { .r = &r };
	struct prec_drainer_cut cut;
	struct prec_latch g;
	const struct prec_seen_map *m;
	uint8_t rec[256];
	struct readback rb;
	uint16_t n;
	int nr;

	CHECK_EQ(prec_drainer__start(d), 0);
	/* Before the capture: not taken (and stamped before its time). */
	ring_put(&old, rec, make_task_rec(rec, PERF_RECORD_COMM, 100));
	ring_put(&old, rec, make_sample_at(rec, 110));
	memset(&cut, 0, sizeof(cut));
	cut.writer = w1;
	CHECK_EQ(prec_capture__init(&cut.capture, 4096, 200), 0);
	prec_drainer__set_capture(d, &cut);
	/* After it: the task records stamped since 200, not the FORK stamped
	 * before (its effect was in /proc before the capture began). */
	n = make_task_rec(rec, PERF_RECORD_FORK, 150);
	ring_put(&old, rec, n);
	n = make_task_rec(rec, PERF_RECORD_COMM, 300);
	ring_put(&old, rec, n);
	memcpy(cap.exp = malloc(4096), rec, n);
	cap.len = n;
	n = make_task_rec(rec, PERF_RECORD_MMAP2, 301);
	ring_put(&old, rec, n);
	memcpy(cap.exp + cap.len, rec, n);
	cap.len += n;
	ring_put(&old, rec, make_sample_at(rec, 302));
	CHECK_EQ(cut_one(d, &cut, &g), 0);
	CHECK(cut.writer == w0);
	CHECK_EQ(cut.capture.len, cap.len);
	CHECK(!memcmp(cut.capture.buf, cap.exp, cap.len));
	CHECK_EQ(cut.capture.records, 2);
	CHECK_EQ(cut.capture.dropped, 0);
	/* After the move: the new shard's, not captured. */
	ring_put(&after, rec, make_task_rec(rec, PERF_RECORD_COMM, 400));
	ring_put(&after, rec, make_sample_at(rec, 401));
	prec_drainer__stop(d);
	CHECK_EQ(prec_drainer__join(d), 0);
	CHECK_EQ(cut.capture.len, cap.len);
	m = prec_drainer__maps(d, &nr);
	CHECK_EQ(nr, 1);
	CHECK(nr == 1 && m[0].ino == 1001);
	CHECK_EQ(prec_shard_writer__close(w0), 0);
	CHECK_EQ(prec_shard_writer__close(w1), 0);
	read_shard("capture-0.shard", &rb);
	CHECK_EQ(rb.len, old.len);
	CHECK(rb.len == old.len && !memcmp(rb.data, old.exp, old.len));
	free_readback(&rb);
	read_shard("capture-1.shard", &rb);
	CHECK_EQ(rb.len, after.len);
	CHECK(rb.len == after.len && !memcmp(rb.data, after.exp, after.len));
	free_readback(&rb);
	prec_drainer__free_maps(cut.maps, cut.nr_maps);
	prec_capture__exit(&cut.capture);
	prec_drainer__delete(d);
	free(old.exp);
	free(cap.exp);
	free(after.exp);
	free(mem);
	printf("cut capture: %u bytes before the move in the old shard, %u captured\n",
	       (unsigned)old.len, (unsigned)cap.len);
}


/* Drain passes by hand from every start alignment around the wrap, so the
 * wrap falls inside headers, fields and bodies; copy and zero-copy. */
static void test_alignments(void)
{
	for (int k = 0; k < 96; k++) {
		struct producer p = { 0 };
		struct prec_ring r;
		void *mem = sim_mem(1024, 0, &r);
		bool copy = k & 1;
		struct prec_shard_writer *w;
		struct prec_drainer *d;
		struct readback rb;
		char name[32];
		uint64_t start = 3 * 1024 + 1024 - 48 + (uint64_t)k;

		snprintf(name, sizeof(name), "align%d.shard", k);
		w = open_writer(name, copy);
		d = new_drainer(&r, w, copy, 0);
		p.r = &r;
		r.page->data_head = r.page->data_tail = start;
		while (p.len < 16384) {
			produce(&p, test_rand(&rng) % 1500);
			CHECK(prec_drainer__drain(d) >= 0);
			CHECK_EQ(r.page->data_tail, r.page->data_head);
		}
		CHECK_EQ(prec_drainer__drain(d), 0);
		CHECK_EQ(prec_shard_writer__close(w), 0);
		read_shard(name, &rb);
		check_all(&p, d, &rb);
		CHECK_EQ(rb.markers, 0);
		free_readback(&rb);
		prec_drainer__delete(d);
		free(p.exp);
		free(mem);
	}
}

/* A full 1 MiB ring in one pass: cut into <= 256 KiB chunks. Records carry
 * clock times and wait in the ring longer than the slack before each pass,
 * so a watermark promised too early shows as a late record. */
static void test_big_passes(void)
{
	struct producer p = { 0 };
	struct prec_ring r;
	void *mem = sim_mem(1 << 20, 0, &r);
	struct prec_shard_writer *w = open_writer("big.shard", false);
	struct prec_drainer *d = new_drainer(&r, w, false, 0);
	struct readback rb;
	int most = 0, rc;

	p.r = &r;
	p.clock = true;
	for (int i = 0; i < 12; i++) {
		struct timespec wait = { 0, PREC_WATERMARK_SLACK_NS + 2000000 };

		produce(&p, i % 3 ? test_rand(&rng) % (1 << 20) : 1 << 20);
		nanosleep(&wait, NULL);
		rc = prec_drainer__drain(d);
		CHECK(rc >= 0);
		most = rc > most ? rc : most;
		CHECK_EQ(r.page->data_tail, r.page->data_head);
	}
	CHECK(most >= 4);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	read_shard("big.shard", &rb);
	check_all(&p, d, &rb);
	CHECK(rb.data_chunks >= 12);
	CHECK(rb.times_sorted);
	CHECK_EQ(rb.min_late, 0);
	free_readback(&rb);
	prec_drainer__delete(d);
	free(p.exp);
	free(mem);
}

static int drain_bad(struct prec_ring *r, uint64_t tail, uint64_t head,
		     uint16_t size, const char *name)
{
	struct prec_shard_writer *w = open_writer(name, false);
	struct prec_drainer *d = new_drainer(r, w, false, 0);
	uint8_t rec[48] = { 0 };
	int rc;

	put_hdr(rec, PERF_RECORD_SAMPLE, 0, 48);
	memcpy(r->data, rec, 48);               /* one good record */
	put_hdr(rec, PERF_RECORD_SAMPLE, 0, size);
	memcpy(r->data + 48, rec, 8);           /* then the bad one */
	r->page->data_tail = tail;
	r->page->data_head = head;
	rc = prec_drainer__drain(d);
	if (rc < 0) {
		CHECK_EQ(prec_drainer__drain(d), rc); /* sticky */
		CHECK_EQ(r->page->data_tail, tail);   /* nothing given back */
	}
	prec_drainer__delete(d);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	return rc;
}

static void test_corrupt(void)
{
	struct prec_ring r;
	void *mem = sim_mem(4096, 0, &r);
	struct prec_drainer_opts o = { .ring = &r, .layout = layout };
	struct prec_drainer *d;

	CHECK_EQ(drain_bad(&r, 0, 48 + 8, 0, "bad1.shard"), -EBADMSG);
	CHECK_EQ(drain_bad(&r, 0, 48 + 64, 72, "bad2.shard"), -EBADMSG);
	CHECK_EQ(drain_bad(&r, 0, 48 + 8, 4, "bad3.shard"), -EBADMSG);
	CHECK_EQ(drain_bad(&r, 0, 8192, 48, "bad4.shard"), -EBADMSG);
	CHECK_EQ(drain_bad(&r, 0, 96, 48, "good.shard"), 1);
	o.writer = open_writer("ovw.shard", false);
	r.overwrite = true;
	CHECK_EQ(prec_drainer__new(&d, &o), -EOPNOTSUPP);
	CHECK(d == NULL);
	CHECK_EQ(prec_shard_writer__close(o.writer), 0);
	free(mem);
}

struct prod_thread {
	struct producer p;
	uint64_t total;
	int quit;
};

static void *producer_main(void *arg)
{
	struct prod_thread *pt = arg;

	while (pt->p.len < pt->total &&
	       !__atomic_load_n(&pt->quit, __ATOMIC_ACQUIRE))
		if (!produce(&pt->p, 4096))
			sched_yield();
	return NULL;
}

/* Drainer thread against a producer thread that waits for data_tail like
 * the kernel; then an idle stretch that must yield round markers. */
static void test_threaded(bool copy)
{
	static struct prod_thread pt;
	const char *name = copy ? "thr-copy.shard" : "thr-zc.shard";
	struct prec_ring r;
	void *mem = sim_mem(64 << 10, 0, &r);
	struct prec_shard_writer *w = open_writer(name, copy);
	struct prec_drainer *d = new_drainer(&r, w, copy, 2000000);
	struct timespec idle = { 0, 60000000 };
	struct readback rb;
	pthread_t t;

	memset(&pt, 0, sizeof(pt));
	pt.p.r = &r;
	pt.total = 6 << 20;
	CHECK_EQ(prec_drainer__start(d), 0);
	CHECK_EQ(pthread_create(&t, NULL, producer_main, &pt), 0);
	pthread_join(t, NULL);
	nanosleep(&idle, NULL);
	prec_drainer__stop(d);
	CHECK_EQ(prec_drainer__join(d), 0);
	CHECK_EQ(r.page->data_tail, r.page->data_head);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	read_shard(name, &rb);
	check_all(&pt.p, d, &rb);
	CHECK(rb.markers >= 5);
	printf("threaded %s: %llu chunks, %llu markers\n", copy ? "copy" : "zero-copy",
	       (unsigned long long)rb.data_chunks, (unsigned long long)rb.markers);
	free_readback(&rb);
	prec_drainer__delete(d);
	free(pt.p.exp);
	free(mem);
}

/* The CPUs thread comm of this process may run on ("0", "0-1"), or "". */
static void task_cpus(const char *comm, char *out, size_t len)
{
	char path[300], line[128];
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;

	out[0] = 0;
	CHECK(dir);
	while (dir && (e = readdir(dir))) {
		FILE *f;
		bool match = false;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (!strncmp(line, "Name:", 5))
				match = !strcmp(line + 5 + strspn(line + 5, " \t"), comm);
			else if (match && !strncmp(line, "Cpus_allowed_list:", 18))
				snprintf(out, len, "%s", line + 18 + strspn(line + 18, " \t"));
		}
		if (f)
			fclose(f);
	}
	if (dir)
		closedir(dir);
}

/* start_all() starts every drainer, each where it is pinned (the fan-out:
 * drainers start drainers), and one whose CPU the kernel refuses on the
 * caller's CPUs; stop_all() waits until each has flushed, then all join. */
static void test_start_all(void)
{
	enum { N = 7 };
	struct prec_ring r[N];
	void *mem[N];
	struct prec_shard_writer *w[N];
	struct prec_drainer_pool *pool;
	struct prec_drainer *d[N];
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t mine;
	char name[32], cpus[64], want[16];

	CHECK_EQ(sched_getaffinity(0, sizeof(mine), &mine), 0);
	CHECK_EQ(prec_drainer_pool__new(&pool, N), 0);
	for (int i = 0; i < N; i++) {
		struct prec_drainer_opts o = {
			.cpu = 900 + i, .layout = layout, .clockid = CLOCK_MONOTONIC,
			.round_ns = 5000000, .affinity = PREC_AFFINITY_CPU,
			/* 1000: no such CPU here, refused */
			.pin_cpu = i == 5 ? 1000 : i % (ncpu > 0 ? ncpu : 1),
		};

		mem[i] = sim_mem(16 << 10, 0, &r[i]);
		snprintf(name, sizeof(name), "start%d.shard", i);
		w[i] = open_writer(name, true);
		o.ring = &r[i];
		o.writer = w[i];
		CHECK_EQ(prec_drainer_pool__add(pool, i, &o), 0);
		d[i] = prec_drainer_pool__at(pool, i);
	}
	CHECK_EQ(prec_drainer_pool__start(pool), 0);
	for (int i = 0; i < N; i++) {
		CHECK_EQ(prec_drainer__start_error(d[i]), 0);
		snprintf(name, sizeof(name), "prec-drain-%d", 900 + i);
		task_cpus(name, cpus, sizeof(cpus));
		snprintf(want, sizeof(want), "%d", i % (ncpu > 0 ? ncpu : 1));
		if (i == 5)
			CHECK(cpus[0] != 0); /* started, on the caller's CPUs */
		else if (strcmp(cpus, want))
			CHECK(!fprintf(stderr, "%s on CPUs '%s', want '%s'\n", name, cpus, want));
	}
	CHECK_EQ(prec_drainer__start(d[0]), -EBUSY);
	/* stop() returns once every shard is flushed: the stats' flush
	 * time is set by then, before any join. */
	CHECK_EQ(prec_drainer_pool__stop(pool, NULL), 0);
	for (int i = 0; i < N; i++) {
		struct prec_drainer_stats st;

		prec_drainer__stats(d[i], &st);
		CHECK(st.flushed_ns && st.flushed_ns >= st.stop_seen_ns);
	}
	CHECK_EQ(prec_drainer_pool__join(pool), 0);
	prec_drainer_pool__delete(pool);
	for (int i = 0; i < N; i++) {
		CHECK_EQ(prec_shard_writer__close(w[i]), 0);
		free(mem[i]);
	}
	printf("start_all: %d drainers started by the fan-out\n", N);
}

/* The wanted maps of p found in the table m[0..nr): found[i] set. */
static void mark_maps(const struct producer *p, const struct prec_seen_map *m, int nr,
		      bool *found)
{
	for (int i = 0; i < p->nr_maps; i++) {
		const struct want_map *w = &p->maps[i];
		uint8_t id[20] = { 0 };
		char path[96];

		path_of(w->path, path);
		if (w->id >= 0)
			build_id_of(w->id, id);
		for (int j = 0; j < nr; j++)
			if (!strcmp(m[j].path, path) && m[j].size == w->size &&
			    !memcmp(m[j].id, id, w->size))
				found[i] = true;
	}
}

/* Cuts (--switch-output) while a producer thread fills the ring: the
 * shards, read in order, hold every byte once and in order; each cut hands
 * back the old writer (closed here while the drainer goes on), loss totals
 * that never go back, and the maps its epoch saw. */
static void test_cut(bool copy)
{
	enum { CUTS = 6 };
	static struct prod_thread pt;
	struct prec_shard_writer *w[CUTS + 1];
	struct timespec gap = { 0, 3000000 };
	struct prec_drainer_stats st;
	struct prec_latch g;
	struct prec_drainer_cut cut, kept[CUTS];
	struct prec_ring r;
	void *mem = sim_mem(64 << 10, 0, &r);
	const struct prec_seen_map *m;
	bool found[MAX_MAPS] = { false };
	uint64_t records = 0, prev_lost = 0;
	int with_data = 0;
	uint8_t *all = NULL;
	size_t len = 0;
	struct readback rb;
	struct prec_drainer *d;
	char name[48];
	pthread_t t;
	int nr;

	for (int i = 0; i <= CUTS; i++) {
		snprintf(name, sizeof(name), "cut-%s-%d.shard", copy ? "copy" : "zc", i);
		w[i] = open_writer(name, copy);
	}
	d = new_drainer(&r, w[0], copy, 2000000);
	memset(&pt, 0, sizeof(pt));
	pt.p.r = &r;
	pt.total = 6 << 20;
	CHECK_EQ(prec_drainer__start(d), 0);
	CHECK_EQ(pthread_create(&t, NULL, producer_main, &pt), 0);
	for (int i = 1; i <= CUTS; i++) {
		nanosleep(&gap, NULL);
		memset(&cut, 0, sizeof(cut));
		cut.writer = w[i];
		CHECK_EQ(cut_one(d, &cut, &g), 0);
		CHECK(cut.writer == w[i - 1]);
		CHECK(cut.lost >= prev_lost);
		prev_lost = cut.lost;
		kept[i - 1] = cut; /* its maps, checked once the producer is done */
		CHECK_EQ(prec_shard_writer__close(cut.writer), 0);
	}
	pthread_join(t, NULL);
	for (int i = 0; i < CUTS; i++) {
		mark_maps(&pt.p, kept[i].maps, (int)kept[i].nr_maps, found);
		prec_drainer__free_maps(kept[i].maps, kept[i].nr_maps);
	}
	prec_drainer__stop(d);
	CHECK_EQ(prec_drainer__join(d), 0);
	CHECK_EQ(r.page->data_tail, r.page->data_head);
	CHECK_EQ(prec_shard_writer__close(w[CUTS]), 0);
	for (int i = 0; i <= CUTS; i++) {
		snprintf(name, sizeof(name), "cut-%s-%d.shard", copy ? "copy" : "zc", i);
		read_shard(name, &rb);
		all = grow(all, len + rb.len);
		if (rb.len) /* an epoch the cut left empty reads as no data at all */
			memcpy(all + len, rb.data, rb.len);
		len += rb.len;
		records += rb.records;
		with_data += rb.len > 0;
		free_readback(&rb);
	}
	CHECK_EQ(len, pt.p.len);
	CHECK(!memcmp(all, pt.p.exp, len));
	CHECK_EQ(records, pt.p.records);
	CHECK(with_data >= 2); /* the cuts fell while the ring was filled */
	prec_drainer__stats(d, &st);
	CHECK_EQ(st.lost, pt.p.lost);
	CHECK(st.lost >= prev_lost);
	m = prec_drainer__maps(d, &nr);
	mark_maps(&pt.p, m, nr, found);
	for (int i = 0; i < pt.p.nr_maps; i++)
		CHECK(found[i]);
	printf("cuts %s: %zu bytes over %d shards, %d with data\n", copy ? "copy" : "zero-copy",
	       len, CUTS + 1, with_data);
	free(all);
	prec_drainer__delete(d);
	free(pt.p.exp);
	free(mem);
}

/* AUX area on a simulated ring: chunks tile the AUX stream from 0, and take
 * the flags of the PERF_RECORD_AUX records drained in the same pass. */
static void test_aux(void)
{
	struct producer p = { 0 };
	struct prec_ring r;
	void *mem = sim_mem(4096, 1 << 20, &r);
	struct prec_shard_writer *w = open_writer("aux.shard", false);
	struct prec_drainer *d = new_drainer(&r, w, false, 0);
	uint32_t want[64];
	uint64_t nwant = 0;
	struct readback rb;

	p.r = &r;
	for (int pass = 0; pass < 16; pass++) {
		uint64_t n = 1 + test_rand(&rng) % (700 << 10);
		uint64_t head = r.page->aux_head;
		uint32_t flags = pass % 3 == 0 ? 0 : pass % 3 == 1 ? 1 : 4;
		uint8_t rec[64];
		uint16_t size;
		int chunks;

		p.aux_exp = grow(p.aux_exp, p.aux_len + n);
		for (uint64_t i = 0; i < n; i++) {
			uint8_t b = (uint8_t)test_rand(&rng);

			r.aux[(head + i) & (r.aux_size - 1)] = b;
			p.aux_exp[p.aux_len + i] = b;
		}
		p.aux_len += n;
		__atomic_store_n(&r.page->aux_head, head + n, __ATOMIC_RELEASE);
		put64(rec + 8, head);
		put64(rec + 16, n);
		put64(rec + 24, flags);
		size = trailer(&p, rec, 32);
		put_hdr(rec, PERF_RECORD_AUX, 0, size);
		ring_put(&p, rec, size);
		chunks = prec_drainer__drain(d);
		CHECK_EQ(chunks, 1 + (int)((n + PREC_CHUNK_MAX_PAYLOAD - 1) /
					   PREC_CHUNK_MAX_PAYLOAD));
		CHECK_EQ(r.page->aux_tail, r.page->aux_head);
		for (int i = 1; i < chunks && nwant < 64; i++)
			want[nwant++] = flags;
	}
	CHECK_EQ(prec_shard_writer__close(w), 0);
	read_shard("aux.shard", &rb);
	check_all(&p, d, &rb);
	CHECK_EQ(rb.aux_len, p.aux_len);
	CHECK(!memcmp(rb.aux, p.aux_exp, p.aux_len));
	for (uint64_t i = 0; i < nwant && i < rb.aux_chunks; i++)
		CHECK_EQ(rb.aux_flags[i], want[i]);
	free_readback(&rb);
	prec_drainer__delete(d);
	free(p.exp);
	free(p.aux_exp);
	free(mem);
}

/* A writer error (EFBIG past RLIMIT_FSIZE, standing in for ENOSPC) stops
 * the thread; join returns it; the shard holds a whole-chunk prefix. */
static void test_writer_error(void)
{
	static struct prod_thread pt;
	struct rlimit old, lim;
	struct prec_ring r;
	void *mem = sim_mem(64 << 10, 0, &r);
	struct prec_shard_writer *w;
	struct prec_drainer *d;
	struct readback rb;
	pthread_t t;

	signal(SIGXFSZ, SIG_IGN);
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = 1 << 20;
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lim), 0);
	w = open_writer("efbig.shard", false);
	d = new_drainer(&r, w, false, 1000000);
	memset(&pt, 0, sizeof(pt));
	pt.p.r = &r;
	pt.total = 8 << 20;
	CHECK_EQ(prec_drainer__start(d), 0);
	CHECK_EQ(pthread_create(&t, NULL, producer_main, &pt), 0);
	CHECK_EQ(prec_drainer__join(d), -EFBIG);
	__atomic_store_n(&pt.quit, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	CHECK_EQ(prec_drainer__drain(d), -EFBIG);
	CHECK_EQ(prec_shard_writer__close(w), -EFBIG);
	CHECK_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
	read_shard("efbig.shard", &rb);
	CHECK(rb.len > 0 && rb.len < (1 << 20) && rb.len < pt.p.len);
	CHECK(!memcmp(rb.data, pt.p.exp, rb.len));
	free_readback(&rb);
	prec_drainer__delete(d);
	free(pt.p.exp);
	free(mem);
}

static void busy_on_cpu0(uint64_t ns)
{
	cpu_set_t set, old;
	volatile uint64_t x = 0;
	uint64_t end = now_ns() + ns;

	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (now_ns() < end)
		for (int i = 0; i < 10000; i++)
			x += (uint64_t)i;
	sched_setaffinity(0, sizeof(old), &old);
}

static int open_cpu_clock_cpu0(void)
{
	struct perf_event_attr a = { 0 };

	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 100000;
	a.sample_type = PREC_SAMPLE_BASE;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.watermark = 1;
	a.wakeup_watermark = 16384;
	a.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &a, -1, 0, -1,
			    PERF_FLAG_FD_CLOEXEC);
}

/* A real cpu-clock ring on CPU 0, drained by the thread for ~300 ms; the
 * kernel's timestamps check the watermark promise. */
static int test_real_perf(void)
{
	struct prec_shard_writer *w;
	struct prec_drainer *d;
	struct prec_ring r;
	struct readback rb;
	int fd, rc;

	fd = open_cpu_clock_cpu0();
	if (fd < 0) {
		printf("perf_event_open: %s: skipping the real-ring test\n",
		       strerror(errno));
		return TEST_SKIP;
	}
	CHECK_EQ(prec_ring__map(&r, fd, 64, 0, false), 0);
	CHECK_EQ(r.size, 64 * 4096);
	CHECK(r.data == (uint8_t *)r.map + r.page->data_offset);
	/* cpu-clock has no AUX area: the kernel's own answer. */
	{
		int fd2 = open_cpu_clock_cpu0();
		struct prec_ring r2;

		CHECK(fd2 >= 0);
		CHECK_EQ(prec_ring__map(&r2, fd2, 1, 4096, false), -EOPNOTSUPP);
		CHECK(r2.map == NULL && r2.aux == NULL);
		close(fd2);
	}
	w = open_writer("real.shard", false);
	d = new_drainer(&r, w, false, 50000000);
	CHECK_EQ(prec_drainer__start(d), 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	busy_on_cpu0(300000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	prec_drainer__stop(d);
	CHECK_EQ(prec_drainer__join(d), 0);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	read_shard("real.shard", &rb);
	printf("real ring: %llu records in %llu chunks, %llu markers, %llu late\n",
	       (unsigned long long)rb.records, (unsigned long long)rb.data_chunks,
	       (unsigned long long)rb.markers, (unsigned long long)rb.min_late);
	CHECK(rb.records > 100);
	CHECK(rb.times_sorted);
	CHECK_EQ(rb.min_late, 0);
	rc = (int)rb.records;
	free_readback(&rb);
	prec_drainer__delete(d);
	prec_ring__unmap(&r);
	close(fd);
	return rc > 0 ? 0 : 1;
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	int rc;

	rng = test_seed();
	tmpdir = test_tmpdir("drainer");
	dirfd_tmp = open(tmpdir, O_DIRECTORY | O_CLOEXEC);
	CHECK(dirfd_tmp >= 0);
	test_alignments();
	test_big_passes();
	test_corrupt();
	test_aux();
	test_threaded(false);
	test_threaded(true);
	test_start_all();
	test_cut(false);
	test_cut(true);
	test_cut_capture();
	test_writer_error();
	rc = test_real_perf();
	close(dirfd_tmp);
	test_rmdir(tmpdir);
	return rc;
}
