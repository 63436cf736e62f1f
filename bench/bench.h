/* SPDX-License-Identifier: MIT */
/* What the benchmark programs share: a monotonic clock in seconds, and a
 * recording directory opened with its manifest (or a one-line error). */
#ifndef PREC_BENCH_H
#define PREC_BENCH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Open dir and read its manifest into *m; returns the directory's fd.
 * Exits 1, naming prog and dir, when either fails. */
static inline int bench_open_recording(const char *prog, const char *dir,
				       struct prec_manifest **m)
{
	const char *why = NULL;
	int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dirfd < 0 || prec_manifest__read(m, dirfd, &why) < 0) {
		fprintf(stderr, "%s: %s: cannot read the manifest: %s\n", prog, dir,
			why ? why : strerror(errno));
		exit(1);
	}
	return dirfd;
}

#endif
