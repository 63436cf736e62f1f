// SPDX-License-Identifier: MIT
// The totals of a closing recording: each shard's writer figures and
// losses into its manifest entry and the sums the summary prints; with
// --switch-output, losses counted from the epoch's start, epochs carried.

#include "record/recording_totals.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/drainer.h"
#include "record/evlist.h"
#include "record/evlist_manifest.h"
#include "record/evlist_open.h"
#include "store/store.h"
#include "util/log.h"

int prec_recording_totals__init(struct prec_recording_totals *t, const int *cpus, int nr,
				bool epochs)
{
	*t = (struct prec_recording_totals){ .nr_cpus = nr, .cpus = cpus };
	t->writer_wait = calloc((size_t)nr, sizeof(*t->writer_wait));
	t->cpu_lost = calloc((size_t)nr, sizeof(*t->cpu_lost));
	if (epochs)
		t->epoch_base = calloc((size_t)nr, sizeof(*t->epoch_base));
	return t->writer_wait && t->cpu_lost && (t->epoch_base || !epochs) ? 0 : -ENOMEM;
}

/* A shard's writer totals into its manifest entry and the totals; ws is
 * filled for the caller's own figures. */
static void count_writer(struct prec_recording_totals *t, struct prec_manifest_shard *sh,
			 struct prec_shard_writer *w, struct prec_shard_writer_stats *ws)
{
	prec_shard_writer__count(w, sh, ws);
	t->records += sh->records;
	t->bytes += ws->file_bytes;
}

/* --switch-output: CPU index c's losses since its epoch began, from the
 * drainer's totals (at a cut, those it had as it moved over) and the
 * events' PERF_FORMAT_LOST count read now. The totals get what the
 * larger view since the recording's start grew by: the two views share
 * out a drop between epochs differently (one before a cut whose LOST
 * record came after it is in this epoch's PERF_FORMAT_LOST and the next
 * one's LOST), so the larger of each epoch's, added up, counts it twice. */
static void epoch_lost(struct prec_recording_totals *t, int c,
		       const struct prec_drainer_stats *ds, uint64_t evlost,
		       struct prec_manifest_shard *sh)
{
	uint64_t *b = t->epoch_base[c];
	uint64_t lost = ds->lost, ls = ds->lost_samples;
	uint64_t all = lost > ls + evlost ? lost : ls + evlost;
	uint64_t grew = all > b[3] ? all - b[3] : 0;

	sh->lost = lost - b[0];
	sh->lost_samples = ls - b[1] + (evlost >= b[2] ? evlost - b[2] : 0);
	b[0] = lost;
	b[1] = ls;
	b[2] = evlost;
	t->lost += grew;
	t->cpu_lost[c] += grew;
	b[3] = all > b[3] ? all : b[3];
}

/* ms from the stop to a drainer's CLOCK_MONOTONIC time t (0: never). */
static double since_stop_ms(uint64_t stop_ns, uint64_t t)
{
	return t > stop_ns ? (double)(t - stop_ns) / 1e6 : 0.0;
}

/* -v: drainer index c's figures at the stop, by its CPU's number. */
static void drainer_debug(const struct prec_recording_totals *t, int c,
			  const struct prec_drainer_stats *ds, uint64_t stop_ns)
{
	pr_debug("drainer cpu%d: %llu wake-ups, %llu chunks, %llu records, %llu bytes; stop seen at +%.1f ms, drained +%.1f, fsynced +%.1f\n",
		 t->cpus[c], (unsigned long long)ds->wakeups,
		 (unsigned long long)ds->chunks,
		 (unsigned long long)ds->records,
		 (unsigned long long)ds->bytes,
		 since_stop_ms(stop_ns, ds->stop_seen_ns), since_stop_ms(stop_ns, ds->drained_ns),
		 since_stop_ms(stop_ns, ds->flushed_ns));
}

static void shard_totals(struct prec_recording_totals *t, struct prec_manifest_shard *sh,
			 struct prec_shard_writer *w, const struct prec_evlist *el,
			 const struct prec_drainer_handover *hand, int c, uint64_t stop_ns)
{
	struct prec_shard_writer_stats ws;

	count_writer(t, sh, w, &ws);
	if (c < t->nr_cpus)
		t->writer_wait[c] = (struct prec_writer_wait){ ws.wait_ns_max, ws.staging_grown };
	if (c < t->nr_cpus && hand[c].present) {
		const struct prec_drainer_stats *ds = &hand[c].st;
		uint64_t evlost = prec_evlist__lost(el, c);

		sh->lost = ds->lost;
		sh->lost_samples = ds->lost_samples + evlost;
		if (stop_ns) /* the stop's handover has the drainer's stats */
			drainer_debug(t, c, ds, stop_ns);
		if (t->epoch_base) {
			epoch_lost(t, c, ds, evlost, sh);
			return;
		}
	}
	/* A ring overflow shows both as a LOST record and in the events'
	 * PERF_FORMAT_LOST count: the larger of the two, not the sum. */
	t->lost += prec_manifest_shard__lost(sh);
	if (c < t->nr_cpus)
		t->cpu_lost[c] += prec_manifest_shard__lost(sh);
}

/* Each id's PERF_FORMAT_LOST count into m's events (perf's LOST_SAMPLES
 * records), with --switch-output what it grew by since the epoch began. */
static void id_lost(struct prec_recording_totals *t, struct prec_manifest *m,
		    const struct prec_evlist *el)
{
	int err;

	if (t->epoch_base && !t->id_told) {
		size_t n = (size_t)prec_evlist__nr_events(el) *
			   (size_t)prec_evlist__nr_cpus(el) * (size_t)prec_evlist__nr_tasks(el);

		t->id_told = calloc(n ? n : 1, sizeof(*t->id_told));
		if (!t->id_told) {
			pr_err("manifest: each id's lost count: %s", strerror(ENOMEM));
			return;
		}
	}
	err = prec_evlist__describe_lost(el, m, t->id_told);
	if (err)
		pr_err("manifest: each id's lost count: %s", strerror(-err));
}

void prec_recording_totals__count(struct prec_recording_totals *t, struct prec_manifest *m,
				  struct prec_shard_writer *const *writers,
				  const struct prec_evlist *el,
				  const struct prec_drainer_handover *hand, uint64_t stop_ns)
{
	t->records = t->bytes = t->lost = 0;
	for (int c = 0; c <= t->nr_cpus; c++)
		if (writers[c])
			shard_totals(t, &m->shards[c], writers[c], el, hand, c, stop_ns);
	id_lost(t, m, el);
}

void prec_recording_totals__add(struct prec_recording_totals *t, uint64_t records,
				uint64_t bytes, uint64_t lost)
{
	t->records += records;
	t->bytes += bytes;
	t->lost += lost;
}

uint64_t prec_recording_totals__bytes(const struct prec_recording_totals *t)
{
	return t->bytes;
}

void prec_recording_totals__carry(struct prec_recording_totals *t)
{
	t->prior_records += t->records;
	t->prior_bytes += t->bytes;
	t->prior_lost += t->lost;
}

void prec_recording_totals__sum(struct prec_recording_totals *t)
{
	prec_recording_totals__add(t, t->prior_records, t->prior_bytes, t->prior_lost);
}

void prec_recording_totals__figures(const struct prec_recording_totals *t, uint64_t *records,
				    uint64_t *bytes, uint64_t *lost)
{
	*records = t->records;
	*bytes = t->bytes;
	*lost = t->lost;
}

const struct prec_writer_wait *prec_recording_totals__writer_wait(
	const struct prec_recording_totals *t)
{
	return t->writer_wait;
}

const uint64_t *prec_recording_totals__cpu_lost(const struct prec_recording_totals *t)
{
	return t->cpu_lost;
}

void prec_recording_totals__exit(struct prec_recording_totals *t)
{
	free(t->writer_wait);
	free(t->epoch_base);
	free(t->cpu_lost);
	free(t->id_told);
	t->cpu_lost = NULL;
	t->id_told = NULL;
	t->writer_wait = NULL;
	t->epoch_base = NULL;
}
