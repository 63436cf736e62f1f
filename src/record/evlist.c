// SPDX-License-Identifier: MIT
// Opening the event list: one fd per (event, CPU, task), one ring per CPU
// and channel (drained; flight) owned by the first fd opened into it,
// SET_OUTPUT for the rest, ids, filters, enable/disable, and the
// PERF_FORMAT_LOST counts at the end.

#include "record/evlist.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/options.h"
#include "record/ring.h"
#include "util/log.h"

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* Raise RLIMIT_NOFILE to the hard limit, and the hard limit itself when
 * root may. Returns 0 if the soft limit grew. */
static int raise_nofile(void)
{
	struct rlimit rl;
	rlim_t old;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -errno;
	old = rl.rlim_cur;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (1u << 20)) {
		struct rlimit big = { 1u << 20, 1u << 20 };

		if (!setrlimit(RLIMIT_NOFILE, &big))
			return 0;
	}
	if (rl.rlim_cur == old || setrlimit(RLIMIT_NOFILE, &rl))
		return -EMFILE;
	return 0;
}

static int paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v = 99;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = 99;
		fclose(f);
	}
	return v;
}

static void open_error(const struct prec_evsel *ev, int cpu, pid_t task, int err)
{
	const struct perf_event_attr *a = &ev->attr;
	bool hw = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
		  a->type == PERF_TYPE_RAW;

	if (hw && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
		pr_err("event '%s': no hardware PMU on this machine (perf_event_open: %s)",
		       ev->name, strerror(-err));
	else if (err == -EACCES || err == -EPERM)
		pr_err("%s '%s': perf_event_open: %s (perf_event_paranoid is %d: see /proc/sys/kernel/perf_event_paranoid, or run as root)",
		       ev->tracking ? "tracking event" : "event", ev->name,
		       strerror(-err), paranoid());
	else if (err == -ESRCH)
		pr_err("event '%s': task %d: no such process", ev->name, (int)task);
	else if (err == -EMFILE)
		pr_err("event '%s' on cpu %d: perf_event_open: %s (raise 'ulimit -n')",
		       ev->name, cpu, strerror(-err));
	else if (err == -EINVAL && a->use_clockid && !prec_clock__nmi_safe((int)a->clockid))
		pr_err("event '%s': the kernel takes -k realtime, boottime or tai only for software events: use -k monotonic or monotonic_raw",
		       ev->name);
	else
		pr_err("event '%s' on cpu %d: perf_event_open: %s%s", ev->name, cpu,
		       strerror(-err), err == -EINVAL && a->type >= PERF_TYPE_MAX ?
		       " (the PMU may not support sampling, or these terms)" : "");
}

/* Open with the fallbacks older kernels need: without build_id (< 5.12),
 * without ksymbol and bpf_event (< 5.1), without PERF_FORMAT_LOST (< 6.0);
 * EMFILE raises the fd limit once. */
static int open_evsel(struct prec_evlist *el, struct prec_evsel *ev, pid_t pid,
		      int cpu)
{
	for (;;) {
		int fd = sys_perf_event_open(&ev->attr, pid, cpu);

		if (fd >= 0)
			return fd;
		if (fd == -EMFILE && !el->raised_nofile) {
			el->raised_nofile = true;
			if (!raise_nofile())
				continue;
		}
		if (fd == -EINVAL && ev->attr.build_id) {
			pr_info("event '%s': kernel refused build_id in MMAP2 (< 5.12?): reading ELF notes at the end instead",
				ev->name);
			ev->attr.build_id = 0;
			continue;
		}
		if (fd == -EINVAL && (ev->attr.ksymbol || ev->attr.bpf_event)) {
			pr_debug("event '%s': kernel refused ksymbol/bpf_event (< 5.1?)", ev->name);
			ev->attr.ksymbol = ev->attr.bpf_event = 0;
			continue;
		}
		if (fd == -EINVAL && (ev->attr.read_format & PERF_FORMAT_LOST)) {
			pr_debug("event '%s': kernel refused PERF_FORMAT_LOST (< 6.0?)", ev->name);
			ev->attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
			continue;
		}
		open_error(ev, cpu, pid, fd);
		return fd;
	}
}

static int alloc_tables(struct prec_evlist *el, const int *cpus, int nr_cpus,
			const pid_t *tasks, int nr_tasks)
{
	size_t n = (size_t)el->nr * (size_t)nr_cpus * (size_t)nr_tasks;

	el->cpus = calloc((size_t)nr_cpus, sizeof(*el->cpus));
	el->tasks = calloc((size_t)nr_tasks, sizeof(*el->tasks));
	el->fds = malloc(n * sizeof(*el->fds));
	el->ids = calloc(n, sizeof(*el->ids));
	el->rings = calloc((size_t)nr_cpus, sizeof(*el->rings));
	el->ring_fd = malloc((size_t)nr_cpus * sizeof(*el->ring_fd));
	if (!el->cpus || !el->tasks || !el->fds || !el->ids || !el->rings || !el->ring_fd)
		return -ENOMEM;
	if (el->overwrite) {
		el->flight_rings = calloc((size_t)nr_cpus, sizeof(*el->flight_rings));
		el->flight_ring_fd = malloc((size_t)nr_cpus * sizeof(*el->flight_ring_fd));
		if (!el->flight_rings || !el->flight_ring_fd)
			return -ENOMEM;
	}
	memcpy(el->cpus, cpus, (size_t)nr_cpus * sizeof(*cpus));
	memcpy(el->tasks, tasks, (size_t)nr_tasks * sizeof(*tasks));
	el->nr_cpus = nr_cpus;
	el->nr_tasks = nr_tasks;
	for (size_t i = 0; i < n; i++)
		el->fds[i] = -1;
	for (int c = 0; c < nr_cpus; c++) {
		el->ring_fd[c] = -1;
		el->rings[c].fd = -1;
		if (el->flight_rings) {
			el->flight_ring_fd[c] = -1;
			el->flight_rings[c].fd = -1;
		}
	}
	return 0;
}

/* Attach fd to CPU c's ring of ev's channel: the first fd maps it (the
 * ring owner, opened first: with an AUX event, that event and its AUX
 * area; in the flight channel, read-only), the others follow it. */
static int attach(struct prec_evlist *el, const struct prec_evsel *ev, int c,
		  int fd, size_t pages)
{
	size_t aux = ev->aux && el->aux_bytes ? el->aux_bytes : 0;
	struct prec_ring *ring = ev->overwrite ? &el->flight_rings[c] : &el->rings[c];
	int *owner = ev->overwrite ? &el->flight_ring_fd[c] : &el->ring_fd[c];
	size_t want = ev->overwrite ? el->flight_pages : el->drain_pages;
	int err;

	if (want)
		pages = want;
	if (*owner < 0) {
		err = prec_ring__map(ring, fd, pages, aux, ev->overwrite);
		if (err < 0) {
			pr_err("event '%s' on cpu %d: mmap of %zu pages%s: %s%s", ev->name,
			       el->cpus[c], pages, aux ? " and its AUX area" : "",
			       strerror(-err),
			       err == -EPERM || err == -ENOMEM ?
			       " (see /proc/sys/kernel/perf_event_mlock_kb, or a smaller -m / --aux-size)" : "");
			return err;
		}
		*owner = fd;
		return 0;
	}
	if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, *owner)) {
		err = -errno;
		pr_err("event '%s' on cpu %d: PERF_EVENT_IOC_SET_OUTPUT: %s", ev->name,
		       el->cpus[c], strerror(-err));
		return err;
	}
	return 0;
}

static int open_one(struct prec_evlist *el, int e, int c, int t, size_t pages)
{
	struct prec_evsel *ev = &el->evsel[e];
	size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) * (size_t)el->nr_tasks + (size_t)t;
	int fd, err;

	fd = open_evsel(el, ev, el->tasks[t], el->cpus[c]);
	if (fd < 0)
		return fd;
	el->fds[i] = fd;
	err = attach(el, ev, c, fd, pages);
	if (err < 0)
		return err;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &el->ids[i])) {
		err = -errno;
		pr_err("event '%s' on cpu %d: PERF_EVENT_IOC_ID: %s", ev->name,
		       el->cpus[c], strerror(-err));
		return err;
	}
	if (ev->filter && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter)) {
		err = -errno;
		pr_err("event '%s': filter '%s': %s", ev->name, ev->filter,
		       err == -EINVAL ? "the kernel rejected it (check field names and syntax)" :
		       strerror(-err));
		return err;
	}
	return 0;
}

/* Raise the fd limit up front when the events alone would not fit: the
 * writers' io_urings and the drainers' eventfds come after them. */
static int reserve_fds(struct prec_evlist *el)
{
	uint64_t need = (uint64_t)el->nr * (uint64_t)el->nr_cpus * (uint64_t)el->nr_tasks +
			(el->overwrite ? 6ull : 4ull) * (uint64_t)el->nr_cpus + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= need)
		return 0;
	el->raised_nofile = true;
	raise_nofile();
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur >= need)
		return 0;
	pr_err("events: %llu fds needed, RLIMIT_NOFILE is %llu and cannot be raised (raise 'ulimit -n')",
	       (unsigned long long)need, (unsigned long long)rl.rlim_cur);
	return -EMFILE;
}

int prec_evlist__open(struct prec_evlist *el, const int *cpus, int nr_cpus,
		      const pid_t *tasks, int nr_tasks, size_t pages)
{
	int err = alloc_tables(el, cpus, nr_cpus, tasks, nr_tasks), *order;

	if (err < 0) {
		pr_err("events: %s", strerror(-err));
		return err;
	}
	err = reserve_fds(el);
	if (err < 0)
		return err;
	order = malloc((size_t)el->nr * sizeof(*order));
	if (!order) {
		pr_err("events: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	prec_evlist__open_order(el, order);
	/* CPU-major, the ring owner first on each CPU: the AUX event if any,
	 * else the tracking dummy (event 0); the flight ring's is the first
	 * overwrite event. */
	for (int c = 0; c < nr_cpus && !err; c++)
		for (int i = 0; i < el->nr && !err; i++)
			for (int t = 0; t < nr_tasks && !err; t++)
				err = open_one(el, order[i], c, t, pages);
	free(order);
	return err < 0 ? err : 0;
}

static size_t nr_fds(const struct prec_evlist *el)
{
	return el->fds ? (size_t)el->nr * (size_t)el->nr_cpus * (size_t)el->nr_tasks : 0;
}

int prec_evlist__enable(struct prec_evlist *el)
{
	for (size_t i = 0; i < nr_fds(el); i++) {
		if (el->fds[i] >= 0 && ioctl(el->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			int err = -errno;

			pr_err("events: PERF_EVENT_IOC_ENABLE: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

int prec_evlist__enable_tracking(struct prec_evlist *el)
{
	for (size_t i = 0; i < nr_fds(el); i++) {
		size_t e = i / ((size_t)el->nr_cpus * (size_t)el->nr_tasks);

		if (!el->evsel[e].tracking || el->fds[i] < 0)
			continue;
		if (ioctl(el->fds[i], PERF_EVENT_IOC_ENABLE, 0)) {
			int err = -errno;

			pr_err("tracking event: PERF_EVENT_IOC_ENABLE: %s", strerror(-err));
			return err;
		}
	}
	return 0;
}

void prec_evlist__disable(struct prec_evlist *el)
{
	/* The ring owners last: an event that keeps running a moment longer
	 * still has a ring to write into. */
	for (size_t i = nr_fds(el); i-- > 0;)
		if (el->fds[i] >= 0)
			ioctl(el->fds[i], PERF_EVENT_IOC_DISABLE, 0);
}

uint64_t prec_evlist__lost(const struct prec_evlist *el, int c)
{
	uint64_t sum = 0;

	if (!el->fds)
		return 0;
	for (int e = 0; e < el->nr; e++) {
		if (!(el->evsel[e].attr.read_format & PERF_FORMAT_LOST) ||
		    el->evsel[e].overwrite)
			continue;
		for (int t = 0; t < el->nr_tasks; t++) {
			size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
				   (size_t)el->nr_tasks + (size_t)t;
			uint64_t v[3]; /* value, id, lost */

			if (el->fds[i] >= 0 && read(el->fds[i], v, sizeof(v)) == sizeof(v))
				sum += v[2];
		}
	}
	return sum;
}

void prec_evlist__close(struct prec_evlist *el)
{
	if (!el)
		return;
	for (int c = 0; el->rings && c < el->nr_cpus; c++)
		if (el->rings[c].map)
			prec_ring__unmap(&el->rings[c]);
	for (int c = 0; el->flight_rings && c < el->nr_cpus; c++)
		if (el->flight_rings[c].map)
			prec_ring__unmap(&el->flight_rings[c]);
	for (size_t i = 0; i < nr_fds(el); i++)
		if (el->fds[i] >= 0)
			close(el->fds[i]);
	free(el->cpus);
	free(el->tasks);
	free(el->fds);
	free(el->ids);
	free(el->rings);
	free(el->ring_fd);
	free(el->flight_rings);
	free(el->flight_ring_fd);
	el->flight_rings = NULL;
	el->flight_ring_fd = NULL;
	el->cpus = NULL;
	el->tasks = NULL;
	el->fds = NULL;
	el->ids = NULL;
	el->rings = NULL;
	el->ring_fd = NULL;
	el->nr_cpus = el->nr_tasks = 0;
}
