// SPDX-License-Identifier: MIT
// Where a drainer runs: the CPUs near its ring that --affinity names
// (sysfs's package and node lists), SCHED_FIFO (-r) set on the thread
// before it first runs and kept from the io_uring workers it forks, and
// the defaults of both, tried on a thread that exits at once.
//
// Why SCHED_FIFO priority 1 on the ring's own CPU by default: records are
// lost when the drainer is not running as its ring fills, and a wake-up
// crossing to an idle CPU waits for that CPU; on the ring's CPU at real-time
// priority the wake-up is local and the drainer runs ahead of the task
// filling the ring, which pays for the drain in its own time. Priority 1
// runs behind every other real-time task, a pass's work is bounded, real-
// time throttling is the backstop (docs/security.md, "Real-time priority").
// Under the fair scheduler (no right to SCHED_FIFO, or -r 0) the package
// less the ring's CPU: on the ring's CPU a drainer waits behind the workload
// that fills its ring; beside it, in the same package, it stays near the
// ring's memory. bench/record_ring.sh.

#include "record/drainer_place.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/drainer.h"
#include "store/store.h"
#include "util/cpu_list.h"
#include "util/file.h"
#include "util/log.h"

/* Add the CPUs of sysfs list text ("0-3,8") to set. Returns how many
 * (0 for text that is no CPU list, or no memory). */
static int add_cpu_list(cpu_set_t *set, const char *text)
{
	int *cpus, n = prec_cpu_list__parse(text, &cpus), added = 0;

	for (int i = 0; i < n; i++) {
		if (cpus[i] < CPU_SETSIZE) {
			CPU_SET(cpus[i], set);
			added++;
		}
	}
	free(cpus);
	return added;
}

/* The CPUs sharing pin_cpu's package (socket): near its ring's memory and
 * caches, without taking the very CPU whose workload fills the ring. */
static void package_cpus(int cpu, cpu_set_t *set)
{
	char path[96], *text = NULL;
	size_t cap = 0;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/package_cpus_list", cpu);
	if (prec_file__read_text(path, &text, &cap, 4096) <= 0 || !add_cpu_list(set, text))
		CPU_SET(cpu, set);
	free(text);
}

/* The CPUs of cpu's NUMA node, as perf's --affinity node takes them: the
 * node is the cpuN/nodeM link, its CPUs nodeM's cpulist. A kernel without
 * NUMA in sysfs has one node: every online CPU. */
static void node_cpus(int cpu, cpu_set_t *set)
{
	char path[96], *text = NULL;
	struct dirent *e;
	size_t cap = 0;
	long node = -1;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d", cpu);
	d = opendir(path);
	while (d && node < 0 && (e = readdir(d))) {
		char *end;

		if (!strncmp(e->d_name, "node", 4) && e->d_name[4]) {
			node = strtol(e->d_name + 4, &end, 10);
			if (*end)
				node = -1;
		}
	}
	if (d)
		closedir(d);
	if (node >= 0)
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%ld/cpulist", node);
	else
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/online");
	if (prec_file__read_text(path, &text, &cap, 4096) <= 0 || !add_cpu_list(set, text))
		CPU_SET(cpu, set);
	free(text);
}

/* The CPUs a drainer runs on (see enum prec_affinity). A SCHED_FIFO
 * drainer is best on its ring's CPU: the ring's wake-up is local, with no
 * IPI to an idle (in a VM, halted) CPU, and it runs at once. Under the fair
 * scheduler it would wait out the slice of the workload that fills its ring
 * there while the ring overflows: "others". bench/record_ring.sh
 * compares the two. */
void prec_drainer_place__cpus(enum prec_affinity affinity, int cpu, cpu_set_t *set)
{
	CPU_ZERO(set);
	if (affinity == PREC_AFFINITY_CPU) {
		CPU_SET(cpu, set);
		return;
	}
	if (affinity == PREC_AFFINITY_NODE) {
		node_cpus(cpu, set);
		return;
	}
	package_cpus(cpu, set);
	if (affinity == PREC_AFFINITY_OTHERS && CPU_COUNT(set) > 1)
		CPU_CLR(cpu, set);
}

/* The io_uring workers (io-wq) that carry out this thread's writes are
 * forked from it on demand, for as long as it submits, and a fork copies
 * the scheduling policy: SCHED_FIFO drainers would hand every worker
 * their priority, and a worker doing a buffered write that blocks, or
 * that a workload keeps busy, would then hold the CPU at -r's level.
 * SCHED_RESET_ON_FORK gives each fork the fair scheduler instead. Set
 * before the thread's first submission (which makes its io-wq). Making
 * the ring, or a first worker, before the priority is raised would not
 * do: a worker is forked whenever the ones there are busy or blocked. */
static void fifo_no_inherit(int cpu, int rt_prio)
{
	struct sched_param sp = { .sched_priority = rt_prio };
	int err;

	if (rt_prio <= 0)
		return;
	if (!sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp))
		return;
	err = errno;
	/* Not expected (the thread already runs SCHED_FIFO at this), but
	 * no worker may inherit it: the fair scheduler for this drainer. */
	pr_warn("drainer cpu%d: SCHED_FIFO %d with SCHED_RESET_ON_FORK: %s; the drainer runs under the fair scheduler",
		cpu, rt_prio, strerror(err));
	sp.sched_priority = 0;
	sched_setscheduler(0, SCHED_OTHER, &sp);
}

/* The thread and the io_uring workers that carry out its writes (io-wq,
 * per submitting thread) get the same CPUs, for the same reason. */
static void place_thread(int cpu, enum prec_affinity affinity, int pin_cpu,
			 struct prec_shard_writer *w)
{
	cpu_set_t set;
	int err;

	if (pin_cpu < 0 || pin_cpu >= CPU_SETSIZE)
		return;
	prec_drainer_place__cpus(affinity, pin_cpu, &set);
	err = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (!err)
		err = -prec_shard_writer__worker_cpus(w, &set);
	if (err)
		pr_warn("drainer cpu%d: CPU affinity near CPU %d: %s\n", cpu, pin_cpu,
			strerror(err));
}

void prec_drainer_place__setup(int cpu, int rt_prio, enum prec_affinity affinity,
			       int pin_cpu, struct prec_shard_writer *w)
{
	fifo_no_inherit(cpu, rt_prio);
	place_thread(cpu, affinity, pin_cpu, w);
}

static void *no_op(void *arg)
{
	return arg;
}

int prec_drainer_place__create(pthread_t *t, int prio, const cpu_set_t *cpus,
			       void *(*fn)(void *), void *arg)
{
	struct sched_param sp = { .sched_priority = prio };
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);

	if (err)
		return -err;
	/* Set before the thread first runs: a SCHED_FIFO drainer started
	 * where its creator runs would take that CPU from the main thread,
	 * still starting the others, until it moved itself to its own. */
	if (cpus && (err = pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus))) {
		pthread_attr_destroy(&attr);
		return -err;
	}
	if (prio > 0 &&
	    ((err = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED)) ||
	     (err = pthread_attr_setschedpolicy(&attr, SCHED_FIFO)) ||
	     (err = pthread_attr_setschedparam(&attr, &sp)))) {
		pthread_attr_destroy(&attr);
		return -err;
	}
	err = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	return -err;
}

void prec_drainer_place__warn_fifo(int prio)
{
	char text[32];

	if (prio <= 0)
		return;
	/* Threaded interrupt handlers run SCHED_FIFO 50. */
	if (prio > 50)
		pr_warn("drainers: SCHED_FIFO %d (-r): above 50 a drainer can starve its CPU's other work, interrupt threads included",
			prio);
	if (prec_file__read_line("/proc/sys/kernel/sched_rt_runtime_us", text,
				 sizeof(text)) > 0 && !strcmp(text, "-1"))
		pr_warn("drainers: SCHED_FIFO %d: real-time throttling is off (kernel.sched_rt_runtime_us -1): nothing bounds the time a busy drainer takes from its CPU",
			prio);
}

bool prec_drainer_place__fifo_allowed(int prio)
{
	pthread_t t;

	/* What the drainers will do, on a thread that exits at once: the
	 * kernel's verdict takes in CAP_SYS_NICE, RLIMIT_RTPRIO and a cgroup
	 * with no real-time budget alike. */
	if (prio <= 0 || prec_drainer_place__create(&t, prio, NULL, no_op, NULL))
		return false;
	pthread_join(t, NULL);
	return true;
}

void prec_drainer_place__resolve(const struct prec_record_opts *o, int *rt_prio,
				 enum prec_affinity *affinity)
{
	*rt_prio = o->rt_prio;
	if (*rt_prio < 0)
		*rt_prio = prec_drainer_place__fifo_allowed(PREC_DRAIN_AUTO_PRIO) ?
			   PREC_DRAIN_AUTO_PRIO : 0;
	*affinity = o->affinity;
	if (*affinity == PREC_AFFINITY_AUTO)
		*affinity = *rt_prio ? PREC_AFFINITY_CPU : PREC_AFFINITY_OTHERS;
}
