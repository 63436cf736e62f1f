// SPDX-License-Identifier: MIT
// The merge iterator live (merge --follow), on two shards written chunk by
// chunk while it reads: it hands out only what every shard's bound allows
// (-EAGAIN before that), reads on through a torn chunk once its writer has
// finished it, and after end_live() gives the rest: all of it, record for
// record (time, shard), what a merge of the finished files gives.
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/shard_gen.h"
#include "../lib/test.h"
#include "read/internal.h"
#include "store/store.h"

#define MS 1000000ull
#define T0 (1000 * MS)
#define MAX_OUT 64

struct out {
	uint64_t time[MAX_OUT];
	uint32_t shard[MAX_OUT];
	unsigned int n;
};

static struct prec_shard_writer *w[2];

static void samples(int cpu, const uint64_t *ms, uint32_t n, uint64_t wm_ms)
{
	static uint8_t data[TEST_SAMPLE_SIZE * 8];

	for (uint32_t i = 0; i < n; i++)
		test_put_sample(data + TEST_SAMPLE_SIZE * i, T0 + ms[i] * MS);
	test_append_chunk(w[cpu], PREC_CHUNK_DATA, data, TEST_SAMPLE_SIZE * n, n,
			  T0 + ms[0] * MS, T0 + wm_ms * MS, 0);
	CHECK_EQ(prec_shard_writer__flush(w[cpu]), 0);
}

static void marker(int cpu, uint64_t wm_ms)
{
	test_append_chunk(w[cpu], PREC_CHUNK_MARKER, NULL, 0, 0, 0, T0 + wm_ms * MS, 0);
	CHECK_EQ(prec_shard_writer__flush(w[cpu]), 0);
}

/* next() until it has nothing more: returns its last result. */
static int take(struct prec_merge *mg, struct out *o)
{
	struct prec_merge_rec r;
	int k;

	while ((k = prec_merge__next(mg, &r)) > 0) {
		CHECK(o->n < MAX_OUT);
		o->time[o->n] = r.time;
		o->shard[o->n++] = r.shard;
	}
	return k;
}

static void expect(const struct out *o, unsigned int from, const uint64_t *ms, unsigned int n)
{
	CHECK_EQ(o->n, from + n);
	for (unsigned int i = 0; i < n; i++)
		CHECK_EQ(o->time[from + i], T0 + ms[i] * MS);
}

int main(void)
{
	test_need_syscall(SYS_io_uring_setup, "io_uring_setup");

	char *tmp = test_tmpdir("merge_live");
	int dirfd = open(tmp, O_RDONLY | O_DIRECTORY);
	struct prec_manifest *m = prec_manifest__new();
	struct prec_merge_opts lo = { .live = true };
	struct out live = { 0 }, plain = { 0 };
	struct prec_merge *mg;
	const char *names[2] = { "cpu000.shard", "cpu001.shard" };
	int fd;

	CHECK(m && dirfd >= 0);
	CHECK_EQ(prec_time_layout__init(&m->time_layout, TEST_SAMPLE_TYPE), 0);
	for (int c = 0; c < 2; c++) {
		struct prec_shard_writer_opts wo = { .cpu = c, .copy = true };
		struct prec_manifest_shard ms = { .cpu = c, .name = (char *)names[c] };

		CHECK_EQ(prec_manifest__add_shard(m, &ms), 0);
		CHECK_EQ(prec_shard_writer__open(&w[c], dirfd, names[c], &wo), 0);
	}
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, &lo), 0);

	/* cpu1 has written nothing: nothing can go out. */
	samples(0, (const uint64_t[]){ 1, 2, 3 }, 3, 3);
	CHECK_EQ(take(mg, &live), -EAGAIN);
	CHECK_EQ(live.n, 0);
	/* cpu1 idle up to 50 ms: cpu0's ring order lets 1 and 2 ms out (3 ms
	 * less the ring's 1 ms slack), not 3 ms. */
	marker(1, 50);
	CHECK_EQ(take(mg, &live), -EAGAIN);
	expect(&live, 0, (const uint64_t[]){ 1, 2 }, 2);
	/* cpu0 idle up to 60 ms, cpu1's samples at 20 and 30: all out, with
	 * cpu0's 3 ms first; then the next wait. */
	marker(0, 60);
	samples(1, (const uint64_t[]){ 20, 30 }, 2, 55);
	CHECK_EQ(take(mg, &live), -EAGAIN);
	expect(&live, 2, (const uint64_t[]){ 3, 20, 30 }, 3);
	/* A chunk header half written at cpu1's end: a wait, not damage. */
	fd = openat(dirfd, names[1], O_WRONLY);
	CHECK(fd >= 0);
	CHECK_EQ(pwrite(fd, "PCHK\001\000@\000", 8, lseek(fd, 0, SEEK_END)), 8);
	close(fd);
	marker(0, 100);
	CHECK_EQ(take(mg, &live), -EAGAIN);
	CHECK_EQ(live.n, 5);
	CHECK_EQ(prec_merge__errors(mg), 0);
	/* The writer writes the chunk over it (and more, the same time as
	 * cpu0's next to come): 40 goes out, 70 waits for cpu0. */
	samples(1, (const uint64_t[]){ 40, 70 }, 2, 75);
	CHECK_EQ(take(mg, &live), -EAGAIN);
	expect(&live, 5, (const uint64_t[]){ 40 }, 1);
	samples(0, (const uint64_t[]){ 70, 80 }, 2, 80);
	samples(1, (const uint64_t[]){ 90 }, 1, 90);
	for (int c = 0; c < 2; c++)
		CHECK_EQ(prec_shard_writer__close(w[c]), 0);
	/* The end: the rest, equal times in shard order. */
	CHECK_EQ(prec_merge__end_live(mg, true), 0);
	CHECK_EQ(take(mg, &live), 0);
	expect(&live, 6, (const uint64_t[]){ 70, 70, 80, 90 }, 4);
	CHECK_EQ(live.shard[6], 0);
	CHECK_EQ(live.shard[7], 1);
	CHECK_EQ(prec_merge__errors(mg), 0);
	prec_merge__close(mg);

	/* The finished files merged at once: the same, record for record. */
	m->state = PREC_STATE_COMPLETE;
	CHECK_EQ(prec_merge__open(&mg, dirfd, m, NULL), 0);
	CHECK_EQ(take(mg, &plain), 0);
	prec_merge__close(mg);
	CHECK_EQ(plain.n, live.n);
	for (unsigned int i = 0; i < plain.n; i++) {
		CHECK_EQ(plain.time[i], live.time[i]);
		CHECK_EQ(plain.shard[i], live.shard[i]);
	}
	prec_manifest__delete(m);
	close(dirfd);
	test_rmdir(tmp);
	free(tmp);
	printf("ok\n");
	return 0;
}
