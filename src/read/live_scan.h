/* SPDX-License-Identifier: MIT */
/* A shard's totals read from its chunks, as `prec info` shows them for a
 * recording still being written (or that died): no manifest totals yet. */
#ifndef PREC_READ_LIVE_SCAN_H
#define PREC_READ_LIVE_SCAN_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/* What one DATA chunk adds, for a caller drawing it over time. */
struct prec_live_chunk {
	uint64_t first_time, last_time; /* the header's; 0 if no timed record */
	uint32_t raw_len;               /* decoded bytes: what was drained */
	uint32_t records;
	uint64_t lost;                  /* sum of its PERF_RECORD_LOST.lost */
	uint64_t lost_time;             /* its first LOST record's time, or 0 */
};

typedef void (*prec_live_chunk_fn)(void *arg, const struct prec_live_chunk *c);

/* The figures the manifest's shard entry holds once the recording ends,
 * summed over the chunks that are whole now. */
struct prec_live_totals {
	uint64_t chunks, records, bytes, raw_bytes, lost;
	uint64_t first_time, last_time;
	uint64_t end;  /* offset after the last whole chunk */
	bool torn;     /* data after it: a chunk being written (or torn) */
	/* torn, or a read error: the reader's reason (a static string), and
	 * the segment file end is in ("" for the shard's own): damage, to a
	 * caller that knows the recording finished */
	const char *torn_why;
	char torn_file[NAME_MAX + 1];
};

/* Read dirfd/name chunk by chunk (the shard reader: checksums and lz4
 * decoding, no lock, read-only: a recorder writing it is not disturbed)
 * into *t, calling fn (may be NULL) for each DATA chunk. The first chunk
 * that is not whole and valid ends the scan without error (t->torn): the
 * recorder may be writing it. tl places LOST records in time (NULL: at
 * their chunk's first time). Returns 0, or -errno when the file cannot be
 * opened or read (*why then says why, a static string). Blocks on reads. */
int prec_live_scan__shard(int dirfd, const char *name, const struct prec_time_layout *tl,
			  prec_live_chunk_fn fn, void *arg, struct prec_live_totals *t,
			  const char **why);

#endif
