/* SPDX-License-Identifier: MIT */
/* Private to `prec record`'s orchestration (cmd_record.c, options.c,
 * events.c, evlist.c, workload.c, session.c): the parsed options, the event
 * list and its fds/rings, the workload and the recording session. */
#ifndef PREC_RECORD_CMD_RECORD_H
#define PREC_RECORD_CMD_RECORD_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "record/internal.h"
#include "record/pmu_sysfs.h"
#include "util/clock.h"
#include "util/cpu_list.h"

_Static_assert(sizeof(struct perf_event_attr) >= PERF_ATTR_SIZE_VER7,
	       "perf_event_attr from the system headers is at least VER7");

/* Default per-CPU ring: 256 data pages (1 MiB). perf uses 512 KiB; prec
 * drains on a round timer too, and twice the slack costs little as root. */
#define PREC_RECORD_DEFAULT_PAGES 256
/* A flight recording's drained ring when it carries only the side band
 * (the tracking event's COMM, MMAP2, FORK, EXIT...): 128 KiB per CPU.
 * A process start writes about 1 KiB of those, and the drainer wakes at
 * a quarter of the ring, so it overflows only when more than ~100
 * processes start on one CPU before its drainer runs
 * (docs/flight-recorder.md). */
#define PREC_RECORD_SIDEBAND_RING (128u * 1024u)
#define PREC_RECORD_DEFAULT_FREQ 4000
#define PREC_RECORD_DEFAULT_STACK 8192
/* -k perf, or an AUX event's default: the kernel's perf clock, i.e. no
 * use_clockid (the manifest's clockid -1). */
#define PREC_CLOCK_PERF (-1)

/* A clock the kernel reads from an NMI, so every PMU takes it; the others
 * (realtime, boottime, tai) only software events (perf_event_set_clock),
 * which rules them out for tracepoints such as --markers' ftrace:print. */
static inline bool prec_clock__nmi_safe(int clockid)
{
	return clockid == CLOCK_MONOTONIC || clockid == CLOCK_MONOTONIC_RAW;
}
/* perf's x86_64 user register mask for DWARF unwinding: AX..R15 without
 * the segment registers DS, ES, FS, GS. */
#define PREC_REGS_USER_X86_64 0xff0fffULL

/* ---- options (options.c) ---- */

enum prec_callgraph { PREC_CG_NONE, PREC_CG_FP, PREC_CG_DWARF };

struct prec_event_spec {
	char *text;            /* one -e argument (comma list) */
	char *filter;          /* --filter after it, or NULL */
};

struct prec_record_opts {
	const char *dir;
	struct prec_event_spec *specs;
	int nr_specs;
	uint64_t freq, period;  /* at most one non-zero when set by the user */
	bool sample_period;     /* -P: PERIOD in every sample, as perf -P */
	enum prec_callgraph callgraph;
	uint32_t stack_size;
	bool all_cpus;
	int *cpus;              /* -C list, sorted, unique; NULL = all online */
	int nr_cpus;
	pid_t *pids;            /* -p */
	int nr_pids;
	pid_t *tids;            /* -t */
	int nr_tids;
	char **argv;            /* workload, NULL-terminated, or NULL */
	int argc;
	size_t mmap_pages;
	int clockid;            /* PREC_CLOCK_PERF or a clockid_t */
	bool clock_set;         /* -k given */
	uint64_t round_ms;
	bool force, copy;
	bool direct_io;         /* copy mode writes with O_DIRECT (--no-direct-io) */
	enum prec_affinity affinity; /* --affinity: where drainers run */
	/* -r: drainers SCHED_FIFO at this; 0 = the fair scheduler; -1 (the
	 * default) = PREC_DRAIN_AUTO_PRIO where the kernel allows it */
	int rt_prio;
	bool verbose, quiet;
	/* flight recorder, control, markers, AUX (flight-recorder.md) */
	bool markers;           /* --markers: trace_marker writes as ftrace:print */
	bool no_inherit;        /* -i: the command's children are not followed */
	bool switch_events;     /* --switch-events: PERF_RECORD_SWITCH records */
	bool no_bpf_event;      /* --no-bpf-event: no KSYMBOL/BPF_EVENT records */
	bool all_user, all_kernel; /* --all-user/--all-kernel: :u/:k on every event */
	uint64_t max_size;      /* --max-size: stop once this much is drained */
	bool overwrite;         /* --overwrite: backward rings, snapshots */
	const char *control;    /* --control fifo:CTL[,ACK] or fd:CTL[,ACK] */
	int64_t delay_ms;       /* -D: wait before enabling; -1 = until 'enable' */
	size_t aux_bytes;       /* --aux-size / -m ,AUX: AUX area per CPU */
	const char *user;       /* --user: run the workload as this user */
	uid_t user_uid;
	gid_t user_gid;
	bool compress;          /* -z: lz4 chunks (implies copy mode) */
	int compress_level;     /* 0 = LZ4 fast, 1..12 = LZ4 HC level */
};

/* Parse `prec record` argv (argv[0] = "record"). Returns 0, 1 when help
 * was printed (exit 0), or -EINVAL after printing one line (exit 2). */
int prec_record_opts__parse(struct prec_record_opts *o, int argc, char **argv);
void prec_record_opts__exit(struct prec_record_opts *o);
/* --affinity's name for a */
const char *prec_affinity__name(enum prec_affinity a);

/* ---- AUX PMUs (auxpmu.c) ---- */

/* PMUs that write an AUX area, decided by name as perf does. */
enum prec_aux_kind {
	PREC_AUX_NONE = 0,
	PREC_AUX_INTEL_PT,
	PREC_AUX_INTEL_BTS,
	PREC_AUX_CS_ETM,
	PREC_AUX_ARM_SPE,
	PREC_AUX_OTHER,        /* hisi_ptt */
};

/* perf's AUXTRACE_INFO types (tools/perf/util/auxtrace.h). */
#define PREC_AUXTRACE_INTEL_PT 1
#define PREC_AUXTRACE_CS_ETM 3
#define PREC_AUXTRACE_ARM_SPE 4

/* Minimum AUX area, perf's rule for intel_pt and arm_spe (full trace). */
#define PREC_AUX_MIN_BYTES (8u * 1024u)

/* What the AUXTRACE_INFO words are built from. */
struct prec_auxpmu_src {
	const char *root;      /* PMU sysfs root; NULL = /sys/bus/event_source/devices */
	const char *pmu;       /* PMU name, a directory under root */
	uint32_t pmu_type;     /* its type (the attr.type opened) */
	const struct perf_event_mmap_page *pc; /* a ring's control page, or NULL */
	uint32_t tsc_ctc_n, tsc_ctc_d; /* CPUID 0x15, 0 when unknown */
	uint32_t have_sched_switch;    /* perf's 0..3: how switches are recorded */
	bool snapshot, per_cpu_mmaps;
	const char *filter;    /* intel_pt address filter, or NULL */
	const int *cpus;       /* cs_etm: the CPUs recorded, ascending */
	int nr_cpus;
	uint64_t config;       /* cs_etm: the event's attr.config */
};

enum prec_aux_kind prec_auxpmu__kind(const char *pmu);
/* perf's default config for the PMU, applied before the user's terms:
 * intel_pt: tsc, mtc + mtc_period, psb_period, pt, branch as caps allow;
 * arm_spe: ts_enable, and *period = caps/min_interval (else 4096);
 * cs_etm: timestamp and contextid (prec_cs_etm__default_config). Others
 * untouched, *period 0. */
void prec_auxpmu__default_config(struct perf_event_attr *a, const char *root,
				 const char *pmu, uint64_t *period);
/* perf's default AUX area: 4 MiB privileged, 128 KiB otherwise. */
size_t prec_auxpmu__default_bytes(bool privileged);
/* CPUID leaf 0x15 (TSC to core crystal clock ratio n/d); 0/0 elsewhere. */
void prec_auxpmu__tsc_ctc(uint32_t *n, uint32_t *d);
/* AUXTRACE_INFO type and private words as perf 6.1 records them for the
 * PMU (*priv malloc'd, *nr words). Returns 0, -EOPNOTSUPP (an AUX PMU
 * whose layout prec does not write: intel_bts, hisi_ptt), -EINVAL (not an
 * AUX PMU), -ENOMEM, or for cs_etm a sysfs register's -errno (-ENODEV: a
 * CPU without an ETM). Reads sysfs under s->root. */
int prec_auxpmu__info(const struct prec_auxpmu_src *s, uint32_t *type,
		      uint64_t **priv, uint32_t *nr);

/* ---- CoreSight ETM (cs_etm.c) ---- */

/* A CPU's trace unit as sysfs describes it under PMU/cpuN. */
enum prec_etm_kind { PREC_ETM_NONE, PREC_ETM_V3, PREC_ETM_V4, PREC_ETM_ETE };

/* ETE (TRCDEVARCH says so), else ETMv4 (a TRCIDR0), else ETMv3/PTM (the
 * cpuN directory), else none. */
enum prec_etm_kind prec_cs_etm__kind(const char *root, const char *pmu, int cpu);
/* perf's default config with per-CPU rings: the timestamp bit and the
 * bit of the PMU's "contextid" format. */
uint64_t prec_cs_etm__default_config(const char *root, const char *pmu);
/* The ETMv4/ETE TRCCONFIGR perf records for an attr.config. */
uint64_t prec_cs_etm__trcconfigr(uint64_t config);
/* perf 6.1's cs_etm words (header version 1, one block per CPU of
 * s->cpus) from sysfs under s->root. Returns 0 (*out malloc'd, *nr
 * words) or -errno with the path that failed in bad (-ENODEV: the CPU
 * has no ETM directory). */
int prec_cs_etm__info(const struct prec_auxpmu_src *s, uint64_t **out,
		      uint32_t *nr, char *bad, size_t bad_len);
/* Before opening: every CPU of s->cpus has an ETM whose registers all
 * read, and can do the timestamps and context IDs s->config asks for.
 * Returns 0 or -EINVAL after one line naming the CPU and the file. */
int prec_cs_etm__check(const struct prec_auxpmu_src *s, const char *evname);

/* ---- events (events.c) ---- */

/* An event's overwrite / no-overwrite term (perf's), if any. */
enum prec_ow_term { PREC_OW_DEFAULT, PREC_OW_ON, PREC_OW_OFF };

struct prec_evsel {
	struct perf_event_attr attr;
	char *name;            /* as the user wrote it, e.g. "sched:sched_switch" */
	char *filter;          /* tracepoint filter or NULL */
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
};

struct prec_evlist {
	struct prec_evsel *evsel;
	int nr;
	/* what is opened (evlist.c): fds[(e * nr_cpus + c) * nr_tasks + t] */
	int *cpus, nr_cpus;
	pid_t *tasks;          /* {-1} for per-CPU events */
	int nr_tasks;
	int *fds;
	uint64_t *ids;         /* same index as fds */
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
	const char *pmu_root;  /* sysfs PMU root the events were parsed with */
	/* AUX (evlist_aux.c): the AUX event owns every CPU's ring */
	size_t aux_bytes;      /* AUX area per CPU, 0 = no AUX event */
	int aux_owner;         /* the AUX event's index (when aux_bytes) */
	uint32_t have_sched_switch; /* perf's AUXTRACE_INFO value */
};

/* Append the events of one -e argument (comma separated; commas inside
 * pmu/.../ belong to the PMU terms). pmu_root: NULL for
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
/* Put the tracking dummy first. Returns 0 or -ENOMEM. */
int prec_evlist__add_tracking(struct prec_evlist *el);
/* Fill the common attr bits from the options (sample_type, freq/period,
 * callchains, clock, watermark, inherit, enable_on_exec, write_backward
 * as prec_evlist__channels chose). */
void prec_evlist__config(struct prec_evlist *el,
			 const struct prec_record_opts *o, bool workload,
			 bool inherit);
/* Common base sample_type of every attr (PREC_SAMPLE_BASE). */
uint64_t prec_evlist__sample_base(const struct prec_evlist *el);
void prec_evlist__exit(struct prec_evlist *el);

/* ---- AUX events (evlist_aux.c) ---- */

/* After the events are parsed, before prec_evlist__config: with an AUX PMU
 * event, make it the owner of every CPU's ring, size its AUX area
 * (o->aux_bytes, else perf's default; power of two pages, >= 8 KiB) and
 * let the tracking event record context switches for the decoder. Returns
 * 0, or -EINVAL after one line (two AUX events, --overwrite, a PMU whose
 * AUXTRACE_INFO prec does not write, a bad size; cs_etm: a CPU of o->cpus,
 * else of the online ones, without an ETM, a register that does not read,
 * an option its ETM cannot do): a bad command line. */
int prec_evlist__aux_setup(struct prec_evlist *el,
			   const struct prec_record_opts *o);
/* After aux_setup: an AUX event whose trace is decoded on the perf clock
 * (intel_pt, arm_spe, cs_etm) makes the recording use it, unless -k says
 * otherwise: refused for intel_pt and cs_etm (as perf), warned about for
 * arm_spe.
 * Returns 0 or -EINVAL after one line (also for --markers on the perf
 * clock). */
int prec_evlist__aux_clock(const struct prec_evlist *el,
			   struct prec_record_opts *o);
/* The order events are opened in on each CPU: the ring owner (the AUX
 * event, else event 0) first, the others in list order. order has el->nr
 * entries. */
void prec_evlist__open_order(const struct prec_evlist *el, int *order);
/* After opening: m's auxtrace type and words for the AUX event, from
 * sysfs under el->pmu_root and the first ring's control page. No AUX
 * event: nothing. Returns 0 or -errno after one line. */
int prec_evlist__aux_info(const struct prec_evlist *el,
			  struct prec_manifest *m);

/* ---- opening (evlist.c) ---- */

/* Open every event on every CPU/task, map one ring per CPU and channel
 * (the first fd of the channel on the CPU; pages where the channels set
 * no size), redirect the others with SET_OUTPUT, read ids, set filters.
 * Returns 0 or -errno after printing one line. */
int prec_evlist__open(struct prec_evlist *el, const int *cpus, int nr_cpus,
		      const pid_t *tasks, int nr_tasks, size_t pages);
int prec_evlist__enable(struct prec_evlist *el);
/* Only the tracking events (comm, mmap, task records): 0 or -errno. */
int prec_evlist__enable_tracking(struct prec_evlist *el);
void prec_evlist__disable(struct prec_evlist *el);
/* Sum of PERF_FORMAT_LOST over the drained events' fds of CPU index c
 * (an overwrite event's count is no drain loss: flight-recorder.md). */
uint64_t prec_evlist__lost(const struct prec_evlist *el, int c);
/* Unmap rings and close fds (keeps the parsed events). */
void prec_evlist__close(struct prec_evlist *el);

/* ---- workload (workload.c) ---- */

struct prec_workload {
	pid_t pid;
	int go_fd;             /* write end: one byte starts the exec */
	int err_fd;            /* read end: the child's exec errno, or EOF */
	int status;            /* waitpid status once exited */
	bool exited;
};

/* Fork the command, stopped before exec until start(). The command is
 * killed when the thread that called this (prec's main thread) dies, even
 * by SIGKILL. Returns 0, -ENOENT when the command is not found in PATH
 * (nothing forked), or -errno. */
int prec_workload__prepare(struct prec_workload *w, char *const argv[]);
/* The same, the command to run as user (uid, gid; supplementary groups
 * from the group database), switched to in the child after the start
 * byte, before exec; prec keeps its privileges. The command runs in a
 * session of its own (no controlling terminal: the caller's terminal
 * signals reach prec only), with the environment reset: TERM, COLORTERM,
 * PATH, LANG, LC_*, TZ and DISPLAY kept, HOME, USER, LOGNAME and SHELL
 * from user's password entry, nothing else. A failed switch is reported
 * by start() like an exec error; -ENOENT when user has no entry. */
int prec_workload__prepare_as(struct prec_workload *w, char *const argv[],
			      const char *user, uid_t uid, gid_t gid);
/* Let the child exec. Returns 0, or the exec's -errno. */
int prec_workload__start(struct prec_workload *w);
/* Reap the child if it exited; block when wait. Returns 1 if exited. */
int prec_workload__reap(struct prec_workload *w, bool wait);
/* Shell-like exit code: status, or 128 + signal. */
int prec_workload__exit_code(const struct prec_workload *w);
/* Kill an unstarted child (closing the go pipe), or signal a started one;
 * reap it. */
void prec_workload__abort(struct prec_workload *w);

/* ---- session (session.c) ---- */

struct prec_session {
	char *dir, *old_dir;   /* old_dir: the -f victim renamed aside */
	const char *name, *old_name; /* their last components (point into them) */
	int parentfd;          /* dir's parent: name, old_name are relative to it */
	dev_t old_dev;         /* old_dir as checked: removed only if still it */
	ino_t old_ino;
	int dirfd;
	uint8_t session_id[16];
	struct prec_manifest *m;
	int nr_cpus;
	const int *cpus;
	struct prec_shard_writer **writers; /* per CPU, then sideband last */
	struct prec_drainer **drainers;     /* per CPU */
	/* A flight recording's: per CPU, the shard the snapshots write
	 * (cpuNNN.flight.shard), and its index in m->shards */
	struct prec_shard_writer **flight_writers;
	uint32_t *flight_shard;
	const struct prec_snapshot *snap;   /* writes the flight shards */
	uint64_t *writer_wait_ns; /* per CPU: the longest wait for staging */
	bool direct_io;        /* the shards are written with O_DIRECT */
	uint64_t t_enable_ns, t_stop_ns, manifest_ns; /* CLOCK_MONOTONIC */
	uint64_t records, bytes, lost;
	size_t pages;          /* ring data pages, for the lost-records advice */
	int drain_efd;         /* eventfd the drainers write on an error, or -1 */
	int fail_cpu, fail_err; /* first drainer failure: its CPU, -errno */
	uint64_t fail_ns;      /* when the session learnt of it (MONOTONIC) */
	uint64_t reserve_bytes; /* manifest.reserve size, 0 if none */
	int rt_prio;           /* the drainers' SCHED_FIFO priority, 0 = none */
	enum prec_affinity affinity; /* where they run (never AUTO) */
	/* --overwrite: tail.shard, written after each snapshot (tail.c) */
	struct prec_shard_writer *tail_writer;
	int tail_shard;        /* its index in m->shards */
};

/* Create dir (0700), or use an existing empty directory of ours (made
 * 0700), or refuse anything else there (-EEXIST, one line printed) unless
 * force (then rename it aside, to be removed after the final manifest).
 * Whatever exists there and belongs to another user is refused, force or
 * not. Every step is relative to dir's parent opened once, never through
 * a symlink at dir. Touches nothing on refusal. */
int prec_session__create_dir(struct prec_session *s, const char *dir,
			     bool force);
/* Shard writers, manifest filled and written (state RECORDING). */
int prec_session__begin(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, int argc, char **argv);
/* Drainers, then the side band. pids: -p/-t/workload pids, or NULL for all
 * tasks. track_first: enable the tracking events before the side band is
 * read from /proc, so that a task that forks, execs or maps meanwhile (or
 * during -D) is in the rings too (both copies are harmless to perf). */
int prec_session__start(struct prec_session *s,
			const struct prec_record_opts *o,
			struct prec_evlist *el, const pid_t *pids, int nr_pids,
			bool track_first);
/* Stop drainers, collect totals and build-ids, write the final manifest.
 * Events must already be disabled. Returns 0 or -errno. */
int prec_session__finish(struct prec_session *s, struct prec_evlist *el);
void prec_session__summary(const struct prec_session *s);
/* The drain_efd is readable: note which drainer failed (fail_*). Returns
 * 1 when the recording must stop now, 0 for a spurious wake. Main thread. */
int prec_session__drain_failed(struct prec_session *s);
/* Record bytes drained so far by every drainer (--max-size). */
uint64_t prec_session__drained(const struct prec_session *s);
/* Remove what begin() and start() created when the recording never
 * started (drainers are stopped first); -f's old directory is put back. */
void prec_session__discard(struct prec_session *s);
void prec_session__exit(struct prec_session *s);


#include "record/control.h"
#include "record/flight.h"

#endif
