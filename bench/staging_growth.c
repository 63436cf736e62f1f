// SPDX-License-Identifier: MIT
// How long a stall's staging growth holds the drainer: an O_DIRECT copy-mode
// shard writer is fed 64 KiB chunks at RATE MB/s (a storm's drainer) for
// SECS seconds while bench/staging_growth.sh freezes the file system under
// it. A drain pass is PASS KiB of appends (default 256: a 1 MiB ring's
// wakeup mark), then the drainer's sleep, called without a timeout: that
// is where the staging grows ahead during a stall and shrinks back after
// it. Each call is timed. An append's hold is paid with the ring filling
// (a 1 MiB ring holds about 18 ms of a 55 MB/s storm, a quarter of it
// 4 ms); a sleep's with the ring just emptied. Prints one line: how far
// the staging grew, and for appends and sleeps each the longest call, how
// many grew the staging (their longest, and the appends' sum), and how
// many took over 1 ms.
// Usage: staging_growth -d DIR [-r MB/s (60)] [-t SECS (6)] [-m MAX MiB (256)] [-p PASS KiB (256)]
#include "bench.h"
#include "store/store.h"

#include <getopt.h>
#include <unistd.h>

#define SRC_BYTES (32u * 1024u * 1024u)

/* Sleep until bytes are due at rate: a drainer woken as its ring fills. */
static void pace(double t0, uint64_t bytes, double rate)
{
	double due = t0 + (double)bytes / rate, now;

	while ((now = bench_now()) < due)
		usleep((useconds_t)((due - now) * 1e6) + 1);
}

/* One kind of call's times: all, and those that grew the staging. */
struct calls {
	double longest, grow_max, grow_sum;
	uint64_t grew, held;
};

static void timed(struct prec_shard_writer *w, struct calls *c, double secs, uint64_t *grown)
{
	struct prec_shard_writer_stats st;

	prec_shard_writer__stats(w, &st);
	if (st.staging_grown > *grown) {
		*grown = st.staging_grown;
		c->grew++;
		c->grow_sum += secs;
		if (secs > c->grow_max)
			c->grow_max = secs;
	}
	if (secs > c->longest)
		c->longest = secs;
	c->held += secs > 1e-3;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	double rate = 60e6, secs = 6, t0;
	size_t max_mib = 256, chunk = PREC_CHUNK_MAX_PAYLOAD, per_pass = 4;
	uint64_t bytes = 0, grown = 0, pos = 0, appends = 0;
	struct calls at_append = { 0 }, at_sleep = { 0 };
	struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = 1 };
	struct prec_shard_writer *w;
	unsigned char *src;
	int opt, dirfd, ret;

	while ((opt = getopt(argc, argv, "d:r:t:m:p:")) != -1) {
		if (opt == 'd')
			dir = optarg;
		else if (opt == 'r')
			rate = atof(optarg) * 1e6;
		else if (opt == 't')
			secs = atof(optarg);
		else if (opt == 'm')
			max_mib = (size_t)atol(optarg);
		else if (opt == 'p')
			per_pass = (size_t)atol(optarg) * 1024 / chunk;
		else
			return 2;
	}
	if (!dir || rate <= 0 || secs <= 0 || !per_pass) {
		fprintf(stderr, "usage: staging_growth -d DIR [-r MB/s] [-t SECS] [-m MAX MiB] [-p PASS KiB]\n");
		return 2;
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	src = malloc(SRC_BYTES);
	if (dirfd < 0 || !src) {
		fprintf(stderr, "staging_growth: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	for (size_t i = 0; i < SRC_BYTES; i++)
		src[i] = (unsigned char)(i * 2654435761u >> 24);
	struct prec_shard_writer_opts o = {
		.cpu = 0, .copy = true, .direct = true,
		.staging_bytes = 4u << 20, .staging_max = max_mib << 20,
	};
	unlinkat(dirfd, "growth.shard", 0);
	ret = prec_shard_writer__open(&w, dirfd, "growth.shard", &o);
	if (ret || !prec_shard_writer__direct(w)) {
		fprintf(stderr, "staging_growth: %s: no O_DIRECT shard writer (%s)\n", dir,
			strerror(ret ? -ret : EINVAL));
		return 1;
	}
	t0 = bench_now();
	while (bench_now() - t0 < secs) {
		struct iovec v = { src + pos, chunk };
		double a, b;
		int64_t t;

		pace(t0, bytes, rate);
		a = bench_now();
		t = prec_shard_writer__append(w, &m, &v, 1);
		b = bench_now() - a;
		if (t < 0) {
			fprintf(stderr, "staging_growth: append: %s\n", strerror((int)-t));
			return 1;
		}
		timed(w, &at_append, b, &grown);
		appends++;
		bytes += chunk;
		pos = (pos + chunk) % (SRC_BYTES - chunk);
		if (appends % per_pass)
			continue;
		/* the pass is over: the drainer's sleep, where the staging
		 * grows ahead during a stall and shrinks back after it */
		a = bench_now();
		ret = prec_shard_writer__sleep(w, NULL, 0, 0);
		b = bench_now() - a;
		if (ret < 0) {
			fprintf(stderr, "staging_growth: sleep: %s\n", strerror(-ret));
			return 1;
		}
		timed(w, &at_sleep, b, &grown);
	}
	ret = prec_shard_writer__close(w);
	unlinkat(dirfd, "growth.shard", 0);
	printf("%.1f MB in %llu appends, a sleep every %zu KiB; staging grown to %llu MiB; "
	       "appends: longest %.2f ms, %llu grew it (longest %.2f ms, %.1f ms in all), %llu over 1 ms; "
	       "sleeps: longest %.2f ms, %llu grew it (longest %.2f ms), %llu over 1 ms\n",
	       (double)bytes / 1e6, (unsigned long long)appends, per_pass * chunk >> 10,
	       (unsigned long long)(grown >> 20), at_append.longest * 1e3,
	       (unsigned long long)at_append.grew, at_append.grow_max * 1e3,
	       at_append.grow_sum * 1e3, (unsigned long long)at_append.held,
	       at_sleep.longest * 1e3, (unsigned long long)at_sleep.grew,
	       at_sleep.grow_max * 1e3, (unsigned long long)at_sleep.held);
	return ret ? 1 : 0;
}
