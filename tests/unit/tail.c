// SPDX-License-Identifier: MIT
// Tail synthesis (prec_tail) into a real shard, read back: which processes
// a tail names (roots, their descendants, not the others), COMM per thread
// and MMAP2 per executable map with the tail's time in every trailer, no
// FORK, chunk times and watermarks, times that never go back across tails
// (held at the previous one, skipped without records), build-ids of the
// mapped files added once; and every task in /proc without roots.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "record/internal.h"
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
	prctl(PR_SET_NAME, name);
	if (child && fork() == 0) {
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

/* Every chunk of the shard, in order: its records all at the chunk's
 * time, first = last = watermark, never older than the chunk before. The
 * records of the chunks at time want go into *s. */
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
		uint64_t t = c.hdr.first_time;

		CHECK_EQ(c.hdr.type, PREC_CHUNK_DATA);
		CHECK(t > 0);
		CHECK_EQ(c.hdr.last_time, t);
		CHECK_EQ(c.hdr.watermark, t);
		CHECK(t >= last);
		last = t;
		for (uint32_t off = 0; off < c.len;) {
			const struct perf_event_header *h = (const void *)(p + off);

			CHECK(h->size >= 8 + PREC_SAMPLE_ID_TRAILER && h->size <= c.len - off);
			/* the trailer: tid, time, cpu, id; only the time set */
			CHECK_EQ(u64at(p + off + h->size - 32), 0);
			CHECK_EQ(u64at(p + off + h->size - 24), t);
			CHECK_EQ(u64at(p + off + h->size - 16), 0);
			CHECK_EQ(u64at(p + off + h->size - 8), 0);
			if (t == want) {
				look(s, p + off);
				s->records++;
			}
			off += h->size;
		}
		s->chunks += t == want;
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
	prec_tail__stats(t, &st);
	CHECK_EQ(st.tails, 3);
	CHECK_EQ(st.skipped, 1);
	CHECK_EQ(st.clamped, 1);
	CHECK_EQ(st.records, 3 * (uint64_t)n);

	/* every task: pid 1 and this process too */
	CHECK_EQ(prec_tail__new(&all, &(struct prec_tail_opts){ .writer = w, .m = m }), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	n = prec_tail__write(all, 3000000);
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
	read_back(dir, 3000000 - 1, &s);
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
