/* SPDX-License-Identifier: MIT */
/* The disk flight recorder (--max-disk, max_disk.c): the CPU shards' disk
 * budget, and the carry shard that keeps the tasks and maps of the window
 * when older chunks go. */
#ifndef PREC_RECORD_MAX_DISK_H
#define PREC_RECORD_MAX_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct prec_disk_budget;
struct prec_manifest;

/* PREC_CARRY_SHARD_NAME, PREC_CARRY_CPU: store.h (a merge of a recording
 * that died looks for the carry too) */

struct prec_max_disk;

/* The smallest --max-disk for nr_cpus CPU shards whose writers stage
 * staging bytes each: every shard holds its staging in flight and two
 * segments, so that one is always whole on disk to drop. */
uint64_t prec_max_disk__minimum(int nr_cpus, size_t staging);

/* limit bytes over nr_cpus CPU shards; data_maps and namespaces as the
 * side band's (prec_sideband_opts), for the carry's synthesis.
 * Returns 0, -EINVAL or -ENOMEM. */
int prec_max_disk__new(struct prec_max_disk **out, uint64_t limit, int nr_cpus,
		       bool data_maps, bool namespaces);
/* Into the start manifest: the limit and the segment size, nothing
 * dropped yet. A merge of a recording that dies then knows to look for
 * the carry and for the window (read/crash_window.c). */
void prec_max_disk__start(struct prec_max_disk *md, struct prec_manifest *m);
/* The tasks the carry names: pids[0..nr) (the command, -p or -t) and,
 * with descendants (the events inherit), every process whose parents lead
 * to one of them at each carry, as the flight recorder's tail
 * (prec_tail__select); pids NULL: every task (-a, -C). Copies pids. Before
 * the first tick. Returns 0 or -ENOMEM. */
int prec_max_disk__target(struct prec_max_disk *md, const pid_t *pids, int nr,
			  bool descendants);
/* The bound of the start's side band (prec_sideband_opts.max_bytes): an
 * eighth of the budget, as the carry's. */
uint64_t prec_max_disk__sideband_bound(const struct prec_max_disk *md);
/* The budget the CPU shards' writers join (prec_shard_writer_opts). */
struct prec_disk_budget *prec_max_disk__budget(struct prec_max_disk *md);

/* Main thread, from the control loop: counts the side band's files in the
 * budget and, when segments were dropped since the last carry and a second
 * (or a quarter of the window) has passed, writes a new carry: the
 * syntheses of the last one the window still needs (those taken within it
 * and the last one before it), then a COMM per thread and an MMAP2 per
 * executable mapping of every targeted task now (target()), within the
 * carry's bound (an eighth of the budget; the oldest syntheses go first,
 * then the records past it), stamped base + its serial number
 * (base: the recording's start, so that every synthesis goes before any
 * window), into carry.shard.tmp, renamed over carry.shard once whole.
 * Blocks on /proc and the build-id reads; adds build-ids to m. Returns 0
 * or -errno (logged once; no more carries then). */
int prec_max_disk__tick(struct prec_max_disk *md, int dirfd, struct prec_manifest *m,
			uint64_t base);
/* Milliseconds until tick() wants to run, for the caller's poll. */
int prec_max_disk__timeout_ms(const struct prec_max_disk *md);
/* At the stop, after the CPU shards' writers are closed: a last carry if
 * segments were dropped since the one before, then carry.shard and what was
 * dropped into m. Returns 0 or -errno. */
int prec_max_disk__finish(struct prec_max_disk *md, int dirfd, struct prec_manifest *m,
			  uint64_t base);
void prec_max_disk__delete(struct prec_max_disk *md);

#endif
