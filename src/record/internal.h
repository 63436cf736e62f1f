/* SPDX-License-Identifier: MIT */
/* Private interfaces of src/record. Not included outside this folder (tests
 * may). Two halves: the live pipeline (events, rings, drainers, workload,
 * cmd_record.c) and the facts gathered around it (host, tracefs, side band,
 * build-ids). */
#ifndef PREC_RECORD_INTERNAL_H
#define PREC_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/store.h"

/* Every attr prec opens has this sample_type base (plus per-event extras
 * such as PERIOD, RAW, CALLCHAIN), so one struct prec_time_layout fits all
 * records of a recording. Never ID or STREAM_ID. */
#define PREC_SAMPLE_BASE                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |          \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
/* Size of the sample_id trailer for PREC_SAMPLE_BASE: tid, time, cpu,
 * identifier. Synthesized records append this many zero bytes. */
#define PREC_SAMPLE_ID_TRAILER 32

/* ---- host facts (host.c) ---- */

/* Fill hostname, os_release, arch, cpu_desc, cpu_id, version, nr_cpus_*,
 * total_mem_kb and the per-CPU topology of m from uname, /proc and /sys.
 * Missing facts are left NULL/0; returns 0 or -ENOMEM. */
int prec_host__fill(struct prec_manifest *m);

/* ---- tracefs (tracefs.c) ---- */

/* Mount point of tracefs ("/sys/kernel/tracing" or the debugfs one), or
 * NULL when neither exists. */
const char *prec_tracefs__root(void);

/* Id of tracepoint system:name from tracefs. Returns 0, -ENOENT (no such
 * tracepoint), -ENODEV (no tracefs) or -errno. */
int prec_tracefs__event_id(const char *system, const char *name, uint64_t *id);

/* Add system:name's format text to m (once per tracepoint), and the
 * header_page / header_event / printk_formats / saved_cmdlines texts if m
 * does not have them yet. Returns 0 or -errno. */
int prec_tracefs__add_formats(struct prec_manifest *m, const char *system,
			      const char *name, uint64_t id);

/* ---- build-ids (buildid.c) ---- */

/* NT_GNU_BUILD_ID of an ELF file read with libelf. Returns the id length
 * (1..20), -ENOENT (no note), -ENOEXEC (not ELF) or -errno. */
int prec_buildid__read_elf(const char *path, uint8_t id[20]);
/* Running kernel's id from /sys/kernel/notes; a module's from
 * /sys/module/NAME/notes/.note.gnu.build-id. Same returns. */
int prec_buildid__read_kernel(uint8_t id[20]);
int prec_buildid__read_module(const char *module, uint8_t id[20]);

/* ---- side band (sideband.c) ---- */

struct prec_sideband_opts {
	bool all_tasks;        /* every process in /proc (-a, -C) */
	const pid_t *pids;     /* else only these processes (-p) / tids (-t) */
	int nr_pids;
};

/* Write into w the synthesized records of the system as it is now: kernel
 * MMAP "[kernel.kallsyms]_text" (misc KERNEL, pid -1), module MMAPs, and for
 * each selected process FORK, COMM and one MMAP2 per executable mapping,
 * each followed by PREC_SAMPLE_ID_TRAILER zero bytes (time 0). Adds to m
 * the build-ids of the kernel, the modules and every mapped ELF file it
 * could read. Returns the number of records written or -errno. */
int prec_sideband__synthesize(struct prec_shard_writer *w,
			      struct prec_manifest *m,
			      const struct prec_sideband_opts *opts);

#endif
