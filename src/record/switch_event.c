// SPDX-License-Identifier: MIT
// --switch-output-event: side-band events opened system-wide on every CPU
// as perf opens its side-band evlist; each occurrence is a cut.
//
// No thread of its own (perf's side-band thread only signals its main
// thread): each event has a one-page ring that wakes at every record, polled
// by the main loop, which empties the rings and cuts once for whatever they
// held.

#include "record/switch_event.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/evlist.h"
#include "record/ring.h"
#include "util/log.h"

struct prec_switch_event {
	struct prec_evlist *el; /* the parsed events (never opened as a list) */
	int *fds;
	struct prec_ring *rings; /* one per fd */
	int nr;
};

/* The attr as perf's side-band evlist has it: the parsed event's, with a
 * record at every occurrence (its kind's period, or 1), a wake-up at
 * every byte, enabled now. */
static void sb_attr(const struct prec_evsel *ev, struct perf_event_attr *a)
{
	*a = ev->attr;
	a->size = sizeof(*a);
	a->freq = 0;
	if (!a->sample_period)
		a->sample_period = ev->term_period ? ev->term_period :
				   ev->default_period ? ev->default_period : 1;
	a->sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER;
	a->sample_id_all = 1;
	a->watermark = 1;
	a->wakeup_watermark = 1;
	a->disabled = 0;
	a->inherit = 0;
	a->enable_on_exec = 0;
}

static int open_one(struct prec_switch_event *se, const struct prec_evsel *ev, int cpu)
{
	struct perf_event_attr a;
	long fd;
	int err;

	sb_attr(ev, &a);
	fd = syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		pr_err("option --switch-output-event '%s' on cpu %d: %s", ev->name, cpu,
		       strerror(-err));
		return err;
	}
	se->fds[se->nr] = (int)fd;
	err = prec_ring__map(&se->rings[se->nr], (int)fd, 1, 0, false);
	if (err) {
		close((int)fd);
		pr_err("option --switch-output-event '%s' on cpu %d: mmap: %s", ev->name, cpu,
		       strerror(-err));
		return err;
	}
	se->nr++;
	return 0;
}

int prec_switch_event__open(struct prec_switch_event **out, const char *spec,
			    const int *cpus, int nr_cpus)
{
	struct prec_switch_event *se = calloc(1, sizeof(*se));
	int err;

	*out = NULL;
	if (!se)
		return -ENOMEM;
	err = prec_evlist__new(&se->el);
	if (!err)
		err = prec_evlist__add(se->el, spec, NULL, NULL);
	if (!err && prec_evlist__nr_events(se->el)) {
		size_t n = (size_t)prec_evlist__nr_events(se->el) * (size_t)nr_cpus;

		se->fds = calloc(n, sizeof(*se->fds));
		se->rings = calloc(n, sizeof(*se->rings));
		if (!se->fds || !se->rings)
			err = -ENOMEM;
	}
	for (int e = 0; !err && e < prec_evlist__nr_events(se->el); e++)
		for (int c = 0; !err && c < nr_cpus; c++)
			err = open_one(se, prec_evlist__event(se->el, e), cpus[c]);
	if (err) {
		prec_switch_event__close(se);
		return err;
	}
	*out = se;
	return 0;
}

int prec_switch_event__nr_fds(const struct prec_switch_event *se)
{
	return se ? se->nr : 0;
}

void prec_switch_event__fill(const struct prec_switch_event *se, struct pollfd *pfd)
{
	for (int i = 0; se && i < se->nr; i++)
		pfd[i] = (struct pollfd){ .fd = se->fds[i], .events = POLLIN };
}

bool prec_switch_event__consume(struct prec_switch_event *se)
{
	bool any = false;

	for (int i = 0; se && i < se->nr; i++) {
		struct perf_event_mmap_page *pg = se->rings[i].page;
		uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);

		if (head == pg->data_tail)
			continue;
		any = true;
		__atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
	}
	return any;
}

void prec_switch_event__close(struct prec_switch_event *se)
{
	if (!se)
		return;
	for (int i = 0; i < se->nr; i++) {
		prec_ring__unmap(&se->rings[i]);
		close(se->fds[i]);
	}
	free(se->fds);
	free(se->rings);
	prec_evlist__delete(se->el);
	free(se);
}
