// SPDX-License-Identifier: MIT
// Drain throughput: a producer thread fills a simulated ring with 64-byte
// records as fast as the drainer frees space; the drainer writes a shard.
// Compares zero-copy (writev from the ring) with copy-then-write.
// Usage: drain [DIR [MiB-per-run [reps]]]   (default /var/tmp 512 5)
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "record/drainer.h"
#include "record/ring.h"
#include "store/store.h"

#define REC 64

struct run {
	struct prec_ring r;
	uint64_t total;        /* bytes to produce */
	int done;              /* producer finished */
	double prod_cpu;       /* producer thread CPU seconds */
};

static double ts_sec(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double proc_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Kernel-like producer: writes whole records into free space, publishes
 * data_head with release, never passes data_tail. */
static void *producer(void *arg)
{
	struct run *run = arg;
	struct prec_ring *r = &run->r;
	uint8_t rec[REC] = { 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE, 2, REC };
	uint64_t head = 0, t = 1;

	memcpy(rec, &h, sizeof(h));
	while (head < run->total) {
		uint64_t tail = __atomic_load_n(&r->page->data_tail, __ATOMIC_ACQUIRE);
		uint64_t room = r->size - (head - tail);
		uint64_t n = room / REC;

		if (n > 64)
			n = 64; /* publish often, like the kernel does */
		if (!n) {
			sched_yield();
			continue;
		}
		for (uint64_t i = 0; i < n; i++, head += REC) {
			t += 100;
			memcpy(rec + 32, &t, sizeof(t));
			memcpy(r->data + (head & (r->size - 1)), rec, REC);
		}
		__atomic_store_n(&r->page->data_head, head, __ATOMIC_RELEASE);
	}
	run->prod_cpu = ts_sec(CLOCK_THREAD_CPUTIME_ID);
	__atomic_store_n(&run->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct result {
	double gbs, drain_cpu, proc_cpu;
};

static int open_writer(struct prec_shard_writer **w, const char *dir, bool copy)
{
	struct prec_shard_writer_opts o = { .cpu = 0, .copy = copy };
	int dfd = open(dir, O_DIRECTORY | O_CLOEXEC), err;

	if (dfd < 0)
		return -errno;
	unlinkat(dfd, "bench-drain.shard", 0);
	err = prec_shard_writer__open(w, dfd, "bench-drain.shard", &o);
	close(dfd);
	return err;
}

/* Drain on this thread in a loop (no sleeps: the producer never rests),
 * so the figures are the drain path's own cost. */
static int one_run(const char *dir, uint64_t ring, uint64_t total, bool copy,
		   struct result *res)
{
	struct run run = { .total = total };
	struct prec_drainer_opts o = { .pin_cpu = -1, .copy = copy,
				       .clockid = CLOCK_MONOTONIC,
				       .layout = { 32, 24 } };
	struct prec_drainer *d = NULL;
	struct prec_drainer_stats st;
	double t0, c0, p0, tc0;
	void *mem = aligned_alloc(4096, 4096 + ring);
	pthread_t th;
	int err;

	if (!mem)
		return -ENOMEM;
	memset(mem, 0, 4096 + ring);
	prec_ring__init_mem(&run.r, mem, ring, 0);
	err = open_writer(&o.writer, dir, copy);
	if (!err) {
		o.ring = &run.r;
		err = prec_drainer__new(&d, &o);
	}
	if (err)
		goto out;
	t0 = ts_sec(CLOCK_MONOTONIC);
	c0 = proc_cpu();
	tc0 = ts_sec(CLOCK_THREAD_CPUTIME_ID);
	pthread_create(&th, NULL, producer, &run);
	for (;;) {
		int done = __atomic_load_n(&run.done, __ATOMIC_ACQUIRE);

		err = prec_drainer__drain(d);
		if (err < 0 || (done && !err))
			break;
		if (!err)
			sched_yield();
	}
	res->gbs = (double)total / (ts_sec(CLOCK_MONOTONIC) - t0) / 1e9;
	pthread_join(th, NULL);
	p0 = run.prod_cpu;
	res->drain_cpu = ts_sec(CLOCK_THREAD_CPUTIME_ID) - tc0;
	/* Process CPU minus the producer: the drain thread plus io_uring's
	 * workers, which do the buffered writes. */
	res->proc_cpu = proc_cpu() - c0 - p0;
	prec_drainer__stats(d, &st);
	if (err >= 0 && st.bytes != total)
		err = -EIO;
out:
	prec_drainer__delete(d);
	if (prec_shard_writer__close(o.writer) && err >= 0)
		err = -EIO;
	{
		char path[4096];

		snprintf(path, sizeof(path), "%s/bench-drain.shard", dir);
		unlink(path);
	}
	free(mem);
	return err < 0 ? err : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/var/tmp";
	uint64_t total = (argc > 2 ? strtoull(argv[2], NULL, 0) : 512) << 20;
	int reps = argc > 3 ? atoi(argv[3]) : 5;
	static const uint64_t rings[] = { 512 << 10, 8 << 20 };
	static double g[4][99], c[4][99], p[4][99];
	double best[2][2];

	if (reps < 1 || reps > 99)
		reps = 5;
	printf("drain benchmark: %llu MiB of %d-byte records per run, median of %d, shard in %s\n",
	       (unsigned long long)(total >> 20), REC, reps, dir);
	/* Configurations interleave within each repetition so drift in the
	 * VM's disk (ext4 allocation, discard of the last run's blocks)
	 * lands on all of them alike. */
	for (int i = 0; i < reps; i++) {
		for (int k = 0; k < 4; k++) {
			struct result res = { 0 };
			int err = one_run(dir, rings[k >> 1], total, k & 1, &res);

			if (err) {
				fprintf(stderr, "drain: run failed: %s\n",
					strerror(-err));
				return 1;
			}
			g[k][i] = res.gbs;
			c[k][i] = res.drain_cpu;
			p[k][i] = res.proc_cpu;
		}
	}
	printf("%-8s %-10s %8s %13s %14s %14s\n", "ring", "mode", "GB/s",
	       "(min..max)", "drainer-cpu-s", "+io-wq-cpu-s");
	for (int k = 0; k < 4; k++) {
		best[k >> 1][k & 1] = median(g[k], reps);
		printf("%-8s %-10s %8.2f  (%4.2f..%4.2f) %14.3f %14.3f\n",
		       k >> 1 ? "8MiB" : "512KiB", k & 1 ? "copy" : "zero-copy",
		       best[k >> 1][k & 1], g[k][0], g[k][reps - 1],
		       median(c[k], reps), median(p[k], reps));
	}
	for (int ri = 0; ri < 2; ri++)
		printf("faster at %s: %s (%.2f vs %.2f GB/s)\n",
		       ri ? "8MiB" : "512KiB",
		       best[ri][0] >= best[ri][1] ? "zero-copy" : "copy",
		       best[ri][0], best[ri][1]);
	return 0;
}
