/* SPDX-License-Identifier: MIT */
/* A shard file's writer: chunks framed, batched and written through the
 * writer's own io_uring (shard_writer.c over chunk_framer, chunk_queue and
 * the write paths). */
#ifndef PREC_STORE_SHARD_WRITER_H
#define PREC_STORE_SHARD_WRITER_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "store/shard_format.h"

struct prec_disk_budget;

struct prec_shard_writer;

struct prec_shard_writer_opts {
	int32_t cpu;                /* or PREC_SIDEBAND_CPU */
	uint8_t session_id[16];
	unsigned int queue_depth;   /* chunks in flight; 0 = 256 */
	size_t batch_bytes;         /* coalesce appends up to this; 0 = 1 MiB */
	/* Copy mode: append() copies the payload into writer-owned staging
	 * buffers (staging_bytes in all, 0 = 8 MiB), so the caller's memory is
	 * free as soon as append() returns. Without it the payload memory must
	 * stay untouched until the chunk's ticket is done. */
	bool copy;
	size_t staging_bytes;
	/* O_DIRECT: the staging takes one more extent, up to this, whenever
	 * a write that stalls leaves it full, so the drainer goes on draining
	 * the ring (the page cache does that for buffered writes); 0 = never
	 * grows */
	size_t staging_max;
	/* Copy mode: write past the page cache (O_DIRECT) where the file
	 * system takes it, buffered where not; no copy into page cache pages
	 * (bench/record.sh compares the two). */
	bool direct;
	enum prec_codec codec;      /* NONE; LZ4 implies copy */
	int lz4_level;              /* 0 = fast; > 0 = LZ4 HC level */
	/* --max-disk: the shard joins this budget, which drops its oldest
	 * chunks when the recording passes it (disk_budget.c); NULL: none */
	struct prec_disk_budget *budget;
};

/* Per-chunk description given to append(); the writer fills magic, sizes,
 * seq and checksum. */
struct prec_chunk_meta {
	enum prec_chunk_type type;
	uint32_t records;
	uint64_t first_time, last_time, watermark;
	uint64_t aux_offset;
	uint32_t flags;
};

struct prec_shard_writer_stats {
	uint64_t chunks, records, payload_bytes, file_bytes, raw_bytes;
	uint64_t first_time, last_time;
	uint64_t wait_ns_max; /* longest an append() waited for room, or for
			       * --max-disk's drops in its own thread */
	uint64_t staging_grown; /* O_DIRECT staging grown to this; 0: never */
};

/* Create dirfd/name (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, mode 0600), write
 * the shard header, set up the writer's own io_uring. Returns 0 or -errno.
 * The writer is used by one thread at a time. */
int prec_shard_writer__open(struct prec_shard_writer **out, int dirfd,
			    const char *name,
			    const struct prec_shard_writer_opts *opts);

/* Queue one chunk whose payload is the concatenation of nspan spans (0..2
 * for a wrapped ring; total <= PREC_CHUNK_MAX_PAYLOAD). Consecutive appends
 * are batched into one pwritev of up to batch_bytes, submitted when the
 * batch is full or at the next done/wait/sleep/flush. Blocks only while
 * every queue slot (or staging byte) is in use. Returns a ticket (> 0) that
 * done() reaches once the chunk is in the file, or -errno; after an error
 * (ENOSPC, EIO...) every later call fails with the same error and the file
 * holds every chunk before the failed one, whole. */
int64_t prec_shard_writer__append(struct prec_shard_writer *w,
				  const struct prec_chunk_meta *meta,
				  const struct iovec *span, int nspan);

/* Highest ticket such that it and every earlier ticket are in the file (or,
 * in copy mode, copied to staging). Reaps completions without blocking. */
int64_t prec_shard_writer__done(struct prec_shard_writer *w);

/* Block until ticket is done. Returns 0 or the writer's -errno. */
int prec_shard_writer__wait(struct prec_shard_writer *w, int64_t ticket);

/* Sleep in the writer's io_uring until one of fds[0..nfds) is readable
 * (POLLIN), timeout_ns passes, or a signal arrives, reaping write
 * completions meanwhile. Lets a drainer have one io_uring for its writes
 * and its wake-ups (the perf fd, and an eventfd that asks it to stop).
 * Polls stay armed across calls, so a readiness is never missed between
 * two calls. Returns a bit mask of the readable fds (bit i = fds[i]; 0 on
 * timeout or signal), or -errno. nfds <= 8; nfds == 0 only sleeps. */
int prec_shard_writer__sleep(struct prec_shard_writer *w, const int *fds,
			     int nfds, uint64_t timeout_ns);

/* Every chunk appended so far in the file, not synced: in copy mode a
 * wait() may leave the last ones in staging (an O_DIRECT writer holds
 * less than a batch, or the partial block, until its thread sleeps); a
 * thread that never sleeps in the writer (the flight recorder's
 * snapshots) writes them out with this. Returns 0 or the writer's -errno. */
int prec_shard_writer__write_out(struct prec_shard_writer *w);

/* Wait for every chunk, fsync: nothing to do (0) when no chunk came since
 * the last flush that returned 0. Returns 0 or -errno. */
int prec_shard_writer__flush(struct prec_shard_writer *w);

/* Does the writer write past the page cache (opts.direct, and the file
 * system took O_DIRECT)? */
bool prec_shard_writer__direct(const struct prec_shard_writer *w);

/* Totals of the chunks that are done (with a budget: of those kept). */
void prec_shard_writer__stats(const struct prec_shard_writer *w,
			      struct prec_shard_writer_stats *st);
/* The same totals (into st), and those the manifest keeps of the shard
 * (chunks, records, bytes, raw bytes, first and last time) into its
 * entry sh: a closing recording's count of each of its shards. */
struct prec_manifest_shard;
void prec_shard_writer__count(const struct prec_shard_writer *w, struct prec_manifest_shard *sh,
			      struct prec_shard_writer_stats *st);

/* First error seen, 0 if none. */
int prec_shard_writer__error(const struct prec_shard_writer *w);

/* flush() then close the file and the ring; NULL and half-open writers are
 * fine. Returns 0 or the first -errno seen during the writer's life. */
int prec_shard_writer__close(struct prec_shard_writer *w);

/* The calling thread is the one that writes from now on: it does what is
 * best done there (O_DIRECT: pins the staging, from this thread's CPU and
 * its memory). Call it once the thread runs where it stays; the first
 * append() does it otherwise. */
void prec_shard_writer__adopt(struct prec_shard_writer *w);

/* Run the io_uring workers that carry out the calling thread's writes on
 * these CPUs (IORING_REGISTER_IOWQ_AFF). Returns 0 or -errno. */
int prec_shard_writer__worker_cpus(struct prec_shard_writer *w,
				   const cpu_set_t *cpus);

#endif
