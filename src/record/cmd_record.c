// SPDX-License-Identifier: MIT
// prec record: the top-level flow. Parse options and events, fork the
// workload (held before exec), open events and rings, create the directory
// and the start manifest, start drainers, enable, then loop until a stop
// trigger (workload exit, SIGINT/SIGTERM/SIGHUP, -p targets gone,
// --max-size, a drainer's failure, --control stop, a failed cut), doing
// meanwhile the cuts, the controls, the build-id reads, the session's tick
// (BPF watch, --max-disk) and the status line; then close.
#include "record/record.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/attr_text.h"
#include "record/cgroup.h"
#include "record/control_channel.h"
#include "record/drainer_pool.h"
#include "record/evlist.h"
#include "record/evlist_aux.h"
#include "record/evlist_config.h"
#include "record/evlist_open.h"
#include "record/file_output.h"
#include "record/kcore.h"
#include "record/controls.h"
#include "record/offcpu.h"
#include "record/options.h"
#include "record/perm.h"
#include "record/recording.h"
#include "record/session.h"
#include "record/summary.h"
#include "record/max_disk.h"
#include "record/status_line.h"
#include "record/switch_event.h"
#include "record/switch_trigger.h"
#include "record/workload.h"
#include "util/buildid_workers.h"
#include "util/clock.h"
#include "util/cpu_list.h"
#include "util/log.h"
#include "util/proc.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* linux/pidfd.h: a pidfd for any thread, >= 6.9 */
#endif

/* A -p process or -t thread whose end stops the recording: fd is its pidfd,
 * or -1 for a thread on a kernel without PIDFD_THREAD, checked with
 * tgkill(tgid, tid, 0) every WATCH_POLL_MS instead. */
struct watch {
	int fd;
	pid_t tgid, tid;
	bool gone;
};
#define WATCH_POLL_MS 100

struct record {
	struct prec_record_opts o;
	struct prec_evlist *el;
	struct prec_workload wl;
	bool have_wl;
	struct prec_session *s;
	bool started;           /* the start manifest is written */
	int *cpus, nr_cpus;
	pid_t *tasks;
	int nr_tasks;
	int sfd;                /* signalfd: SIGINT, SIGTERM, SIGHUP, SIGCHLD */
	uint64_t t_begin_ns;    /* CLOCK_MONOTONIC at record()'s start */
	struct watch *watches;  /* -p/-t targets */
	int nr_watches;
	bool watch_by_poll;     /* some watch has no pidfd */
	int signo;              /* the signal prec ends by: the one that stopped
				 * it, or the one that killed the command; 0 if none */
	struct prec_controls fl;  /* -D, --control, --markers, snapshots */
	struct prec_status_line *status; /* on a terminal, while waiting */
	int bid_ms;             /* the session's build-id reads: next in ms */
	struct prec_switch_trigger sw;  /* --switch-output=SIZE|TIME */
	struct prec_switch_event *swe;  /* --switch-output-event */
	int cut_err;            /* a --switch-output cut failed: stopped */
	struct prec_file_output fo; /* -o FILE, -o - */
	int no_cycles;          /* the default event fell back: errno of cycles */
};

/* As perf: without -e, cycles:P where the CPU has a PMU that counts
 * them (probed in user space, as a user may), else cpu-clock, said once.
 * perf's default is a new cycles event, not the parse of "cycles:P": it
 * keeps exclude_guest, as any event without modifiers, where the :P
 * modifier would clear it. */
static int add_default_event(struct record *r)
{
	struct perf_event_attr a = { .type = PERF_TYPE_HARDWARE, .size = sizeof(a),
				     .config = PERF_COUNT_HW_CPU_CYCLES, .disabled = 1,
				     .exclude_kernel = 1, .exclude_hv = 1 };
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close((int)fd);
		return prec_evlist__add_own(r->el, "cycles:P",
					    &(struct prec_own_event){ .exclude_guest = true });
	}
	/* said once the events are open: not before an error's one line */
	r->no_cycles = errno;
	/* As perf's fallback: cycles:P's attr (precise_ip at its most, guest
	 * samples kept) on cpu-clock, named so */
	return prec_evlist__add_own(r->el, "cpu-clock:ppp",
				    &(struct prec_own_event){ .include_guest = true });
}

static int setup_events(struct record *r)
{
	int err = prec_evlist__add_tracking(r->el);

	for (int i = 0; !err && i < r->o.nr_specs; i++) {
		int first = prec_evlist__nr_events(r->el);

		if (r->o.specs[i].pfm && r->o.specs[i].filter) {
			/* as perf: a filter follows a tracepoint's -e */
			pr_err("option --filter '%s': follows --pfm-events, not a tracepoint",
			       r->o.specs[i].filter);
			err = -EINVAL;
		} else if (r->o.specs[i].pfm)
			err = prec_evlist__add_pfm(r->el, r->o.specs[i].text);
		else
			err = prec_evlist__add(r->el, r->o.specs[i].text,
					       r->o.specs[i].filter, NULL);
		prec_evlist__mark_spec(r->el, first, i); /* what -G counts */
		if (!err && r->o.specs[i].exclude_self)
			err = prec_evlist__mark_exclude_self(r->el, i);
	}
	if (!err && r->o.group)
		prec_evlist__group_all(r->el);
	if (!err)
		err = prec_cgroup__assign(r->el, &r->o);
	if (!err && prec_evlist__nr_events(r->el) == 1)
		err = add_default_event(r);
	/* The carrier of the markers: its samples come from the ftrace
	 * instance (the kernel never feeds ftrace:print to perf). */
	if (!err && r->o.markers)
		err = prec_evlist__add_own(r->el, "ftrace:print",
					   &(struct prec_own_event){ .no_sampling = true });
	if (!err)
		err = prec_offcpu__add(r->el, &r->o);
	if (!err)
		err = prec_evlist__aux_setup(r->el, &r->o);
	if (!err)
		err = prec_record_opts__resolve(&r->o, r->el);
	if (!err)
		err = prec_evlist__channels(r->el, &r->o);
	return err < 0 ? err : 0;
}

static int push_tid(pid_t **v, int *n, pid_t tid)
{
	pid_t *m = realloc(*v, (size_t)(*n + 1) * sizeof(*m));

	if (!m)
		return -ENOMEM;
	*v = m;
	m[(*n)++] = tid;
	return 0;
}

static int add_task(struct record *r, pid_t tid)
{
	return push_tid(&r->tasks, &r->nr_tasks, tid);
}

/* Append every thread of pid (0: our own), from /proc/PID/task. Returns 0,
 * -ESRCH (no such process) or -ENOMEM. */
static int list_threads(pid_t pid, pid_t **v, int *n)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int err = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/task");
	d = opendir(path);
	if (!d)
		return -ESRCH;
	while (!err && (e = readdir(d)))
		if (e->d_name[0] != '.')
			err = push_tid(v, n, (pid_t)atoi(e->d_name));
	closedir(d);
	return err;
}

/* --exclude-perf: every thread prec has once the drainers and the flight
 * recorder's run, before any event is enabled (as perf's filter names its
 * own pid then). */
static int exclude_self(struct record *r)
{
	pid_t *tids = NULL;
	int n = 0, err = 0;
	bool any = false;

	for (int i = 0; i < prec_evlist__nr_events(r->el); i++)
		any |= prec_evlist__event(r->el, i)->exclude_self;
	if (!any)
		return 0;
	err = list_threads(0, &tids, &n);
	if (!err)
		err = prec_evlist__exclude_tids(r->el, tids, n);
	else
		pr_err("option --exclude-perf: /proc/self/task: %s", strerror(-err));
	free(tids);
	return err;
}

/* A pidfd of process pid, or for thread of thread pid: pidfd_open without
 * PIDFD_THREAD refuses any thread but a leader, and for a leader would
 * wait for the whole process. Kernels < 6.9 refuse PIDFD_THREAD (EINVAL):
 * the thread is then polled (w->fd -1). Returns 0 or -errno. */
static int open_watch(struct watch *w, pid_t pid, bool thread)
{
	*w = (struct watch){ .fd = -1, .tgid = pid, .tid = pid };
	w->fd = (int)syscall(SYS_pidfd_open, pid, thread ? PIDFD_THREAD : 0);
	if (w->fd >= 0)
		return 0;
	if (!thread || errno != EINVAL)
		return -ESRCH;
	w->tgid = prec_proc__tgid(pid);
	return w->tgid > 0 ? 0 : -ESRCH;
}

/* Returns 0, -ESRCH (pid gone, nothing printed) or -ENOMEM. */
static int watch_task(struct record *r, pid_t pid, bool thread)
{
	struct watch w, *n;
	int err = open_watch(&w, pid, thread);

	if (err)
		return err;
	n = realloc(r->watches, (size_t)(r->nr_watches + 1) * sizeof(*n));
	if (!n) {
		if (w.fd >= 0)
			close(w.fd);
		return -ENOMEM;
	}
	r->watches = n;
	n[r->nr_watches++] = w;
	r->watch_by_poll |= w.fd < 0;
	return 0;
}

/* One process of -p or -u: its threads, and its watch. One of -u's that
 * is gone since the scan of /proc is left out, as the open leaves out a
 * task gone by then (perf 6.1's thread map fails on this narrower window,
 * usage and exit 129, a bug its later versions fixed: they skip it). */
static int add_process(struct record *r, pid_t pid)
{
	int before = r->nr_tasks, err = list_threads(pid, &r->tasks, &r->nr_tasks);
	/* An id of any thread stands for its process, as perf 6.1's
	 * /proc/ID/task: the process is watched (pidfd_open refuses a
	 * thread that does not lead it) */
	pid_t tgid = err ? 0 : prec_proc__tgid(pid);

	if (!err)
		err = tgid > 0 ? watch_task(r, tgid, false) : -ESRCH;
	if (err == -ESRCH && r->o.uid_set) {
		pr_debug("option -u: process %d: gone since the scan of /proc: left out", (int)pid);
		r->nr_tasks = before;
		return 0;
	}
	if (err == -ESRCH)
		pr_err("pid %d: no such process", (int)pid);
	return err;
}

static int setup_tasks(struct record *r)
{
	int err = 0;

	for (int i = 0; !err && i < r->o.nr_pids; i++)
		err = add_process(r, r->o.pids[i]);
	for (int i = 0; !err && i < r->o.nr_tids; i++) {
		err = watch_task(r, r->o.tids[i], true);
		if (err == -ESRCH)
			pr_err("thread %d: no such thread", (int)r->o.tids[i]);
		if (!err)
			err = add_task(r, r->o.tids[i]);
	}
	if (!err && r->o.uid_set && !r->nr_tasks) {
		pr_err("option -u: user %u has no process to record", (unsigned)r->o.uid);
		return -ESRCH;
	}
	/* -p, -u: a task gone at the open is left out (perf 6.1's
	 * ignore_missing_thread), -t's thread is not */
	prec_evlist__leave_out_gone(r->el, r->o.nr_pids > 0);
	return err;
}

/* -u: the processes of the user as perf 6.1 takes them, those whose /proc
 * directory the user owns now, prec aside; recorded as -p's. */
static int user_pids(struct prec_record_opts *o)
{
	pid_t *all;
	int nr = prec_proc__pids(&all), err = 0;

	if (nr < 0)
		return nr;
	for (int i = 0; !err && i < nr; i++) {
		struct stat st;
		char path[32];
		pid_t *n;

		snprintf(path, sizeof(path), "/proc/%d", (int)all[i]);
		if (all[i] == getpid() || fstatat(AT_FDCWD, path, &st, AT_SYMLINK_NOFOLLOW) ||
		    st.st_uid != o->uid)
			continue;
		n = realloc(o->pids, (size_t)(o->nr_pids + 1) * sizeof(*n));
		if (!n) {
			err = -ENOMEM;
			break;
		}
		o->pids = n;
		n[o->nr_pids++] = all[i];
	}
	free(all);
	if (!err && !o->nr_pids) {
		pr_err("option -u: user %u has no process to record", (unsigned)o->uid);
		return -ESRCH;
	}
	return err;
}

/* Whether the command is what is recorded: not with -a or -C (CPU-wide
 * events), nor with -p or -t, where as in perf the command only times
 * the recording (it runs unrecorded, and the recording stops when it
 * exits or the targets are gone). */
static bool command_is_target(const struct record *r)
{
	return r->have_wl && !r->o.all_cpus && !r->o.nr_pids && !r->o.nr_tids;
}

/* CPUs, tasks, and the workload forked (held before exec). */
static int setup_targets(struct record *r)
{
	int err;

	if (r->o.cpus) {
		r->cpus = malloc((size_t)r->o.nr_cpus * sizeof(int));
		if (!r->cpus)
			return -ENOMEM;
		memcpy(r->cpus, r->o.cpus, (size_t)r->o.nr_cpus * sizeof(int));
		r->nr_cpus = r->o.nr_cpus;
	} else {
		r->nr_cpus = prec_cpu_list__online(&r->cpus);
		if (r->nr_cpus <= 0) {
			pr_err("/sys/devices/system/cpu/online: cannot read the online CPUs");
			return r->nr_cpus < 0 ? r->nr_cpus : -ENODEV;
		}
	}
	if (r->o.argv) {
		err = prec_workload__prepare_as(&r->wl, r->o.argv, r->o.user,
						r->o.user_uid, r->o.user_gid);
		if (err) {
			pr_err("command '%s': %s", r->o.argv[0], strerror(-err));
			return err == -ENOENT ? -ENOEXEC : err;
		}
		r->have_wl = true;
	}
	if (r->o.all_cpus)
		return add_task(r, -1);
	if (command_is_target(r))
		return add_task(r, r->wl.pid);
	return setup_tasks(r);
}

static int setup_signals(struct record *r)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCHLD);
	/* a snapshot, or the next epoch; else read and dropped, where perf
	 * ignores it (its default action would end the recording unfinished) */
	sigaddset(&set, SIGUSR2);
	/* Blocked before any thread exists, so drainers inherit the mask and
	 * every stop signal reaches the signalfd. */
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	/* A write to a pipe nobody reads any more (the ack end of --control
	 * fd:N,M, stderr piped to a reader that quit) fails with EPIPE and is
	 * said or dropped; SIGPIPE's default killed the recorder there, the
	 * recording left unfinished and the command with it. The command and
	 * prec's own children get the default back (workload.c, file_output.c). */
	signal(SIGPIPE, SIG_IGN);
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC);
	return r->sfd < 0 ? -errno : 0;
}

/* --switch-output: the next epoch, whatever asked for it (SIGUSR2,
 * 'switch', the size or the time). Returns 0, or -errno once the
 * recording must stop. */
static int cut(void *arg)
{
	struct record *r = arg;
	uint64_t t0 = prec_now_ns(CLOCK_MONOTONIC), now;
	/* the epoch the cut closes, merged after it with -o FILE */
	char *old = r->fo.file ? strdup(prec_recording__dir(prec_session__recording(r->s))) : NULL;
	/* --tail-synthesize: the old epoch's tail, as perf's, read before
	 * the switch; the new epoch's tail is written at its own end */
	int err = prec_controls__cut_tail(&r->fl), e;
	const char *cur;

	e = prec_session__cut(r->s, r->el);
	err = err ? err : e;
	e = prec_controls__epoch(&r->fl, r->s);
	err = err ? err : e;
	cur = prec_recording__dir(prec_session__recording(r->s));

	now = prec_now_ns(CLOCK_MONOTONIC);
	pr_debug("%s: epoch started; the cut took %.1f ms", cur, (double)(now - t0) / 1e6);
	/* In this thread, after the old epoch is whole on disk: the drainers
	 * go on into the new one meanwhile, and only the next cut (and the
	 * signals) wait for the merge. A failed merge keeps the epoch and
	 * fails the run at its end, not the recording. */
	if (old && strcmp(old, cur))
		prec_file_output__epoch(&r->fo, &r->o, old);
	free(old);
	/* From the old epoch's end: what the drainers wrote into the new one
	 * during the cut counts towards its SIZE. */
	prec_switch_trigger__reset(&r->sw, prec_session__cut_bytes(r->s), prec_now_ns(CLOCK_MONOTONIC));
	prec_session__mark_cut(r->s, prec_switch_trigger__next_bytes(&r->sw));
	if (err)
		r->cut_err = err;
	return err;
}

/* Handle one signalfd read. Returns 1 to stop. */
static int on_signal(struct record *r)
{
	struct signalfd_siginfo si;
	int sig;

	if (read(r->sfd, &si, sizeof(si)) != sizeof(si))
		return 0;
	if (si.ssi_signo == SIGUSR2) {
		if (r->fl.snapshot)
			r->fl.snapshot(r->fl.snapshot_arg);
		if (r->fl.cut)
			return r->fl.cut(r->fl.cut_arg) != 0;
		return 0;
	}
	if (si.ssi_signo != SIGCHLD) {
		r->signo = (int)si.ssi_signo;
		return 1;
	}
	/* -o -'s follower gone (its reader left): recording on would only
	 * fill the disk, to the end of a command or for ever with -a; perf
	 * dies of SIGPIPE at its next write, so prec stops and ends by it. */
	if (prec_file_output__stream_ended(&r->fo, &sig)) {
		if (sig == SIGPIPE)
			r->signo = SIGPIPE;
		return 1;
	}
	return r->have_wl && prec_workload__exited(&r->wl) == 1;
}

/* The flight recorder's next deadline (--max-size needs no look: the
 * drainer that reaches it wakes the loop through the pool's fd). */
static int poll_ms(const struct record *r)
{
	int t = prec_controls__timeout_ms(&r->fl);
	int st = prec_status_line__timeout_ms(r->status);
	int sw = r->o.switch_output ?
		 prec_switch_trigger__timeout_ms(&r->sw, prec_session__counted(r->s),
						 prec_now_ns(CLOCK_MONOTONIC)) : -1;
	int md = prec_session__timeout_ms(r->s);

	if (r->watch_by_poll && (t < 0 || t > WATCH_POLL_MS))
		t = WATCH_POLL_MS;
	if (r->bid_ms >= 0 && (t < 0 || t > r->bid_ms))
		t = r->bid_ms;
	if (sw >= 0 && (t < 0 || t > sw))
		t = sw;
	if (st >= 0 && (t < 0 || t > st))
		t = st;
	if (md >= 0 && (t < 0 || t > md))
		t = md;
	return t;
}

/* After a poll: mark the targets that ended (a readable pidfd, or a polled
 * thread tgkill no longer finds). Returns how many are left. */
static int targets_alive(struct record *r, struct pollfd *pfd)
{
	int alive = 0;

	for (int i = 0; i < r->nr_watches; i++) {
		struct watch *w = &r->watches[i];

		if (!w->gone && w->fd >= 0 && pfd[i].revents)
			w->gone = true;
		else if (!w->gone && w->fd < 0 &&
			 syscall(SYS_tgkill, w->tgid, w->tid, 0) < 0 && errno == ESRCH)
			w->gone = true;
		if (w->gone)
			pfd[i].fd = -1;
		alive += !w->gone;
	}
	return alive;
}

static bool max_size_reached(struct record *r)
{
	uint64_t got;

	if (!r->o.max_size || !prec_session__max_size_reached(r->s, &got))
		return false;
	pr_info("record: --max-size reached (%.1f MB recorded): stopping",
		(double)got / 1e6);
	return true;
}

/* --switch-output=SIZE|TIME: a cut when due. Returns 1 to stop. */
static int switch_due(struct record *r)
{
	if (!r->o.switch_output ||
	    !prec_switch_trigger__due(&r->sw, prec_session__counted(r->s),
				      prec_now_ns(CLOCK_MONOTONIC)))
		return 0;
	return cut(r) != 0;
}

/* --switch-output-event: a cut for whatever its rings hold (however many
 * occurrences since the last look: one cut, as perf's SIGUSR2s coalesce).
 * Returns 1 to stop. */
static int switch_event_hit(struct record *r, const struct pollfd *pfd, int n)
{
	bool ready = false;

	for (int i = 0; i < n; i++)
		ready |= (pfd[i].revents & POLLIN) != 0;
	if (!ready || !prec_switch_event__consume(r->swe))
		return 0;
	return cut(r) != 0;
}

static int wait_for_stop(struct record *r)
{
	int nsw = prec_switch_event__nr_fds(r->swe), n = 3 + r->nr_watches + nsw;
	struct pollfd *pfd = calloc((size_t)n, sizeof(*pfd));

	if (!pfd || prec_status_line__new(&r->status, STDERR_FILENO, r->s, r->o.quiet)) {
		free(pfd);
		return -ENOMEM;
	}
	prec_status_line__set_budget(r->status, r->o.max_disk);
	pfd[0] = (struct pollfd){ .fd = r->sfd, .events = POLLIN };
	/* A drainer's error (disk full...) stops everything at once. */
	pfd[1] = (struct pollfd){ .fd = prec_drainer_pool__notify_fd(prec_session__pool(r->s)),
				  .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = prec_control__fd(r->fl.ctl), .events = POLLIN };
	for (int i = 0; i < r->nr_watches; i++)
		pfd[3 + i] = (struct pollfd){ .fd = r->watches[i].fd, .events = POLLIN };
	prec_switch_event__fill(r->swe, pfd + 3 + r->nr_watches);
	/* the first epoch's SIZE from the first byte (the drainers count
	 * from their start) */
	prec_switch_trigger__init(&r->sw, r->o.switch_bytes, r->o.switch_ms, 0,
				  prec_now_ns(CLOCK_MONOTONIC));
	prec_session__mark_cut(r->s, prec_switch_trigger__next_bytes(&r->sw));
	r->bid_ms = prec_session__read_buildids(r->s);
	/* The workload may be gone already (SIGCHLD pending). Not reaped
	 * yet: the stop's tail reads its comm, as perf's does (stop()). */
	while (!(r->have_wl && prec_workload__exited(&r->wl) == 1)) {
		/* -1 (not polled) once the control channel's writer is gone */
		pfd[2].fd = prec_control__fd(r->fl.ctl);
		if (poll(pfd, (nfds_t)n, poll_ms(r)) < 0 && errno != EINTR)
			break;
		if (max_size_reached(r))
			break;
		if ((pfd[0].revents & POLLIN) && on_signal(r))
			break;
		if ((pfd[1].revents & POLLIN) && prec_session__drain_failed(r->s))
			break;
		if (prec_controls__tick(&r->fl, r->el))
			break;
		if (switch_due(r))
			break;
		if (nsw && switch_event_hit(r, pfd + 3 + r->nr_watches, nsw))
			break;
		if (r->nr_watches && !targets_alive(r, pfd + 3))
			break;
		prec_session__tick(r->s);
		prec_status_line__tick(r->status);
		r->bid_ms = prec_session__read_buildids(r->s);
	}
	/* the screen clean for the summary and the stop's messages */
	prec_status_line__delete(r->status);
	r->status = NULL;
	free(pfd);
	return 0;
}

/* -vv: each attr in perf's -vv layout, in list order (the tracking event
 * first), before any is opened: an event the machine cannot open is
 * shown too, as perf shows it before its open fails. */
static void debug_events(const struct prec_evlist *el, int verbose)
{
	int nr = prec_evlist__nr_events(el);

	for (int i = 0; verbose >= 2 && i < nr; i++)
		prec_attr__fprintf(stderr, &prec_evlist__event(el, i)->attr);
	for (int i = 0; i < nr; i++) {
		const struct prec_evsel *ev = prec_evlist__event(el, i);
		const struct perf_event_attr *a = &ev->attr;

		pr_debug("event %d '%s': type %u config %#llx sample_type %#llx %s %llu read_format %#llx leader %d%s",
			 i, ev->name, a->type, (unsigned long long)a->config,
			 (unsigned long long)a->sample_type, a->freq ? "freq" : "period",
			 (unsigned long long)a->sample_period,
			 (unsigned long long)a->read_format, ev->leader,
			 a->write_backward ? " write_backward (flight ring)" : "");
	}
}

/* -v: where the start's time goes, as the close's laps do for the stop. */
static void start_lap(const struct record *r, const char *what)
{
	pr_debug("start: %s at +%.1f ms", what,
		 (double)(prec_now_ns(CLOCK_MONOTONIC) - r->t_begin_ns) / 1e6);
}

/* Directory, start manifest, side band, drainers. Returns 0 or -errno. */
static int begin_session(struct record *r, int argc, char **argv)
{
	const pid_t *pids = NULL;
	int nr = 0, err;

	err = prec_session__new(&r->s, r->o.dir, r->o.force, r->t_begin_ns);
	if (err)
		return err;
	err = prec_session__begin(r->s, &r->o, r->el, argc, argv);
	if (err) {
		prec_session__discard(r->s);
		return err;
	}
	r->started = true;
	start_lap(r, "directory, writers, start manifest");
	err = prec_file_output__start(&r->fo, &r->o,
				     prec_recording__dirfd(prec_session__recording(r->s)));
	if (err) {
		prec_session__discard(r->s);
		r->started = false;
		return err;
	}
	if (command_is_target(r)) {
		pids = &r->wl.pid;
		nr = 1;
	} else if (!r->o.all_cpus) {
		pids = r->o.nr_pids ? r->o.pids : r->o.tids;
		nr = r->o.nr_pids ? r->o.nr_pids : r->o.nr_tids;
	}
	/* A workload alone (enable_on_exec) has nothing to track before its
	 * exec; everything else does, -D's wait included. */
	err = prec_session__start(r->s, &r->o, r->el, pids, nr, !command_is_target(r),
				  r->have_wl ? r->wl.pid : 0);
	if (!err)
		err = prec_controls__start(&r->fl, r->s, &r->o, r->el);
	if (err) {
		/* No sample was recorded yet (at most side band: the sampling
		 * events are still disabled): leave nothing behind, and -f's
		 * old directory where it was. */
		prec_session__discard(r->s);
		r->started = false;
	}
	return err;
}

/* Enable and start the workload. Returns 0, or 127 when exec failed. */
static int go(struct record *r)
{
	int err = 0;

	err = exclude_self(r);
	if (err)
		return 1;
	/* Workload-only mode enables on exec; everything else now. */
	err = prec_session__enable(r->s, r->el, !command_is_target(r) &&
				   prec_controls__starts_enabled(&r->fl));
	if (err)
		return err;
	start_lap(r, "events enabled");
	if (!r->have_wl)
		return 0;
	err = prec_workload__start(&r->wl);
	if (err) {
		pr_err("command '%s': %s", r->o.argv[0], strerror(-err));
		return 127;
	}
	return 0;
}

static int stop(struct record *r, int rc)
{
	int err;

	prec_session__disable(r->s, r->el);
	prec_controls__stop(&r->fl);
	if (r->have_wl) /* after the tail, which names the zombie (perf's too) */
		prec_workload__reap(&r->wl, false);
	err = prec_session__finish(r->s, r->el);
	if (r->have_wl && !r->wl.exited) {
		prec_workload__abort(&r->wl);
	}
	if (!r->o.quiet) {
		struct prec_session_report rep;

		prec_session__report(r->s, &rep);
		/* -o FILE: no epoch is left; each file has its Dump line */
		if (r->fo.file)
			rep.switch_output = false;
		prec_summary__print(&rep);
	}
	if (rc)
		return rc;
	if (err || r->cut_err)
		return 1;
	/* As perf: after --max-size too, the command's status; a command a
	 * signal killed (the SIGTERM that stopped it, too) ends prec by that
	 * signal rather than by the one prec got; but not after a stream
	 * whose reader left (SIGPIPE, which perf dies of before it stops
	 * the command). */
	if (r->have_wl && prec_workload__term_signal(&r->wl) && r->signo != SIGPIPE)
		r->signo = prec_workload__term_signal(&r->wl);
	return r->have_wl ? prec_workload__exit_code(&r->wl) : 0;
}

/* CPU-wide events as a user the kernel refuses them to: one line naming
 * the setting and the capability, before a command is forked. */
static int check_perm(const struct record *r)
{
	if (!r->o.all_cpus || prec_perm__allows(PREC_PERM_CPU))
		return 0;
	prec_perm__deny(PREC_PERM_CPU, r->o.cpus ? "option -C" : r->o.argv ? "option -a" :
			"option -a (the default without a command, -p or -t)");
	return -EACCES;
}

/* As perf: where the kernel refuses kernel samples (perf_event_paranoid 2
 * without CAP_PERFMON), a command's or -p's events count user space only,
 * said once. */
static int user_only(struct record *r)
{
	int n;

	if (prec_perm__allows(PREC_PERM_KERNEL))
		return 0;
	n = prec_evlist__user_only(r->el);
	if (n < 0) {
		pr_err("events: %s", strerror(-n));
		return n;
	}
	if (n > 0)
		pr_info("note: kernel.perf_event_paranoid=%d and no CAP_PERFMON: falling back to excluding kernel and hypervisor samples (user space only, as --all-user)",
			prec_perm__paranoid());
	return 0;
}

/* --max-disk below what a segment of every CPU's shard needs, with its
 * staging in flight: one line, before anything is created. */
static int check_max_disk(const struct record *r)
{
	int *online = NULL, n = r->o.cpus ? r->o.nr_cpus : prec_cpu_list__online(&online);
	uint64_t min;

	free(online);
	if (!r->o.max_disk || n <= 0)
		return 0;
	min = prec_max_disk__minimum(n, r->o.staging_bytes);
	if (r->o.max_disk >= min)
		return 0;
	pr_err("option --max-disk '%s': below the minimum of %lluK for %d CPUs (their staging in flight and two segments each)",
	       r->o.max_disk_arg, (unsigned long long)(min + 1023) / 1024, n);
	return -EINVAL;
}

static int record(struct record *r, int argc, char **argv)
{
	int err, rc;

	r->t_begin_ns = prec_now_ns(CLOCK_MONOTONIC);
	err = setup_events(r);
	if (err)
		return err == -EINVAL ? 2 : 1;
	if (r->o.uid_set && user_pids(&r->o))
		return 1;
	if (check_max_disk(r))
		return 2;
	if (r->o.kcore && prec_kcore__check())
		return 2;
	err = check_perm(r);
	if (err)
		return 1;
	/* An overwrite term on an event makes a flight recording as well. */
	if (r->o.switch_output && prec_evlist__overwrite(r->el)) {
		pr_err("option --switch-output: an event with overwrite makes a flight recording, whose snapshots take SIGUSR2");
		return 2;
	}
	if (r->o.switch_output && r->o.aux_snapshot) {
		pr_err("option --switch-output: -S takes SIGUSR2 for its AUX area snapshots");
		return 2;
	}
	err = setup_signals(r);
	if (!err)
		err = setup_targets(r);
	if (err)
		return err == -ENOEXEC ? 127 : 1;
	/* As perf: a command's and -p's processes are followed into their
	 * children (unless -i), -t's threads are not; perf sets inherit on
	 * -a's CPU-wide events too, where the kernel has no task to follow. */
	prec_evlist__config(r->el, &r->o, command_is_target(r),
			    !r->o.no_inherit && (command_is_target(r) || r->o.nr_pids ||
						 r->o.all_cpus || !r->o.nr_tids));
	prec_offcpu__config(r->el, &r->o);
	err = user_only(r);
	if (err)
		return 1;
	if (r->o.dry_run) {
		debug_events(r->el, r->o.verbose);
		return 0;
	}
	/* -D: the sampling events wait for the timer or 'enable', not for
	 * exec. The tracking event does not wait (as perf): the command's
	 * exec COMM and MMAPs come during the wait, and without them its
	 * samples would carry the forked child's name, "perf-exec", and no DSO. */
	if (r->o.delay_ms)
		prec_evlist__delay_enable(r->el);
	debug_events(r->el, r->o.verbose);
	if (prec_controls__init(&r->fl, &r->o))
		return 1;
	if (r->o.switch_output) {
		r->fl.cut = cut;
		r->fl.cut_arg = r;
	}
	start_lap(r, "events parsed, targets set up");
	prec_evlist__show_opens(r->el, r->o.verbose >= 2);
	err = prec_evlist__open(r->el, r->cpus, r->nr_cpus, r->tasks, r->nr_tasks,
				r->o.mmap_pages);
	if (err)
		return 1;
	start_lap(r, "events opened, rings mapped");
	if (r->o.switch_event) {
		err = prec_switch_event__open(&r->swe, r->o.switch_event, r->cpus, r->nr_cpus);
		if (err)
			return err == -EINVAL ? 2 : 1;
	}
	if (r->no_cycles)
		pr_info("note: no hardware cycles event here (%s): sampling cpu-clock, as perf falls back",
			strerror(r->no_cycles));
	err = begin_session(r, argc, argv);
	if (err && !r->started)
		return 1;
	start_lap(r, "drainers, side band");
	rc = err ? 1 : go(r);
	start_lap(r, "command started");
	if (!rc)
		wait_for_stop(r);
	rc = stop(r, rc);
	/* --switch-output -o FILE: the last epoch's file, as at a cut */
	if (r->o.switch_output && r->started && prec_session__recording(r->s))
		prec_file_output__epoch(&r->fo, &r->o,
					prec_recording__dir(prec_session__recording(r->s)));
	/* the merge of -o FILE, once the recording is whole on disk */
	if (prec_file_output__finish(&r->fo, &r->o, r->started) && !rc)
		rc = 1;
	return rc;
}

/* A stop signal that came after the loop stopped looking (during the
 * stop, the merge of -o FILE, or before the loop, on a failure): still
 * blocked and pending, it ends prec as perf's handler, there until its
 * exit, makes it end. 0 if none. */
static int stop_signal_pending(void)
{
	static const int stops[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t set;

	if (sigpending(&set))
		return 0;
	for (size_t i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (sigismember(&set, stops[i]) == 1)
			return stops[i];
	return 0;
}

/* Closing the last fd of a tracepoint event waits out RCU grace periods in
 * the kernel (tracepoint unregistration), long after the
 * recording is complete and on disk. A child holding copies of the fds
 * until we are gone takes that wait, so prec returns at once; init reaps
 * it. It closes stdio first: a caller reading our output sees EOF now. */
static void release_events_later(const struct record *r)
{
	int p[2];
	bool tracepoints = false;
	pid_t pid;
	char c;

	for (int i = 0; r->el && i < prec_evlist__nr_events(r->el); i++)
		tracepoints |= prec_evlist__event(r->el, i)->attr.type == PERF_TYPE_TRACEPOINT;
	if (!tracepoints || pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		for (int fd = 0; fd <= 2; fd++)
			close(fd);
		/* EOF once the parent and every copy of the write end are gone. */
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	close(p[0]);
	/* p[1] stays open until we exit; on a failed fork we close as usual. */
}

int prec_cmd_record(int argc, char **argv)
{
	struct record r;
	int rc;

	memset(&r, 0, sizeof(r));
	r.sfd = -1;
	rc = prec_record_opts__parse(&r.o, argc, argv);
	if (rc) {
		prec_record_opts__exit(&r.o);
		/* perf's parse-options exits 129 after its lists */
		return rc == PREC_RECORD_OPTS_HELP ? 0 : rc == PREC_RECORD_OPTS_LISTED ? 129 : 2;
	}
	if (r.o.verbose)
		prec_log_level = PREC_LOG_DEBUG;
	else if (r.o.quiet)
		prec_log_level = PREC_LOG_ERR;
	/* before the rings and buffers: the worker copies none of them
	 * (a failure here is tried again, and said, at the first read) */
	prec_buildid_workers__start();
	if (prec_evlist__new(&r.el)) {
		pr_err("record: the event list: %s", strerror(ENOMEM));
		rc = 1;
	} else {
		rc = prec_file_output__init(&r.fo, &r.o) ? 1 : record(&r, argc, argv);
	}
	if (r.have_wl)
		prec_workload__abort(&r.wl);
	prec_controls__exit(&r.fl); /* its threads write into the session */
	prec_switch_event__close(r.swe);
	prec_session__delete(r.s);
	release_events_later(&r);
	prec_file_output__exit(&r.fo);
	prec_evlist__delete(r.el);
	for (int i = 0; i < r.nr_watches; i++)
		if (r.watches[i].fd >= 0)
			close(r.watches[i].fd);
	free(r.watches);
	if (r.sfd >= 0)
		close(r.sfd);
	free(r.cpus);
	free(r.tasks);
	prec_record_opts__exit(&r.o);
	prec_buildid_workers__stop();
	if (r.sfd >= 0 && !r.signo)
		r.signo = stop_signal_pending();
	return r.signo ? PREC_END_BY_SIGNAL(r.signo) : rc;
}
