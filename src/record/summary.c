// SPDX-License-Identifier: MIT
// The summary at the end of a recording: perf-like totals on stderr; when
// records were lost, which CPU, why when it is known, and what to change.
#include "record/summary.h"

#include <stdio.h>
#include <unistd.h>

#include "record/recording_totals.h"
#include "store/store.h"
#include "util/log.h"

/* One line per CPU that lost records, over the whole recording (with
 * --switch-output every epoch's: the lines add up to the total, where the
 * last epoch's manifest has its own alone). A drainer held by the disk
 * (waiting for staging room, or for --max-disk's drops made in its own
 * thread when the trimmer fell behind) could not drain: that, not the
 * ring size, is then the thing to change. */
static void warn_cpu(const struct prec_session_report *r, int c)
{
	const struct prec_manifest_shard *sh = &r->m->shards[c];
	uint64_t n = r->cpu_lost[c];

	if (!n)
		return;
	if (r->writer_wait[c].ns >= 1000000 && r->writer_wait[c].staging)
		pr_warn("cpu%d: %llu records LOST: the ring (%zu pages) filled while its drainer waited up to %.0f ms for the disk, its staging grown to %llu MiB (a bigger --max-staging holds longer stalls)",
			sh->cpu, (unsigned long long)n, r->pages,
			(double)r->writer_wait[c].ns / 1e6,
			(unsigned long long)(r->writer_wait[c].staging >> 20));
	else if (r->writer_wait[c].ns >= 1000000)
		pr_warn("cpu%d: %llu records LOST: the ring (%zu pages) filled while its drainer waited up to %.0f ms for the disk%s",
			sh->cpu, (unsigned long long)n, r->pages,
			(double)r->writer_wait[c].ns / 1e6,
			r->direct_io ? " (--max-staging lets the staging, --no-direct-io the page cache absorb that)" : "");
	else
		pr_warn("cpu%d: %llu records LOST: the ring (%zu pages) filled faster than it was drained",
			sh->cpu, (unsigned long long)n, r->pages);
}

void prec_summary__print(const struct prec_session_report *r)
{
	double secs = (double)(r->stop_ns - r->enable_ns) / 1e9;
	double mb = (double)r->bytes / 1e6;
	char lz4[64] = "";
	uint64_t raw = 0, stored = 0, drained_lost = 0;

	if (r->stop_ns <= r->enable_ns)
		secs = 0;
	for (uint32_t c = 0; c < r->m->nr_shards; c++) {
		raw += r->m->shards[c].raw_bytes;
		stored += r->m->shards[c].bytes;
	}
	if (raw > stored && stored)
		snprintf(lz4, sizeof(lz4), " (lz4: %.3f MB raw, %.1fx)",
			 (double)raw / 1e6, (double)raw / (double)stored);
	/* a terminal whose output is stopped would hold the exit */
	if (!prec_log__tty_ready(STDERR_FILENO, 1000))
		return;
	fprintf(stderr, "[ prec record: %u shards, %llu records, %.3f MB written%s (%.1f MB/s), %llu lost, manifest in %.1f ms ]\n",
		r->m->nr_shards, (unsigned long long)r->records, mb, lz4,
		secs > 0 ? mb / secs : 0.0, (unsigned long long)r->lost,
		(double)r->manifest_ns / 1e6);
	if (r->switch_output)
		fprintf(stderr, "[ prec record: %u epoch%s, the last in %s ]\n",
			r->epochs, r->epochs == 1 ? "" : "s", r->dir);
	/* After a drainer failure its ring overflowed by design: the ring
	 * size advice would mislead. */
	if (!r->lost || r->drain_failed)
		return;
	for (int c = 0; c < r->nr_cpus; c++)
		warn_cpu(r, c);
	for (int c = 0; r->flight_cpu_shard && c < r->nr_cpus; c++) {
		const struct prec_manifest_shard *sh = &r->m->shards[r->flight_cpu_shard[c]];

		if (prec_manifest_shard__lost(sh))
			pr_warn("cpu%d: %llu records LOST in the flight ring: the kernel drops what comes while the ring is paused for a snapshot",
				sh->cpu, (unsigned long long)prec_manifest_shard__lost(sh));
	}
	/* A flight ring loses records by design (pauses), not for want of
	 * ring room: the advice is for the drained rings. */
	for (int c = 0; c < r->nr_cpus; c++)
		drained_lost += r->cpu_lost[c];
	if (!drained_lost)
		return;
	/* -m sizes a flight recording's drained rings only when they hold
	 * drained events besides the side band. */
	if (r->flight_snapshots) {
		pr_warn("%llu drained records lost in all: the drained rings (%zu pages) filled faster than their drainers ran%s",
			(unsigned long long)drained_lost, r->pages,
			r->rt_prio ? "" : "; SCHED_FIFO drainers (-r 1) run sooner");
		return;
	}
	pr_warn("%llu records lost in all: use a bigger ring (-m %zu or more)%s, fewer events, or a lower -F",
		(unsigned long long)r->lost, r->pages * 4,
		r->rt_prio ? "" : ", SCHED_FIFO drainers (-r 1)");
}
