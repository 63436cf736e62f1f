/* SPDX-License-Identifier: MIT */
/* The parsed command line of `prec record` (options.c), its defaults
 * and the clock rules the options are checked against. */
#ifndef PREC_RECORD_OPTIONS_H
#define PREC_RECORD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* Where a drainer thread may run, relative to the CPU whose ring it drains. */
enum prec_affinity {
	PREC_AFFINITY_AUTO,     /* CPU when the drainers are SCHED_FIFO,
				 * OTHERS when they are not */
	PREC_AFFINITY_NONE,     /* anywhere */
	PREC_AFFINITY_CPU,      /* the ring's CPU itself */
	PREC_AFFINITY_PACKAGE,  /* any CPU of the ring CPU's package */
	PREC_AFFINITY_OTHERS,   /* the package's other CPUs (the ring's CPU
				 * only when it is alone in its package) */
	PREC_AFFINITY_NODE,     /* the CPUs of the ring CPU's NUMA node (perf's
				 * --affinity node) */
};

/* Default per-CPU ring: 1 MiB of data pages (256 of 4 KiB; 16 on an arm64
 * kernel with 64 KiB pages, whose many CPUs would otherwise lock 16 times
 * as much). perf uses 512 KiB; prec drains on a round timer too, and twice
 * the slack costs little as root. */
#define PREC_RECORD_DEFAULT_RING (1u << 20)
#define PREC_RECORD_DEFAULT_FREQ 4000
#define PREC_RECORD_DEFAULT_STACK 8192
/* perf's --proc-map-timeout default */
#define PREC_RECORD_DEFAULT_PROC_MAP_TIMEOUT_MS 500
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

enum prec_callgraph { PREC_CG_NONE, PREC_CG_FP, PREC_CG_DWARF, PREC_CG_LBR };

/* A call-graph mode with its argument (callgraph_mode.h reads perf's
 * words for it). */
struct prec_callgraph_mode {
	enum prec_callgraph mode;
	uint16_t max_stack;     /* fp,N: N frames; 0: the kernel's */
	uint32_t stack_size;    /* dwarf's user stack bytes, a multiple of 8 */
};

struct prec_event_spec {
	char *text;            /* one -e argument (comma list) */
	char *filter;          /* --filter after it, or NULL */
	/* --exclude-perf after it: its tracepoints filter out prec's own
	 * threads (prec_evlist__exclude_tids) */
	bool exclude_self;
	bool pfm;              /* a --pfm-events argument (libpfm4's names) */
};

/* One -G argument: cgroup names (comma list, an empty item is none) for
 * the events, counted as perf counts them (record/cgroup.h). */
struct prec_cgroup_spec {
	char *names;
	int after_specs;       /* -e arguments given before it */
};

/* What a sample carries beyond prec's own fields, each as perf record's
 * option of the same name sets it (evlist_config.c applies them). */
struct prec_sample_opts {
	uint64_t branch_type;   /* -b/-j/--call-graph lbr: branch_sample_type */
	uint64_t regs_intr;     /* -I: sample_regs_intr (0: none) */
	uint64_t regs_user;     /* --user-regs: sample_regs_user (0: none) */
	bool weight;            /* -W */
	bool transaction;       /* --transaction */
	bool phys_data;         /* --phys-data */
	bool data_page_size, code_page_size;
	bool raw;               /* -R */
	bool no_samples;        /* -n */
	bool no_buffering;      /* --no-buffering: a wakeup per record */
	bool running_time;      /* --running-time, -s */
	bool inherit_stat;      /* -s */
	bool kernel_callchains, user_callchains;
};

struct prec_record_opts {
	const char *dir;
	bool dir_set;           /* -d given */
	struct prec_event_spec *specs;
	int nr_specs;
	uint64_t freq, period;  /* at most one non-zero when set by the user */
	bool period_given;      /* -c or --no-count, even 0: perf's user_interval set */
	bool threads_set;       /* --threads (perf's writer threads, noted) */
	const char *threads_spec; /* its SPEC as given, NULL for none */
	bool sample_period;     /* -P: PERIOD in every sample, as perf -P */
	enum prec_callgraph callgraph;
	uint32_t stack_size;
	uint16_t max_stack;     /* --call-graph fp,N: N frames; 0: the kernel's */
	/* perf config's call-graph.record-mode (and dump-size): what -g
	 * records when no --call-graph chose; mode NONE: fp */
	struct prec_callgraph_mode config_callgraph;
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
	bool mmap_set;          /* -m gave the ring size */
	int clockid;            /* PREC_CLOCK_PERF or a clockid_t */
	bool clock_set;         /* -k given */
	uint64_t round_ms;
	bool force, copy;
	bool direct_io;         /* copy mode writes with O_DIRECT (--no-direct-io) */
	enum prec_affinity affinity; /* --affinity: where drainers run */
	/* -r: drainers SCHED_FIFO at this; 0 = the fair scheduler; -1 (the
	 * default) = PREC_DRAIN_AUTO_PRIO where the kernel allows it */
	int rt_prio;
	bool rt_prio_set;       /* -r given */
	int verbose;            /* -v count: 1 debug lines, 2 also each attr as perf -vv */
	bool quiet;
	/* flight recorder, control, markers, AUX (flight-recorder.md) */
	bool markers;           /* --markers: trace_marker writes as ftrace:print */
	bool no_inherit;        /* -i: the command's children are not followed */
	bool per_thread;        /* --per-thread: no_inherit unless -a/-C, as perf */
	bool switch_events;     /* --switch-events: PERF_RECORD_SWITCH records */
	bool off_cpu;           /* --off-cpu: perf's offcpu-time (record/offcpu.h) */
	bool no_bpf_event;      /* --no-bpf-event: no KSYMBOL/BPF_EVENT records */
	bool all_user, all_kernel; /* --all-user/--all-kernel: :u/:k on every event */
	bool group;             /* --group: every -e event in one group, as perf */
	uint64_t max_size;      /* --max-size: stop once this much is drained */
	uint64_t max_disk;      /* --max-disk: bytes on disk, oldest dropped */
	const char *max_disk_arg; /* as given, for messages */
	/* --max-staging: how far each O_DIRECT staging may grow while writes
	 * stall (0: never); unset: the session's default */
	uint64_t max_staging;
	bool max_staging_set;
	/* Resolved (options_resolve.c), 0 before: each shard writer's
	 * staging, and how far an O_DIRECT one may grow (0: never) */
	size_t staging_bytes, staging_max;
	bool overwrite;         /* --overwrite: backward rings, snapshots */
	const char *control;    /* --control fifo:CTL[,ACK] or fd:CTL[,ACK] */
	/* --switch-output: epochs cut on SIGUSR2 and 'switch' (any mode),
	 * and every switch_bytes drained or every switch_ms (0 = not) */
	bool switch_output;
	uint64_t switch_bytes, switch_ms;
	uint32_t switch_max_files; /* --switch-max-files: epochs kept, 0 = all */
	/* --switch-output-event: events (perf's grammar, a comma list of
	 * every one given) opened on every CPU apart from the recording,
	 * each occurrence a cut as SIGUSR2's (record/switch_event.h) */
	char *switch_event;
	bool tail_synthesize;   /* --tail-synthesize: /proc's tasks at the end */
	/* -S[=[e]SIZE]: perf's AUX area snapshot mode (aux_mode.c): with e
	 * a snapshot at the exit too; SIZE 0 = the AUX area's */
	bool aux_snapshot, aux_snapshot_on_exit;
	uint64_t aux_snapshot_size;
	/* --aux-sample[=SIZE]: perf's AUX area sampling; 0 = 4 KiB */
	bool aux_sample;
	uint32_t aux_sample_size;
	uint32_t proc_map_timeout_ms; /* --proc-map-timeout: per /proc/PID/maps */
	int64_t delay_ms;       /* -D: wait before enabling; -1 = until 'enable' */
	/* -D A-B,C-D (perf's ranges): the sampling events enabled from A to
	 * B ms after the start, C to D ..., edges ascending: {A, B, C, D...};
	 * delay_ms is then A. A below 0 (perf's: disabled from the start,
	 * its timer from there): edges {0, B - A, C - A, ...}, delay_ms -1 */
	uint64_t *delay_edges;
	int nr_delay_edges;
	size_t aux_bytes;       /* --aux-size / -m ,AUX: AUX area per CPU */
	const char *user;       /* --user: run the workload as this user */
	uid_t user_uid;
	gid_t user_gid;
	bool compress;          /* -z: lz4 chunks (implies copy mode) */
	int compress_level;     /* 0 = LZ4 fast, 1..12 = LZ4 HC level */
	bool data;              /* --data: PERF_SAMPLE_ADDR (perf's -d) */
	bool no_buildid_cache;  /* -N: ~/.debug is not filled at the end */
	bool buildid_mmap;      /* --buildid-mmap: the kernel's build-ids in
				 * MMAP2 (attr.build_id), as perf's option */
	bool no_buildid;        /* -B: no build-id table at all */
	bool kcore;             /* --kcore: kcore_dir in the recording (kcore.c) */
	bool all_cgroups;       /* --all-cgroups: PERF_SAMPLE_CGROUP, CGROUP records */
	struct prec_cgroup_spec *cgroups; /* -G, in command-line order */
	int nr_cgroups;
	struct prec_sample_opts sample;  /* what each sample carries, as perf's */
	bool dry_run;           /* --dry-run: parse, build the attrs, exit */
	bool strict_freq;       /* --strict-freq: -F above the kernel's maximum fails */
	bool namespaces;        /* --namespaces: NAMESPACES records */
	bool synth_tasks, synth_maps; /* --synth: what /proc gives at the start */
	uid_t uid;              /* -u: the user's processes */
	bool uid_set;
	/* -o FILE: merged into FILE at the end from the recording in dir
	 * (FILE.prec); "-": perf's pipe format streamed to stdout */
	const char *output;
	/* no -o, no -d and stdout a FIFO: output "-", as perf's default
	 * (its refusals then name stdout, not an -o the user never gave) */
	bool output_piped;
	bool keep_shards;       /* --keep-shards: dir stays after the merge */
	bool timestamp_filename; /* --timestamp-filename: FILE.<time of the end> */
	const char *compress_level_arg; /* --compression-level as given */
	/* perf's writer options taken and said once (opt_replaced) */
	const char *replaced[8];
	int nr_replaced;
	/* said once too, unless -q: -m's ring or AUX area rounded up to a
	 * power of two of pages (as perf says it), and perf's --no-timestamp
	 * and --no-period, taken without what they drop */
	bool mmap_rounded, aux_rounded;
	bool kept_time, kept_period;
	bool freq_max; /* -F max: the rate read said once, as perf says it */
};

/* prec_record_opts__parse()'s answers that end the command */
#define PREC_RECORD_OPTS_HELP 1    /* --help printed: exit 0 */
#define PREC_RECORD_OPTS_LISTED 2  /* -I? or --user-regs=? listed the
				    * registers on stderr: exit 129, perf's */
/* Parse `prec record` argv (argv[0] = "record"), perf's negations
 * (--no-NAME) included. Returns 0, PREC_RECORD_OPTS_HELP or _LISTED, or
 * -EINVAL after printing one line (exit 2). */
int prec_record_opts__parse(struct prec_record_opts *o, int argc, char **argv);
/* Every default that depends on the machine or the events decided, once
 * the events are parsed (options_resolve.c): the ring size a user may
 * lock, the clock an AUX trace needs, -r and --affinity, -B's build-id
 * cache, the shard writers' staging. The options are read-only after it.
 * Returns 0 or -errno after one line. */
struct prec_evlist;
int prec_record_opts__resolve(struct prec_record_opts *o, const struct prec_evlist *el);
void prec_record_opts__exit(struct prec_record_opts *o);
/* -z's level on perf's zstd scale, the perf.data's (the manifest keeps
 * it for prec merge): 1 for -z alone (or -z0, as perf), 0 without -z. */
static inline int prec_record_opts__zstd_level(const struct prec_record_opts *o)
{
	if (!o->compress)
		return 0;
	return o->compress_level ? o->compress_level : 1;
}
/* --affinity's name for a */
const char *prec_affinity__name(enum prec_affinity a);

#endif
