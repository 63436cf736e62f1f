// SPDX-License-Identifier: MIT
// A task's namespaces read from its /proc directory, for the NAMESPACES
// records the side band synthesizes (--namespaces).
#include "util/proc_ns.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <linux/perf_event.h>

/* The file names under /proc/PID/ns, at the kernel's index of each kind. */
static const char *const ns_links[PREC_PROC_NS_NR] = {
	[NET_NS_INDEX] = "ns/net",
	[UTS_NS_INDEX] = "ns/uts",
	[IPC_NS_INDEX] = "ns/ipc",
	[PID_NS_INDEX] = "ns/pid",
	[USER_NS_INDEX] = "ns/user",
	[MNT_NS_INDEX] = "ns/mnt",
	[CGROUP_NS_INDEX] = "ns/cgroup",
};

_Static_assert(NR_NAMESPACES == PREC_PROC_NS_NR,
	       "the record carries every kind the kernel numbers");

int prec_proc_ns__read(int taskfd, struct prec_proc_ns ns[PREC_PROC_NS_NR])
{
	int nr = 0;

	memset(ns, 0, PREC_PROC_NS_NR * sizeof(*ns));
	for (int i = 0; i < PREC_PROC_NS_NR; i++) {
		struct stat st;

		/* Followed, as perf's stat() follows it: the link's own
		 * inode is procfs's, the nsfs file behind it is the
		 * namespace. These links are the kernel's (a task cannot
		 * point them elsewhere), and "ns" is procfs's directory
		 * under a descriptor we hold, so nothing here is a path a
		 * workload could plant. */
		if (fstatat(taskfd, ns_links[i], &st, 0))
			continue;
		ns[i].dev = (uint64_t)st.st_dev;
		ns[i].ino = (uint64_t)st.st_ino;
		nr++;
	}
	return nr;
}
