// SPDX-License-Identifier: MIT
// The events' descriptors: one perf_event_open per (event, CPU, task),
// with the fallbacks older kernels need and perf's weak groups; one ring
// per CPU and channel (drained; flight) owned by the first fd opened into
// it, SET_OUTPUT for the rest; the ids, the filters (--exclude-perf's
// too), enable/disable, the PERF_FORMAT_LOST counts, and the close. The
// list's attrs are read here, never decided: they are final before open.
#include "record/evlist_open.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/evlist_internal.h"
#include "record/evlist_aux.h"
#include "record/options.h"
#include "record/perm.h"
#include "record/ring.h"
#include "util/buildid.h"
#include "util/log.h"

static int cmp_tid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* "comm != "prec-bid" && common_pid != A && (common_pid < B || common_pid
 * > C) ..." for tids (sorted here), runs of consecutive ids (the drainers,
 * started one after the other, usually are) as one range; the build-id
 * readers, started later, by their name. Returns the length or -E2BIG. */
static int tids_filter(char *buf, size_t size, pid_t *tids, int nr)
{
	size_t n;

	qsort(tids, (size_t)nr, sizeof(*tids), cmp_tid);
	n = (size_t)snprintf(buf, size, "comm != \"%s\"", PREC_BUILDID_THREAD_NAME);
	for (int i = 0; i < nr;) {
		int j = i;
		int w;

		while (j + 1 < nr && tids[j + 1] <= tids[j] + 1)
			j++;
		if (tids[i] == tids[j])
			w = snprintf(buf + n, size - n, "%scommon_pid != %d", n ? " && " : "",
				     (int)tids[i]);
		else
			w = snprintf(buf + n, size - n, "%s(common_pid < %d || common_pid > %d)",
				     n ? " && " : "", (int)tids[i], (int)tids[j]);
		if (w < 0 || (size_t)w >= size - n)
			return -E2BIG;
		n += (size_t)w;
		i = j + 1;
	}
	return (int)n;
}

/* The kernel copies a filter of at most a page, its NUL included. */
#define FILTER_MAX 4096

int prec_evlist__exclude_tids(struct prec_evlist *el, const pid_t *tids, int nr)
{
	char own[FILTER_MAX], all[FILTER_MAX];
	pid_t *sorted;
	int len;

	if (nr <= 0)
		return 0;
	sorted = malloc((size_t)nr * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	memcpy(sorted, tids, (size_t)nr * sizeof(*sorted));
	len = tids_filter(own, sizeof(own), sorted, nr);
	free(sorted);
	for (int e = 0; e < el->nr; e++) {
		const struct prec_evsel *ev = &el->evsel[e];
		int w;

		if (!ev->exclude_self)
			continue;
		/* as perf appends a filter to one there: (old) && (new) */
		w = len < 0 ? -1 : ev->filter ?
		    snprintf(all, sizeof(all), "(%s) && (%s)", ev->filter, own) :
		    snprintf(all, sizeof(all), "%s", own);
		if (w < 0 || (size_t)w >= sizeof(all)) {
			pr_err("option --exclude-perf: '%s': the filter naming prec's %d threads is longer than the kernel takes (%d bytes)",
			       ev->name, nr, FILTER_MAX - 1);
			return -E2BIG;
		}
		for (int i = 0; i < el->nr_cpus * el->nr_tasks; i++) {
			int fd = el->fds[(size_t)e * (size_t)el->nr_cpus * (size_t)el->nr_tasks + (size_t)i];

			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, all)) {
				int err = -errno;

				pr_err("option --exclude-perf: '%s': filter '%s': %s", ev->name, all,
				       strerror(-err));
				return err;
			}
		}
	}
	return 0;
}

static int sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu,
			       int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, a, pid, cpu, group_fd,
			  PERF_FLAG_FD_CLOEXEC | flags);

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

/* EACCES/EPERM: the scope the kernel refused, named with the setting and
 * the capability that allow it; else prec_perm knows of nothing missing. */
static void denied(const struct prec_evsel *ev, pid_t task, int err)
{
	const struct perf_event_attr *a = &ev->attr;
	char what[320];

	snprintf(what, sizeof(what), "%s '%s'", ev->tracking ? "tracking event" : "event",
		 ev->name);
	if (!prec_perm__allows(PREC_PERM_USER)) /* refused, so Debian's 3 */
		prec_perm__deny(PREC_PERM_USER, what);
	else if (task == -1 && !prec_perm__allows(PREC_PERM_CPU))
		prec_perm__deny(PREC_PERM_CPU, what);
	else if (a->type == PERF_TYPE_TRACEPOINT && !prec_perm__allows(PREC_PERM_TRACEPOINT))
		prec_perm__deny(PREC_PERM_TRACEPOINT, what);
	else if (!a->exclude_kernel && !prec_perm__allows(PREC_PERM_KERNEL))
		prec_perm__deny(PREC_PERM_KERNEL, what);
	else if (task > 0)
		pr_err("%s: task %d: perf_event_open: %s (another user's task needs CAP_PERFMON, or ptrace access to it)",
		       what, (int)task, strerror(-err));
	else
		pr_err("%s: perf_event_open: %s (kernel.perf_event_paranoid is %d)",
		       what, strerror(-err), prec_perm__paranoid());
}

/* Whether the kernel has a CPU PMU at all: a user-space cycles counter
 * on this task opens (asked only once an open failed). An arm64 machine
 * whose PMU lacks an event refuses it as one without a PMU does. */
static bool cpu_pmu_present(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE, .size = sizeof(a),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd = sys_perf_event_open(&a, 0, -1, -1, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

/* What the PMU of a hardware event refused: ENOENT, EOPNOTSUPP or ENODEV
 * (the kernel's words for an event or a mode it lacks). */
static void pmu_refused(const struct prec_evsel *ev, int err)
{
	const struct perf_event_attr *a = &ev->attr;

	if (!cpu_pmu_present())
		pr_err("event '%s': no hardware PMU on this machine (perf_event_open: %s)",
		       ev->name, strerror(-err));
	else if (err == -EOPNOTSUPP && a->exclude_idle)
		/* arm64's PMU: no mode exclusion but user, kernel, hv */
		pr_err("event '%s': this machine's PMU cannot leave idle time out (:I) (perf_event_open: %s)",
		       ev->name, strerror(-err));
	else
		pr_err("event '%s': not supported by this machine's PMU (perf_event_open: %s)",
		       ev->name, strerror(-err));
}

static void open_error(const struct prec_evsel *ev, int cpu, pid_t task, int err)
{
	const struct perf_event_attr *a = &ev->attr;
	bool hw = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
		  a->type == PERF_TYPE_RAW;

	if (err == -EOPNOTSUPP && (a->sample_type & PERF_SAMPLE_BRANCH_STACK))
		pr_err("event '%s': its PMU does not sample branch stacks (-b, -j, --call-graph lbr, branch_type=) (perf_event_open: %s)",
		       ev->name, strerror(-err));
	else if (hw && (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV))
		pmu_refused(ev, err);
	else if (err == -EACCES || err == -EPERM)
		denied(ev, task, err);
	else if (err == -ESRCH)
		pr_err("event '%s': task %d: no such process", ev->name, (int)task);
	else if (err == -EMFILE)
		pr_err("event '%s' on cpu %d: perf_event_open: %s (raise 'ulimit -n')",
		       ev->name, cpu, strerror(-err));
	else if (err == -EINVAL && a->inherit && (a->sample_type & PERF_SAMPLE_READ))
		/* older kernels (6.1 among them) refuse it; perf 6.1 names
		 * -a, which is refused the same */
		pr_err("event '%s': this kernel cannot sample the counts (:S, PERF_SAMPLE_READ) of a counter that child tasks inherit: -i, or a group whose leader samples ({a,b}:S) (perf_event_open: %s)",
		       ev->name, strerror(-err));
	else if (err == -EINVAL && (a->cgroup || (a->sample_type & PERF_SAMPLE_CGROUP)))
		pr_err("event '%s': perf_event_open: %s (--all-cgroups needs Linux >= 5.7)",
		       ev->name, strerror(-err));
	else if (err == -EINVAL && a->use_clockid && !prec_clock__nmi_safe((int)a->clockid))
		pr_err("event '%s': the kernel takes -k realtime, boottime or tai only for software events: use -k monotonic or monotonic_raw",
		       ev->name);
	else
		pr_err("event '%s' on cpu %d: perf_event_open: %s%s", ev->name, cpu,
		       strerror(-err), err == -EINVAL && a->type >= PERF_TYPE_MAX ?
		       " (the PMU may not support sampling, or these terms)" : "");
}

/* -vv: one open as perf -vv shows it (its flags with the CLOEXEC every
 * prec open has), then "(event N)": the attr dump's N-th block. */
static void show_open(const struct prec_evlist *el, const struct prec_evsel *ev, pid_t pid,
		      int cpu, int group_fd, unsigned long flags, int fd)
{
	int e = (int)(ev - el->evsel);

	flags |= PERF_FLAG_FD_CLOEXEC;
	if (fd >= 0)
		fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags %#lx = %d  (event %d)\n",
			(int)pid, cpu, group_fd, flags, fd, e);
	else
		fprintf(stderr, "sys_perf_event_open: pid %d  cpu %d  group_fd %d  flags %#lx  (event %d)\nsys_perf_event_open failed, error %d\n",
			(int)pid, cpu, group_fd, flags, e, fd);
}

/* perf's name for an event from its attr (evsel__name of a software
 * event): NAME, then ':' and the levels counted (k, u, h), the p's of
 * precise_ip, and H, G where guests are not excluded as those imply. */
static char *name_from_attr(const char *base, const struct perf_event_attr *a)
{
	char mods[16], *name;
	size_t n = 0;
	bool guest_default = false;

	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mods[n++] = 'k';
		if (!a->exclude_user)
			mods[n++] = 'u';
		if (!a->exclude_hv)
			mods[n++] = 'h';
		guest_default = true;
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		mods[n++] = 'p';
	if (a->precise_ip)
		guest_default = true;
	if (a->exclude_host || a->exclude_guest == guest_default) {
		if (!a->exclude_host)
			mods[n++] = 'H';
		if (!a->exclude_guest)
			mods[n++] = 'G';
	}
	mods[n] = 0;
	name = malloc(strlen(base) + n + 2);
	if (name)
		sprintf(name, "%s%s%s", base, n ? ":" : "", mods);
	return name;
}

/* perf's fallback (evsel__fallback): cycles where the kernel has no such
 * PMU event is sampled as cpu-clock, every other bit kept, renamed as
 * perf renames it (a name= term too). Whether it fell back. */
static bool cycles_fallback(struct prec_evsel *ev, int err)
{
	struct perf_event_attr *a = &ev->attr;
	char *name;

	if ((err != -ENOENT && err != -ENXIO && err != -ENODEV) ||
	    a->type != PERF_TYPE_HARDWARE || a->config != PERF_COUNT_HW_CPU_CYCLES)
		return false;
	a->type = PERF_TYPE_SOFTWARE;
	a->config = PERF_COUNT_SW_CPU_CLOCK;
	name = name_from_attr("cpu-clock", a);
	if (!name)
		return false;
	pr_info("note: event '%s': no hardware cycles event here (%s): sampling %s, as perf falls back",
		ev->name, strerror(-err), name);
	free(ev->name);
	ev->name = name;
	return true;
}

/* Whether an open of pid that failed with err leaves the task out rather
 * than failing: -p, -u, a task gone (ESRCH) and another one left. */
static bool may_leave_out(const struct prec_evlist *el, pid_t pid, int err)
{
	return err == -ESRCH && el->leave_out_gone && pid > 0 && el->nr_tasks > 1;
}

/* Open with the fallbacks older kernels need: without build_id (< 5.12),
 * without ksymbol and bpf_event (< 5.1), without PERF_FORMAT_LOST (< 6.0);
 * perf's cpu-clock for cycles without a PMU; EMFILE raises the fd limit
 * once. */
static int open_evsel(struct prec_evlist *el, struct prec_evsel *ev, pid_t pid,
		      int cpu, int group_fd)
{
	/* -G: on a CPU, the cgroup's directory stands for the task. */
	bool cg = ev->cgroup_fd >= 0 && pid == -1;
	struct perf_event_attr asked = ev->attr;

	for (;;) {
		unsigned long flags = cg ? PERF_FLAG_PID_CGROUP : 0;
		int fd = sys_perf_event_open(&ev->attr, cg ? ev->cgroup_fd : pid, cpu,
					     group_fd, flags);

		if (el->show_opens)
			show_open(el, ev, cg ? ev->cgroup_fd : pid, cpu, group_fd, flags, fd);
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
		if (cycles_fallback(ev, fd))
			continue;
		/* :P: the most precise level this PMU takes, as perf */
		if ((fd == -EINVAL || fd == -EOPNOTSUPP) && ev->precise_max &&
		    ev->attr.precise_ip) {
			ev->attr.precise_ip--;
			continue;
		}
		if (fd == -EINVAL && (ev->attr.read_format & PERF_FORMAT_LOST)) {
			pr_debug("event '%s': kernel refused PERF_FORMAT_LOST (< 6.0?)", ev->name);
			ev->attr.read_format &= ~(uint64_t)PERF_FORMAT_LOST;
			continue;
		}
		/* A weak group's member the kernel refuses in its group:
		 * prec_evlist__open opens it alone, nothing to say yet. */
		if (!(group_fd >= 0 && ev->weak && (fd == -EINVAL || fd == -EBADF)) &&
		    !may_leave_out(el, pid, fd))
			open_error(ev, cpu, pid, fd);
		else
			ev->attr = asked; /* no fallback was the cause */
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
		err = prec_ring__map(ring, fd, pages, aux,
				     (ev->overwrite ? PREC_RING_OVERWRITE : 0) |
				     (el->aux_overwrite ? PREC_RING_AUX_OVERWRITE : 0));
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

static int open_one(struct prec_evlist *el, int e, int c, int t, size_t pages,
		    int *failed)
{
	struct prec_evsel *ev = &el->evsel[e];
	size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) * (size_t)el->nr_tasks + (size_t)t;
	int fd, err, group_fd = -1;

	/* A member joins its leader's fd on the same CPU and task (the
	 * leader comes first in the list, so it is open). */
	if (ev->leader >= 0 && ev->leader != e)
		group_fd = el->fds[((size_t)ev->leader * (size_t)el->nr_cpus + (size_t)c) *
				   (size_t)el->nr_tasks + (size_t)t];
	fd = open_evsel(el, ev, el->tasks[t], el->cpus[c], group_fd);
	if (fd < 0 && may_leave_out(el, el->tasks[t], fd))
		return 1;
	if (fd < 0) {
		*failed = group_fd >= 0 ? e : -1;
		return fd;
	}
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
	/* The kernel sets a tracepoint's filter once (EEXIST after): with
	 * --exclude-perf, prec_evlist__exclude_tids sets the two joined. */
	if (ev->filter && !ev->exclude_self && ioctl(fd, PERF_EVENT_IOC_SET_FILTER, ev->filter)) {
		err = -errno;
		pr_err("event '%s': filter '%s': %s", ev->name, ev->filter,
		       err == -EINVAL ? "the kernel rejected it (check field names and syntax)" :
		       strerror(-err));
		return err;
	}
	return 0;
}

/* The soft fd limit goes up to the hard one before any event is opened
 * (the workload, forked before, keeps its own): a recording's fds grow
 * with CPUs, and the estimate below leaves only a fixed margin for what
 * else the session opens. Then the estimate (the events, a few per CPU:
 * docs/many-cpus.md counts them): a hard limit below it is one line and
 * no recording. */
static int reserve_fds(struct prec_evlist *el)
{
	uint64_t need = (uint64_t)el->nr * (uint64_t)el->nr_cpus * (uint64_t)el->nr_tasks +
			(el->overwrite ? 6ull : 4ull) * (uint64_t)el->nr_cpus + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur != rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
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

/* perf's :W fallback: the group of member e, which the kernel refused
 * in it, becomes events of their own (perf's message, at -v). Its members
 * keep their attrs but for being enabled as a lone event is (perf keeps
 * a member's disabled 0 and enable_on_exec 0, so a command's member
 * would count from its open, before the exec: docs/events.md). */
static void break_group(struct prec_evlist *el, int e)
{
	int l = el->evsel[e].leader;
	const struct perf_event_attr *la = &el->evsel[l].attr;

	pr_debug("Weak group for %s/%d failed", el->evsel[l].name, el->evsel[l].nr_members);
	for (int i = 0; i < el->nr; i++) {
		struct prec_evsel *ev = &el->evsel[i];

		if (ev->leader != l)
			continue;
		if (i != l) {
			ev->attr.disabled = la->disabled;
			ev->attr.enable_on_exec = la->enable_on_exec;
		}
		ev->leader = -1;
		ev->nr_members = 0;
	}
}

/* Task index t, gone at its open: out of the tables (the index of every
 * fd and id behind it moves down), as perf removes a missing thread from
 * its map, with perf's warning in prec's words. What it had open already
 * stays open, never enabled (gone_fds): an earlier CPU's ring may be
 * mapped through one of them. */
static int leave_out(struct prec_evlist *el, int t)
{
	size_t old = (size_t)el->nr_tasks, rows = (size_t)el->nr * (size_t)el->nr_cpus, j = 0;
	int *kept = realloc(el->gone_fds, ((size_t)el->nr_gone_fds + rows) * sizeof(*kept));

	if (!kept) {
		pr_err("events: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	el->gone_fds = kept;
	pr_warn("task %d: gone before its events were opened (perf_event_open: %s): recording the other tasks without it, as perf does ('Ignored open failure')",
		(int)el->tasks[t], strerror(ESRCH));
	for (size_t r = 0; r < rows; r++)
		for (size_t k = 0; k < old; k++) {
			size_t i = r * old + k;

			if (k == (size_t)t) {
				if (el->fds[i] >= 0)
					kept[el->nr_gone_fds++] = el->fds[i];
				continue;
			}
			el->fds[j] = el->fds[i];
			el->ids[j++] = el->ids[i];
		}
	memmove(&el->tasks[t], &el->tasks[t + 1], (old - (size_t)t - 1) * sizeof(*el->tasks));
	el->nr_tasks--;
	return 0;
}

/* prec_evlist__open's work, once; on a failure in a group *failed is the
 * member that failed (-1: none). */
static int open_all(struct prec_evlist *el, const int *cpus, int nr_cpus,
		    const pid_t *tasks, int nr_tasks, size_t pages, int *failed)
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
			for (int t = 0; t < el->nr_tasks && !err; t++) {
				err = open_one(el, order[i], c, t, pages, failed);
				if (err > 0)
					err = leave_out(el, t--);
			}
	free(order);
	return err < 0 ? err : 0;
}

void prec_evlist__leave_out_gone(struct prec_evlist *el, bool on)
{
	el->leave_out_gone = on;
}

int prec_evlist__open(struct prec_evlist *el, const int *cpus, int nr_cpus,
		      const pid_t *tasks, int nr_tasks, size_t pages)
{
	/* the tasks a weak group's second open takes: those left after the
	 * first (a task left out is not tried, nor warned about, again) */
	pid_t *left = malloc((size_t)(nr_tasks > 0 ? nr_tasks : 1) * sizeof(*left));

	if (!left) {
		pr_err("events: %s", strerror(ENOMEM));
		return -ENOMEM;
	}
	memcpy(left, tasks, (size_t)nr_tasks * sizeof(*left));
	for (;;) {
		int failed = -1, err = open_all(el, cpus, nr_cpus, left, nr_tasks, pages,
						&failed);
		const struct prec_evsel *ev = failed >= 0 ? &el->evsel[failed] : NULL;

		if (!ev || !ev->weak || (err != -EINVAL && err != -EBADF)) {
			free(left);
			return err;
		}
		nr_tasks = el->nr_tasks;
		memcpy(left, el->tasks, (size_t)nr_tasks * sizeof(*left));
		/* everything again, the group's events on their own */
		prec_evlist__close(el);
		break_group(el, failed);
	}
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

int prec_evlist__enable_cpu(struct prec_evlist *el, int c, bool tracking)
{
	/* The same order as enable()'s, for this CPU's fds. */
	for (int e = 0; el->fds && e < el->nr; e++)
		for (int t = 0; t < el->nr_tasks && (!tracking || el->evsel[e].tracking); t++) {
			int fd = el->fds[((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
					 (size_t)el->nr_tasks + (size_t)t];

			if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
				return -errno;
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

void prec_evlist__disable_sampling(struct prec_evlist *el)
{
	for (size_t i = nr_fds(el); i-- > 0;) {
		size_t e = i / ((size_t)el->nr_cpus * (size_t)el->nr_tasks);

		if (!el->evsel[e].tracking && el->fds[i] >= 0)
			ioctl(el->fds[i], PERF_EVENT_IOC_DISABLE, 0);
	}
}

void prec_evlist__disable_cpu(struct prec_evlist *el, int c)
{
	/* The same order as disable()'s, for this CPU's fds. */
	for (int e = el->nr; el->fds && e-- > 0;)
		for (int t = el->nr_tasks; t-- > 0;) {
			int fd = el->fds[((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
					 (size_t)el->nr_tasks + (size_t)t];

			if (fd >= 0)
				ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
		}
}

/* PERF_FORMAT_LOST of one fd, from a read laid out as read_format says
 * (the kernel's order): value, then time enabled and time running when
 * asked, id when asked, lost; with GROUP, nr and the two times once, then
 * value, id when asked and lost for each of nr events, leader first
 * (members are counted there, not again on their own fds). */
static uint64_t fd_lost(const struct prec_evsel *ev, int fd)
{
	uint64_t rf = ev->attr.read_format, sum = 0;
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	size_t entry = 2 + !!(rf & PERF_FORMAT_ID); /* value [id] lost */
	uint64_t v[3 + 3 * 256]; /* a group of up to 256 events */
	ssize_t n;

	if (!(rf & PERF_FORMAT_GROUP)) {
		size_t words = times + entry;

		n = read(fd, v, words * sizeof(*v));
		return n == (ssize_t)(words * sizeof(*v)) ? v[words - 1] : 0;
	}
	if (ev->leader >= 0 && ev->nr_members == 0)
		return 0;
	n = read(fd, v, sizeof(v));
	for (uint64_t k = 0; n >= (ssize_t)sizeof(*v) && k < v[0] &&
	     (ssize_t)((1 + times + (k + 1) * entry) * sizeof(*v)) <= n; k++)
		sum += v[1 + times + k * entry + entry - 1];
	return sum;
}

uint64_t prec_evlist__id_lost(const struct prec_evlist *el, int e, int c, int t)
{
	const struct prec_evsel *ev = &el->evsel[e];
	uint64_t rf = ev->attr.read_format, id;
	size_t times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		       !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	uint64_t v[3 + 3 * 256]; /* a group of up to 256 events */
	int fd;
	ssize_t n;

	if (!el->fds || !(rf & PERF_FORMAT_LOST))
		return 0;
	fd = el->fds[((size_t)e * (size_t)el->nr_cpus + (size_t)c) * (size_t)el->nr_tasks +
		     (size_t)t];
	if (fd < 0)
		return 0;
	if (!(rf & PERF_FORMAT_GROUP))
		return fd_lost(ev, fd);
	/* Any member's fd reads its whole group (the kernel reads the
	 * leader's): the entry whose id is this fd's. */
	if (!(rf & PERF_FORMAT_ID))
		return 0;
	id = prec_evlist__id(el, e, c, t);
	n = read(fd, v, sizeof(v));
	for (uint64_t k = 0; n >= (ssize_t)sizeof(*v) && k < v[0] &&
	     (ssize_t)((1 + times + (k + 1) * 3) * sizeof(*v)) <= n; k++)
		if (v[1 + times + k * 3 + 1] == id)
			return v[1 + times + k * 3 + 2];
	return 0;
}

/* PERF_FORMAT_LOST over CPU index c's fds of the drained events, or of
 * the overwrite ones. */
static uint64_t cpu_lost(const struct prec_evlist *el, int c, bool overwrite)
{
	uint64_t sum = 0;

	if (!el->fds)
		return 0;
	for (int e = 0; e < el->nr; e++) {
		if (!(el->evsel[e].attr.read_format & PERF_FORMAT_LOST) ||
		    el->evsel[e].overwrite != overwrite)
			continue;
		for (int t = 0; t < el->nr_tasks; t++) {
			size_t i = ((size_t)e * (size_t)el->nr_cpus + (size_t)c) *
				   (size_t)el->nr_tasks + (size_t)t;

			if (el->fds[i] >= 0)
				sum += fd_lost(&el->evsel[e], el->fds[i]);
		}
	}
	return sum;
}

uint64_t prec_evlist__lost(const struct prec_evlist *el, int c)
{
	return cpu_lost(el, c, false);
}

uint64_t prec_evlist__flight_lost(const struct prec_evlist *el, int c)
{
	return cpu_lost(el, c, true);
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
	for (int i = 0; i < el->nr_gone_fds; i++)
		close(el->gone_fds[i]);
	free(el->gone_fds);
	el->gone_fds = NULL;
	el->nr_gone_fds = 0;
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

int prec_evlist__nr_cpus(const struct prec_evlist *el)
{
	return el->nr_cpus;
}

const int *prec_evlist__cpus(const struct prec_evlist *el)
{
	return el->cpus;
}

int prec_evlist__nr_tasks(const struct prec_evlist *el)
{
	return el->nr_tasks;
}

const pid_t *prec_evlist__tasks(const struct prec_evlist *el)
{
	return el->tasks;
}

struct prec_ring *prec_evlist__rings(const struct prec_evlist *el)
{
	return el->rings;
}

struct prec_ring *prec_evlist__flight_rings(const struct prec_evlist *el)
{
	return el->flight_rings;
}

const struct perf_event_mmap_page *prec_evlist__clock_page(const struct prec_evlist *el)
{
	return el->rings && el->nr_cpus ? el->rings[0].page : NULL;
}

uint64_t prec_evlist__id(const struct prec_evlist *el, int e, int c, int t)
{
	return el->ids[((size_t)e * (size_t)el->nr_cpus + (size_t)c) * (size_t)el->nr_tasks +
		       (size_t)t];
}
