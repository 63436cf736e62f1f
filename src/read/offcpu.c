// SPDX-License-Identifier: MIT
// The merge's off-CPU conversion: a table of the tasks now asleep (when
// each left its CPU, the user stack it left), filled by the source's
// sched_switch samples and emptied by its switch-in records, each of which
// becomes one offcpu-time sample.
#include "read/offcpu.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include "store/store.h"
#include "util/bytes.h"

/* Entries of a call chain kept: the source asks the kernel for 32 user
 * frames (record/offcpu.h); its context markers come on top. A longer
 * chain (not one the recorder asked for) is cut here. */
#define CHAIN_MAX 64
/* First table size; it doubles at half full, so a recording of n tasks
 * grows it log2(n / 512) times. */
#define SLOTS_FIRST 1024u
/* The sample_id trailer of every prec record: tid, time, cpu, identifier */
#define TRAILER 32u

/* The tracepoint's prev_state as sched_switch reports it (one bit of
 * TASK_REPORT): perf 6.1 counts TASK_INTERRUPTIBLE and
 * TASK_UNINTERRUPTIBLE sleeps only. */
#define STATE_S 1u
#define STATE_D 2u

struct slot {
	uint32_t key;          /* tid + 1; 0: free */
	uint32_t nr;           /* chain entries */
	uint64_t t_out;        /* when it left its CPU asleep; 0: it is back */
	uint64_t cgroup;
	uint64_t chain[CHAIN_MAX];
};

struct prec_offcpu {
	uint64_t *ids;         /* the source's ids, sorted */
	uint32_t nr_ids;
	uint64_t event_id;     /* offcpu-time's first id, as perf writes it */
	bool cgroup;           /* both carry PERF_SAMPLE_CGROUP */
	uint16_t state_off, state_size;
	struct slot *slots;
	uint32_t nr_slots, used;
	uint64_t samples, total_ns;
	struct prec_manifest_event *events;          /* shown's */
	struct prec_manifest_tracepoint *tracepoints; /* shown's */
	uint64_t out[9 + CHAIN_MAX]; /* header, 7 fields, chain, cgroup */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool is_source(const struct prec_offcpu *oc, uint64_t id)
{
	uint32_t lo = 0, hi = oc->nr_ids;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (oc->ids[mid] == id)
			return true;
		if (oc->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Fibonacci hashing, its high bits folded down: tids that differ in high
 * bits only still spread over a small table. */
static uint32_t hash(uint32_t key)
{
	uint32_t h = key * 2654435761u;

	return h ^ (h >> 16);
}

/* The slot of tid, or the free one where it goes; the table is never full. */
static struct slot *find(struct slot *slots, uint32_t nr, uint32_t tid)
{
	uint32_t key = tid + 1, i = hash(key) & (nr - 1);

	while (slots[i].key && slots[i].key != key)
		i = (i + 1) & (nr - 1);
	return &slots[i];
}

static int grow(struct prec_offcpu *oc)
{
	uint32_t nr = oc->nr_slots ? oc->nr_slots * 2 : SLOTS_FIRST;
	struct slot *n = calloc(nr, sizeof(*n));

	if (!n || nr < oc->nr_slots) {
		free(n);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < oc->nr_slots; i++)
		if (oc->slots[i].key)
			*find(n, nr, oc->slots[i].key - 1) = oc->slots[i];
	free(oc->slots);
	oc->slots = n;
	oc->nr_slots = nr;
	return 0;
}

/* A source sample: IDENTIFIER IP TID TIME CPU CALLCHAIN RAW [CGROUP]. A
 * task leaving asleep with a user stack (a kernel thread has none, and
 * perf leaves those out) is noted; any other switch-out forgets it. */
static int switch_out(struct prec_offcpu *oc, const uint8_t *p, uint32_t len)
{
	uint64_t nr, state;
	uint32_t tid, at, raw;
	struct slot *s;

	if (len < 56)
		return 0;
	tid = prec_ld32(p + 28);
	nr = prec_ld64(p + 48);
	if (nr > (len - 56) / 8)
		return 0;
	at = 56 + (uint32_t)nr * 8;
	if (len - at < 4)
		return 0;
	raw = prec_ld32(p + at);
	if (raw > len - at - 4 || raw < oc->state_off + oc->state_size)
		return 0;
	state = oc->state_size == 8 ? prec_ld64(p + at + 4 + oc->state_off) :
				      prec_ld32(p + at + 4 + oc->state_off);
	if (2 * (oc->used + 1) > oc->nr_slots && grow(oc))
		return -ENOMEM;
	s = find(oc->slots, oc->nr_slots, tid);
	if (!s->key && (!nr || (state != STATE_S && state != STATE_D)))
		return 0;
	if (!s->key) {
		s->key = tid + 1;
		oc->used++;
	}
	s->t_out = 0;
	if (!nr || (state != STATE_S && state != STATE_D))
		return 0;
	s->t_out = prec_ld64(p + 32);
	s->nr = nr > CHAIN_MAX ? CHAIN_MAX : (uint32_t)nr;
	memcpy(s->chain, p + 56, (size_t)s->nr * 8);
	at += 4 + raw;
	s->cgroup = oc->cgroup && len - at >= 8 ? prec_ld64(p + at) : 0;
	return 0;
}

/* The first address of a chain that is not a context marker. */
static uint64_t first_ip(const struct slot *s)
{
	for (uint32_t i = 0; i < s->nr; i++)
		if (s->chain[i] < (uint64_t)PERF_CONTEXT_MAX)
			return s->chain[i];
	return 0;
}

/* A switch-in record (its trailer names the task coming in): the
 * offcpu-time sample of its sleep, IDENTIFIER IP TID TIME CPU PERIOD
 * CALLCHAIN [CGROUP], misc USER as perf writes it. */
static int switch_in(struct prec_offcpu *oc, const uint8_t *p, uint32_t len,
		     uint64_t time, const void **out, uint32_t *out_len)
{
	const uint8_t *t = p + len - TRAILER;
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE, .misc = PERF_RECORD_MISC_USER };
	uint32_t tid = prec_ld32(t + 4), n = 0;
	uint64_t *o = oc->out;
	struct slot *s;

	if (!oc->nr_slots)
		return 0;
	s = find(oc->slots, oc->nr_slots, tid);
	if (!s->key || !s->t_out || time < s->t_out)
		return 0;
	o[1] = oc->event_id;
	o[2] = first_ip(s);
	memcpy(&o[3], t, 8);                    /* pid, tid */
	o[4] = time;
	memcpy(&o[5], t + 16, 8);               /* cpu, res */
	o[6] = time - s->t_out;
	o[7] = s->nr;
	memcpy(&o[8], s->chain, (size_t)s->nr * 8);
	n = 8 + s->nr;
	if (oc->cgroup)
		o[n++] = s->cgroup;
	h.size = (uint16_t)(n * 8);
	memcpy(o, &h, sizeof(h));
	oc->samples++;
	oc->total_ns += o[6];
	s->t_out = 0;
	*out = o;
	*out_len = h.size;
	return 2;
}

int prec_offcpu__filter(struct prec_offcpu *oc, const void *rec, uint32_t len,
			uint64_t time, const void **out, uint32_t *out_len)
{
	const uint8_t *p = rec;
	uint32_t type;
	uint16_t misc;

	if (len < 8 + TRAILER)
		return 1;
	type = prec_ld32(p);
	if (type == PERF_RECORD_SAMPLE) {
		if (!is_source(oc, prec_ld64(p + 8)))
			return 1;
		return switch_out(oc, p, len);
	}
	if (type != PERF_RECORD_SWITCH && type != PERF_RECORD_SWITCH_CPU_WIDE)
		return 1;
	if (!is_source(oc, prec_ld64(p + len - 8)))
		return 1;
	misc = prec_ld16(p + 4);
	if (misc & PERF_RECORD_MISC_SWITCH_OUT)
		return 0;
	return switch_in(oc, p, len, time, out, out_len);
}

uint64_t prec_offcpu__samples(const struct prec_offcpu *oc, uint64_t *total_ns)
{
	if (total_ns)
		*total_ns = oc ? oc->total_ns : 0;
	return oc ? oc->samples : 0;
}

/* shown's events: m's less the source (indexes after it move down one). */
static int hide_event(struct prec_offcpu *oc, const struct prec_manifest *m,
		      struct prec_manifest *shown, uint32_t sw)
{
	uint32_t n = 0;

	oc->events = calloc(m->nr_events, sizeof(*oc->events));
	if (!oc->events)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nr_events; i++) {
		if (i == sw)
			continue;
		oc->events[n] = m->events[i];
		if (oc->events[n].leader1 > sw + 1)
			oc->events[n].leader1--;
		n++;
	}
	shown->events = oc->events;
	shown->nr_events = n;
	return 0;
}

/* shown's tracepoints: m's less the source's, unless a shown event has it. */
static int hide_tracepoint(struct prec_offcpu *oc, const struct prec_manifest *m,
			   struct prec_manifest *shown, uint64_t config)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < shown->nr_events; i++)
		if (prec_ld32(shown->events[i].attr) == PERF_TYPE_TRACEPOINT &&
		    prec_ld64(shown->events[i].attr + 8) == config)
			return 0;
	if (!m->nr_tracepoints)
		return 0;
	oc->tracepoints = calloc(m->nr_tracepoints, sizeof(*oc->tracepoints));
	if (!oc->tracepoints)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nr_tracepoints; i++)
		if (m->tracepoints[i].id != config)
			oc->tracepoints[n++] = m->tracepoints[i];
	shown->tracepoints = oc->tracepoints;
	shown->nr_tracepoints = n;
	return 0;
}

int prec_offcpu__new(struct prec_offcpu **out, const struct prec_manifest *m,
		     struct prec_manifest *shown)
{
	const struct prec_manifest_event *sw, *ev;
	struct prec_offcpu *oc;
	int err;

	*out = NULL;
	if (!m->offcpu.switch1)
		return 0;
	sw = &m->events[m->offcpu.switch1 - 1];
	ev = &m->events[m->offcpu.event];
	oc = calloc(1, sizeof(*oc));
	if (!oc)
		return -ENOMEM;
	oc->state_off = m->offcpu.state_off;
	oc->state_size = m->offcpu.state_size;
	oc->event_id = ev->nr_ids ? ev->ids[0] : 0;
	oc->cgroup = (prec_ld64(sw->attr + 24) & prec_ld64(ev->attr + 24) &
		      PERF_SAMPLE_CGROUP) != 0;
	oc->ids = malloc((sw->nr_ids ? sw->nr_ids : 1) * sizeof(*oc->ids));
	err = oc->ids ? 0 : -ENOMEM;
	if (!err) {
		memcpy(oc->ids, sw->ids, sw->nr_ids * sizeof(*oc->ids));
		oc->nr_ids = sw->nr_ids;
		qsort(oc->ids, oc->nr_ids, sizeof(*oc->ids), cmp_u64);
		err = grow(oc);
	}
	if (!err)
		err = hide_event(oc, m, shown, m->offcpu.switch1 - 1);
	if (!err)
		err = hide_tracepoint(oc, m, shown, prec_ld64(sw->attr + 8));
	if (err) {
		prec_offcpu__delete(oc);
		return err;
	}
	*out = oc;
	return 0;
}

void prec_offcpu__delete(struct prec_offcpu *oc)
{
	if (!oc)
		return;
	free(oc->ids);
	free(oc->slots);
	free(oc->events);
	free(oc->tracepoints);
	free(oc);
}
