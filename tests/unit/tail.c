// SPDX-License-Identifier: MIT
// Tail synthesis (prec_tail) into a real shard, read back: which processes
// a tail names (roots, their descendants, not the others), COMM per thread
// and MMAP2 per executable map with the tail's time in every trailer, no
// FORK, chunk times and watermarks, times that never go back across tails
// (held at the previous one, skipped without records), build-ids of the
// mapped files added once; every task in /proc without roots. And what a
// snapshot of a simulated ring tells its tail: its oldest record's time.
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "record/internal.h"
#include "record/ring.h"
#include "record/snapshot.h"
#include "store/store.h"
#include "record/tail.h"

static uint32_t u32at(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t u64at(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* What one tail (one time) wrote, as seen in the shard. */
struct seen {
	int records, chunks, forks;
	bool comm_kid, comm_gkid, comm_other, comm_self, comm_pid1;
	bool mmap2_kid, mmap2_gkid, mmap2_other;
};

static pid_t g_kid, g_gkid, g_other;

/* What a spawned process tells the test: its role and its pid. */
struct msg {
	uint32_t role; /* 0 kid, 1 grandchild, 2 other */
	pid_t pid;
};

static void tell(int fd, uint32_t role)
{
	struct msg mg = { role, getpid() };

	if (write(fd, &mg, sizeof(mg)) != sizeof(mg))
		_exit(1);
}

/* A process named name (and, with child, its own child named child) that
 * says so on fd once named, then sleeps. */
static pid_t spawn(const char *name, uint32_t role, const char *child, int fd)
{
	pid_t pid = fork();

	CHECK(pid >= 0);
	if (pid)
		return pid;
	/* A failed CHECK exits at once: the children must not outlive it. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, name);
	if (child && fork() == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, child);
		tell(fd, role + 1);
		for (;;)
			pause();
	}
	tell(fd, role);
	for (;;)
		pause();
}

static void spawn_all(void)
{
	struct msg mg;
	int p[2];

	CHECK(pipe(p) == 0);
	spawn("tailkid", 0, "tailgkid", p[1]);
	spawn("tailother", 2, NULL, p[1]);
	for (int i = 0; i < 3; i++) {
		CHECK(read(p[0], &mg, sizeof(mg)) == sizeof(mg));
		*(mg.role == 0 ? &g_kid : mg.role == 1 ? &g_gkid : &g_other) = mg.pid;
	}
	CHECK(g_kid > 0 && g_gkid > 0 && g_other > 0);
	close(p[0]);
	close(p[1]);
}

static void look(struct seen *s, const uint8_t *r)
{
	const struct perf_event_header *h = (const void *)r;
	uint32_t pid = u32at(r + 8), tid = u32at(r + 12);

	if (h->type == PERF_RECORD_FORK)
		s->forks++;
	if (h->type == PERF_RECORD_COMM) {
		const char *comm = (const char *)r + 16;

		CHECK_EQ(h->misc, 0);
		if (pid == (uint32_t)g_kid)
			s->comm_kid = tid == pid && !strcmp(comm, "tailkid");
		if (pid == (uint32_t)g_gkid)
			s->comm_gkid = tid == pid && !strcmp(comm, "tailgkid");
		s->comm_other |= pid == (uint32_t)g_other;
		s->comm_self |= pid == (uint32_t)getpid();
		s->comm_pid1 |= pid == 1;
	}
	if (h->type == PERF_RECORD_MMAP2) {
		CHECK(u32at(r + 64) & PROT_EXEC);
		s->mmap2_kid |= pid == (uint32_t)g_kid;
		s->mmap2_gkid |= pid == (uint32_t)g_gkid;
		s->mmap2_other |= pid == (uint32_t)g_other;
	}
}

/* Every chunk of the shard, in order: its records in time order from its
 * first time (its watermark) to its last, never older than the chunk
 * before. The records at time want go into *s. */
static void read_back(const char *dir, uint64_t want, struct seen *s)
{
	struct prec_shard_reader *r;
	struct prec_chunk c;
	uint64_t last = 0;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), ret;

	CHECK(dfd >= 0);
	memset(s, 0, sizeof(*s));
	CHECK_EQ(prec_shard_reader__open(&r, dfd, PREC_TAIL_SHARD_NAME), 0);
	CHECK_EQ(prec_shard_reader__header(r)->cpu, PREC_TAIL_CPU);
	while ((ret = prec_shard_reader__next(r, &c)) == 1) {
		const uint8_t *p = c.payload;
		bool here = false;

		CHECK_EQ(c.hdr.type, PREC_CHUNK_DATA);
		CHECK(c.hdr.first_time > 0 && c.hdr.first_time >= last);
		CHECK_EQ(c.hdr.watermark, c.hdr.first_time);
		for (uint32_t off = 0; off < c.len;) {
			const struct perf_event_header *h = (const void *)(p + off);
			uint64_t t;

			CHECK(h->size >= 8 + PREC_SAMPLE_ID_TRAILER && h->size <= c.len - off);
			/* the trailer: tid, time, cpu, id; only the time set */
			t = u64at(p + off + h->size - 24);
			CHECK_EQ(u64at(p + off + h->size - 32), 0);
			CHECK_EQ(u64at(p + off + h->size - 16), 0);
			CHECK_EQ(u64at(p + off + h->size - 8), 0);
			CHECK(t >= last && t >= c.hdr.first_time && t <= c.hdr.last_time);
			if (off == 0)
				CHECK_EQ(t, c.hdr.first_time);
			last = t;
			if (t == want) {
				look(s, p + off);
				s->records++;
				here = true;
			}
			off += h->size;
		}
		CHECK_EQ(last, c.hdr.last_time);
		s->chunks += here;
	}
	CHECK_EQ(ret, 0);
	prec_shard_reader__close(r);
	close(dfd);
}

static bool has(const pid_t *v, int n, pid_t x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

static void check_select(void)
{
	pid_t roots[3] = { g_kid, g_other, g_kid }, *v;
	pid_t gone = 0;
	int n;

	n = prec_tail__select(roots, 1, false, &v);
	CHECK(n == 1 && v[0] == g_kid);
	free(v);
	n = prec_tail__select(roots, 1, true, &v);
	CHECK(n == 2 && has(v, n, g_kid) && has(v, n, g_gkid));
	free(v);
	/* duplicate roots, and a root that descends from another, once */
	roots[1] = g_gkid;
	n = prec_tail__select(roots, 3, true, &v);
	CHECK(n == 2 && v[0] < v[1]);
	free(v);
	/* this process's descendants: all three, and a dead root stays */
	for (pid_t p = 2; !gone && p < 1 << 22; p++)
		if (kill(p, 0) && errno == ESRCH)
			gone = p;
	roots[0] = getpid();
	roots[1] = gone;
	n = prec_tail__select(roots, 2, true, &v);
	CHECK(n == 5);
	CHECK(has(v, n, getpid()) && has(v, n, g_kid) && has(v, n, g_gkid) &&
	      has(v, n, g_other) && has(v, n, gone));
	free(v);
}

/* A record of size bytes from w, written backward into a simulated ring,
 * with time at time_off. */
static void put_rec(struct prec_ring *r, uint8_t *w, uint16_t size,
		    uint16_t time_off, uint64_t time)
{
	uint64_t head = r->page->data_head - size;

	memcpy(w + time_off, &time, sizeof(time));
	for (uint16_t i = 0; i < size; i++)
		r->data[(head + i) & (r->size - 1)] = w[i];
	__atomic_store_n(&r->page->data_head, head, __ATOMIC_RELEASE);
}

/* Header and the first three u32 of the body (pid, ppid or tid, ...). */
static uint8_t *rec_of(uint8_t *w, uint32_t type, uint16_t misc, uint16_t size,
		       uint32_t a, uint32_t b, uint32_t c)
{
	struct perf_event_header h = { type, misc, size };

	memset(w, 0, 128);
	memcpy(w, &h, sizeof(h));
	memcpy(w + 8, &a, 4);
	memcpy(w + 12, &b, 4);
	memcpy(w + 16, &c, 4);
	return w;
}

/* What a snapshot tells its tail: the oldest record's time, each
 * snapshot's own. */
static void check_snapshot_facts(int dfd)
{
	struct prec_snapshot_opts so = { .nr = 1 };
	struct prec_shard_writer_opts wo = { .cpu = 0 };
	struct prec_snapshot_stats st;
	struct prec_shard_writer *w;
	struct prec_snapshot *snap;
	struct prec_ring r;
	void *mem = calloc(1, 4096 + 8192);
	uint8_t b[128];
	int cpu = 0;

	CHECK(mem);
	prec_ring__init_mem(&r, mem, 8192, 0);
	CHECK_EQ(prec_shard_writer__open(&w, dfd, "cpu000.shard", &wo), 0);
	so.rings = &r;
	so.writers = &w;
	so.cpus = &cpu;
	CHECK_EQ(prec_time_layout__init(&so.layout, PREC_SAMPLE_BASE), 0);
	CHECK_EQ(prec_snapshot__new(&snap, &so), 0);
	/* SAMPLE: id, ip, pid/tid, then its time at +32 */
	put_rec(&r, rec_of(b, PERF_RECORD_SAMPLE, 0, 48, 5, 0, 0), 48, 32, 150);
	put_rec(&r, rec_of(b, PERF_RECORD_FORK, 0, 64, 77, 1, 77), 64, 40, 200);
	put_rec(&r, rec_of(b, PERF_RECORD_FORK, 0, 64, 77, 77, 78), 64, 40, 210);
	put_rec(&r, rec_of(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 56, 77, 77,
			   0x6e7572), 56, 32, 300);
	put_rec(&r, rec_of(b, PERF_RECORD_COMM, 0, 56, 79, 79, 0x656d616e), 56, 32, 310);
	put_rec(&r, rec_of(b, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, 56, 77, 80,
			   0x6e7572), 56, 32, 320);
	CHECK_EQ(prec_snapshot__take(snap), 0);
	prec_snapshot__stats(snap, &st);
	CHECK_EQ(st.records, 6);
	CHECK_EQ(st.oldest, 150);
	/* a snapshot with nothing new: no oldest record */
	CHECK_EQ(prec_snapshot__take(snap), 0);
	prec_snapshot__stats(snap, &st);
	CHECK_EQ(st.oldest, 0);
	/* only what came since */
	put_rec(&r, rec_of(b, PERF_RECORD_FORK, 0, 64, 90, 1, 90), 64, 40, 500);
	CHECK_EQ(prec_snapshot__take(snap), 0);
	prec_snapshot__stats(snap, &st);
	CHECK_EQ(st.oldest, 500);
	prec_snapshot__delete(snap);
	CHECK_EQ(prec_shard_writer__close(w), 0);
	free(mem);
}

static double ms_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) * 1e3 + (double)(b.tv_nsec - a->tv_nsec) / 1e6;
}

static bool has_buildid(const struct prec_manifest *m, const char *path)
{
	for (uint32_t i = 0; i < m->nr_buildids; i++)
		if (!strcmp(m->buildids[i].path, path))
			return true;
	return false;
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *dir = test_tmpdir("tail");
	struct prec_manifest *m = prec_manifest__new();
	struct prec_shard_writer_opts wo = { .cpu = PREC_TAIL_CPU };
	struct prec_tail_stats st;
	struct prec_shard_writer *w;
	struct prec_tail *t, *all;
	struct timespec a;
	struct seen s;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	uint32_t nb;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY), n;

	CHECK(m && dfd >= 0 && len > 0);
	exe[len] = '\0';
	test_manifest_add_event(m, 7);
	check_snapshot_facts(dfd);
	spawn_all();
	check_select();

	CHECK_EQ(prec_shard_writer__open(&w, dfd, PREC_TAIL_SHARD_NAME, &wo), 0);
	CHECK_EQ(prec_tail__new(&t, &(struct prec_tail_opts){ .writer = w, .m = m,
		.roots = &g_kid, .nr_roots = 1, .descendants = true }), 0);
	/* a snapshot that wrote nothing: no tail */
	CHECK_EQ(prec_tail__write(t, 0), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	n = prec_tail__write(t, 1000000);
	printf("tail of 2 processes: %d records in %.2f ms\n", n, ms_since(&a));
	CHECK(n >= 4);
	CHECK(has_buildid(m, exe));
	nb = m->nr_buildids;
	CHECK(prec_tail__write(t, 2000000) == n);
	CHECK_EQ(m->nr_buildids, nb); /* the same files: not read again */
	/* a snapshot whose oldest record is older than the previous tail's
	 * time (not expected, but the shard's times must not go back) */
	CHECK(prec_tail__write(t, 1500000) == n);
	CHECK_EQ(prec_tail__write(t, 3000000), n);
	CHECK_EQ(prec_tail__write(t, 3500000), n);
	prec_tail__stats(t, &st);
	CHECK_EQ(st.tails, 5);
	CHECK_EQ(st.skipped, 1);
	CHECK_EQ(st.clamped, 1);
	CHECK_EQ(st.records, 5 * (uint64_t)n);

	/* every task: pid 1 and this process too */
	CHECK_EQ(prec_tail__new(&all, &(struct prec_tail_opts){ .writer = w, .m = m }), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	n = prec_tail__write(all, 4000000);
	printf("tail of every task: %d records in %.2f ms\n", n, ms_since(&a));
	CHECK(n > 0);
	prec_tail__delete(all);
	prec_tail__delete(t);
	CHECK_EQ(prec_shard_writer__close(w), 0);

	read_back(dir, 999999, &s);
	CHECK(s.comm_kid && s.comm_gkid && s.mmap2_kid && s.mmap2_gkid);
	CHECK(!s.comm_other && !s.mmap2_other && !s.comm_self);
	CHECK_EQ(s.forks, 0);
	read_back(dir, 1999999, &s);
	CHECK(s.comm_kid && s.comm_gkid && s.chunks >= 2); /* two tails */
	read_back(dir, 2999999, &s);
	CHECK(s.comm_kid && s.comm_gkid && !s.comm_other);
	read_back(dir, 3499999, &s);
	CHECK(s.comm_kid && s.mmap2_kid && s.comm_gkid && s.mmap2_gkid && !s.comm_other);
	read_back(dir, 4000000 - 1, &s);
	CHECK(s.comm_pid1 && s.comm_self && s.comm_kid && s.comm_other);
	CHECK_EQ(s.forks, 0);
	CHECK_EQ(s.records, n);

	kill(g_gkid, SIGKILL);
	kill(g_kid, SIGKILL);
	kill(g_other, SIGKILL);
	waitpid(g_kid, NULL, 0);
	waitpid(g_other, NULL, 0);
	prec_manifest__delete(m);
	close(dfd);
	test_rmdir(dir);
	free(dir);
	return 0;
}
