// SPDX-License-Identifier: MIT
// The flight recorder's own shards: a shard has one writing thread, so the
// snapshots (main thread) write shards apart from the drainers', listed in
// the manifest under the same CPU, and the tail synthesis one more, whose
// times only grow.
#include "record/flight_shards.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/recording.h"
#include "record/snapshot.h"
#include "record/tail.h"
#include "store/store.h"
#include "util/log.h"

static int open_one(struct prec_recording *r, struct prec_shard_writer_opts *wo,
		    const char *name, int cpu, struct prec_shard_writer **w, uint32_t *idx)
{
	struct prec_manifest *m = prec_recording__manifest(r);
	struct prec_manifest_shard sh = { .cpu = cpu };
	char entry[40];
	int err;

	wo->cpu = cpu;
	err = prec_shard_writer__open(w, prec_recording__dirfd(r), name, wo);
	if (err) {
		pr_err("%s/%s: creating the shard: %s", prec_recording__dir(r), name,
		       strerror(-err));
		return err;
	}
	*idx = m->nr_shards;
	snprintf(entry, sizeof(entry), "%s", name); /* the manifest copies it */
	sh.name = entry;
	return prec_manifest__add_shard(m, &sh);
}

int prec_flight_shards__open(struct prec_flight_shards *fs, struct prec_recording *r,
			     const struct prec_record_opts *o, const int *cpus, int nr,
			     bool cpu_shards, bool tail)
{
	struct prec_shard_writer_opts wo;
	char name[40];
	int err = 0;

	memset(fs, 0, sizeof(*fs));
	fs->nr_cpus = nr;
	prec_recording__writer_opts(r, o, &wo);
	if (cpu_shards) {
		fs->cpu = calloc((size_t)nr, sizeof(*fs->cpu));
		fs->cpu_shard = calloc((size_t)nr, sizeof(*fs->cpu_shard));
		if (!fs->cpu || !fs->cpu_shard)
			return -ENOMEM;
	}
	for (int c = 0; cpu_shards && c < nr && !err; c++) {
		snprintf(name, sizeof(name), "cpu%03d.flight.shard", cpus[c]);
		err = open_one(r, &wo, name, cpus[c], &fs->cpu[c], &fs->cpu_shard[c]);
	}
	if (!err && tail)
		err = open_one(r, &wo, PREC_TAIL_SHARD_NAME, PREC_TAIL_CPU, &fs->tail,
			       &fs->tail_shard);
	return err;
}

void prec_flight_shards__attach(struct prec_flight_shards *fs,
				const struct prec_snapshot *snap)
{
	fs->snap = snap;
}

int prec_flight_shards__write_out(struct prec_flight_shards *fs)
{
	int err = 0, e;

	for (int c = 0; fs->cpu && c < fs->nr_cpus; c++) {
		e = prec_shard_writer__write_out(fs->cpu[c]);
		err = err ? err : e;
	}
	if (fs->tail) {
		e = prec_shard_writer__write_out(fs->tail);
		err = err ? err : e;
	}
	return err;
}

/* A writer's totals into its manifest entry and the caller's. */
static void count(struct prec_manifest_shard *sh, struct prec_shard_writer *w,
		  uint64_t *records, uint64_t *bytes)
{
	struct prec_shard_writer_stats ws;

	prec_shard_writer__count(w, sh, &ws);
	*records += sh->records;
	*bytes += ws.file_bytes;
}

int prec_flight_shards__finish(struct prec_flight_shards *fs, struct prec_manifest *m,
			       uint64_t *records, uint64_t *bytes, uint64_t *lost)
{
	int err = 0, e;

	for (int c = 0; fs->cpu && c < fs->nr_cpus; c++) {
		struct prec_manifest_shard *sh = &m->shards[fs->cpu_shard[c]];

		e = prec_shard_writer__flush(fs->cpu[c]);
		err = err ? err : e;
		count(sh, fs->cpu[c], records, bytes);
		/* Not PERF_FORMAT_LOST as it stands: it also counts the drops
		 * of a pause whose LOST record the ring overwrote before the
		 * next snapshot, i.e. records of a stretch the flight
		 * recorder keeps no more of than of any overwritten one. The
		 * snapshots take from it only the drops no LOST record
		 * reported (snapshot.h). */
		if (fs->snap)
			prec_snapshot__lost(fs->snap, c, &sh->lost, &sh->lost_samples);
		*lost += prec_manifest_shard__lost(sh);
	}
	if (fs->tail) {
		e = prec_shard_writer__flush(fs->tail);
		err = err ? err : e;
		count(&m->shards[fs->tail_shard], fs->tail, records, bytes);
		e = prec_shard_writer__close(fs->tail);
		fs->tail = NULL;
		err = err ? err : e;
	}
	return err;
}

int prec_flight_shards__close(struct prec_flight_shards *fs)
{
	int err = 0, e;

	for (int c = 0; fs->cpu && c < fs->nr_cpus; c++) {
		e = prec_shard_writer__close(fs->cpu[c]);
		fs->cpu[c] = NULL;
		err = err ? err : e;
	}
	e = prec_shard_writer__close(fs->tail);
	fs->tail = NULL;
	return err ? err : e;
}

void prec_flight_shards__exit(struct prec_flight_shards *fs)
{
	prec_flight_shards__close(fs);
	free(fs->cpu);
	free(fs->cpu_shard);
	memset(fs, 0, sizeof(*fs));
}
