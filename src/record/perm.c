// SPDX-License-Identifier: MIT
// What the kernel lets this process open: kernel.perf_event_paranoid and
// CAP_PERFMON / CAP_SYS_ADMIN, read as the kernel's perf_allow_*() read
// them, and the one line naming both when a recording needs more.
//
// Read before anything is opened, where perf retries an open refused with
// EACCES without the kernel: so every event of a recording, the tracking
// dummy included, has the same exclude bits from the first fd on, a CPU-wide
// recording is refused before a command is forked, and the rings are sized
// to what the user may lock before any is mapped.
#include "record/perm.h"

#include <errno.h>
#include <linux/capability.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/file.h"
#include "util/log.h"

/* An io_uring of a shard writer, in pages of locked memory (its SQ and CQ
 * rings and SQEs, rounded up). */
#define PREC_PERM_URING_PAGES 24

#ifndef CAP_PERFMON
#define CAP_PERFMON 38 /* linux/capability.h >= 5.8 */
#endif

int prec_perm__paranoid(void)
{
	char text[32], *end;
	long v;

	if (prec_file__read_line("/proc/sys/kernel/perf_event_paranoid", text,
				 sizeof(text)) <= 0)
		return 2;
	v = strtol(text, &end, 10);
	if (end == text || v < -1000 || v > 1000)
		return 2;
	return (int)v;
}

static bool has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return d[cap / 32].effective & (UINT32_C(1) << (cap % 32));
}

bool prec_perm__perfmon(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (syscall(SYS_capget, &h, d))
		return false;
	/* A kernel before CAP_PERFMON (< 5.8) checks CAP_SYS_ADMIN alone;
	 * its capget leaves the bit clear. */
	return has_cap(d, CAP_SYS_ADMIN) || has_cap(d, CAP_PERFMON);
}

static int limit(enum prec_perm_scope s)
{
	switch (s) {
	case PREC_PERM_USER:
		return 2;
	case PREC_PERM_KERNEL:
		return 1;
	case PREC_PERM_CPU:
		return 0;
	case PREC_PERM_TRACEPOINT:
		break;
	}
	return -1;
}

bool prec_perm__allows(enum prec_perm_scope s)
{
	return prec_perm__paranoid() <= limit(s) || prec_perm__perfmon();
}

/* Does the kernel count an io_uring's rings against RLIMIT_MEMLOCK (recent
 * kernels do for a user without CAP_IPC_LOCK)? Asked of the kernel itself:
 * a one-entry ring set up under a soft limit of 0, which is put back. */
static bool uring_charged(void)
{
	struct io_uring_params params = { 0 };
	struct rlimit old, zero;
	long fd;

	if (getrlimit(RLIMIT_MEMLOCK, &old) || old.rlim_cur == RLIM_INFINITY)
		return false;
	zero = (struct rlimit){ 0, old.rlim_max };
	if (setrlimit(RLIMIT_MEMLOCK, &zero))
		return false;
	fd = syscall(__NR_io_uring_setup, 1, &params);
	setrlimit(RLIMIT_MEMLOCK, &old);
	if (fd >= 0)
		close((int)fd);
	return fd < 0 && errno == ENOMEM;
}

/* Largest power of two p with p + 1 <= max, or 0. */
static size_t pow2_below(size_t max)
{
	size_t p = 1;

	if (max < 2)
		return 0;
	while ((p * 2) + 1 <= max)
		p *= 2;
	return p;
}

bool prec_perm__ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	return !syscall(SYS_capget, &h, d) && has_cap(d, CAP_IPC_LOCK);
}

size_t prec_perm__ring_pages(size_t want, int nr_cpus)
{
	long ps = sysconf(_SC_PAGESIZE);
	size_t pages = want, budget, free_pages = 0;
	struct rlimit rl;
	char text[32];
	long kb;

	if (prec_perm__paranoid() <= -1 || ps <= 0 || nr_cpus <= 0 || prec_perm__ipc_lock())
		return want;
	if (prec_file__read_line("/proc/sys/kernel/perf_event_mlock_kb", text,
				 sizeof(text)) > 0 && (kb = strtol(text, NULL, 10)) > 0)
		free_pages = pow2_below((size_t)kb * 1024 / (size_t)ps);
	if (free_pages && free_pages < pages)
		pages = free_pages;
	/* The rings' pages count towards the user's locked memory, which the
	 * shard writers' io_urings (one per CPU and the side band's) must
	 * then fit beside under RLIMIT_MEMLOCK. */
	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY || !uring_charged())
		return pages;
	budget = (size_t)(rl.rlim_cur / (rlim_t)ps) / ((size_t)nr_cpus + 1);
	budget = pow2_below(budget > PREC_PERM_URING_PAGES ? budget - PREC_PERM_URING_PAGES : 0);
	return budget && budget < pages ? budget : pages;
}

void prec_perm__deny(enum prec_perm_scope s, const char *what)
{
	static const char *const need[] = {
		[PREC_PERM_USER] = "perf events",
		[PREC_PERM_KERNEL] = "kernel samples",
		[PREC_PERM_CPU] = "CPU-wide events",
		[PREC_PERM_TRACEPOINT] = "tracepoints",
	};
	static const char *const instead[] = {
		[PREC_PERM_USER] = "",
		[PREC_PERM_KERNEL] = "; user space alone needs neither (:u or --all-user)",
		[PREC_PERM_CPU] = "; a command, or -p with a process of one's own, needs neither",
		[PREC_PERM_TRACEPOINT] = ", and tracefs readable",
	};

	pr_err("%s: %s need kernel.perf_event_paranoid <= %d (it is %d) or CAP_PERFMON%s",
	       what, need[s], limit(s), prec_perm__paranoid(), instead[s]);
}
