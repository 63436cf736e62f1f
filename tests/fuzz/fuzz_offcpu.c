// SPDX-License-Identifier: MIT
// Fuzz target: the merge's --off-cpu conversion (prec_offcpu__filter), fed
// the records a shard may hold. Byte 0: prev_state's offset in the raw
// data (0..63), bit 7 its size (8, else 4); byte 1: whether the recording
// has CGROUP. Then records, each a u16 length (>= 8, cut to what is left)
// and its bytes, copied into a buffer of exactly that size (ASan sees a
// read past it), the header's size set to it and its id pointed, by the
// record's byte 4 (its misc's cpumode), at the source, offcpu-time or
// another event. Every sample made must be whole, a SAMPLE of
// offcpu-time, and read to its last byte.
#include "fuzz_common.h"

#include "read/offcpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define ST_OFF 24

static void add_event(struct prec_manifest *m, uint32_t type, uint64_t st, const char *name,
		      uint64_t id)
{
	uint8_t attr[128] = { 0 };
	int i;

	prec_st32(attr, type);
	prec_st64(attr + ST_OFF, st);
	i = prec_manifest__add_event(m, attr, name);
	if (i < 0 || prec_manifest__add_event_id(m, (uint32_t)i, id, 0, -1))
		__builtin_trap();
}

static struct prec_manifest *recording(unsigned int ctl, unsigned int cg)
{
	struct prec_manifest *m = prec_manifest__new();
	uint64_t c = cg & 1 ? PERF_SAMPLE_CGROUP : 0;

	if (!m)
		__builtin_trap();
	m->sample_type = BASE;
	add_event(m, PERF_TYPE_SOFTWARE, BASE | PERF_SAMPLE_PERIOD, "cpu-clock", 1);
	add_event(m, PERF_TYPE_TRACEPOINT, BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW | c,
		  "sched:sched_switch", 2);
	add_event(m, PERF_TYPE_SOFTWARE, BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD | c,
		  "offcpu-time", 3);
	m->offcpu.switch1 = 2;
	m->offcpu.event = 2;
	m->offcpu.state_off = (uint16_t)(ctl & 63);
	m->offcpu.state_size = ctl & 128 ? 8 : 4;
	return m;
}

static void one(struct prec_offcpu *oc, const uint8_t *rec, uint16_t len)
{
	uint8_t *p = malloc(len);
	const void *out = NULL;
	uint32_t olen = 0, sum = 0;
	int r;

	if (!p)
		__builtin_trap();
	memcpy(p, rec, len);
	prec_st16(p + 6, len);
	/* the id where a SAMPLE and a trailer have it */
	if (len >= 16 && prec_ld32(p) == PERF_RECORD_SAMPLE)
		prec_st64(p + 8, 1 + rec[4] % 3);
	else if (len >= 8 + 32)
		prec_st64(p + len - 8, 1 + rec[4] % 3);
	r = prec_offcpu__filter(oc, p, len, prec_ld64(p + (len >= 40 ? len - 24 : 0)), &out, &olen);
	if (r < 0 || r > 2)
		__builtin_trap();
	if (r == 2) {
		const uint8_t *o = out;

		if (olen < 64 || olen % 8 || prec_ld16(o + 6) != olen ||
		    prec_ld32(o) != PERF_RECORD_SAMPLE || prec_ld64(o + 8) != 3)
			__builtin_trap();
		for (uint32_t i = 0; i < olen; i++)
			sum += o[i];
	}
	free(p);
	(void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prec_manifest *m, shown;
	struct prec_offcpu *oc;
	size_t at = 2;

	fz_quiet();
	if (size < 2)
		return 0;
	m = recording(data[0], data[1]);
	shown = *m;
	if (prec_offcpu__new(&oc, m, &shown) || !oc || shown.nr_events != 2)
		__builtin_trap();
	while (size - at >= 2) {
		uint16_t len = (uint16_t)(data[at] | data[at + 1] << 8);

		at += 2;
		if (len > size - at)
			len = (uint16_t)(size - at);
		if (len < 8)
			break;
		one(oc, data + at, len);
		at += len;
	}
	prec_offcpu__delete(oc);
	prec_manifest__delete(m);
	return 0;
}
