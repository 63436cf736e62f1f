// SPDX-License-Identifier: MIT
// What steers a recording while it runs: the -D delay and ranges, the
// --control commands, the --markers reader, and the snapshots: with
// --overwrite the rings' and their tails, with -S the AUX areas'
// (aux_snapshot.c).
#include "record/controls.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/aux_snapshot.h"
#include "record/control_channel.h"
#include "record/evlist.h"
#include "record/evlist_aux.h"
#include "record/evlist_open.h"
#include "record/markers.h"
#include "record/options.h"
#include "record/flight_shards.h"
#include "record/recording.h"
#include "record/ring.h"
#include "record/session.h"
#include "record/snapshot.h"
#include "record/tail.h"
#include "util/clock.h"
#include "util/log.h"

static uint64_t mono_ns(void)
{
	return prec_now_ns(CLOCK_MONOTONIC);
}

int prec_controls__init(struct prec_controls *f, const struct prec_record_opts *o)
{
	int err;

	memset(f, 0, sizeof(*f));
	f->delay_ms = o->delay_ms;
	f->edges = o->delay_edges;
	f->nr_edges = o->nr_delay_edges;
	if (o->control) {
		err = prec_control__open(&f->ctl, o->control);
		if (err)
			return err;
	}
	if (o->markers) {
		err = prec_markers__open(&f->mk, o->clockid);
		if (err)
			return err;
	}
	return 0;
}

/* The ftrace:print ids, one per CPU index (first task), for the markers. */
static int marker_ids(const struct prec_evlist *el, uint64_t **ids)
{
	int e = -1, nr_cpus = prec_evlist__nr_cpus(el);

	for (int i = 0; i < prec_evlist__nr_events(el); i++) {
		const struct prec_evsel *ev = prec_evlist__event(el, i);

		if (ev->tp_system && !strcmp(ev->name, "ftrace:print"))
			e = i;
	}
	if (e < 0)
		return -ENOENT;
	*ids = calloc((size_t)nr_cpus, sizeof(**ids));
	if (!*ids)
		return -ENOMEM;
	for (int c = 0; c < nr_cpus; c++)
		(*ids)[c] = prec_evlist__id(el, e, c, 0);
	return 0;
}

/* A snapshot, then its tail: the tasks alive now, stamped before the
 * snapshot's oldest record, so that its samples are named even when the
 * ring lost their side band. The tail reads /proc after the rings are
 * resumed: it costs the snapshot's caller time, never the rings. */
static int take_snapshot(void *arg)
{
	struct prec_controls *f = arg;
	struct prec_snapshot_stats st;
	int err = prec_snapshot__take(f->snap), n, w;

	prec_snapshot__stats(f->snap, &st);
	n = f->tail ? prec_tail__write(f->tail, st.oldest) : 0;
	/* In the files once acked: a recorder killed later keeps it. */
	w = prec_flight_shards__write_out(f->flight);
	return err ? err : n < 0 ? n : w;
}

/* The tasks a tail names: those the events follow. A snapshot's, the
 * targets' processes and their descendants now (the ring may have lost
 * the kernel's records of any of them); --tail-synthesize's at the stop
 * (of each epoch), with every record kept, perf's: the events' threads as
 * opened, each alone (its thread map, the command's pid alone). */
static int start_tail(struct prec_controls *f, struct prec_session *s,
		      const struct prec_record_opts *o, const struct prec_evlist *el,
		      bool thread_map)
{
	struct prec_tail_opts to = { .writer = prec_session__flight_shards(s)->tail,
		.m = prec_recording__manifest(prec_session__recording(s)),
		.data_maps = o->data,
		.namespaces = o->namespaces,
		.descendants = prec_evlist__inherits(el) };
	int err;

	if (thread_map && prec_evlist__nr_tasks(el) > 0 && prec_evlist__tasks(el)[0] > 0) {
		to.roots = prec_evlist__tasks(el); /* -1: per-CPU, every task */
		to.nr_roots = prec_evlist__nr_tasks(el);
		to.threads = true;
	} else if (o->nr_pids) {
		to.roots = o->pids;
		to.nr_roots = o->nr_pids;
	} else if (o->nr_tids) {
		to.roots = o->tids;
		to.nr_roots = o->nr_tids;
	} else if (prec_evlist__nr_tasks(el) > 0 && prec_evlist__tasks(el)[0] > 0) {
		to.roots = prec_evlist__tasks(el); /* the workload */
		to.nr_roots = prec_evlist__nr_tasks(el);
	}
	err = prec_tail__new(&f->tail, &to);
	if (err)
		pr_err("%s: %s", PREC_TAIL_SHARD_NAME, strerror(-err));
	return err;
}

static uint64_t flight_lost(void *arg, int i)
{
	return prec_evlist__flight_lost(arg, i);
}

static int start_snapshots(struct prec_controls *f, struct prec_session *s,
			   const struct prec_record_opts *o,
			   const struct prec_evlist *el)
{
	struct prec_snapshot_opts so = {
		.rings = prec_evlist__flight_rings(el),
		.writers = prec_session__flight_shards(s)->cpu,
		.cpus = prec_evlist__cpus(el), .nr = prec_evlist__nr_cpus(el),
		.layout = prec_recording__manifest(prec_session__recording(s))->time_layout,
		.kernel_lost = flight_lost, .kernel_lost_arg = (void *)el,
	};
	int err = prec_snapshot__new(&f->snap, &so);

	f->flight = prec_session__flight_shards(s);
	if (err) {
		pr_err("snapshot: %s", strerror(-err));
		return err;
	}
	if (prec_session__flight_shards(s)->tail) {
		err = start_tail(f, s, o, el, false);
		if (err)
			return err;
	}
	f->snapshot = take_snapshot;
	f->snapshot_arg = f;
	/* its lost counts go into the shard totals */
	prec_flight_shards__attach(prec_session__flight_shards(s), f->snap);
	return 0;
}

static int take_aux_snapshot(void *arg)
{
	struct prec_controls *f = arg;

	return prec_aux_snapshot__take(f->aux_snap, false);
}

/* -S: the AUX event's read-only areas, copied into the flight shards. */
static int start_aux_snapshots(struct prec_controls *f, struct prec_session *s,
			       const struct prec_record_opts *o,
			       const struct prec_evlist *el)
{
	struct prec_aux_snapshot_opts ao = {
		.rings = prec_evlist__rings(el), .writers = prec_session__flight_shards(s)->cpu,
		.cpus = prec_evlist__cpus(el), .nr = prec_evlist__nr_cpus(el),
		.fds = prec_evlist__aux_fds(el),
		.fds_per_ring = prec_evlist__nr_tasks(el),
		.size = prec_evlist__aux_snapshot_size(el),
		.clock_page = prec_evlist__clock_page(el),
	};
	int err = prec_aux_snapshot__new(&f->aux_snap, &ao);

	if (err) {
		pr_err("aux snapshot: %s", strerror(-err));
		return err;
	}
	f->aux_on_exit = o->aux_snapshot_on_exit;
	f->snapshot = take_aux_snapshot;
	f->snapshot_arg = f;
	return 0;
}

int prec_controls__start(struct prec_controls *f, struct prec_session *s,
		       const struct prec_record_opts *o,
		       const struct prec_evlist *el)
{
	struct prec_markers_opts mo = { 0 };
	int err;

	f->base_ns = mono_ns();
	if (f->delay_ms > 0)
		f->enable_at_ns = f->base_ns + (uint64_t)f->delay_ms * 1000000ull;
	/* -D 0-B: enabled at once, the first edge due is B's; else said as
	 * perf says it. A first range from below 0 (delay_ms -1): disabled,
	 * as perf's, its first edge due B's too. -D MS and -D -1 said too,
	 * as perf says its initial delay. */
	if (f->nr_edges && !f->edges[0])
		f->next_edge = 1;
	if ((f->nr_edges && (f->edges[0] || f->delay_ms < 0)) || (!f->nr_edges && f->delay_ms))
		pr_info("Events disabled");
	if (prec_evlist__aux_snapshot(el)) {
		err = start_aux_snapshots(f, s, o, el);
		if (err)
			return err;
	}
	if (prec_evlist__overwrite(el)) {
		err = start_snapshots(f, s, o, el);
		if (err)
			return err;
	} else if (prec_session__flight_shards(s)->tail) {
		/* --tail-synthesize: one tail, at the stop */
		err = start_tail(f, s, o, el, true);
		if (err)
			return err;
		f->tail_at = prec_recording__manifest(prec_session__recording(s))->start_time;
		f->tail_w = prec_session__flight_shards(s)->tail;
	}
	if (!f->mk)
		return 0;
	err = marker_ids(el, &f->marker_ids);
	if (err)
		return err;
	/* the side band's */
	mo.writer = prec_recording__writer(prec_session__recording(s), prec_evlist__nr_cpus(el));
	mo.clockid = o->clockid;
	mo.round_ns = o->round_ms * 1000000ull;
	mo.ids = f->marker_ids;
	mo.cpus = prec_evlist__cpus(el);
	mo.nr_cpus = prec_evlist__nr_cpus(el);
	err = prec_markers__start(f->mk, &mo);
	if (err)
		pr_err("markers: starting the reader: %s", strerror(-err));
	return err;
}

bool prec_controls__starts_enabled(const struct prec_controls *f)
{
	return f->delay_ms == 0;
}

/* The next -D time due (the delay's, or a range's edge), 0: none. */
static uint64_t next_due(const struct prec_controls *f)
{
	if (f->enable_at_ns)
		return f->enable_at_ns;
	if (f->next_edge > 0 && f->next_edge < f->nr_edges)
		return f->base_ns + f->edges[f->next_edge] * 1000000ull;
	return 0;
}

int prec_controls__timeout_ms(const struct prec_controls *f)
{
	uint64_t now, due = next_due(f);

	if (f->ctl && prec_control__has_line(f->ctl))
		return 0; /* read, not yet run: the fd may not poll again */
	if (!due)
		return -1;
	now = mono_ns();
	if (now >= due)
		return 0;
	return (int)((due - now + 999999) / 1000000);
}

/* -D ranges: each edge passed, in order; the sampling events enabled at
 * a range's start and disabled at its end (the tracking event stays on,
 * as perf's dummy does), each said as perf says it. Whether the last
 * range has ended: as perf's timer, that stops the recording. */
static bool range_edges(struct prec_controls *f, struct prec_evlist *el)
{
	uint64_t due;

	while ((due = next_due(f)) && mono_ns() >= due) {
		bool enable = !(f->next_edge & 1);

		f->enable_at_ns = 0;
		if (enable)
			prec_evlist__enable(el);
		else
			prec_evlist__disable_sampling(el);
		pr_info("Events %s", enable ? "enabled" : "disabled");
		f->next_edge++;
		if (f->next_edge == f->nr_edges)
			return true;
	}
	return false;
}

static int run_command(struct prec_controls *f, struct prec_evlist *el, int cmd)
{
	int err = 0;

	switch (cmd) {
	case PREC_CTL_ENABLE:
		err = prec_evlist__enable(el);
		f->enable_at_ns = 0;
		if (!err)
			pr_info("Events enabled"); /* as perf says it */
		break;
	case PREC_CTL_DISABLE:
		prec_evlist__disable(el);
		f->enable_at_ns = 0;
		pr_info("Events disabled");
		break;
	case PREC_CTL_SNAPSHOT:
		if (f->snapshot)
			err = f->snapshot(f->snapshot_arg);
		else
			pr_warn("control: snapshot: not a flight recording (no event has overwrite)");
		break;
	case PREC_CTL_SWITCH:
		if (f->cut)
			err = f->cut(f->cut_arg);
		else
			pr_warn("control: switch: not a --switch-output recording");
		break;
	default:
		break;
	}
	pr_debug("control: %s%s", prec_control__name(cmd), err ? " failed" : "");
	return err;
}

int prec_controls__tick(struct prec_controls *f, struct prec_evlist *el)
{
	int cmd, err;

	if (f->nr_edges) {
		if (range_edges(f, el)) {
			pr_debug("-D: the last range ended: stopping, as perf");
			return 1;
		}
	} else if (f->enable_at_ns && mono_ns() >= f->enable_at_ns) {
		f->enable_at_ns = 0;
		prec_evlist__enable(el);
		pr_info("Events enabled");
	}
	/* One command a tick: a writer that sends them faster than they
	 * take (snapshots, cuts) would otherwise hold the loop for good, the
	 * workload's end, signals and the drainers' errors unseen. A line
	 * left in the channel's buffer makes the next poll return at once. */
	cmd = f->ctl ? prec_control__next(f->ctl) : 0;
	if (cmd <= 0)
		return 0;
	err = run_command(f, el, cmd);
	/* Acked once done: 'disable' acked means no event is enabled. */
	if (prec_control__ack(f->ctl))
		pr_warn("control: ack: %s", strerror(errno));
	return cmd == PREC_CTL_STOP || (cmd == PREC_CTL_SWITCH && err);
}

int prec_controls__cut_tail(struct prec_controls *f)
{
	int n;

	if (!f->tail || f->snap || f->tail_done)
		return 0;
	/* Tried once: a tail that failed part way keeps what it wrote,
	 * and is not written again after it. */
	f->tail_done = true;
	/* A start at 0 (a perf clock prec cannot read, -k perf in a KVM
	 * guest): stamped 1, still before every sample (the kernel's clock
	 * stamps them), as perf's at 0; 0 would be no tail at all. */
	n = prec_tail__write(f->tail, f->tail_at ? f->tail_at : 1);
	return n < 0 ? n : 0;
}

int prec_controls__epoch(struct prec_controls *f, struct prec_session *s)
{
	struct prec_shard_writer *w = prec_session__flight_shards(s)->tail;
	struct prec_manifest *m = prec_recording__manifest(prec_session__recording(s));
	int err;

	if (!f->tail || f->snap)
		return 0;
	/* A cut that made no epoch (the recording stops then): the current
	 * one keeps the tail the cut wrote, and gets none at the stop
	 * (tail_done). Told by the writer, not the start time, which is 0 in
	 * every epoch under a perf clock prec cannot read; the new epoch's
	 * was made while the old one's was alive, so they differ. */
	if (!w || w == f->tail_w)
		return 0;
	err = prec_tail__rebind(f->tail, w, m);
	if (err) {
		pr_err("%s/%s: %s", prec_recording__dir(prec_session__recording(s)),
		       PREC_TAIL_SHARD_NAME, strerror(-err));
		/* the old epoch's writer and manifest are gone: no tail is
		 * written at the stop */
		prec_tail__delete(f->tail);
		f->tail = NULL;
		return err;
	}
	f->tail_w = w;
	f->tail_at = m->start_time;
	f->tail_done = false;
	return 0;
}

int prec_controls__stop(struct prec_controls *f)
{
	int n;

	if (f->snap) {
		n = take_snapshot(f);
		f->snapshot = NULL;
		if (n)
			return n;
	}
	/* perf's -Se: the AUX event left disabled after its last copy */
	if (f->aux_snap && f->aux_on_exit) {
		n = prec_aux_snapshot__take(f->aux_snap, true);
		f->snapshot = NULL;
		if (n)
			return n;
	}
	/* --tail-synthesize without snapshots: the tasks as they are at the
	 * end, stamped before every recorded event (as perf's, written at
	 * the end with time 0, name them for all of its samples). */
	n = prec_controls__cut_tail(f);
	if (n < 0)
		return n;
	n = prec_markers__stop(f->mk);

	if (n < 0)
		pr_err("markers: %s", strerror(-n));
	return n < 0 ? n : 0;
}

void prec_controls__exit(struct prec_controls *f)
{
	if (!f)
		return;
	prec_markers__delete(f->mk);
	if (f->snap) {
		struct prec_snapshot_stats st;

		prec_snapshot__stats(f->snap, &st);
		if (st.dropped)
			pr_warn("snapshots: %llu records dropped: the kernel overwrote them while they were copied",
				(unsigned long long)st.dropped);
	}
	if (f->tail) {
		struct prec_tail_stats ts;

		prec_tail__stats(f->tail, &ts);
		pr_debug("tails: %llu written (%llu records), %llu skipped, %llu held back; %.3f ms in all, %.3f ms at most",
			 (unsigned long long)ts.tails, (unsigned long long)ts.records,
			 (unsigned long long)ts.skipped, (unsigned long long)ts.clamped,
			 (double)ts.ns_total / 1e6, (double)ts.ns_max / 1e6);
	}
	if (f->aux_snap) {
		struct prec_aux_snapshot_stats as;

		prec_aux_snapshot__stats(f->aux_snap, &as);
		pr_debug("aux snapshots: %llu (%llu bytes, %llu chunks); an AUX event off %.3f ms at most",
			 (unsigned long long)as.snapshots, (unsigned long long)as.bytes,
			 (unsigned long long)as.chunks, (double)as.disable_ns_max / 1e6);
	}
	prec_aux_snapshot__delete(f->aux_snap);
	prec_tail__delete(f->tail);
	prec_snapshot__delete(f->snap);
	prec_control__close(f->ctl);
	free(f->marker_ids);
	memset(f, 0, sizeof(*f));
}
