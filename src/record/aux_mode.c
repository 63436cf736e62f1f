// SPDX-License-Identifier: MIT
// perf's modes of an AUX area event: -S (snapshot mode: the AUX area
// mapped read-only, overwritten by the kernel, copied on a trigger by
// aux_snapshot.c) and --aux-sample (samples of the AUX event's group
// members carry the newest AUX bytes). The grammar, the checks, the sizes
// and the attrs as perf 6.1 has them (tools/perf/util/auxtrace.c, the
// arch recording_options of intel_pt, cs_etm and arm_spe); facts from
// perf's sources, not its code.
#include "record/aux_mode.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/auxpmu.h"
#include "record/evlist.h"
#include "record/options.h"
#include "record/pmu_sysfs.h"
#include "util/log.h"

/* A whole C integer (base 0), no sign; empty is 0. */
static int parse_size(const char *s, uint64_t *v)
{
	char *end;

	*v = 0;
	if (!*s)
		return 0;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

int prec_aux_mode__parse_snapshot(const char *arg, bool *on_exit, uint64_t *size)
{
	*on_exit = false;
	*size = 0;
	if (!arg)
		return 0;
	/* perf's PMU-agnostic option first, then the PMU's: the size */
	if (*arg == 'e') {
		*on_exit = true;
		arg++;
	}
	return parse_size(arg, size);
}

int prec_aux_mode__parse_sample(const char *arg, uint32_t *size)
{
	uint64_t v;

	*size = 0;
	if (!arg)
		return 0;
	if (parse_size(arg, &v) || v > UINT32_MAX)
		return -EINVAL;
	*size = (uint32_t)v;
	return 0;
}

static int aux_event(const struct prec_evsel *evsel, int nr)
{
	for (int e = 0; e < nr; e++)
		if (evsel[e].aux != PREC_AUX_NONE)
			return e;
	return -1;
}

/* perf's intel_pt in sample mode: psb_period 0 (a PSB every 2 KiB, so
 * that a 4 KiB sample holds one) unless the user chose one. prec keeps no
 * record of the terms written: a psb_period equal to perf's default is
 * taken as not chosen. */
static void intel_pt_sample_psb(const char *pmu_root, struct prec_evsel *ev)
{
	uint64_t mask = prec_pmu_sysfs__format_mask(pmu_root, ev->pmu, "psb_period");
	struct perf_event_attr dflt = { 0 };
	uint64_t period;

	prec_auxpmu__default_config(&dflt, pmu_root, ev->pmu, &period);
	if (mask && (ev->attr.config & mask) == (dflt.config & mask))
		ev->attr.config &= ~mask;
}

/* --aux-sample: the size on every member of a group the AUX event leads,
 * perf's checks on the result. */
static int set_samples(struct prec_evsel *evsel, int nr, const struct prec_record_opts *o)
{
	uint32_t sz = o->aux_sample_size ? o->aux_sample_size : PREC_AUX_SAMPLE_DEFAULT;
	int members = 0;

	if (sz > PREC_AUX_SAMPLE_MAX) {
		pr_err("option --aux-sample: AUX area sample size %u too big, max. %u (a sample is at most 64 KiB)",
		       sz, PREC_AUX_SAMPLE_MAX);
		return -EINVAL;
	}
	for (int e = 0; e < nr; e++) {
		struct prec_evsel *ev = &evsel[e];

		if (ev->leader < 0 || ev->leader == e ||
		    evsel[ev->leader].aux == PREC_AUX_NONE)
			continue;
		ev->attr.aux_sample_size = sz;
		members++;
	}
	if (!members) {
		pr_err("option --aux-sample: AUX area sampling requires an AUX area event group leader plus other events to which to add samples (e.g. -e '{intel_pt//,cpu-clock}')");
		return -EINVAL;
	}
	return 0;
}

int prec_aux_mode__check(struct prec_evsel *evsel, int nr, const char *pmu_root,
			 const struct prec_record_opts *o)
{
	int e;

	if (!o->aux_snapshot && !o->aux_sample)
		return 0;
	e = aux_event(evsel, nr);
	if (e < 0) {
		/* perf's refusals, with what would do */
		pr_err(o->aux_snapshot ?
		       "option -S/--snapshot: no AUX area tracing to snapshot (give an intel_pt//, arm_spe// or cs_etm// event)" :
		       "option --aux-sample: no AUX area event to sample (give an intel_pt//, arm_spe// or cs_etm// event)");
		return -EINVAL;
	}
	if (o->aux_snapshot && o->aux_sample) {
		pr_err("option -S/--snapshot: snapshot mode and --aux-sample cannot be used together (as perf)");
		return -EINVAL;
	}
	/* as --overwrite: both keep the newest data in a bounded room */
	if (o->aux_snapshot && o->max_disk) {
		pr_err("option -S/--snapshot: not with --max-disk (give one of them)");
		return -EINVAL;
	}
	if (!o->aux_sample)
		return 0;
	if (evsel[e].aux == PREC_AUX_INTEL_PT)
		intel_pt_sample_psb(pmu_root, &evsel[e]);
	return set_samples(evsel, nr, o);
}

/* bytes up to a power of two of pages */
static uint64_t pow2_pages(uint64_t bytes, uint64_t ps)
{
	uint64_t pages = (bytes + ps - 1) / ps, p = 1;

	while (p < pages)
		p <<= 1;
	return p * ps;
}

/* intel_pt's PSB period in bytes as perf reckons it for its warning. */
static uint64_t psb_bytes(const char *pmu_root, const struct prec_evsel *ev)
{
	uint64_t mask = prec_pmu_sysfs__format_mask(pmu_root, ev->pmu, "psb_period");
	uint64_t v = 0;
	char text[16];

	if (prec_pmu_sysfs__read_attr(pmu_root, ev->pmu, "caps/topa_multiple_entries",
				      text, sizeof(text)) <= 0 || atoi(text) == 0)
		return 256; /* early hardware, with extra PSBs */
	for (int b = 0, i = 0; b < 64; b++)
		if (mask & (1ull << b))
			v |= ((ev->attr.config >> b) & 1) << i++;
	return 1ull << (v + 11);
}

/* What perf 6.1's intel_pt recording sets on the event (seen in perf
 * -vv on a GenuineIntel CPU, tests/vm/auxattr.sh): exclude_guest clear
 * (a :u included; prec keeps a G/H modifier's), and while the area is
 * drained an aux_watermark of a quarter of it. */
static void intel_pt_attrs(bool aux_overwrite, struct prec_evsel *ev, uint64_t bytes)
{
	if (!ev->exclude_GH)
		ev->attr.exclude_guest = 0;
	if (!aux_overwrite)
		ev->attr.aux_watermark = (uint32_t)(bytes / 4 > UINT32_MAX ? UINT32_MAX : bytes / 4);
}

int64_t prec_aux_mode__bytes(struct prec_evsel *evsel, int nr, int e,
			     const char *pmu_root, const struct prec_record_opts *o,
			     size_t dflt, uint64_t *snapshot_size)
{
	struct prec_evsel *ev = &evsel[e];
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t page = ps > 0 ? (uint64_t)ps : 4096;
	uint64_t bytes = o->aux_bytes, snap = o->aux_snapshot_size, min = PREC_AUX_MIN_BYTES;
	bool aux_overwrite = o->aux_snapshot || o->aux_sample;

	if (aux_overwrite)
		min = PREC_AUX_MIN_BYTES_OVERWRITE;
	if (o->aux_snapshot) {
		if (!bytes)
			bytes = snap ? pow2_pages(snap, page) : dflt;
		if (!snap)
			snap = bytes;
		if (snap > bytes) {
			pr_err("option -S/--snapshot: snapshot size %llu must not be greater than the AUX area (%llu bytes, --aux-size)",
			       (unsigned long long)snap, (unsigned long long)bytes);
			return -EINVAL;
		}
		*snapshot_size = snap;
		if (ev->aux == PREC_AUX_INTEL_PT && snap <= psb_bytes(pmu_root, ev) + 256)
			pr_warn("event '%s': snapshot size %llu may be too small for the PSB period (%llu)",
				ev->name, (unsigned long long)snap,
				(unsigned long long)psb_bytes(pmu_root, ev));
	} else if (o->aux_sample && ev->aux == PREC_AUX_INTEL_PT && !bytes) {
		/* intel_pt's sample mode: an area as big as the largest sample */
		for (int i = 0; i < nr; i++)
			if (evsel[i].attr.aux_sample_size > bytes)
				bytes = evsel[i].attr.aux_sample_size;
		bytes = pow2_pages(bytes, page);
	}
	if (!bytes)
		bytes = dflt;
	if (bytes < min) {
		pr_err("option --aux-size / -m ,AUX: %llu bytes: the AUX area of '%s' must be at least %llu KiB",
		       (unsigned long long)bytes, ev->name, (unsigned long long)min / 1024);
		return -EINVAL;
	}
	if (ev->aux == PREC_AUX_INTEL_PT)
		intel_pt_attrs(aux_overwrite, ev, bytes);
	return (int64_t)bytes;
}
