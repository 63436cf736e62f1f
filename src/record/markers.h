/* SPDX-License-Identifier: MIT */
/* The --markers reader (markers.c): a private ftrace instance whose
 * trace_marker copies become ftrace:print samples in the side band. */
#ifndef PREC_RECORD_MARKERS_H
#define PREC_RECORD_MARKERS_H

#include <stdint.h>

struct prec_shard_writer;

/* Every write to the kernel's trace_marker, from any process, captured with
 * a private ftrace instance (options/copy_trace_marker, trace clock = the
 * events' clock) and turned into SAMPLE records of the `ftrace:print` attr
 * in the side band shard: the kernel never feeds ftrace:print to perf
 * itself. */
struct prec_markers;

struct prec_markers_opts {
	struct prec_shard_writer *writer; /* side band; this thread's alone */
	int clockid;                      /* the events' clock */
	uint64_t round_ns;                /* how often the buffers are read */
	const uint64_t *ids;              /* ftrace:print id per CPU index */
	const int *cpus;                  /* CPU of each index */
	int nr_cpus;
	uint64_t sample_type;             /* of the ftrace:print attr */
};

/* Create the instance (instances/prec-PID) for clockid. Returns 0, -EINVAL
 * (no trace clock matches clockid), -ENODEV (no tracefs / kernel without
 * copy_trace_marker) or -errno, after printing one line. */
int prec_markers__open(struct prec_markers **out, int clockid);
/* Start the reader thread. Returns 0 or -errno. */
int prec_markers__start(struct prec_markers *mk,
			const struct prec_markers_opts *o);
/* Read what is left, stop the thread. Returns markers captured or -errno. */
int prec_markers__stop(struct prec_markers *mk);
/* Stop if running, remove the instance; NULL ok. */
void prec_markers__delete(struct prec_markers *mk);

#endif
