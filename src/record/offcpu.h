/* SPDX-License-Identifier: MIT */
/* --off-cpu (offcpu.c): perf's offcpu-time event without BPF. Two events
 * join the list: sched:sched_switch on the target, with the user call
 * chain and the raw prev_state of each task leaving its CPU, and context
 * switch records to see it come back; and perf's offcpu-time bpf-output
 * event, opened for its attr and ids, which never fires. prec merge turns
 * each sleep into an offcpu-time sample (read/offcpu.h). */
#ifndef PREC_RECORD_OFFCPU_H
#define PREC_RECORD_OFFCPU_H

struct prec_evlist;
struct prec_manifest;
struct prec_record_opts;

enum prec_offcpu_role {
	PREC_OFFCPU_NONE,
	PREC_OFFCPU_SWITCH,    /* sched:sched_switch + context_switch: the source */
	PREC_OFFCPU_EVENT,     /* offcpu-time: what the merge writes */
};

/* perf 6.1's BPF stack map keeps this many user frames (MAX_STACKS): the
 * source event's sample_max_stack, so the chains are perf's. */
#define PREC_OFFCPU_MAX_STACK 32

/* With o->off_cpu, after the -e events: append the two events. Returns 0
 * (also without --off-cpu), or -EINVAL after one line naming --off-cpu
 * where it cannot work here (no tracefs or sched_switch, raw tracepoint
 * samples not allowed, -G), or -ENOMEM. Main thread, before the open. */
int prec_offcpu__add(struct prec_evlist *el, const struct prec_record_opts *o);

/* After prec_evlist__config: the two events' attrs, over what the
 * options gave every event (offcpu-time's as perf's off_cpu_config and
 * evsel__config make it). No-op without --off-cpu. */
void prec_offcpu__config(struct prec_evlist *el, const struct prec_record_opts *o);

/* Once the events are in m (their midx set, the formats added): m's
 * OFFCPU section, with prev_state's place read from the format text.
 * Returns 0 (also without --off-cpu) or -EINVAL after one line (a format
 * without prev_state). */
int prec_offcpu__manifest(const struct prec_evlist *el, struct prec_manifest *m);

#endif
