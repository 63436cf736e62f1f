/* SPDX-License-Identifier: MIT */
/* --switch-output's epochs as recordings (epoch_maker.c): each epoch made
 * under the output directory (epochs.c), opened as a recording of its own,
 * its side band synthesized and the cut's task records replayed into it
 * (with --tail-synthesize: its tail shard opened),
 * the oldest pruned. The session's cut (session.c) calls these in order. */
#ifndef PREC_RECORD_EPOCH_MAKER_H
#define PREC_RECORD_EPOCH_MAKER_H

#include <stdint.h>

struct prec_capture;
struct prec_disk_budget;
struct prec_evlist;
struct prec_flight_shards;
struct prec_record_opts;
struct prec_recording;
struct prec_sideband_opts;

/* What every epoch is made with, all borrowed for the maker's life. */
struct prec_epoch_maker_opts {
	int out_fd;                   /* the output directory, holding the epochs */
	const char *out_path;         /* its path, for messages and the epochs' */
	const struct prec_record_opts *o; /* resolved (options_resolve.c) */
	int argc;                     /* the command line, for each manifest */
	char **argv;
	struct prec_disk_budget *budget; /* --max-disk's, or NULL */
	int nr_cpus;                  /* the events' CPUs */
};

struct prec_epoch_maker;

/* A maker of the epochs of mo->out_fd (none made yet; --switch-max-files
 * from mo->o). Returns 0 or -ENOMEM. */
int prec_epoch_maker__new(struct prec_epoch_maker **out,
			  const struct prec_epoch_maker_opts *mo);
/* The next epoch's directory made and opened: its descriptor and path
 * (both the caller's, for prec_recording__open()). Returns 0, or -errno
 * after one line when it could not be made (-ENOMEM without one), and
 * then nothing of it is left (*fd -1, *path NULL). Main thread. */
int prec_epoch_maker__make_dir(struct prec_epoch_maker *mk, int *fd, char **path);
/* The side band options each later epoch synthesizes its tasks with (the
 * start's, copied; pids borrowed): the command runs by then. */
void prec_epoch_maker__sideband_opts(struct prec_epoch_maker *mk,
				     const struct prec_sideband_opts *sbo);
/* At a cut: the next epoch opened as a recording of its own (its own
 * session id), into *next, with --tail-synthesize its tail.shard into
 * *flight (else *flight holds none), then its start manifest written. An
 * epoch that could not start is closed and removed (*next NULL, *flight
 * empty). Returns 0 or -errno. Main thread. */
int prec_epoch_maker__open_next(struct prec_epoch_maker *mk, struct prec_evlist *el,
				struct prec_recording **next, struct prec_flight_shards *flight);
/* The tasks and maps alive now into next's side band; the command's (or
 * -p's) children forked since the start too, as the events follow them.
 * Returns records written or -errno (not said). Main thread. */
int prec_epoch_maker__tasks(struct prec_epoch_maker *mk, const struct prec_evlist *el,
			    struct prec_recording *next);
/* After the drainers moved: the task records they captured (caps, per CPU)
 * replayed into next's side band after its synthesized ones, the marker
 * that closes it, its fsync, and next's manifest reserve. Returns 0 or
 * -errno after one line. Main thread. */
int prec_epoch_maker__sideband(struct prec_epoch_maker *mk, struct prec_recording *next,
			       struct prec_capture *const *caps);
/* The oldest epochs beyond --switch-max-files removed (one warning per
 * failure). May block on the file system. */
void prec_epoch_maker__prune(struct prec_epoch_maker *mk);
/* Epochs made so far. */
uint32_t prec_epoch_maker__count(const struct prec_epoch_maker *mk);
/* NULL is fine; the epochs on disk stay. */
void prec_epoch_maker__delete(struct prec_epoch_maker *mk);

#endif
