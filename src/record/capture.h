/* SPDX-License-Identifier: MIT */
/* A cut's capture (capture.c): the task records (COMM, MMAP, MMAP2, FORK,
 * and NAMESPACES, CGROUP, KSYMBOL, BPF_EVENT, which the cut's scan names too) a
 * drainer drains into the old epoch while --switch-output cuts, copied, and
 * written again, in time order, into the new epoch's side band. */
#ifndef PREC_RECORD_CAPTURE_H
#define PREC_RECORD_CAPTURE_H

#include <stdint.h>

#include "store/store.h"

/* Per drainer and cut: far more than the task records an exec storm
 * writes to one ring while the main thread reads /proc; the pages are
 * touched only as records come. */
#define PREC_CAPTURE_BYTES (1u << 20)

struct prec_capture {
	uint8_t *buf;           /* records back to back, as the ring held them */
	uint32_t size, len;     /* bytes allocated, used */
	uint32_t records;
	uint64_t since;         /* records stamped earlier are not taken */
	uint64_t dropped;       /* records taken that did not fit */
};

/* size bytes for records stamped at or after since (0: any). Returns 0 or
 * -ENOMEM (c is then empty and drops every record: still usable). */
int prec_capture__init(struct prec_capture *c, uint32_t size, uint64_t since);
void prec_capture__exit(struct prec_capture *c);

/* Copy rec (size bytes, its header's, time its sample_id time) when it is
 * a task record stamped no earlier than c->since; count it as dropped when
 * it does not fit. Allocates nothing (the drain loop calls it). */
void prec_capture__add(struct prec_capture *c, const void *rec, uint16_t size,
		       uint64_t time);

/* Append the records of caps[0..n) to w (a side band writer, whose chunks
 * go out in time order), sorted by their time under layout (records of one
 * time in caps order, then ring order), in DATA chunks whose watermark is
 * their first time. Waits until w has them. Main thread; allocates. Returns
 * the records written or -errno. */
int prec_capture__write(struct prec_capture *const *caps, int n,
			const struct prec_time_layout *layout,
			struct prec_shard_writer *w);

#endif
