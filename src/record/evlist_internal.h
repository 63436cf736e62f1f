/* SPDX-License-Identifier: MIT */
/* The event list's struct, private to its five files: evlist.c,
 * evlist_config.c, evlist_aux.c, evlist_open.c and evlist_manifest.c
 * include this header and no other file does (the others use the verbs of
 * evlist.h, evlist_open.h, evlist_aux.h, evlist_config.h and
 * evlist_manifest.h). */
#ifndef PREC_RECORD_EVLIST_INTERNAL_H
#define PREC_RECORD_EVLIST_INTERNAL_H

#include "record/evlist.h"

struct prec_ring;

struct prec_evlist {
	struct prec_evsel *evsel;
	int nr;
	/* what is opened (evlist_open.c): fds[(e * nr_cpus + c) * nr_tasks + t] */
	int *cpus, nr_cpus;
	pid_t *tasks;          /* {-1} for per-CPU events */
	int nr_tasks;
	int *fds;
	uint64_t *ids;         /* same index as fds */
	/* -p, -u: a task gone at its open (ESRCH) while others are left is
	 * taken out of tasks, as perf takes a missing thread out of its map
	 * (set before prec_evlist__open) */
	bool leave_out_gone;
	/* the fds such a task had open already (earlier CPUs and events):
	 * never enabled, one may own a CPU's ring; closed at the close */
	int *gone_fds;
	int nr_gone_fds;
	/* Two channels, each a ring per CPU owned by the first fd opened
	 * into it (the kernel refuses SET_OUTPUT between events of
	 * different write_backward): rings, drained, always (the tracking
	 * event's); flight_rings, write_backward and mapped read-only, only
	 * when some event has overwrite. */
	struct prec_ring *rings;
	int *ring_fd;          /* fd owning each ring */
	struct prec_ring *flight_rings; /* NULL unless overwrite */
	int *flight_ring_fd;
	bool overwrite;        /* some event has overwrite: a flight recording */
	size_t drain_pages;    /* data pages of rings[] (0: open's pages) */
	size_t flight_pages;   /* ... of flight_rings[] (0: open's pages) */
	bool raised_nofile;
	/* -vv: every perf_event_open call on stderr, in perf -vv's line and
	 * then the event's index (set before prec_evlist__open) */
	bool show_opens;
	const char *pmu_root;  /* sysfs PMU root the events were parsed with */
	/* AUX: the AUX event owns every CPU's ring */
	size_t aux_bytes;      /* AUX area per CPU, 0 = no AUX event */
	int aux_owner;         /* the AUX event's index (when aux_bytes) */
	uint32_t have_sched_switch; /* perf's AUXTRACE_INFO value */
	/* -S, --aux-sample (aux_mode.c): the AUX areas are mapped read-only,
	 * the kernel's overwrite mode; with -S, snapshots copy the newest
	 * aux_snapshot_size bytes of each (aux_snapshot.c) */
	bool aux_overwrite, aux_snapshot;
	uint64_t aux_snapshot_size;
};

/* The list's end in the caller's memory: close what is open, free the
 * events, leave el empty (prec_evlist__delete is it and the free). Only
 * the white-box unit tests of the four files (events.c, auxpmu.c) hold
 * the struct itself. */
void prec_evlist__exit(struct prec_evlist *el);

#endif
