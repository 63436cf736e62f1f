/* SPDX-License-Identifier: MIT */
/* What the kernel lets this process open (perm): kernel.perf_event_paranoid
 * against CAP_PERFMON, and the one line that says which of them a refused
 * recording needs. */
#ifndef PREC_RECORD_PERM_H
#define PREC_RECORD_PERM_H

#include <stdbool.h>
#include <stddef.h>

/* The scopes perf_event_paranoid gates, widest last (the kernel's
 * perf_allow_kernel(), perf_allow_cpu(), perf_allow_tracepoint()). */
enum prec_perm_scope {
	/* any event: <= 2 on Debian's kernels, whose level 3 refuses every
	 * user (upstream treats 3 as 2: only a refused open tells) */
	PREC_PERM_USER,
	PREC_PERM_KERNEL,      /* kernel samples: paranoid <= 1 */
	PREC_PERM_CPU,         /* CPU-wide events (-a, -C): paranoid <= 0 */
	PREC_PERM_TRACEPOINT,  /* tracepoints' raw data: paranoid <= -1 */
};

/* kernel.perf_event_paranoid, or 2 (the kernel's default) when it cannot
 * be read. Reads /proc each call; main thread. */
int prec_perm__paranoid(void);

/* True when the effective capabilities hold CAP_PERFMON or CAP_SYS_ADMIN,
 * which the kernel takes in place of any paranoid level. */
bool prec_perm__perfmon(void);

/* True when the kernel lets this process open events of scope s. */
bool prec_perm__allows(enum prec_perm_scope s);

/* True when the effective capabilities hold CAP_IPC_LOCK: no locked-memory
 * limit applies to the rings and io_urings. */
bool prec_perm__ipc_lock(void);

/* The ring size (data pages) a recording on nr_cpus CPUs gets without -m:
 * want, or, where the kernel counts mapped rings as locked memory
 * (paranoid > -1 without CAP_IPC_LOCK), at most what it grants each CPU
 * free (kernel.perf_event_mlock_kb less the control page, a power of two:
 * perf's default there), and, where it counts io_urings too, small enough
 * that the shard writers' fit beside the rings under RLIMIT_MEMLOCK.
 * Main thread, before any thread starts (it lowers RLIMIT_MEMLOCK for a
 * moment). */
size_t prec_perm__ring_pages(size_t want, int nr_cpus);

/* One error line: "WHAT: <scope> need kernel.perf_event_paranoid <= N
 * (it is V) or CAP_PERFMON", plus what a user can record instead. */
void prec_perm__deny(enum prec_perm_scope s, const char *what);

#endif
