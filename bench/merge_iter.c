// SPDX-License-Identifier: MIT
// Benchmark: the merge iterator alone over a recording directory. Opens it,
// pulls every record through prec_merge__next, and prints bytes/s and
// records/s (plus forced releases and inversions, which should be 0, and the
// drains of full slices, which should be rare).
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "read/internal.h"
#include "store/store.h"

int main(int argc, char **argv)
{
	struct prec_merge_opts o = { 0 };
	struct prec_manifest *m = NULL;
	struct prec_merge_rec r;
	struct prec_merge *mg;
	uint64_t n = 0, bytes = 0, sum = 0;
	double t0, dt;
	int dirfd, rc;

	if (argc != 2) {
		fprintf(stderr, "usage: merge_iter DIR\n");
		return 2;
	}
	dirfd = bench_open_recording("merge_iter", argv[1], &m);
	t0 = bench_now();
	rc = prec_merge__open(&mg, dirfd, m, &o);
	if (rc < 0)
		return 1;
	while ((rc = prec_merge__next(mg, &r)) > 0) {
		n++;
		bytes += r.rec ? r.rec_len : r.aux_len;
		sum += r.time; /* touch what a consumer would */
	}
	dt = bench_now() - t0;
	printf("shards %u records %llu bytes %llu seconds %.3f MB/s %.0f Mrec/s %.2f "
	       "forced %llu inversions %llu drains %llu errors %u rc %d (%llx)\n",
	       m->nr_shards, (unsigned long long)n, (unsigned long long)bytes, dt,
	       (double)bytes / dt / 1e6, (double)n / dt / 1e6,
	       (unsigned long long)prec_merge__forced(mg),
	       (unsigned long long)prec_merge__inversions(mg),
	       (unsigned long long)prec_merge__drains(mg), prec_merge__errors(mg), rc,
	       (unsigned long long)(sum & 0xf));
	prec_merge__close(mg);
	prec_manifest__delete(m);
	close(dirfd);
	return rc < 0 ? 1 : 0;
}
