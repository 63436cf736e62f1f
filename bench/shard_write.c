// SPDX-License-Identifier: MIT
// Shard writer throughput: the io_uring writer (zero-copy and copy mode)
// against a plain write() loop, per write size, each ending with fsync so
// the figures compare with `dd conv=fdatasync`. Prints a table of medians.
// Usage: shard_write [-d dir] [-m MiB per run] [-n runs] [-s size,...KiB]
#include "bench.h"
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SRC_BYTES (32u * 1024u * 1024u)

static unsigned char *src;

/* Appends chunks of min(ws, 256 KiB) file bytes, batched into ws-byte
 * writes; the source walks a 32 MiB buffer as a drainer walks its ring. */
static int run_writer(int dirfd, const char *name, size_t ws, uint64_t total, int copy)
{
	struct prec_shard_writer_opts o = { .cpu = 0, .batch_bytes = ws, .copy = copy };
	struct prec_shard_writer *w;
	size_t chunk = (ws < PREC_CHUNK_MAX_PAYLOAD ? ws : PREC_CHUNK_MAX_PAYLOAD) - 64;
	struct prec_chunk_meta m = { .type = PREC_CHUNK_DATA };
	uint64_t done = 64, pos = 0;
	int ret;

	if (copy)
		o.staging_bytes = 4 * ws > (8u << 20) ? 4 * ws : (8u << 20);
	ret = prec_shard_writer__open(&w, dirfd, name, &o);
	if (ret)
		return ret;
	while (done < total) {
		struct iovec v = { src + pos, chunk };
		int64_t t = prec_shard_writer__append(w, &m, &v, 1);

		if (t < 0) {
			prec_shard_writer__close(w);
			return (int)t;
		}
		done += chunk + 64;
		pos = (pos + chunk) % (SRC_BYTES - PREC_CHUNK_MAX_PAYLOAD);
	}
	return prec_shard_writer__close(w);
}

static int run_plain(int dirfd, const char *name, size_t ws, uint64_t total)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	uint64_t done = 0, pos = 0;

	if (fd < 0)
		return -errno;
	while (done < total) {
		ssize_t n = write(fd, src + pos, ws);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			close(fd);
			return n < 0 ? -errno : -EIO;
		}
		done += (uint64_t)n;
		pos = (pos + ws) % (SRC_BYTES - ws);
	}
	if (fsync(fd) < 0) {
		close(fd);
		return -errno;
	}
	return close(fd) < 0 ? -errno : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* MB/s of one run of one variant (0 plain, 1 uring, 2 uring copy). */
static double measure(int dirfd, int variant, size_t ws, uint64_t total)
{
	double t0, t1;
	int ret;

	unlinkat(dirfd, "prec-bench.shard", 0);
	sync();
	t0 = bench_now();
	ret = variant ? run_writer(dirfd, "prec-bench.shard", ws, total, variant == 2)
		      : run_plain(dirfd, "prec-bench.shard", ws, total);
	t1 = bench_now();
	unlinkat(dirfd, "prec-bench.shard", 0);
	if (ret) {
		fprintf(stderr, "shard_write: run failed: %s\n", strerror(-ret));
		return -1;
	}
	return (double)total / (t1 - t0) / 1e6;
}

/* Medians over runs; the variants take turns within each run so a slow
 * spell of the disk does not land on one variant only. */
static void measure_size(int dirfd, size_t ws, uint64_t total, int runs, double med[3])
{
	double mbs[3][16];

	for (int i = 0; i < runs; i++)
		for (int v = 0; v < 3; v++)
			mbs[v][i] = measure(dirfd, v, ws, total);
	for (int v = 0; v < 3; v++) {
		qsort(mbs[v], (size_t)runs, sizeof(double), cmp_double);
		med[v] = mbs[v][runs / 2];
	}
}

int main(int argc, char **argv)
{
	const char *dir = "/var/tmp";
	char sizes_arg[256] = "64,256,1024,4096";
	uint64_t total = 1024ull << 20;
	int runs = 5, opt, dirfd;
	char *tok, *save = NULL;

	while ((opt = getopt(argc, argv, "d:m:n:s:")) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'm': total = strtoull(optarg, NULL, 0) << 20; break;
		case 'n': runs = atoi(optarg); break;
		case 's': snprintf(sizes_arg, sizeof(sizes_arg), "%s", optarg); break;
		default:
			fprintf(stderr, "usage: %s [-d dir] [-m MiB] [-n runs] [-s KiB,...]\n", argv[0]);
			return 2;
		}
	}
	if (runs < 1 || runs > 16 || !total) {
		fprintf(stderr, "shard_write: runs must be 1..16, size > 0\n");
		return 2;
	}
	dirfd = open(dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	src = malloc(SRC_BYTES);
	if (dirfd < 0 || !src) {
		perror(dir);
		return 1;
	}
	for (size_t i = 0; i < SRC_BYTES; i++)
		src[i] = (unsigned char)(i * 2654435761u >> 13);
	printf("shard_write: %s, %llu MiB per run, median of %d, MB/s (1e6 B/s), incl. fsync\n",
	       dir, (unsigned long long)(total >> 20), runs);
	printf("%-10s %12s %12s %12s\n", "write", "write()", "uring", "uring-copy");
	for (tok = strtok_r(sizes_arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t ws = strtoull(tok, NULL, 0) << 10;
		double r[3];

		if (ws < 4096) {
			fprintf(stderr, "shard_write: write size %s KiB too small\n", tok);
			return 2;
		}
		measure_size(dirfd, ws, total, runs, r);
		printf("%-7zu KiB %12.0f %12.0f %12.0f\n", ws >> 10, r[0], r[1], r[2]);
		fflush(stdout);
	}
	close(dirfd);
	free(src);
	return 0;
}
