// SPDX-License-Identifier: MIT
// The drainer failure that stops a recording: the first drainer with an
// error, noted when the pool's eventfd wakes the main loop, and the stop's
// one line naming its shard, the error, the time and what is safe on disk.

#include "record/stop_fault.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/drainer.h"
#include "record/drainer_pool.h"
#include "util/clock.h"
#include "util/log.h"

void prec_stop_fault__init(struct prec_stop_fault *f, const struct prec_drainer_pool *pool,
			   const int *cpus, int nr_cpus)
{
	*f = (struct prec_stop_fault){ .pool = pool, .cpus = cpus, .nr_cpus = nr_cpus };
}

/* The first drainer with an error, if none is noted yet; stamp: the
 * time it is found is when it was learnt of. */
static void find_failed(struct prec_stop_fault *f, bool stamp)
{
	for (int c = 0; c < f->nr_cpus && !f->err; c++) {
		struct prec_drainer *d = prec_drainer_pool__at(f->pool, c);
		int e = d ? prec_drainer__error(d) : 0;

		if (e) {
			f->cpu = f->cpus[c];
			f->err = e;
			if (stamp)
				f->ns = prec_now_ns(CLOCK_MONOTONIC);
		}
	}
}

int prec_stop_fault__note(struct prec_stop_fault *f)
{
	int efd = prec_drainer_pool__notify_fd(f->pool);
	uint64_t n;

	if (efd < 0 || read(efd, &n, sizeof(n)) != sizeof(n))
		return 0;
	find_failed(f, true);
	return f->err != 0;
}

bool prec_stop_fault__failed(const struct prec_stop_fault *f)
{
	return f->err != 0;
}

static const char *stop_reason(int err)
{
	if (err == -ENOSPC)
		return "no space left on device";
	if (err == -EDQUOT)
		return "disk quota exceeded";
	return strerror(-err);
}

void prec_stop_fault__report(struct prec_stop_fault *f, int err, uint64_t enable_ns,
			     uint64_t stop_ns, uint64_t bytes, const char *dir)
{
	uint64_t mono = prec_now_ns(CLOCK_MONOTONIC), at = f->ns, wall_ns;
	time_t wall;
	struct tm tm;
	char when[32] = "?";
	size_t n;
	char who[32] = "";

	find_failed(f, false);
	if (f->err) {
		err = f->err;
		snprintf(who, sizeof(who), "shard cpu%d: ", f->cpu);
	}
	if (!at || at > mono)
		at = stop_ns ? stop_ns : mono;
	wall_ns = prec_now_ns(CLOCK_REALTIME) - (mono - at);
	wall = (time_t)(wall_ns / 1000000000ull);
	if (localtime_r(&wall, &tm)) {
		n = strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(when + n, sizeof(when) - n, ".%03u",
			 (unsigned int)(wall_ns / 1000000ull % 1000));
	}
	pr_err("%s%s: stopped at %s (%.3f s in), %.1f MB recorded (%s holds everything before it)",
	       who, stop_reason(err), when,
	       at > enable_ns ? (double)(at - enable_ns) / 1e9 : 0.0,
	       (double)bytes / 1e6, dir);
}
