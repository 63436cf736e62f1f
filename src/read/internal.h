/* SPDX-License-Identifier: MIT */
/* Private interfaces of src/read: the merge iterator (merge.c, cursor.c)
 * shared by merge, dump and info, and the perf.data writer (perfdata_*.c)
 * that turns the merged stream into a file perf reads. */
#ifndef PREC_READ_INTERNAL_H
#define PREC_READ_INTERNAL_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "store/store.h"

/* ---- merge iterator ---- */

struct prec_merge;

struct prec_merge_opts {
	uint64_t time_start, time_end; /* event clock ns; 0 = unbounded */
	/* --max-disk's window: every record of a CPU shard before it goes
	 * (the carry shard stands for their tasks and maps); 0 = none */
	uint64_t window_start;
	const bool *cpu_allowed;       /* indexed by CPU, NULL = all */
	int nr_cpu_allowed;
	bool salvage;                  /* corrupt data is not an error (callers' exit) */
	/* The consumer reads every record whole (prec merge copies them):
	 * with many shards merged by the tree, each is prefetched as it
	 * comes to the front (slices copy records in bursts instead). */
	bool reads_records;
	/* How records are ordered: 0 decides by the shard count (a tree over
	 * the cursors' fronts below PREC_MERGE_SLICE_MIN_SHARDS shards, time
	 * slices from there on); > 0 slices, < 0 the tree (tests). A recording
	 * with AUX data always uses the tree: its chunks are not copied. */
	int slices;
	uint32_t slice_bytes; /* the slices' room; 0: PREC_MERGE_SLICE_BYTES */
	/* The recording is still being written (merge --follow): next()
	 * hands out only what every shard's watermarks prove complete, and
	 * says -EAGAIN where it would have to wait for the recorder. Always
	 * the tree. */
	bool live;
};

#define PREC_MERGE_SLICE_MIN_SHARDS 64u
/* Four times the bytes a slice aims at (merge.c): a slice over its target
 * halves the next one's span long before it runs out of room and drains. */
#define PREC_MERGE_SLICE_BYTES (4u << 20)

/* One record of the merged stream. For a DATA record, rec points at the
 * perf_event_header (rec_len == header.size). For an AUX chunk, aux/aux_len
 * hold the bytes and aux_offset their AUX position; rec is NULL. Pointers
 * are valid until the next prec_merge__next(). */
struct prec_merge_rec {
	const void *rec;
	uint32_t rec_len;
	uint64_t time;
	int32_t cpu;          /* shard's CPU, PREC_SIDEBAND_CPU for side band */
	uint32_t shard;       /* index in the manifest's shard table */
	const void *aux;
	uint32_t aux_len;
	uint64_t aux_offset;
	uint32_t aux_flags;
};

/* Open every shard of the manifest under dirfd. Returns 0 or -errno (no
 * time layout, no memory); a shard that cannot be opened is logged, naming
 * it, counted in prec_merge__errors() and left out. */
int prec_merge__open(struct prec_merge **out, int dirfd,
		     const struct prec_manifest *m,
		     const struct prec_merge_opts *opts);

/* Where a --max-disk recording that dropped data starts: the latest of
 * its CPU shards' first times, from which every CPU has its records
 * (0: nothing was dropped, no window). */
uint64_t prec_merge__window(const struct prec_manifest *m);
/* Say on stderr where the window starts (nothing for 0): the one line
 * merge and dump both print. */
void prec_merge__say_window(uint64_t window_start);
/* Are the CPUs o->cpu_allowed asks for in m? 0: all of them (or no list),
 * 1: some are not (why says which), -ENOENT: none is (why says so, with
 * the CPUs m has). */
int prec_merge__check_cpus(const struct prec_manifest *m,
			   const struct prec_merge_opts *o, char *why, size_t len);

/* Next record in global timestamp order (side band time-0 records first).
 * --time START and --cpu choose samples, losses and AUX data; the rest of
 * the side band passes (up to END). Returns 1, 0 at the end, or -errno;
 * live, -EAGAIN when the next record may not be written yet (call again
 * later: nothing is lost, the order is the one a merge after the end
 * gives). A
 * corrupt chunk is logged once with shard name and offset, the rest of
 * that shard is skipped and the merge goes on; so is a shard that could
 * not be opened. prec_merge__errors() counts both. Never allocates or logs
 * per record. */
int prec_merge__next(struct prec_merge *mg, struct prec_merge_rec *r);

/* Live (opts.live): the recorder stopped. finished: its final manifest
 * is on disk, so every shard was closed whole; else it died and each
 * shard is read up to its torn end, as a merge of a crashed recording.
 * next() then goes on to the real end. Returns 0 or -errno. */
int prec_merge__end_live(struct prec_merge *mg, bool finished);

/* Corrupt chunks and unreadable shards met so far (each logged once). */
unsigned int prec_merge__errors(const struct prec_merge *mg);

/* Slices whose room could not take a whole cut, so that what they held
 * was merged with the cursors one record at a time (tests, benchmarks). */
uint64_t prec_merge__drains(const struct prec_merge *mg);

/* Records whose timestamp went backwards in the output (should stay 0). */
uint64_t prec_merge__inversions(const struct prec_merge *mg);

/* Records released before the watermarks proved them safe, because a
 * shard's reorder window was full (should stay 0; not always an inversion). */
uint64_t prec_merge__forced(const struct prec_merge *mg);

void prec_merge__close(struct prec_merge *mg);

/* ---- perf.data writer ---- */

struct prec_perfdata;

enum prec_perfdata_mode {
	PREC_PERFDATA_FILE, /* seekable: header, attrs, data, features */
	PREC_PERFDATA_PIPE, /* stream: header records, then data */
};

/* ---- merge output (merge_output.c) ---- */

struct prec_merge_output {
	int fd;
	enum prec_perfdata_mode mode; /* FILE when fd is a regular file at 0 */
	const char *name;             /* as given, for messages; NULL = stdout */
	int dirfd;                    /* the named output's directory, or -1 */
	char *base;                   /* the output's name in dirfd */
	char *tmp;                    /* the temp file's name in dirfd, or NULL */
	bool force;
};

/* Open where the merge goes; name NULL or "-": stdout. Never a terminal.
 * A name for one of prec's own fds (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N) that resolves to that fd's file: that fd. Otherwise the
 * last component is never followed: a new name, or with -f a regular file
 * or a symlink (the link itself is replaced, never its target), is written
 * through a temp file made O_EXCL in the name's directory; a FIFO, socket
 * or character device is written in place only if the effective user owns
 * it (or it is /dev/null); a block device, another user's special file, an
 * existing file or symlink without -f, are refused. May block on our own
 * FIFO until it has a reader. Errors are reported in one line. Returns 0,
 * -EEXIST (exists, no -f), -EPERM (refused), -EINVAL (terminal) or -errno. */
int prec_merge_output__open(struct prec_merge_output *o, const char *name,
			    bool force);
/* The same for another command's output: messages say cmd ("archive")
 * and kind_of_data ("a tar") where merge's say "merge" and "perf.data";
 * check_target and finish say cmd from then on. Same returns. */
int prec_merge_output__open_as(struct prec_merge_output *o, const char *cmd,
			       const char *kind_of_data, const char *name, bool force);

/* Refuse an output (name as -o gave it; NULL or "-": stdout) that is, by
 * st_dev/st_ino through any symlink, the manifest, a shard of the
 * recording dir (dirfd, read as m) being merged or another of its files
 * (segment files, carry.shard, vdso.so ...): with -f it would replace
 * part of the recording; or that is named as one of those in the
 * recording's directory, there or not (a new segment file would be read
 * as one). Any other target, and one that is no regular file, is fine.
 * Returns 0, or -EINVAL after one error line. */
int prec_merge_output__check_target(const char *name, const char *dir, int dirfd,
				    const struct prec_manifest *m);

/* Close; keep: rename the temp file over the name (not over one that
 * appeared meanwhile, without -f); else remove it. Returns 0 or -errno,
 * reported. */
int prec_merge_output__finish(struct prec_merge_output *o, bool keep);

/* Where the perf.data writer's buffers go: with async, two buffers and an
 * io_uring that writes one (at the file position, as write() would) while
 * the caller fills the other; without it, or where io_uring cannot be set
 * up, one buffer and write(). One thread uses a writer. */
struct prec_out_writer;

/* Two buffers of size bytes (one without async). Returns 0 or -ENOMEM. */
int prec_out_writer__new(struct prec_out_writer **out, int fd, size_t size,
			 bool async);
/* Are writes made in the background (two buffers)? */
bool prec_out_writer__async(const struct prec_out_writer *w);
/* The buffer to fill first. */
uint8_t *prec_out_writer__first(struct prec_out_writer *w);
/* Write (*buf)[0, len), *buf being one of the writer's buffers, and set
 * *buf to the buffer to fill next. Blocks for the write before it (async)
 * or for this one. Returns 0 or the first write error (sticky), which an
 * async write reports one call late, or at wait(). */
int prec_out_writer__put(struct prec_out_writer *w, uint8_t **buf, size_t len);
/* Block until every put() is written. Returns 0 or the first error. */
int prec_out_writer__wait(struct prec_out_writer *w);
/* Wait, then free; NULL is fine. */
void prec_out_writer__delete(struct prec_out_writer *w);

/* The perf.data writer hands its output to write() in pieces this big. */
#define PREC_PERFDATA_FLUSH_BYTES (1 << 20)

/* Start a perf.data on fd (not closed by the writer) for the recording
 * described by m: file mode reserves the header and writes attrs with their
 * ids; pipe mode writes the pipe header, HEADER_ATTRs, an EVENT_UPDATE
 * naming each event, HEADER_FEATUREs and end marker, and
 * HEADER_TRACING_DATA when m has tracepoints (attrs in event_at() order). Output is
 * buffered. Returns 0 or -errno. */
int prec_perfdata__open(struct prec_perfdata **out, int fd,
			const struct prec_manifest *m,
			enum prec_perfdata_mode mode);

/* The same, with the records of write_record() zstd compressed at zlevel
 * (1..22) into PERF_RECORD_COMPRESSED records, and the COMPRESSED feature,
 * as perf record -z writes them; zlevel 0: as open(). */
int prec_perfdata__open_zstd(struct prec_perfdata **out, int fd,
			     const struct prec_manifest *m,
			     enum prec_perfdata_mode mode, int zlevel);

/* Append one record as is (len == its header.size). Returns 0 or -errno. */
int prec_perfdata__write_record(struct prec_perfdata *pd, const void *rec,
				uint32_t len);

/* Append a PERF_RECORD_AUXTRACE for AUX bytes of one CPU (padded to 8),
 * indexed for the AUXTRACE feature in file mode. */
int prec_perfdata__write_auxtrace(struct prec_perfdata *pd, const void *data,
				  uint32_t len, uint64_t aux_offset,
				  uint32_t cpu, uint32_t idx);

/* Append a FINISHED_ROUND. */
int prec_perfdata__finish_round(struct prec_perfdata *pd);

/* Write what is buffered now, in this thread (a pipe's reader that follows
 * a live recording waits for it). Returns 0 or -errno. */
int prec_perfdata__flush(struct prec_perfdata *pd);

/* Note a sample's time (for SAMPLE_TIME). Cheap; call per sample. */
static inline void prec_perfdata__saw_time(uint64_t *first, uint64_t *last,
					    uint64_t t)
{
	if (t && (!*first || t < *first))
		*first = t;
	if (t > *last)
		*last = t;
}

/* Finish: file mode writes the feature sections and rewrites the header;
 * both modes flush. first/last are the sample time range. Frees pd (also on
 * error). Returns 0 or -errno. */
int prec_perfdata__close(struct prec_perfdata *pd, uint64_t first_time,
			 uint64_t last_time);

/* Build the tracing-data blob (perf.data-file-format.txt, HEADER_TRACING_DATA) for m's tracepoints into a
 * malloc'd buffer. Returns 0 (len 0 when m has no tracepoints) or -errno. */
int prec_tracing_blob(const struct prec_manifest *m, void **buf, size_t *len);

/* ---- perf.data feature payloads (perfdata_features.c) ---- */

#define PREC_FEAT_LAST 32 /* HEADER_LAST_FEATURE; also the pipe end marker */

struct prec_feat_ctx {
	const struct prec_manifest *m;
	uint64_t first_time, last_time; /* SAMPLE_TIME; both 0 = unknown */
	const uint64_t *aux_index;      /* file offsets of AUXTRACE headers */
	uint64_t nr_aux;
	int comp_level;                 /* -z's level; 0 = not compressed */
	uint32_t comp_ratio;            /* HEADER_COMPRESSED; 0 = unknown (pipe) */
};

/* Payload of feature feat (HEADER_* number), the same bytes in a file-mode
 * section and after a pipe-mode HEADER_FEATURE's feat_id, in a malloc'd
 * buffer. Returns 0, -ENOENT when there is nothing to write for it (no
 * section), or -errno. */
int prec_perfdata__build_feature(int feat, const struct prec_feat_ctx *c,
				 void **buf, size_t *len);

/* Which of m's events goes pos-th (0 <= pos < m->nr_events) into the
 * perf.data's attrs (file attrs section, pipe HEADER_ATTRs, EVENT_DESC):
 * the events in manifest order but the software dummies (the tracking
 * event) last, where perf puts its own: `perf script` 6.1 on a pipe sets
 * call-graph printing up from the first attr of each type only, and a
 * dummy first (software, as cpu-clock) would leave DWARF chains unprinted. */
uint32_t prec_perfdata__event_at(const struct prec_manifest *m, uint32_t pos);

/* The build-id table of m as consecutive build-id entries whose header type
 * is type (0 inside the BUILD_ID feature, 67 HEADER_BUILD_ID in a pipe).
 * Returns 0 (len 0 when m has none) or -errno. */
int prec_perfdata__build_buildids(const struct prec_manifest *m,
				  uint32_t type, void **buf, size_t *len);

#endif
