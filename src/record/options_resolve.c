// SPDX-License-Identifier: MIT
// The options' defaults that depend on the machine or on the events,
// decided in one step once the events are parsed; nothing else writes
// the options after it.

#include "record/options.h"

#include <stdlib.h>
#include <unistd.h>

#include "record/drainer_place.h"
#include "record/evlist.h"
#include "record/evlist_aux.h"
#include "record/perm.h"
#include "util/cpu_list.h"
#include "util/log.h"

/* Copy mode's staging: twice the ring, so a drainer can take a full ring
 * while the previous one is still being written; four times with O_DIRECT,
 * whose writes wait for a batch (and one in flight may take half); 1..8 MiB
 * per CPU. */
static size_t staging_for(const struct prec_record_opts *o)
{
	size_t want = o->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) * (o->direct_io ? 4 : 2);

	if (want < 1024 * 1024)
		return 1024 * 1024;
	return want > 8 * 1024 * 1024 ? 8 * 1024 * 1024 : want;
}

/* How far each O_DIRECT staging may grow behind writes that stall:
 * --max-staging, else a CPU's share of a 16th of the memory, at most
 * 1 GiB (a storm of 200 MB/s a CPU fills 256 MiB in 1.3 s, and disks
 * stall for seconds; an extent unused for 5 s goes back), and
 * under --max-disk half of a CPU's share of the budget: the budget counts
 * staged data as written and drops the oldest on disk to make room for
 * it, so a stall costs at most half the window the budget keeps. Never
 * below the staging. */
static size_t staging_max_for(const struct prec_record_opts *o, int nr_cpus)
{
	uint64_t max = 1ull << 30, mem = (uint64_t)sysconf(_SC_PHYS_PAGES) *
					   (uint64_t)sysconf(_SC_PAGESIZE);

	if (o->max_staging_set) {
		max = o->max_staging;
	} else if (nr_cpus > 0) {
		if (mem / 16 / (uint64_t)nr_cpus < max)
			max = mem / 16 / (uint64_t)nr_cpus;
		if (o->max_disk && o->max_disk / 2 / (uint64_t)nr_cpus < max)
			max = o->max_disk / 2 / (uint64_t)nr_cpus;
	}
	if (max < staging_for(o))
		return 0;
	return max > SIZE_MAX ? SIZE_MAX : (size_t)max;
}

int prec_record_opts__resolve(struct prec_record_opts *o, const struct prec_evlist *el)
{
	int *online = NULL, n = o->cpus ? o->nr_cpus : prec_cpu_list__online(&online);
	int perf_clock = prec_evlist__aux_clock(el, o);

	free(online);
	if (perf_clock < 0)
		return perf_clock;
	if (perf_clock)
		o->clockid = PREC_CLOCK_PERF;
	/* As perf: without -m, a user's rings are the size the kernel lets a
	 * user lock (perm.h), not prec's larger default that needs
	 * RLIMIT_MEMLOCK. */
	if (!o->mmap_set) {
		size_t pages = prec_perm__ring_pages(o->mmap_pages, n);

		if (pages != o->mmap_pages)
			pr_debug("rings: %zu pages per CPU, what a user may lock (-m sets it)", pages);
		o->mmap_pages = pages;
	}
	/* -r and --affinity (drainer_place.h) */
	prec_drainer_place__resolve(o, &o->rt_prio, &o->affinity);
	/* -B: no build-id table, so none to cache either */
	o->no_buildid_cache |= o->no_buildid;
	o->staging_bytes = staging_for(o);
	o->staging_max = staging_max_for(o, n);
	return 0;
}
