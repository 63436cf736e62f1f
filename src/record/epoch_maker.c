// SPDX-License-Identifier: MIT
// --switch-output's epochs as recordings: the next epoch's directory made
// (epochs.c) and opened as a recording, its side band (the tasks alive at
// the cut, then the cut's captured task records), and the oldest pruned.

#include "record/epoch_maker.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/capture.h"
#include "record/epochs.h"
#include "record/evlist.h"
#include "record/evlist_open.h"
#include "record/flight_shards.h"
#include "record/options.h"
#include "record/recording.h"
#include "record/sideband.h"
#include "record/tail.h"
#include "store/store.h"
#include "util/log.h"

struct prec_epoch_maker {
	struct prec_epoch_maker_opts mo;
	struct prec_epochs *epochs;
	struct prec_sideband_opts sbo;  /* each later epoch's side band */
};

int prec_epoch_maker__new(struct prec_epoch_maker **out,
			  const struct prec_epoch_maker_opts *mo)
{
	struct prec_epoch_maker *mk = calloc(1, sizeof(*mk));
	int err;

	*out = NULL;
	if (!mk)
		return -ENOMEM;
	mk->mo = *mo;
	/* With -o FILE each epoch becomes a file, and the files are what
	 * --switch-max-files counts (file_output.c): an epoch kept after a
	 * failed merge is never pruned. */
	err = prec_epochs__new(&mk->epochs, mo->out_fd,
			       mo->o->output ? 0 : mo->o->switch_max_files);
	if (err) {
		prec_epoch_maker__delete(mk);
		return err;
	}
	*out = mk;
	return 0;
}

int prec_epoch_maker__make_dir(struct prec_epoch_maker *mk, int *fd, char **path)
{
	char name[32];

	*path = NULL;
	*fd = prec_epochs__make(mk->epochs, name, sizeof(name));
	if (*fd < 0) {
		pr_err("%s/%s: making the epoch: %s", mk->mo.out_path, name, strerror(-*fd));
		return *fd;
	}
	if (asprintf(path, "%s/%s", mk->mo.out_path, name) < 0) {
		*path = NULL;
		close(*fd); /* made: removed again */
		*fd = -1;
		prec_epochs__drop_newest(mk->epochs);
		return -ENOMEM;
	}
	return 0;
}

void prec_epoch_maker__sideband_opts(struct prec_epoch_maker *mk,
				     const struct prec_sideband_opts *sbo)
{
	mk->sbo = *sbo;
	mk->sbo.before_exec = false; /* a later epoch's: the command runs */
	mk->sbo.command = 0;         /* and was named in the first */
}

int prec_epoch_maker__open_next(struct prec_epoch_maker *mk, struct prec_evlist *el,
				struct prec_recording **next, struct prec_flight_shards *flight)
{
	struct prec_recording_opts ro = { .o = mk->mo.o, .el = el, .argc = mk->mo.argc,
		.argv = mk->mo.argv, .budget = mk->mo.budget };
	char *path;
	int err, fd;

	*next = NULL;
	memset(flight, 0, sizeof(*flight));
	err = prec_epoch_maker__make_dir(mk, &fd, &path);
	if (err)
		return err;
	err = prec_recording__open(next, fd, path, &ro);
	/* --tail-synthesize: each epoch's own tail, listed from its start
	 * manifest on as the first epoch's (session.c) */
	if (!err && mk->mo.o->tail_synthesize)
		err = prec_flight_shards__open(flight, *next, mk->mo.o, prec_evlist__cpus(el),
					       mk->mo.nr_cpus, false, true);
	if (!err)
		err = prec_recording__start(*next, prec_evlist__now(el, mk->mo.o->clockid));
	if (err) {
		prec_flight_shards__exit(flight);
		prec_recording__delete(*next);
		*next = NULL;
		prec_epochs__drop_newest(mk->epochs);
	}
	return err;
}

int prec_epoch_maker__tasks(struct prec_epoch_maker *mk, const struct prec_evlist *el,
			    struct prec_recording *next)
{
	struct prec_sideband_opts sbo = mk->sbo;
	pid_t *pids = NULL;
	int err = 0;

	if (sbo.pids && prec_evlist__inherits(el)) {
		err = prec_tail__select(sbo.pids, sbo.nr_pids, true, &pids);
		sbo.pids = pids;
		sbo.nr_pids = err;
	}
	if (err >= 0)
		err = prec_sideband__synthesize(prec_recording__writer(next, mk->mo.nr_cpus),
						prec_recording__manifest(next), &sbo);
	free(pids);
	return err;
}

/* The cut's captured task records (caps, per CPU) replayed into next's
 * side band, in time order after the synthesized ones (time 0). Returns
 * records written or -errno. */
static int replay_capture(struct prec_epoch_maker *mk, struct prec_recording *next,
			  struct prec_capture *const *caps)
{
	int nr = mk->mo.nr_cpus;
	const char *dir = prec_recording__dir(next);
	uint64_t dropped = 0;
	int err;

	for (int c = 0; c < nr; c++)
		dropped += caps[c]->dropped;
	err = prec_capture__write(caps, nr, &prec_recording__manifest(next)->time_layout,
				  prec_recording__writer(next, nr));
	if (err >= 0)
		pr_debug("%s/%s: %d task records of the cut replayed", dir,
			 PREC_SHARD_SIDEBAND_NAME, err);
	if (dropped)
		pr_warn("%s/%s: %llu task records of the cut did not fit its capture (%u KiB per CPU): the tasks they name may show as :PID in this epoch",
			dir, PREC_SHARD_SIDEBAND_NAME, (unsigned long long)dropped,
			PREC_CAPTURE_BYTES / 1024);
	return err;
}

/* The capture holds the task records the drainers drained into the old
 * epoch from the /proc read (prec_epoch_maker__tasks()) on: why that is
 * all the new epoch needs is said at prec_session__cut(). */
int prec_epoch_maker__sideband(struct prec_epoch_maker *mk, struct prec_recording *next,
			       struct prec_capture *const *caps)
{
	int err = replay_capture(mk, next, caps);

	if (err < 0) {
		pr_err("%s/%s: synthesizing the side band: %s", prec_recording__dir(next),
		       PREC_SHARD_SIDEBAND_NAME, strerror(-err));
		return err;
	}
	return prec_recording__sideband_done(next, true);
}

void prec_epoch_maker__prune(struct prec_epoch_maker *mk)
{
	prec_epochs__prune(mk->epochs, mk->mo.out_path);
}

uint32_t prec_epoch_maker__count(const struct prec_epoch_maker *mk)
{
	return prec_epochs__count(mk->epochs);
}

void prec_epoch_maker__delete(struct prec_epoch_maker *mk)
{
	if (!mk)
		return;
	prec_epochs__delete(mk->epochs);
	free(mk);
}
