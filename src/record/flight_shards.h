/* SPDX-License-Identifier: MIT */
/* The flight recorder's shards (flight_shards.c): per CPU the one its
 * snapshots write (cpuNNN.flight.shard: --overwrite's records, -S's AUX
 * copies), and tail.shard (the tail synthesis), listed in the recording's
 * start manifest and written only by the main thread. */
#ifndef PREC_RECORD_FLIGHT_SHARDS_H
#define PREC_RECORD_FLIGHT_SHARDS_H

#include <stdbool.h>
#include <stdint.h>

struct prec_manifest;
struct prec_record_opts;
struct prec_recording;
struct prec_shard_writer;
struct prec_snapshot;

struct prec_flight_shards {
	int nr_cpus;
	struct prec_shard_writer **cpu; /* per CPU, NULL without snapshots */
	uint32_t *cpu_shard;            /* their index in the manifest */
	struct prec_shard_writer *tail; /* NULL without tails */
	uint32_t tail_shard;
	/* the snapshots whose LOST counts the CPU shards carry (the flight
	 * recorder's, attach()); NULL: none */
	const struct prec_snapshot *snap;
};

/* Per CPU of cpus[0..nr) a shard when cpu_shards, and tail.shard when
 * tail, opened in r's directory and added to its manifest. Returns 0 or
 * -errno after one line; fs is then for exit() only. */
int prec_flight_shards__open(struct prec_flight_shards *fs, struct prec_recording *r,
			     const struct prec_record_opts *o, const int *cpus, int nr,
			     bool cpu_shards, bool tail);
/* The snapshots that write the CPU shards: their LOST counts go into the
 * shards' totals. */
void prec_flight_shards__attach(struct prec_flight_shards *fs,
				const struct prec_snapshot *snap);
/* Every shard's chunks in its file, not synced: a snapshot's (and its
 * tail's) by the time it is acked, where the writer would hold the last
 * of them in its staging until the stop. Returns the first error. */
int prec_flight_shards__write_out(struct prec_flight_shards *fs);
/* Every shard flushed (snapshots wait only until their chunks are
 * copied) and counted into m: records, bytes and losses added to the
 * caller's totals. The tail's writer is closed. Returns the first error. */
int prec_flight_shards__finish(struct prec_flight_shards *fs, struct prec_manifest *m,
			       uint64_t *records, uint64_t *bytes, uint64_t *lost);
/* Every writer closed; the first error. */
int prec_flight_shards__close(struct prec_flight_shards *fs);
void prec_flight_shards__exit(struct prec_flight_shards *fs);

#endif
