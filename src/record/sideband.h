/* SPDX-License-Identifier: MIT */
/* The side band (sideband.c): the system as it is when the recording
 * starts, and again at each flight-recorder tail, as synthesized records. */
#ifndef PREC_RECORD_SIDEBAND_H
#define PREC_RECORD_SIDEBAND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct prec_manifest;
struct prec_shard_writer;

struct prec_sideband_opts {
	bool all_tasks;        /* every process in /proc (-a, -C) */
	const pid_t *pids;     /* else only these processes (-p, -u) */
	int nr_pids;
	bool threads;          /* pids are threads (-t), not processes */
	/* also the readable, non-executable mappings of files (misc
	 * MMAP_DATA), as the tracking event's mmap_data records them */
	bool data_maps;
	bool bpf;              /* the BPF programs loaded now: their BPF_EVENT
				* and info too, not only their KSYMBOLs and
				* BTF (bpf_synth.c; false: --no-bpf-event) */
	bool cgroups;          /* every cgroup's CGROUP record (cgroup.c) */
	/* --namespaces: each thread's NAMESPACES record, as perf synthesizes
	 * it then (the kernel's records name only the tasks made later) */
	bool namespaces;
	/* pids are prec's fork of the command, not exec'd yet: their maps are
	 * prec's own and gone at the exec, where the tracking event starts;
	 * only FORK and COMM, and NAMESPACES (perf synthesizes a COMM alone,
	 * and its NAMESPACES) */
	bool before_exec;
	/* every event excludes the kernel: its hidden addresses (kptr_restrict,
	 * a user's view of kallsyms) cost nothing, and are not warned about */
	bool user_only;
	/* at most this many bytes of records (0: no bound), a process's
	 * COMMs and maps at most a sixteenth of them: what passes is left out
	 * (--max-disk: the side band counts in the budget and is never
	 * trimmed), counted and warned about */
	uint64_t max_bytes;
	/* --synth: no task at all (no), or their FORK and COMM only (task) */
	bool no_tasks, no_maps;
	/* --proc-map-timeout: at most this long on one /proc/PID/maps (read
	 * and written out); past it, the map at hand is the process's last,
	 * marked PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT as perf marks it
	 * (0 ms: the first map only). Without map_timeout, no bound. */
	uint32_t map_timeout_ms;
	bool map_timeout;
	/* the command prec forked, held before its exec (0: none): last, its
	 * COMM (perf-exec) and with namespaces its NAMESPACES, as perf writes
	 * them for every command it forks, whatever the target (-p, -t, -a
	 * with a command too, where it is not recorded) and whatever --synth;
	 * not twice where the tasks' synthesis named it (the command alone
	 * as the target) */
	pid_t command;
};

/* Write into w the synthesized records of the system as it is now: kernel
 * MMAP "[kernel.kallsyms]_text" (misc KERNEL, pid -1), module MMAPs, and for
 * each selected task in perf's order (every process in /proc's, each
 * thread in its task directory's; else thread_map.h's), per thread FORK
 * (with all_tasks only, as perf) and COMM (and NAMESPACES, with
 * namespaces: before the COMM with all_tasks, after it otherwise, as
 * perf), the process's MMAP2s (one per executable mapping) right after
 * its leader's (no MMAP2 with
 * before_exec), then the command's COMM (opts->command), each followed by
 * PREC_SAMPLE_ID_TRAILER zero bytes (time 0). Adds to m the build-ids of the kernel, the modules and every mapped
 * ELF file it could read. Returns the number of records written or -errno. */
int prec_sideband__synthesize(struct prec_shard_writer *w,
			      struct prec_manifest *m,
			      const struct prec_sideband_opts *opts);

/* The side band synthesized again, later in the recording, stamped at a
 * time: the same scan of /proc into w, for perf's tail synthesis (tail.c,
 * into tail.shard at each flight-recorder snapshot) and for --max-disk's
 * carry (max_disk.c). Keeps its buffers and the set of mapped files
 * already looked at between calls. */
struct prec_sideband_again;

/* data_maps as prec_sideband_opts. m gives the time layout and the
 * build-ids known so far (their paths are not read again). Returns 0,
 * -EINVAL (a layout whose trailer time is not in the trailer) or -ENOMEM. */
int prec_sideband_again__new(struct prec_sideband_again **out,
			     struct prec_shard_writer *w, struct prec_manifest *m,
			     bool data_maps);
/* Write, for every process in /proc (pids NULL) or for the processes of
 * pids[0..nr) (each id stands for its process, gone ones are skipped), a
 * COMM per thread (and its NAMESPACES, see _namespaces()) and an MMAP2 per
 * executable mapping as
 * prec_sideband__synthesize does, but no FORK, and with time (> 0) in
 * every record's sample_id trailer, in DATA chunks whose watermark is
 * their first time. Adds the build-ids of files mapped that m has no id
 * for. Waits until the chunks are in the file. Main thread; blocks on
 * /proc, and on the build-id reads up to prec_buildid_workers__resolve()'s
 * deadline. Returns the records written or -errno. */
int prec_sideband_again__write(struct prec_sideband_again *t, const pid_t *pids,
			       int nr, uint64_t time);
/* As prec_sideband_again__write for a thread map (the events' tasks, as
 * perf synthesizes its target's at its tail): for each of tids[0..nr) in
 * order, that thread alone, its COMM (NAMESPACES after it) and, for a
 * thread-group leader, its process's MMAP2s; a thread whose leader is not
 * in tids brings the leader's COMM and MMAP2s after its own (once). Gone
 * threads are skipped. Returns the records written or -errno. */
int prec_sideband_again__write_threads(struct prec_sideband_again *t,
				       const pid_t *tids, int nr, uint64_t time);
/* Each write from now on puts at most bytes of records in w (0: no
 * bound), and of them at most a sixteenth for one process (its threads'
 * COMMs and its maps): a process with a huge /proc/PID/maps cannot crowd
 * the others out. Records past either are left out, counted by left_out()
 * (the process's later maps, or the later processes, in pid order). */
void prec_sideband_again__bound(struct prec_sideband_again *t, uint64_t bytes);
/* Each write from now on names each thread's namespaces too, a NAMESPACES
 * record beside its COMM as prec_sideband_opts.namespaces (before it for
 * every process, pids NULL; after it for pids). */
void prec_sideband_again__namespaces(struct prec_sideband_again *t);
/* Each write from now on spends at most ms on one /proc/PID/maps, as
 * prec_sideband_opts.map_timeout_ms (without a call: no bound). */
void prec_sideband_again__map_timeout(struct prec_sideband_again *t, uint32_t ms);
/* Records left out by the bound since t was made. */
uint64_t prec_sideband_again__left_out(const struct prec_sideband_again *t);
void prec_sideband_again__delete(struct prec_sideband_again *t);

#endif
