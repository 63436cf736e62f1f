#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# AUX drain throughput on simulated rings (no AUX PMU needed): a 4 MiB AUX
# area per ring, the "hardware" advances aux_head by 1 MiB, the drainer
# frames it as AUX chunks, writes them and gives aux_tail back; GB/s for one
# ring, and for two rings drained by two threads at once. Zero-copy and
# copy modes. The harness is compiled here against $BUILD/libprec.a.
# Usage: bench/aux.sh [DIR [MiB-per-ring]]; env BUILD (build dir).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
DIR=${1:-/var/tmp}
MIB=${2:-2048}
make --no-print-directory BUILD="$BUILD" -j"$(nproc)" "$BUILD/libprec.a" >&2
work=$(mktemp -d /tmp/prec-auxbench.XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/aux_bench.c" <<'EOF'
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include "record/drainer.h"
#include "record/internal.h"
#include "record/ring.h"
#include "store/store.h"

#define AUX (4u << 20)
#define STEP (1u << 20)

struct job { int dfd; int idx; int copy; uint64_t bytes; double secs; };

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	struct job *j = arg;
	struct prec_shard_writer_opts wo = { .cpu = j->idx, .copy = j->copy };
	struct prec_shard_writer *w;
	struct prec_drainer_opts o = { .cpu = j->idx, .clockid = CLOCK_MONOTONIC,
				       .pin_cpu = j->idx, .copy = j->copy };
	struct prec_drainer *d;
	struct prec_ring r;
	char name[32];
	void *mem = calloc(1, 4096 + 65536 + AUX);
	double t0;

	memset(mem + 4096 + 65536, 0xa5, AUX); /* fault the pages in */
	prec_ring__init_mem(&r, mem, 65536, AUX);
	snprintf(name, sizeof(name), "aux%d-%d.shard", j->idx, j->copy);
	if (prec_shard_writer__open(&w, j->dfd, name, &wo))
		abort();
	o.ring = &r;
	o.writer = w;
	prec_time_layout__init(&o.layout, PREC_SAMPLE_BASE);
	if (prec_drainer__new(&d, &o))
		abort();
	t0 = now();
	for (uint64_t done = 0; done < j->bytes; done += STEP) {
		__atomic_store_n(&r.page->aux_head, r.page->aux_head + STEP, __ATOMIC_RELEASE);
		if (prec_drainer__drain(d) < 0)
			abort();
	}
	if (prec_shard_writer__flush(w))
		abort();
	j->secs = now() - t0;
	prec_drainer__delete(d);
	prec_shard_writer__close(w);
	unlinkat(j->dfd, name, 0);
	free(mem);
	return NULL;
}

int main(int argc, char **argv)
{
	int dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	uint64_t bytes = strtoull(argv[2], NULL, 0) << 20;

	for (int copy = 0; copy <= 1; copy++) {
		for (int nt = 1; nt <= 2; nt++) {
			struct job j[2];
			pthread_t t[2];
			double worst = 0;

			for (int i = 0; i < nt; i++) {
				j[i] = (struct job){ dfd, i, copy, bytes, 0 };
				pthread_create(&t[i], NULL, run, &j[i]);
			}
			for (int i = 0; i < nt; i++) {
				pthread_join(t[i], NULL);
				worst = j[i].secs > worst ? j[i].secs : worst;
			}
			printf("aux drain %-9s %d thread%s: %6.2f GB/s (%llu MiB per ring, fsync included)\n",
			       copy ? "copy" : "zero-copy", nt, nt > 1 ? "s" : " ",
			       (double)bytes * nt / worst / 1e9,
			       (unsigned long long)(bytes >> 20));
		}
	}
	return 0;
}
EOF
cc -O2 -std=gnu11 -Isrc -o "$work/aux_bench" "$work/aux_bench.c" "$BUILD/libprec.a" \
	$(pkg-config --libs liburing libelf liblz4) -lpthread -lm
mkdir -p "$DIR/prec-auxbench.$$"
trap 'rm -rf "$work" "$DIR/prec-auxbench.$$"' EXIT
echo "AUX drain, simulated 4 MiB AUX areas, 1 MiB per pass, shards in $DIR"
"$work/aux_bench" "$DIR/prec-auxbench.$$" "$MIB"
