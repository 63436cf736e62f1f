/* SPDX-License-Identifier: MIT */
/* The events' descriptors (evlist_open.c): opened per CPU and task, the
 * rings they write, their ids and filters, enable/disable, their lost
 * counts, the close. */
#ifndef PREC_RECORD_EVLIST_OPEN_H
#define PREC_RECORD_EVLIST_OPEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_mmap_page;
struct prec_evlist;
struct prec_ring;

/* Open every event on every CPU/task, map one ring per CPU and channel
 * (the first fd of the channel on the CPU; pages where the channels set
 * no size), redirect the others with SET_OUTPUT, read ids, set filters.
 * A :W group whose member the kernel refuses in the group (EINVAL,
 * EBADF) is broken up and everything opened again, its events on their
 * own, as perf's weak groups. Returns 0 or -errno after printing one
 * line. */
int prec_evlist__open(struct prec_evlist *el, const int *cpus, int nr_cpus,
		      const pid_t *tasks, int nr_tasks, size_t pages);
/* -p and -u (not -t, a command or CPUs), before prec_evlist__open: a task
 * that is gone when its events are opened (ESRCH), while others are left,
 * is left out with one warning instead of failing the open, as perf 6.1
 * ignores a missing thread of those targets (evsel's ignore_missing_thread);
 * the last task left fails as before. prec_evlist__tasks then lists the
 * tasks that stayed. */
void prec_evlist__leave_out_gone(struct prec_evlist *el, bool on);
int prec_evlist__enable(struct prec_evlist *el);
/* CPU index c's events alone (tracking: its tracking events alone, as
 * enable_tracking()), in enable()'s order; any thread may call it (from
 * the thread running on that CPU the ioctls are local). 0 or -errno of
 * the first that failed, nothing printed. */
int prec_evlist__enable_cpu(struct prec_evlist *el, int c, bool tracking);
/* Only the tracking events (comm, mmap, task records): 0 or -errno. */
int prec_evlist__enable_tracking(struct prec_evlist *el);
void prec_evlist__disable(struct prec_evlist *el);
/* Disable every event but the tracking one (-D ranges: the side band
 * goes on between them). */
void prec_evlist__disable_sampling(struct prec_evlist *el);
/* CPU index c's events alone, the ring owner last. Called from the thread
 * running on that CPU, the ioctls are local: no cross-CPU call to wait
 * for. Any thread may call it. */
void prec_evlist__disable_cpu(struct prec_evlist *el, int c);
/* Sum of PERF_FORMAT_LOST over the drained events' fds of CPU index c
 * (an overwrite event's count is no drain loss: flight-recorder.md). */
uint64_t prec_evlist__lost(const struct prec_evlist *el, int c);
/* The same over CPU index c's overwrite events: every record their flight
 * ring dropped while paused for a snapshot. Any thread. */
uint64_t prec_evlist__flight_lost(const struct prec_evlist *el, int c);
/* PERF_FORMAT_LOST of event e's fd on CPU index c and task index t
 * alone (in a group, its own entry of the group's read): 0 where it
 * counts none or is not open. Any thread. */
uint64_t prec_evlist__id_lost(const struct prec_evlist *el, int e, int c, int t);
/* Unmap rings and close fds (keeps the parsed events). */
void prec_evlist__close(struct prec_evlist *el);

/* What is open, after prec_evlist__open (until prec_evlist__close): the
 * CPUs by index (ascending, as given to open) and the tasks per CPU
 * ({-1} for per-CPU events). */
int prec_evlist__nr_cpus(const struct prec_evlist *el);
const int *prec_evlist__cpus(const struct prec_evlist *el);
int prec_evlist__nr_tasks(const struct prec_evlist *el);
const pid_t *prec_evlist__tasks(const struct prec_evlist *el);
/* The drained channel's rings, one per CPU index (the drainers'). */
struct prec_ring *prec_evlist__rings(const struct prec_evlist *el);
/* The flight channel's rings (write_backward, read by snapshots), one per
 * CPU index; NULL unless some event has overwrite. */
struct prec_ring *prec_evlist__flight_rings(const struct prec_evlist *el);
/* The first drained ring's control page, whose TSC conversion every
 * ring shares (the perf clock's); NULL before open. */
const struct perf_event_mmap_page *prec_evlist__clock_page(const struct prec_evlist *el);
/* The kernel's id of event e on CPU index c and task index t. */
uint64_t prec_evlist__id(const struct prec_evlist *el, int e, int c, int t);

/* After prec_evlist__open and before the events are enabled: the filter
 * of every exclude_self event becomes its own (if any) and'ed with
 * "common_pid != T" for each of tids[0..nr) (ranges of consecutive ids
 * as one term), set with PERF_EVENT_IOC_SET_FILTER on each of its fds.
 * Returns 0, or -E2BIG (past the kernel's page-sized filter) or the
 * ioctl's -errno, after one line. Main thread. */
int prec_evlist__exclude_tids(struct prec_evlist *el, const pid_t *tids, int nr);

#endif
