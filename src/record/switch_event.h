/* SPDX-License-Identifier: MIT */
/* --switch-output-event (switch_event.c): side-band events, opened on
 * every CPU apart from the recording, whose occurrence cuts it as
 * SIGUSR2 does (perf's side-band evlist, without its thread: the record
 * loop polls their fds). */
#ifndef PREC_RECORD_SWITCH_EVENT_H
#define PREC_RECORD_SWITCH_EVENT_H

#include <poll.h>
#include <stdbool.h>

struct prec_switch_event;

/* Parse spec (perf's event grammar, a comma list) and open each event on
 * each of cpus[0..nr_cpus) for every task (pid -1), enabled, with a ring
 * of one data page that wakes its fd at every record. Returns 0, or
 * -EINVAL (a bad spec) or another -errno after one line naming the
 * option. Main thread, before the recording's events are enabled. */
int prec_switch_event__open(struct prec_switch_event **out, const char *spec,
			    const int *cpus, int nr_cpus);
/* How many pollfds fill() writes. */
int prec_switch_event__nr_fds(const struct prec_switch_event *se);
/* pfd[0..nr_fds) for poll(2), POLLIN each. */
void prec_switch_event__fill(const struct prec_switch_event *se, struct pollfd *pfd);
/* After a poll: drop whatever the rings hold. Returns true when some
 * ring held a record (the event occurred: one cut, however many). */
bool prec_switch_event__consume(struct prec_switch_event *se);
/* Close every fd and ring; accepts NULL. */
void prec_switch_event__close(struct prec_switch_event *se);

#endif
