/* SPDX-License-Identifier: MIT */
/* The event list (evlist.c): the events parsed from -e (evsel, a public
 * struct), their channels, and the list's accessors; the list itself is
 * opaque, its struct private to the list's five files (evlist_internal.h):
 * the attrs (evlist_config.h), the AUX event (evlist_aux.h), the fds and
 * rings the events are opened into (evlist_open.h), the list as a
 * manifest holds it (evlist_manifest.h). */
#ifndef PREC_RECORD_EVLIST_H
#define PREC_RECORD_EVLIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/auxpmu.h"
#include "record/branch_modes.h"

struct prec_record_opts;

_Static_assert(sizeof(struct perf_event_attr) >= PERF_ATTR_SIZE_VER7,
	       "perf_event_attr from the system headers is at least VER7");

/* A flight recording's drained ring when it carries only the side band
 * (the tracking event's COMM, MMAP2, FORK, EXIT...): 128 KiB per CPU.
 * The drainer wakes at a quarter of the ring, so it overflows only when
 * many processes start on one CPU before its drainer runs (the sizes are
 * in docs/flight-recorder.md). */
#define PREC_RECORD_SIDEBAND_RING (128u * 1024u)
/* An event's overwrite / no-overwrite term (perf's), if any. */
enum prec_ow_term { PREC_OW_DEFAULT, PREC_OW_ON, PREC_OW_OFF };

/* perf's per-event terms other than period= (event_parse.c), applied over
 * the options by prec_evlist__config as perf applies its config terms. */
struct prec_evterms {
	uint64_t freq;          /* freq=N; 0: none */
	/* period=0, freq=0 as perf takes them: a period of 0 (the event
	 * counts and samples nothing), a frequency of 0 (freq set, PERIOD
	 * kept: nothing either) */
	bool zero_period, zero_freq;
	int8_t inherit;         /* inherit / no-inherit: 1 / 0; -1: none */
	int8_t time;            /* time=0|1; -1: none */
	/* call-graph=no|fp|dwarf|lbr: enum prec_callgraph; -1: none */
	int8_t callgraph;
	/* a call-graph= perf cannot read: perf says so and keeps the
	 * global call graph for the event, its other call graph terms too */
	bool cg_failed;
	/* call-graph='fp,N' and 'dwarf,N': N frames (over max-stack=), N
	 * bytes (under stack-size=); 0: none */
	uint16_t cg_max;
	uint32_t cg_stack;
	bool named;             /* a name= given (perf keeps the first) */
	uint32_t stack_size;    /* stack-size=N, or dwarf's ,N; 0: none */
	uint32_t max_stack;     /* max-stack=N in 32 bits, as perf keeps it; 0: none */
	struct prec_branch_terms branch; /* branch_type=MODE|no, in order */
};

struct prec_evsel {
	struct perf_event_attr attr;
	char *name;            /* as the user wrote it, e.g. "sched:sched_switch" */
	char *filter;          /* tracepoint filter or NULL */
	/* --exclude-perf: prec's own threads are filtered out as well
	 * (prec_evlist__exclude_tids); tracepoints only */
	bool exclude_self;
	char *tp_system, *tp_name; /* tracepoints only */
	bool tracking;         /* the dummy carrying mmap/comm/task */
	bool sampling;         /* gets -F/-c, PERIOD, callchains */
	uint64_t term_period;  /* pmu/period=N/ (or the PMU's default), 0 if none */
	int midx;              /* index in the manifest's events */
	char *pmu;             /* dynamic PMU name (pmu/.../ events), or NULL */
	enum prec_aux_kind aux; /* its PMU writes an AUX area */
	enum prec_ow_term ow_term; /* overwrite / no-overwrite as written */
	/* write_backward into the CPU's flight ring, read by snapshots
	 * (prec_evlist__channels); else the drained ring */
	bool overwrite;
	int spec;              /* index of the -e that gave it, -1: prec's own */
	/* -G: the cgroup's directory (record/cgroup.c), opened on each CPU
	 * with PERF_FLAG_PID_CGROUP; -1: none */
	int cgroup_fd;
	/* The period the event's kind implies (tracepoint, breakpoint,
	 * bpf-output: 1), kept unless -F or -c is given, as perf. 0: none. */
	uint64_t default_period;
	/* perf's modifiers that are no attr bit (event_parse.c): G/H given
	 * (a group's modifier then leaves exclude_guest), :S, :P, :W */
	bool exclude_GH, sample_read, precise_max, weak;
	struct prec_evterms terms;
	/* Its group's leader (an index of evsel[], itself for the leader),
	 * opened with the leader's fd as group_fd; -1: in no group. */
	int leader;
	int nr_members;        /* a leader's group size (itself included) */
	char *group_name;      /* a leader's NAME of NAME{a,b}, or NULL */
	/* --off-cpu's two events (enum prec_offcpu_role, record/offcpu.h) */
	uint8_t offcpu;
};

/* The list itself is opaque (its struct is evlist_internal.h's, for the
 * five evlist files): the others hold a pointer from prec_evlist__new. */
struct prec_evlist;

/* An empty list (no event, nothing opened). Returns 0 or -ENOMEM. */
int prec_evlist__new(struct prec_evlist **out);
/* Close what is open, free the events and the list. NULL: nothing. */
void prec_evlist__delete(struct prec_evlist *el);

/* Append the events of one -e argument (comma separated; commas inside
 * pmu/.../ belong to the PMU terms; {a,b}[:mods] is a group, its
 * modifiers applied over each member's, as perf). pmu_root: NULL for
 * /sys/bus/event_source/devices. Tracepoints get their id from tracefs.
 * Returns 0, -EINVAL (unknown event, bad syntax: a bad command line) or
 * another -errno (no tracefs...), after printing one line. */
int prec_evlist__add(struct prec_evlist *el, const char *text,
		     const char *filter, const char *pmu_root);
/* After parsing (and prec_evlist__aux_setup): which events write
 * backward into the flight channel: those with an overwrite term, and
 * with o->overwrite (--overwrite) every sampling event without a
 * no-overwrite term; never the tracking event. Sizes the channels' rings:
 * flight rings o->mmap_pages; drained rings o->mmap_pages, or
 * PREC_RECORD_SIDEBAND_RING when they carry only the side band. Returns
 * the number of overwrite events (0: a normal recording, one ring per
 * CPU), or -EINVAL after one line (an AUX event in a flight recording). */
int prec_evlist__channels(struct prec_evlist *el, const struct prec_record_opts *o);
/* Append the events of one --pfm-events argument, as perf: libpfm4's
 * event strings (event_parse.h) between commas, {a,b} a group (an empty
 * group or item is skipped, as perf). Returns 0, -EINVAL (an event
 * libpfm4 refuses, unbalanced braces: a bad command line) or another
 * -errno (no libpfm4), after printing one line. */
int prec_evlist__add_pfm(struct prec_evlist *el, const char *text);
/* perf's --group: every event added so far but the tracking one in one
 * group, led by the first (groups written with {} are merged into it). */
void prec_evlist__group_all(struct prec_evlist *el);
/* --exclude-perf on the events of -e argument spec (evsel.spec): each
 * must be a tracepoint, whose filter is the only place perf's exclusion
 * can go. Returns 0, or -EINVAL after one line naming the event. */
int prec_evlist__mark_exclude_self(struct prec_evlist *el, int spec);
/* Put the tracking dummy first. Returns 0 or -ENOMEM. */
int prec_evlist__add_tracking(struct prec_evlist *el);
/* Now on the events' clock: with the perf clock, through the first ring's
 * TSC conversion (0 when its page offers none). */
uint64_t prec_evlist__now(const struct prec_evlist *el, int clockid);

/* The number of events, the tracking dummy included once added. */
int prec_evlist__nr_events(const struct prec_evlist *el);
/* Event i (0 <= i < nr_events), in list order: the tracking dummy first
 * once added. The pointer is valid until the next add. */
const struct prec_evsel *prec_evlist__event(const struct prec_evlist *el, int i);
/* What sets an event that prec adds itself apart from the same text
 * given to -e. */
struct prec_own_event {
	const char *name;   /* its name (the manifest's, perf's); NULL: the text */
	bool no_sampling;   /* no -F/-c, PERIOD or callchain (evsel.sampling) */
	bool exclude_guest; /* set whatever its modifiers say (perf's default
			     * cycles:P, whose :P would clear it) */
	bool include_guest; /* exclude_guest cleared whatever its modifiers
			     * say (perf's fallback from cycles:P to cpu-clock,
			     * which keeps the attr cycles:P had: precise_ip 3
			     * and guest samples) */
	uint8_t offcpu;     /* its --off-cpu role (evsel.offcpu) */
};
/* Append one event of prec's own choosing (the default event, the
 * markers' carrier, --off-cpu's two): text must name exactly one. Returns
 * 0, -ENOMEM, or another -errno after one line (as prec_evlist__add). */
int prec_evlist__add_own(struct prec_evlist *el, const char *text,
			 const struct prec_own_event *how);
/* -G, before prec_evlist__open: event i is opened in the cgroup whose
 * directory is open as fd (taken over; the one it had is closed). */
void prec_evlist__set_cgroup(struct prec_evlist *el, int i, int fd);
/* Event i's attr to configure, after prec_evlist__config and before
 * prec_evlist__open (--off-cpu's events, whose attrs perf makes apart
 * from the other events'). */
struct perf_event_attr *prec_evlist__attr_edit(struct prec_evlist *el, int i);
/* Events [first, nr_events) came from -e argument spec (evsel.spec: what
 * -G and --exclude-perf count). */
void prec_evlist__mark_spec(struct prec_evlist *el, int first, int spec);
/* Do the events follow the children of their tasks (the first event's
 * inherit, as every event's)? False on an empty list. */
bool prec_evlist__inherits(const struct prec_evlist *el);
/* After prec_evlist__channels: some event writes backward into the
 * flight channel (a flight recording). */
bool prec_evlist__overwrite(const struct prec_evlist *el);
/* After prec_evlist__channels: the data pages of each drained ring (0:
 * the pages given to prec_evlist__open). */
size_t prec_evlist__drain_pages(const struct prec_evlist *el);
/* The sysfs PMU root the events were parsed with (the last add's). */
const char *prec_evlist__pmu_root(const struct prec_evlist *el);
/* -vv: print every perf_event_open call on stderr, in perf -vv's line and
 * then the event's index. Before prec_evlist__open. */
void prec_evlist__show_opens(struct prec_evlist *el, bool on);

#endif
