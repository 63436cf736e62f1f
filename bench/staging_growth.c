// SPDX-License-Identifier: MIT
// How long a stall's staging growth holds the drainer: an O_DIRECT copy-mode
// shard writer is fed 64 KiB chunks at RATE MB/s (a storm's drainer) for
// SECS seconds while bench/staging_growth.sh freezes the file system under
// it. Every append is timed; the ones that took the staging further are
// the growth's cost, paid on the drainer's thread while its ring fills (a
// 1 MiB ring holds about 18 ms of a 55 MB/s storm). After each append the
// drainer's sleep is called without a timeout, timed too: it is where the
// staging shrinks back once the stall is over. Prints one line: the
// longest append, the longest and the sum of those that grew the staging,
// how far it grew, the longest sleep call, and the calls held past 1 ms.
// Usage: staging_growth -d DIR [-r MB/s (60)] [-t SECS (6)] [-m MAX MiB (256)]
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

int main(int argc, char **argv)
{
	const char *dir = NULL;
	double rate = 60e6, secs = 6, t0, grow_max = 0, grow_sum = 0, worst = 0, sleep_max = 0;
	size_t max_mib = 256, chunk = PREC_CHUNK_MAX_PAYLOAD;
	uint64_t bytes = 0, grown = 0, held = 0, pos = 0, appends = 0;
	struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA, .records = 1 };
	struct prec_shard_writer_stats st;
	struct prec_shard_writer *w;
	unsigned char *src;
	int opt, dirfd, ret;

	while ((opt = getopt(argc, argv, "d:r:t:m:")) != -1) {
		if (opt == 'd')
			dir = optarg;
		else if (opt == 'r')
			rate = atof(optarg) * 1e6;
		else if (opt == 't')
			secs = atof(optarg);
		else if (opt == 'm')
			max_mib = (size_t)atol(optarg);
		else
			return 2;
	}
	if (!dir || rate <= 0 || secs <= 0) {
		fprintf(stderr, "usage: staging_growth -d DIR [-r MB/s] [-t SECS] [-m MAX MiB]\n");
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
		prec_shard_writer__stats(w, &st);
		if (st.staging_grown > grown) {
			grown = st.staging_grown;
			grow_sum += b;
			if (b > grow_max)
				grow_max = b;
		}
		if (b > worst)
			worst = b;
		held += b > 1e-3;
		/* the drainer's sleep: where the staging shrinks back */
		a = bench_now();
		ret = prec_shard_writer__sleep(w, NULL, 0, 0);
		b = bench_now() - a;
		if (ret < 0) {
			fprintf(stderr, "staging_growth: sleep: %s\n", strerror(-ret));
			return 1;
		}
		if (b > sleep_max)
			sleep_max = b;
		held += b > 1e-3;
		appends++;
		bytes += chunk;
		pos = (pos + chunk) % (SRC_BYTES - chunk);
	}
	ret = prec_shard_writer__close(w);
	unlinkat(dirfd, "growth.shard", 0);
	printf("%.1f MB in %llu appends: longest %.2f ms; growth to %llu MiB: longest %.2f ms, "
	       "%.1f ms in all; longest sleep call %.2f ms; %llu calls held over 1 ms\n",
	       (double)bytes / 1e6, (unsigned long long)appends, worst * 1e3,
	       (unsigned long long)(grown >> 20), grow_max * 1e3, grow_sum * 1e3,
	       sleep_max * 1e3, (unsigned long long)held);
	return ret ? 1 : 0;
}
