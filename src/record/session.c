// SPDX-License-Identifier: MIT
// The recording session: the start, the --switch-output cuts and the stop
// over its parts: the output directory (out_dir.c), the recording written
// now (recording.c: manifest and shard writers; a cut opens the next one
// with epoch_maker.c and closes the old), its side band (sideband.c), its
// totals (recording_totals.c), its build-ids (buildid_reader.c while
// recording, buildid_collect.c at the close), the BPF programs loaded
// meanwhile (bpf_synth.c: every 50 ms and at the close), --max-disk
// (max_disk.c), --kcore (kcore.c), the flight recorder's shards, the
// drainers, and the first drainer failure and its stop line
// (stop_fault.c). Its struct is this file's
// alone: other files get verbs, a few accessors, and the report by value.

#include "record/session.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record/bpf_synth.h"
#include "record/buildid_collect.h"
#include "record/buildid_reader.h"
#include "record/drainer.h"
#include "record/drainer_place.h"
#include "record/drainer_pool.h"
#include "record/epoch_maker.h"
#include "record/evlist.h"
#include "record/evlist_aux.h"
#include "record/evlist_config.h"
#include "record/evlist_open.h"
#include "record/flight_shards.h"
#include "record/kcore.h"
#include "record/max_disk.h"
#include "record/out_dir.h"
#include "record/options.h"
#include "record/recording.h"
#include "record/recording_totals.h"
#include "record/ring.h"
#include "record/sideband.h"
#include "record/stop_fault.h"
#include "store/store.h"
#include "util/clock.h"
#include "util/log.h"

struct prec_session {
	struct prec_out_dir out; /* the output directory (-f's old one) */
	/* the recording written now: out's directory, or with
	 * --switch-output the current epoch in it (a cut opens the next,
	 * closes this one, and points here at the next) */
	struct prec_recording *rec;
	int nr_cpus;
	const int *cpus;
	struct prec_drainer_pool *pool;    /* the drainers, one per CPU */
	/* the flight recorder's shards (snapshots, -S, tails) */
	struct prec_flight_shards flight;
	bool direct_io;        /* the shards are written with O_DIRECT */
	/* the drainers' queues of maps without a build-id (per CPU, NULL
	 * where no drainer) and their reader (buildid_reader.h) */
	struct prec_buildid_queue **bid_queues;
	struct prec_buildid_reader *bid_reader;
	/* CLOCK_MONOTONIC: enable()'s, disable()'s; the final manifest's
	 * time from the stop */
	uint64_t t_enable_ns, t_stop_ns, manifest_ns;
	uint64_t t_begin_ns;   /* record's start, for -v's start laps */
	/* the closing recording's shard totals, the closed epochs' sums */
	struct prec_recording_totals tot;
	size_t pages;          /* drained rings' data pages (-m, or the side
				* band's own size), for the lost-records advice */
	struct prec_stop_fault fault; /* the first drainer failure */
	bool drainers_disable; /* the drainers disable their CPUs' events at
				* the stop (no flight recording): disable()
				* does not; and enable them at the start:
				* enable()) */
	/* --switch-output: out holds epochs, rec the current one; NULL
	 * without */
	struct prec_epoch_maker *maker;
	const struct prec_record_opts *o; /* resolved (options_resolve.c) */
	/* per CPU, what its drainer handed over of the recording being
	 * closed (at the stop, or at a cut) */
	struct prec_drainer_handover *hand;
	/* --max-disk: the CPU shards' budget and the carry (max_disk.c) */
	struct prec_max_disk *max_disk;
	/* when tick() next looks for BPF programs loaded meanwhile; 0: it
	 * does not (--no-bpf-event, not ours to see, or no room left); what
	 * its looks left out of the recording's manifest */
	uint64_t bpf_watch_ns;
	struct prec_bpf_left bpf_left;
};

/* How often tick() looks for BPF programs loaded meanwhile: one that lives
 * longer has its info kept, as perf's side-band thread keeps it. */
#define BPF_WATCH_MS 50

int prec_session__new(struct prec_session **out, const char *dir, bool force,
		      uint64_t t_begin_ns)
{
	struct prec_session *s = calloc(1, sizeof(*s));
	int err;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->t_begin_ns = t_begin_ns;
	err = prec_out_dir__create(&s->out, dir, force);
	if (err) {
		prec_session__delete(s);
		return err;
	}
	*out = s;
	return 0;
}

/* What the session makes once for all its recordings: the drainers'
 * pool, their totals, --max-disk's budget. */
static int session_parts(struct prec_session *s, const struct prec_record_opts *o,
			 const struct prec_evlist *el)
{
	int err;

	if (o->max_disk) {
		err = prec_max_disk__new(&s->max_disk, o->max_disk, prec_evlist__nr_cpus(el),
					 o->data,
					 o->namespaces);
		if (err)
			return err;
	}
	err = prec_drainer_pool__new(&s->pool, prec_evlist__nr_cpus(el));
	if (err)
		return err;
	prec_stop_fault__init(&s->fault, s->pool, s->cpus, s->nr_cpus);
	err = prec_recording_totals__init(&s->tot, s->cpus, s->nr_cpus, o->switch_output);
	s->hand = calloc((size_t)prec_evlist__nr_cpus(el), sizeof(*s->hand));
	return !err && s->hand ? 0 : -ENOMEM;
}

/* The recording's directory: the output's own, or with --switch-output
 * its first epoch (the output directory then holds the epochs, each
 * locked as a recording, and is not one itself). */
static int recording_dir(struct prec_session *s, const struct prec_record_opts *o,
			 int argc, char **argv, int *fd, char **path)
{
	struct prec_epoch_maker_opts mo = { .out_fd = s->out.fd, .out_path = s->out.path,
		.o = o, .argc = argc, .argv = argv, .nr_cpus = s->nr_cpus,
		.budget = s->max_disk ? prec_max_disk__budget(s->max_disk) : NULL };
	int err;

	if (!o->switch_output) {
		*fd = fcntl(s->out.fd, F_DUPFD_CLOEXEC, 0);
		err = *fd < 0 ? -errno : 0;
		*path = strdup(s->out.path);
		if (!err && *path)
			return 0;
		err = err ? err : -ENOMEM;
		pr_err("%s: %s", s->out.path, strerror(-err));
		if (*fd >= 0)
			close(*fd);
		free(*path);
		return err;
	}
	err = prec_epoch_maker__new(&s->maker, &mo);
	if (!err)
		err = prec_epoch_maker__make_dir(s->maker, fd, path);
	return err;
}

int prec_session__begin(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, int argc, char **argv)
{
	struct prec_recording_opts ro = { .o = o, .el = el, .argc = argc, .argv = argv };
	struct prec_manifest *m;
	char *path;
	int err, fd;

	s->o = o;
	s->nr_cpus = prec_evlist__nr_cpus(el);
	s->cpus = prec_evlist__cpus(el);
	s->pages = prec_evlist__drain_pages(el);
	err = session_parts(s, o, el);
	if (!err)
		err = recording_dir(s, o, argc, argv, &fd, &path);
	if (err)
		return err;
	ro.budget = s->max_disk ? prec_max_disk__budget(s->max_disk) : NULL;
	err = prec_recording__open(&s->rec, fd, path, &ro);
	if (err)
		return err;
	m = prec_recording__manifest(s->rec);
	s->direct_io = prec_shard_writer__direct(prec_recording__writer(s->rec, 0));
	/* -S's AUX copies and --overwrite's snapshots; the tails */
	err = prec_flight_shards__open(&s->flight, s->rec, o, prec_evlist__cpus(el),
				       prec_evlist__nr_cpus(el),
				       prec_evlist__overwrite(el) || prec_evlist__aux_snapshot(el),
				       prec_evlist__overwrite(el) || o->tail_synthesize);
	/* perf copies it once the events are open, before they run. */
	if (!err && o->kcore)
		err = prec_kcore__copy(prec_recording__dirfd(s->rec), prec_recording__dir(s->rec),
				       &m->kcore);
	if (err)
		return err;
	if (s->max_disk)
		prec_max_disk__start(s->max_disk, m);
	/* -f's old directory stays aside until the final manifest is on
	 * disk: a crash before then leaves the user both recordings. */
	return prec_recording__start(s->rec, prec_evlist__now(el, o->clockid));
}

/* One drainer thread per CPU's drained ring (the flight rings are read by
 * snapshots). */
static int start_drainers(struct prec_session *s, const struct prec_record_opts *o,
			  struct prec_evlist *el)
{
	bool drained = false;
	int err, first;

	pr_debug("drainers: -r %d (0: fair scheduler), --affinity %s", o->rt_prio,
		 prec_affinity__name(o->affinity));
	/* Its drops keep the drainers from making them: as prompt as they. */
	if (s->max_disk && o->rt_prio)
		prec_disk_budget__fifo(prec_max_disk__budget(s->max_disk), o->rt_prio);
	/* Each drainer disables its CPU's events as it stops, but in a
	 * flight recording, whose last snapshot wants them all disabled
	 * first (the main thread does it then). */
	s->drainers_disable = !prec_evlist__overwrite(el);
	if (o->max_size || o->switch_bytes)
		prec_drainer_pool__count(s->pool, o->max_size);
	for (int c = 0; c < s->nr_cpus; c++) {
		struct prec_drainer_opts d = {
			.cpu = prec_evlist__cpus(el)[c],
			.ring = &prec_evlist__rings(el)[c],
			.writer = prec_recording__writer(s->rec, c),
			.layout = prec_recording__manifest(s->rec)->time_layout,
			.clockid = o->clockid,
			/* perf's choice for TIME_CONV: the first ring's page */
			.clock_page = prec_evlist__clock_page(el),
			.round_ns = o->round_ms * 1000000ull,
			/* A compressing writer has copied (compressed) the
			 * bytes when append() returns: no wait for the file. */
			.copy = o->copy || o->compress,
			.build_id = o->buildid_mmap,
			.pin_cpu = o->affinity != PREC_AFFINITY_NONE ? prec_evlist__cpus(el)[c] : -1,
			.affinity = o->affinity,
			.rt_prio = o->rt_prio,
			/* A flight recording's snapshot at the stop wants
			 * every event disabled first: the session's. */
			.el = prec_evlist__overwrite(el) ? NULL : el,
			.el_cpu = c,
		};

		drained = true;
		err = prec_drainer_pool__add(s->pool, c, &d);
		if (err) {
			pr_err("drainer cpu%d: starting: %s\n", prec_evlist__cpus(el)[c],
			       strerror(-err));
			return err;
		}
	}
	first = prec_drainer_pool__start(s->pool);
	for (int c = 0; first && c < s->nr_cpus; c++) {
		err = prec_drainer__start_error(prec_drainer_pool__at(s->pool, c));
		if (!err)
			continue;
		if (err == -EPERM && o->rt_prio && o->rt_prio_set) {
			pr_err("option -r %d: SCHED_FIFO refused for the drainer threads: %s\n",
			       o->rt_prio, strerror(-err));
			return err;
		}
		/* The default's probe said yes, the drainer was refused all
		 * the same (a limit changed in between): name no option the
		 * user did not give. */
		if (err == -EPERM && o->rt_prio) {
			pr_err("drainer cpu%d: SCHED_FIFO %d (the default where allowed) refused: %s; -r 0 runs drainers without it\n",
			       prec_evlist__cpus(el)[c], o->rt_prio, strerror(-err));
			return err;
		}
		pr_err("drainer cpu%d: starting: %s\n", prec_evlist__cpus(el)[c], strerror(-err));
		return err;
	}
	if (first) {
		pr_err("drainers: starting: %s\n", strerror(-first));
		return first;
	}
	prec_drainer_place__warn_fifo(drained ? o->rt_prio : 0);
	return 0;
}

/* Every CPU's events (tracking: the tracking events alone): by the
 * drainers when they own their CPUs' events, else one after another. */
static int enable_events(struct prec_session *s, struct prec_evlist *el,
			 bool tracking)
{
	const char *what = tracking ? "tracking event" : "events";
	int err;

	if (!s->drainers_disable)
		return tracking ? prec_evlist__enable_tracking(el) : prec_evlist__enable(el);
	/* From each ring's CPU the ioctls are local: no waits on other CPUs
	 * one after another (many-cpus.md). */
	err = prec_drainer_pool__enable(s->pool, tracking);
	if (err == -ENOENT)
		pr_err("%s: a drainer stopped before it enabled its CPU's", what);
	else if (err)
		pr_err("%s: PERF_EVENT_IOC_ENABLE: %s", what, strerror(-err));
	return err;
}

int prec_session__enable(struct prec_session *s, struct prec_evlist *el,
			 bool events)
{
	s->t_enable_ns = prec_now_ns(CLOCK_MONOTONIC);
	return events ? enable_events(s, el, false) : 0;
}

/* -v: the start's laps inside start(), from record's start as the
 * caller's are. */
static void start_lap(const struct prec_session *s, const char *what)
{
	pr_debug("start: %s at +%.1f ms", what,
		 (double)(prec_now_ns(CLOCK_MONOTONIC) - s->t_begin_ns) / 1e6);
}

/* The queue of each drainer, and their reader. */
static int open_buildid_reader(struct prec_session *s)
{
	s->bid_queues = calloc((size_t)s->nr_cpus, sizeof(*s->bid_queues));
	if (!s->bid_queues)
		return -ENOMEM;
	for (int c = 0; c < s->nr_cpus; c++)
		if (prec_drainer_pool__at(s->pool, c))
			s->bid_queues[c] = prec_drainer__buildid_queue(prec_drainer_pool__at(s->pool, c));
	return prec_buildid_reader__new(&s->bid_reader);
}

/* How often the files of new maps are read: within a round or two of
 * their MMAP2 being drained (a drainer's round is 100 ms by default). */
#define READ_BUILDIDS_MS 100

int prec_session__read_buildids(struct prec_session *s)
{
	if (!s->bid_reader)
		return -1;
	prec_buildid_reader__read(s->bid_reader, s->bid_queues, s->nr_cpus);
	return READ_BUILDIDS_MS;
}

int prec_session__start(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, const pid_t *pids, int nr_pids,
			bool track_first, pid_t command)
{
	struct prec_sideband_opts sbo = { .all_tasks = !pids, .pids = pids,
					  .nr_pids = nr_pids,
					  /* -t's, not -p's or -u's or the command */
					  .threads = pids && o->nr_tids && !o->nr_pids,
					  .data_maps = o->data,
					  .bpf = !o->no_bpf_event,
					  .cgroups = o->all_cgroups,
					  .namespaces = o->namespaces,
					  /* track_first: tracking starts now, not at an exec */
					  .before_exec = pids && !track_first,
					  .user_only = prec_evlist__exclude_kernel(el),
					  .max_bytes = s->max_disk ?
						prec_max_disk__sideband_bound(s->max_disk) : 0,
					  /* --tail-synthesize: the tail names them */
					  .no_tasks = !o->synth_tasks || o->tail_synthesize,
					  .no_maps = !o->synth_maps,
					  .map_timeout_ms = o->proc_map_timeout_ms,
					  .map_timeout = true,
					  .command = command };
	int err;

	/* Drainers first (their events are still disabled): the side band,
	 * read from /proc, then names prec's own threads too. */
	err = start_drainers(s, o, el);
	if (!err)
		err = open_buildid_reader(s);
	start_lap(s, "drainers started");
	if (!err && track_first) {
		err = enable_events(s, el, true);
		start_lap(s, "tracking events enabled");
	}
	if (err)
		return err;
	if (s->maker)
		prec_epoch_maker__sideband_opts(s->maker, &sbo);
	/* The carry names what the start does: the command, -p or -t and
	 * what they fork (the events inherit), every task only with -a/-C. */
	if (s->max_disk)
		err = prec_max_disk__target(s->max_disk, pids, nr_pids,
					    prec_evlist__inherits(el));
	if (err)
		return err;
	err = prec_sideband__synthesize(prec_recording__writer(s->rec, s->nr_cpus),
					prec_recording__manifest(s->rec), &sbo);
	start_lap(s, "side band read");
	if (err < 0) {
		pr_err("%s/%s: synthesizing the side band: %s", prec_recording__dir(s->rec),
		       PREC_SHARD_SIDEBAND_NAME, strerror(-err));
		return err;
	}
	/* --markers go on adding to it */
	err = prec_recording__sideband_done(s->rec, !o->markers);
	start_lap(s, "side band fsynced, manifest room reserved");
	if (!o->no_bpf_event)
		s->bpf_watch_ns = prec_now_ns(CLOCK_MONOTONIC) + BPF_WATCH_MS * 1000000ull;
	return err;
}

static struct prec_seen_maps seen_maps(struct prec_session *s)
{
	return (struct prec_seen_maps){ .nr = s->nr_cpus, .cpus = s->cpus, .hand = s->hand };
}

/* The maps' build-ids, the vDSO's and the dropped pairs into the manifest. */
static void add_buildids(struct prec_session *s)
{
	struct prec_seen_maps seen = seen_maps(s);

	prec_buildid_collect__manifest(prec_recording__manifest(s->rec), &seen, s->bid_reader,
				       prec_recording__dirfd(s->rec), prec_recording__dir(s->rec));
}

static int stop_drainers(struct prec_session *s)
{
	return s->pool ? prec_drainer_pool__join(s->pool) : 0;
}

static void lap(const struct prec_session *s, const char *what)
{
	if (!s->t_stop_ns)
		return; /* an epoch closed at a cut, not the stop */
	pr_debug("close: %s at +%.1f ms", what,
		 (double)(prec_now_ns(CLOCK_MONOTONIC) - s->t_stop_ns) / 1e6);
}

void prec_session__disable(struct prec_session *s, struct prec_evlist *el)
{
	s->t_stop_ns = prec_now_ns(CLOCK_MONOTONIC);
	/* Else each drainer disables its own CPU's as it stops. */
	if (!s->drainers_disable) {
		prec_evlist__disable(el);
		lap(s, "events disabled");
	}
}

const struct prec_recording *prec_session__recording(const struct prec_session *s)
{
	return s->rec;
}

struct prec_flight_shards *prec_session__flight_shards(struct prec_session *s)
{
	return &s->flight;
}

struct prec_drainer_pool *prec_session__pool(const struct prec_session *s)
{
	return s->pool;
}

static int bpf_timeout_ms(const struct prec_session *s, uint64_t now)
{
	if (!s->bpf_watch_ns)
		return -1;
	return now >= s->bpf_watch_ns ? 0 : (int)((s->bpf_watch_ns - now + 999999) / 1000000);
}

int prec_session__timeout_ms(const struct prec_session *s)
{
	int b = bpf_timeout_ms(s, prec_now_ns(CLOCK_MONOTONIC));
	int d = s->max_disk ? prec_max_disk__timeout_ms(s->max_disk) : -1;

	return b < 0 || (d >= 0 && d < b) ? d : b;
}

void prec_session__tick(struct prec_session *s)
{
	struct prec_manifest *m = prec_recording__manifest(s->rec);
	uint64_t now = prec_now_ns(CLOCK_MONOTONIC);

	if (bpf_timeout_ms(s, now) == 0)
		s->bpf_watch_ns = prec_bpf_synth__watch(m, &s->bpf_left) < 0 ? 0 :
				  now + BPF_WATCH_MS * 1000000ull;
	if (s->max_disk)
		prec_max_disk__tick(s->max_disk, prec_recording__dirfd(s->rec), m, m->start_time);
}

void prec_session__report(const struct prec_session *s, struct prec_session_report *r)
{
	*r = (struct prec_session_report){
		.m = s->rec ? prec_recording__manifest(s->rec) : NULL,
		.dir = s->rec ? prec_recording__dir(s->rec) : NULL,
		.enable_ns = s->t_enable_ns, .stop_ns = s->t_stop_ns,
		.manifest_ns = s->manifest_ns,
		.switch_output = s->maker != NULL,
		.epochs = s->maker ? prec_epoch_maker__count(s->maker) : 0,
		.drain_failed = prec_stop_fault__failed(&s->fault),
		.nr_cpus = s->nr_cpus, .cpus = s->cpus,
		.writer_wait = prec_recording_totals__writer_wait(&s->tot), .pages = s->pages,
		.cpu_lost = prec_recording_totals__cpu_lost(&s->tot),
		.direct_io = s->direct_io,
		.flight_cpu_shard = s->flight.cpu_shard,
		.flight_snapshots = s->flight.snap != NULL,
		.rt_prio = s->o ? s->o->rt_prio : 0,
	};
	prec_recording_totals__figures(&s->tot, &r->records, &r->bytes, &r->lost);
}

uint64_t prec_session__drained(const struct prec_session *s)
{
	return prec_drainer_pool__bytes(s->pool);
}

uint64_t prec_session__counted(const struct prec_session *s)
{
	return prec_drainer_pool__counted(s->pool);
}

uint64_t prec_session__cut_bytes(const struct prec_session *s)
{
	return prec_drainer_pool__cut_bytes(s->pool);
}

void prec_session__mark_cut(struct prec_session *s, uint64_t at)
{
	prec_drainer_pool__mark_cut(s->pool, at);
}

bool prec_session__max_size_reached(const struct prec_session *s, uint64_t *used)
{
	return prec_drainer_pool__limit_reached(s->pool, used);
}

int prec_session__drain_failed(struct prec_session *s)
{
	return prec_stop_fault__note(&s->fault);
}

static int close_epoch(struct prec_session *s, struct prec_evlist *el, int err);

int prec_session__finish(struct prec_session *s, struct prec_evlist *el)
{
	/* Every shard flushed; the threads' exits are waited for after
	 * the manifest. */
	int err = s->pool ? prec_drainer_pool__stop(s->pool, s->hand) : 0;

	/* A drainer that stopped early on an error left its CPU's events
	 * enabled: disabled here. */
	for (int c = 0; s->drainers_disable && c < s->nr_cpus; c++)
		if (!s->hand[c].disabled)
			prec_evlist__disable_cpu(el, c);
	lap(s, "drainers done (rings empty, shards fsynced)");
	err = close_epoch(s, el, err);
	stop_drainers(s);
	lap(s, "drainers joined");
	if (!s->o->no_buildid_cache) {
		struct prec_seen_maps seen = seen_maps(s);

		prec_buildid_collect__fill_cache(prec_recording__manifest(s->rec), &seen);
		lap(s, "build-id cache");
	}
	/* The summary's totals: every epoch's. */
	prec_recording_totals__sum(&s->tot);
	return err;
}

/* Every writer of the epoch closed (the session's and the flight
 * recorder's). err: the first error so far, returned unless 0. */
static int close_writers(struct prec_session *s, int err)
{
	int e = prec_recording__close_writers(s->rec);

	err = err ? err : e;
	e = prec_flight_shards__close(&s->flight);
	err = err ? err : e;
	lap(s, "writers closed");
	return err;
}

/* The recording (with --switch-output, the epoch) s->rec closed: its
 * shards flushed and counted (the session's totals, its own), build-ids,
 * writers closed, the final manifest. err: the first error so far,
 * returned unless 0. */
static int close_epoch(struct prec_session *s, struct prec_evlist *el, int err)
{
	struct prec_manifest *m = prec_recording__manifest(s->rec);
	uint64_t records = 0, bytes = 0, lost = 0;
	int e;

	/* A drainer flushes its shard as it stops (its flush here finds
	 * nothing to do); the side band and the flight recorder's shards are
	 * flushed here, so that the writers' totals count every chunk; at a
	 * cut, the drainers' too. Every shard is durable after this: closing
	 * the writers only frees them, and waits until after the manifest. */
	e = prec_recording__flush_writers(s->rec);
	err = err ? err : e;
	/* Appends are over: no drop may change a shard after its totals. */
	if (s->max_disk)
		prec_disk_budget__stop(prec_max_disk__budget(s->max_disk));
	prec_recording_totals__count(&s->tot, m, prec_recording__writers(s->rec), el, s->hand,
				     s->t_stop_ns);
	e = prec_flight_shards__finish(&s->flight, m, &records, &bytes, &lost);
	prec_recording_totals__add(&s->tot, records, bytes, lost);
	err = err ? err : e;
	add_buildids(s);
	if (s->o->no_buildid)
		prec_manifest__clear_buildids(m);
	/* perf's BPF_PROG_INFO has the programs loaded meanwhile too */
	if (!s->o->no_bpf_event)
		prec_bpf_synth__loaded_since(m, &s->bpf_left);
	lap(s, "totals and build-ids, BPF programs");
	/* --max-disk's finish wants the writers out of its budget. */
	if (s->max_disk)
		err = close_writers(s, err);
	if (err)
		prec_stop_fault__report(&s->fault, err, s->t_enable_ns, s->t_stop_ns,
					prec_recording_totals__bytes(&s->tot),
					prec_recording__dir(s->rec));
	if (s->max_disk) {
		e = prec_max_disk__finish(s->max_disk, prec_recording__dirfd(s->rec), m,
					  m->start_time);
		err = err ? err : e;
	}
	e = prec_recording__complete(s->rec, prec_evlist__now(el, m->clockid));
	if (e)
		err = err ? err : e;
	else
		prec_out_dir__commit(&s->out);
	s->manifest_ns = prec_now_ns(CLOCK_MONOTONIC) - s->t_stop_ns;
	lap(s, "manifest written");
	/* Flushed above: an error here is one the manifest already counts
	 * out (the writer's first error stays its error). */
	return close_writers(s, err);
}

/* ---- --switch-output: the cut from one epoch to the next ---- */

/* Why every sample of the new epoch has its task named there: each
 * drainer drains once more into the old epoch from a data_head read after
 * the /proc read, so a sample in the new epoch was published after that
 * read, by a task alive at its end. Such a task was either read, as it
 * was then, or made later; and what changed it after the capture began
 * (FORK, exec's COMM, MMAP2) is in the new epoch's rings or, drained into
 * the old one before its CPU's move, captured and replayed in the side
 * band at its time. Records stamped before the capture began are not:
 * /proc had their effect, and a stale FORK replayed after the read would
 * make perf forget what the read said. */
int prec_session__cut(struct prec_session *s, struct prec_evlist *el)
{
	struct prec_recording *next;
	struct prec_flight_shards flight;
	int err, e;

	err = prec_epoch_maker__open_next(s->maker, el, &next, &flight);
	if (err)
		return err;
	/* 0 under a perf clock it cannot read: every task record is taken */
	prec_drainer_pool__cut_begin(s->pool, prec_recording__writers(next),
				     prec_evlist__now(el, s->o->clockid));
	e = prec_epoch_maker__tasks(s->maker, el, next);
	/* What the drainers hand over of the old epoch, which closes with it. */
	err = prec_drainer_pool__cut_move(s->pool, s->hand);
	if (err)
		pr_err("%s: a drainer stopped before it moved to this epoch",
		       prec_recording__dir(next));
	if (e < 0) {
		pr_err("%s/%s: synthesizing the side band: %s", prec_recording__dir(next),
		       PREC_SHARD_SIDEBAND_NAME, strerror(-e));
		err = err ? err : e;
	}
	e = prec_epoch_maker__sideband(s->maker, next, prec_drainer_pool__captures(s->pool));
	err = err ? err : e;
	/* Past the moves the new epoch holds records already: removing it
	 * would lose them. It stays the recording's, closed at the stop as
	 * any (its final manifest where the disk has room, else its start
	 * manifest, read as after a kill -9). */
	if (err)
		pr_err("%s: the cut did not finish; the epoch is kept, as the drainers write into it already (removing it would lose their records), and closed as the recording stops",
		       prec_recording__dir(next));
	/* The old epoch, whose writers are all this thread's now, closed;
	 * the next one is the session's from here on. */
	e = close_epoch(s, el, 0);
	err = err ? err : e;
	prec_recording_totals__carry(&s->tot);
	prec_recording__delete(s->rec);
	s->rec = next;
	/* its tail shard, if any (a cut's caller rebinds its tail to it) */
	prec_flight_shards__exit(&s->flight);
	s->flight = flight;
	prec_drainer_pool__cut_end(s->pool);
	prec_epoch_maker__prune(s->maker);
	/* the new epoch's programs are looked for from its own start's */
	s->bpf_left = (struct prec_bpf_left){ 0 };
	if (!s->o->no_bpf_event)
		s->bpf_watch_ns = prec_now_ns(CLOCK_MONOTONIC) + BPF_WATCH_MS * 1000000ull;
	return err;
}

void prec_session__discard(struct prec_session *s)
{
	stop_drainers(s);
	if (s->rec)
		prec_recording__close_writers(s->rec);
	prec_flight_shards__close(&s->flight);
	/* With --switch-output its epoch goes with it. */
	prec_recording__delete(s->rec);
	s->rec = NULL;
	prec_out_dir__discard(&s->out);
}

void prec_session__delete(struct prec_session *s)
{
	if (!s)
		return;
	prec_drainer_pool__delete(s->pool); /* joined first */
	if (s->rec)
		prec_recording__close_writers(s->rec);
	prec_flight_shards__exit(&s->flight);
	prec_max_disk__delete(s->max_disk); /* after its shards' writers */
	free(s->bid_queues);
	prec_buildid_reader__delete(s->bid_reader);
	prec_recording_totals__exit(&s->tot);
	free(s->hand);
	prec_recording__delete(s->rec);
	prec_epoch_maker__delete(s->maker);
	prec_out_dir__exit(&s->out);
	free(s);
}
