// SPDX-License-Identifier: MIT
// --off-cpu at the merge (read/offcpu.c) on records built by hand: the
// manifest's OFFCPU section round trip and its refusals; the perf.data
// writer's manifest less the source; a sleep (S, D) becomes one
// offcpu-time sample at the task's return, with perf's fields; a
// preemption, a kernel thread (no user chain), a second return, another
// event's records do not; thousands of tasks asleep at once (the table
// grows).
#include "read/offcpu.h"
#include "store/store.h"
#include "util/bytes.h"
#include "../lib/test.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ST_OFF offsetof(struct perf_event_attr, sample_type)
#define BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
	      PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define SRC_ID 100u
#define EV_ID 200u
#define STATE_OFF 32u
#define TP_ID 372u

static void add_event(struct prec_manifest *m, uint32_t type, uint64_t config,
		      uint64_t st, const char *name, uint64_t id)
{
	uint8_t attr[128] = { 0 };
	int i;

	prec_st32(attr, type);
	prec_st64(attr + 8, config);
	prec_st64(attr + ST_OFF, st);
	i = prec_manifest__add_event(m, attr, name);
	CHECK(i >= 0);
	CHECK_EQ(prec_manifest__add_event_id(m, (uint32_t)i, id, 0, -1), 0);
	CHECK_EQ(prec_manifest__add_event_id(m, (uint32_t)i, id + 1, 1, -1), 0);
}

/* cpu-clock, the source, offcpu-time, the tracking dummy */
static struct prec_manifest *recording(void)
{
	struct prec_manifest *m = prec_manifest__new();

	CHECK(m != NULL);
	m->sample_type = BASE;
	CHECK_EQ(prec_time_layout__init(&m->time_layout, BASE), 0);
	add_event(m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, BASE | PERF_SAMPLE_PERIOD,
		  "cpu-clock", 1);
	add_event(m, PERF_TYPE_TRACEPOINT, TP_ID, BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW,
		  "sched:sched_switch", SRC_ID);
	add_event(m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_BPF_OUTPUT,
		  BASE | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD, "offcpu-time", EV_ID);
	add_event(m, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, BASE, "dummy", 300);
	CHECK_EQ(prec_manifest__add_tracepoint(m, "sched", "sched_switch", TP_ID,
					       "format: prev_state"), 0);
	m->offcpu.switch1 = 2;
	m->offcpu.event = 2;
	m->offcpu.state_off = STATE_OFF;
	m->offcpu.state_size = 8;
	return m;
}

static int roundtrip(const struct prec_manifest *m, struct prec_manifest **out, const char **why)
{
	void *buf;
	size_t len;
	int err;

	CHECK_EQ(prec_manifest__encode(m, &buf, &len), 0);
	err = prec_manifest__decode(out, buf, len, why);
	free(buf);
	return err;
}

static void test_section(void)
{
	struct prec_manifest *m = recording(), *d = NULL;
	const char *why = NULL;

	CHECK_EQ(roundtrip(m, &d, &why), 0);
	CHECK(!memcmp(&d->offcpu, &m->offcpu, sizeof(m->offcpu)));
	prec_manifest__delete(d);
	m->offcpu.event = 4;
	CHECK_EQ(roundtrip(m, &d, &why), -EBADMSG);
	CHECK(!strcmp(why, "offcpu: bad event index"));
	m->offcpu.event = 1; /* the source itself */
	CHECK_EQ(roundtrip(m, &d, &why), -EBADMSG);
	m->offcpu.event = 0; /* cpu-clock: no CALLCHAIN */
	CHECK_EQ(roundtrip(m, &d, &why), -EBADMSG);
	CHECK(!strcmp(why, "offcpu: events' sample_type or prev_state field not as recorded"));
	m->offcpu.event = 2;
	m->offcpu.state_size = 2;
	CHECK_EQ(roundtrip(m, &d, &why), -EBADMSG);
	m->offcpu.state_size = 8;
	prec_manifest__delete(m);
}

/* A source sample: IDENTIFIER IP TID TIME CPU CALLCHAIN RAW. */
static uint32_t src_sample(uint8_t *p, uint32_t tid, uint64_t time, uint64_t state,
			   const uint64_t *chain, uint32_t nr)
{
	uint32_t at = 56 + nr * 8, raw = 68; /* 4 + 68: 8-aligned */

	memset(p, 0, 1024);
	prec_st32(p, PERF_RECORD_SAMPLE);
	prec_st64(p + 8, SRC_ID + 1);
	prec_st32(p + 24, tid);
	prec_st32(p + 28, tid);
	prec_st64(p + 32, time);
	prec_st64(p + 48, nr);
	for (uint32_t i = 0; i < nr; i++)
		prec_st64(p + 56 + i * 8, chain[i]);
	prec_st32(p + at, raw);
	prec_st64(p + at + 4 + STATE_OFF, state);
	at += 4 + raw;
	prec_st16(p + 6, (uint16_t)at);
	return at;
}

/* A switch record with the prec trailer (tid, time, cpu, identifier). */
static uint32_t switch_rec(uint8_t *p, uint32_t type, bool out, uint32_t tid,
			   uint64_t time, uint32_t cpu, uint64_t id)
{
	uint32_t len = type == PERF_RECORD_SWITCH ? 40 : 48;

	memset(p, 0, 64);
	prec_st32(p, type);
	prec_st16(p + 4, out ? PERF_RECORD_MISC_SWITCH_OUT : 0);
	prec_st16(p + 6, (uint16_t)len);
	prec_st32(p + len - 32, tid);
	prec_st32(p + len - 28, tid);
	prec_st64(p + len - 24, time);
	prec_st32(p + len - 16, cpu);
	prec_st64(p + len - 8, id);
	return len;
}

static int feed(struct prec_offcpu *oc, const uint8_t *p, uint32_t len, uint64_t time,
		const uint8_t **out, uint32_t *out_len)
{
	const void *o = NULL;
	int n = prec_offcpu__filter(oc, p, len, time, &o, out_len);

	*out = o;
	return n;
}

static void test_convert(void)
{
	static const uint64_t chain[] = { PERF_CONTEXT_USER, 0x400100, 0x400200 };
	struct prec_manifest *m = recording(), shown;
	struct prec_offcpu *oc;
	uint8_t rec[1024];
	const uint8_t *o;
	uint32_t len, olen;
	uint64_t total;

	shown = *m;
	CHECK_EQ(prec_offcpu__new(&oc, m, &shown), 0);
	CHECK(oc != NULL);
	CHECK_EQ(shown.nr_events, 3u);
	CHECK(!strcmp(shown.events[1].name, "offcpu-time"));
	CHECK_EQ(shown.nr_tracepoints, 0u);
	/* another event's sample and switch records go out as they are */
	len = switch_rec(rec, PERF_RECORD_SWITCH_CPU_WIDE, false, 42, 10, 0, 300);
	CHECK_EQ(feed(oc, rec, len, 10, &o, &olen), 1);
	len = src_sample(rec, 42, 1000, 1, chain, 3);
	prec_st64(rec + 8, 1);
	CHECK_EQ(feed(oc, rec, len, 1000, &o, &olen), 1);
	/* a sleep: S out at 1000, the switch-out record, back in at 5000 */
	len = src_sample(rec, 42, 1000, 1, chain, 3);
	CHECK_EQ(feed(oc, rec, len, 1000, &o, &olen), 0);
	len = switch_rec(rec, PERF_RECORD_SWITCH, true, 42, 1001, 0, SRC_ID);
	CHECK_EQ(feed(oc, rec, len, 1001, &o, &olen), 0);
	len = switch_rec(rec, PERF_RECORD_SWITCH, false, 42, 5000, 1, SRC_ID + 1);
	CHECK_EQ(feed(oc, rec, len, 5000, &o, &olen), 2);
	CHECK_EQ(olen, 8u * 11);
	CHECK_EQ(prec_ld32(o), (uint32_t)PERF_RECORD_SAMPLE);
	CHECK_EQ(prec_ld16(o + 4), (uint16_t)PERF_RECORD_MISC_USER);
	CHECK_EQ(prec_ld16(o + 6), (uint16_t)olen);
	CHECK_EQ(prec_ld64(o + 8), (uint64_t)EV_ID);
	CHECK_EQ(prec_ld64(o + 16), (uint64_t)0x400100);
	CHECK_EQ(prec_ld32(o + 28), 42u);
	CHECK_EQ(prec_ld64(o + 32), (uint64_t)5000);
	CHECK_EQ(prec_ld32(o + 40), 1u);
	CHECK_EQ(prec_ld64(o + 48), (uint64_t)4000);
	CHECK_EQ(prec_ld64(o + 56), (uint64_t)3);
	CHECK(!memcmp(o + 64, chain, sizeof(chain)));
	/* back again without a sleep between: nothing */
	len = switch_rec(rec, PERF_RECORD_SWITCH, false, 42, 6000, 1, SRC_ID);
	CHECK_EQ(feed(oc, rec, len, 6000, &o, &olen), 0);
	/* D counts; preempted (TASK_REPORT_MAX), a kernel thread do not */
	len = src_sample(rec, 43, 7000, 2, chain, 3);
	CHECK_EQ(feed(oc, rec, len, 7000, &o, &olen), 0);
	len = switch_rec(rec, PERF_RECORD_SWITCH_CPU_WIDE, false, 43, 7500, 0, SRC_ID);
	CHECK_EQ(feed(oc, rec, len, 7500, &o, &olen), 2);
	CHECK_EQ(prec_ld64(o + 48), (uint64_t)500);
	len = src_sample(rec, 42, 8000, 0x100, chain, 3);
	CHECK_EQ(feed(oc, rec, len, 8000, &o, &olen), 0);
	len = src_sample(rec, 44, 8000, 1, chain, 0);
	CHECK_EQ(feed(oc, rec, len, 8000, &o, &olen), 0);
	for (uint32_t t = 42; t <= 44; t++) {
		len = switch_rec(rec, PERF_RECORD_SWITCH, false, t, 9000, 0, SRC_ID);
		CHECK_EQ(feed(oc, rec, len, 9000, &o, &olen), 0);
	}
	/* a sleep preempted in between (S, then R out): forgotten */
	len = src_sample(rec, 42, 9100, 1, chain, 3);
	CHECK_EQ(feed(oc, rec, len, 9100, &o, &olen), 0);
	len = src_sample(rec, 42, 9200, 0, chain, 3);
	CHECK_EQ(feed(oc, rec, len, 9200, &o, &olen), 0);
	len = switch_rec(rec, PERF_RECORD_SWITCH, false, 42, 9300, 0, SRC_ID);
	CHECK_EQ(feed(oc, rec, len, 9300, &o, &olen), 0);
	CHECK_EQ(prec_offcpu__samples(oc, &total), (uint64_t)2);
	CHECK_EQ(total, (uint64_t)4500);
	/* 5000 tasks asleep at once, each back 10 ns later */
	for (uint32_t t = 1000; t < 6000; t++) {
		len = src_sample(rec, t, 10000 + t, 1, chain, 3);
		CHECK_EQ(feed(oc, rec, len, 10000 + t, &o, &olen), 0);
	}
	for (uint32_t t = 1000; t < 6000; t++) {
		len = switch_rec(rec, PERF_RECORD_SWITCH, false, t, 10010 + t, 0, SRC_ID);
		CHECK_EQ(feed(oc, rec, len, 10010 + t, &o, &olen), 2);
		CHECK_EQ(prec_ld64(o + 48), (uint64_t)10);
	}
	CHECK_EQ(prec_offcpu__samples(oc, &total), (uint64_t)5002);
	prec_offcpu__delete(oc);
	/* without the section: nothing to convert, shown as it was */
	m->offcpu.switch1 = 0;
	shown = *m;
	CHECK_EQ(prec_offcpu__new(&oc, m, &shown), 0);
	CHECK(oc == NULL && shown.nr_events == 4);
	prec_manifest__delete(m);
}

int main(void)
{
	test_section();
	test_convert();
	printf("ok\n");
	return 0;
}
