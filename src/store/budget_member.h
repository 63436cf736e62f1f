/* SPDX-License-Identifier: MIT */
/* Private to src/store: how a shard writer takes part in a disk budget
 * (disk_budget.c): it joins with its file, reports each chunk it appends,
 * and asks what is kept for its totals. */
#ifndef PREC_STORE_BUDGET_MEMBER_H
#define PREC_STORE_BUDGET_MEMBER_H

#include "store/shard_segments.h"
#include "store/store.h"

struct prec_budget_member;

/* One appended chunk: its file range, seq, counts and times; durable is
 * the writer's file offset below which every chunk is whole in the file. */
struct prec_budget_chunk {
	uint64_t off, end, durable;
	uint32_t seq, records, payload, raw;
	uint64_t first_time, last_time;
	uint64_t time; /* first_time, or the watermark of a chunk without records */
};

/* Join b with the shard's file: hdr_fd (a buffered descriptor of it, for
 * the header rewrite and the punches; the writer owns and closes it, after
 * leave()); hdr as written at offset 0. With PREC_SHARD_SEGMENTS in hdr's
 * flags the shard is written in segment files dirfd/name.N
 * (shard_segments.h): the budget keeps a copy of dirfd, opens file 1 now
 * and each next one ahead of the writer's rotate(), and drops whole files.
 * Returns 0 or -errno. */
int prec_disk_budget__join(struct prec_disk_budget *b, struct prec_budget_member **out,
			   int hdr_fd, const struct prec_shard_header *hdr, int32_t cpu,
			   int dirfd, const char *name);
/* Segment files, the writer's thread, before it frames the chunk at file
 * offset pos: -1 to go on in the file it writes, or the descriptor of the
 * next segment file (opened O_DIRECT where the file system takes it; the
 * writer's to close) that the chunk at pos and those after it go to. Never
 * blocks on the disk: the file was opened ahead by the trimmer thread, or
 * when the trimmer is late, opened here only while the writes keep up
 * (a stalled file system would stall the openat). */
int prec_disk_budget__rotate(struct prec_budget_member *m, uint64_t pos);
/* No more chunks, and none of this shard is dropped from now on. NULL ok. */
void prec_disk_budget__leave(struct prec_budget_member *m);
/* The writer's thread, per chunk appended: counted, and the trimmer
 * thread kicked past its soft limit; when what is on disk (the count less
 * what is still in staging, up to each member's durable) passes the limit,
 * the oldest segments of any member are dropped before it returns (a lock,
 * a header pwrite and an fallocate or unlink per segment). Returns the ns
 * those drops held the writer, 0 when there were none. */
uint64_t prec_disk_budget__append(struct prec_budget_member *m, const struct prec_budget_chunk *c);
/* The writer's thread, its writes done up to durable (at its flush): the
 * same drops as an append's if that puts the disk past the limit. */
void prec_disk_budget__written(struct prec_budget_member *m, uint64_t durable);
/* The writer's thread, at its flush, after its own fsync: the shard's
 * own file (the header rewrites go through hdr_fd) and, with segment
 * files, the kept files before the one it writes and the directory that
 * names them, made durable. Returns 0 or -errno. */
int prec_disk_budget__sync(struct prec_budget_member *m);
/* st (the writer's totals of every chunk done) less what was dropped; its
 * first and last times those of the chunks kept. After the writer's last
 * append. */
void prec_disk_budget__kept(struct prec_budget_member *m, struct prec_shard_writer_stats *st);

#endif
