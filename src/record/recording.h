/* SPDX-License-Identifier: MIT */
/* One recording (recording.c): a directory with its session id, manifest,
 * shard writers and the manifest's reserved room. A plain recording is
 * the output directory; with --switch-output each epoch is one, and a
 * cut closes one recording and opens the next. */
#ifndef PREC_RECORD_RECORDING_H
#define PREC_RECORD_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_disk_budget;
struct prec_evlist;
struct prec_manifest;
struct prec_record_opts;
struct prec_shard_writer;
struct prec_shard_writer_opts;

/* Opaque (recording.c): the directory, session id, manifest, writers and
 * reserve are its own; readers get them through the accessors below. */
struct prec_recording;

/* What a recording is opened with: the options, the events (opened, their
 * rings mapped), the command line for the manifest, and the CPU shards'
 * --max-disk budget or NULL. */
struct prec_recording_opts {
	const struct prec_record_opts *o;
	struct prec_evlist *el;
	int argc;
	char **argv;
	struct prec_disk_budget *budget;
};

/* A new recording in dirfd and dir (both owned from here on, even on
 * failure): lock the directory for readers following it, draw a session
 * id, fill the start manifest (state RECORDING, no start time yet) and
 * open a shard writer per CPU plus the side band's, each listed in the
 * manifest. Returns 0 with *out set, or -errno after one line (*out NULL,
 * what was opened closed again). */
int prec_recording__open(struct prec_recording **out, int dirfd, char *dir,
			 const struct prec_recording_opts *ro);
/* Its directory's descriptor (owned by r), and its path for messages. */
int prec_recording__dirfd(const struct prec_recording *r);
const char *prec_recording__dir(const struct prec_recording *r);
/* Its manifest: the start one, completed by the close. */
struct prec_manifest *prec_recording__manifest(const struct prec_recording *r);
/* The writer of CPU index i (0 <= i < the events' nr_cpus), or at
 * i == nr_cpus the side band's; NULL once closed. */
struct prec_shard_writer *prec_recording__writer(const struct prec_recording *r, int i);
/* Every writer, as writer(r, i) for i in [0, nr_cpus]: what the close
 * counts with the manifest's shards, in the same order. */
struct prec_shard_writer *const *prec_recording__writers(const struct prec_recording *r);
/* The options every shard of r is written with (-z, O_DIRECT, staging;
 * o resolved). */
void prec_recording__writer_opts(const struct prec_recording *r,
				 const struct prec_record_opts *o,
				 struct prec_shard_writer_opts *wo);
/* Started at start_time (the recording's clock): the start manifest
 * written, which a reader (merge --follow, info) waits for. Returns 0 or
 * -errno after one line. */
int prec_recording__start(struct prec_recording *r, uint64_t start_time);
/* Its side band's synthesis over: closed when close (nothing is added to
 * it after this; without --markers), a MARKER with the highest watermark
 * saying so, so that a reader following the recording (merge --follow)
 * need not wait on it (docs/format.md); its fsync done now rather than at
 * the stop; then manifest.reserve allocated, room for the final manifest
 * (whose side-band build-ids are in it now) on a disk that fills up
 * meanwhile. Returns 0 or -errno after one line. */
int prec_recording__sideband_done(struct prec_recording *r, bool close);
/* Complete at stop_time (the recording's clock): the reserve removed,
 * then the final manifest written in its place. Returns 0 or -errno after
 * one line. */
int prec_recording__complete(struct prec_recording *r, uint64_t stop_time);
/* Every writer flushed: its chunks written and fsynced; the first error. */
int prec_recording__flush_writers(struct prec_recording *r);
/* Every writer closed (after a flush, only frees); the first error. */
int prec_recording__close_writers(struct prec_recording *r);
/* Blocks r's shard files take now (a disk budget counts those): one
 * fstatat per shard, by name under its directory, never followed; 0 for
 * NULL (no recording yet). */
uint64_t prec_recording__disk_used(const struct prec_recording *r);
/* Writers closed, manifest and descriptor freed, then r; NULL is fine. */
void prec_recording__delete(struct prec_recording *r);

#endif
