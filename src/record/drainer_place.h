/* SPDX-License-Identifier: MIT */
/* Where a drainer thread runs and at what priority (drainer_place.c): the
 * CPUs --affinity gives it, SCHED_FIFO for it and not for the io_uring
 * workers it forks, the defaults of -r and --affinity. */
#ifndef PREC_RECORD_DRAINER_PLACE_H
#define PREC_RECORD_DRAINER_PLACE_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "record/options.h"

struct prec_shard_writer;

/* -r and --affinity with their defaults resolved: -r -1 is SCHED_FIFO 1
 * where the kernel allows it (tried), else 0; --affinity auto is the
 * ring's own CPU under SCHED_FIFO, the others of its package without. */
void prec_drainer_place__resolve(const struct prec_record_opts *o, int *rt_prio,
				 enum prec_affinity *affinity);
/* The CPUs a drainer of CPU cpu runs on under affinity (never AUTO). */
void prec_drainer_place__cpus(enum prec_affinity affinity, int cpu, cpu_set_t *set);
/* A thread running fn(arg), SCHED_FIFO at prio when prio > 0, on cpus
 * when not NULL (set before it first runs). Returns 0 or -errno. */
int prec_drainer_place__create(pthread_t *t, int prio, const cpu_set_t *cpus,
			       void *(*fn)(void *), void *arg);
/* On the drainer's own thread, before its first write: SCHED_FIFO kept
 * from its io_uring workers (SCHED_RESET_ON_FORK), and the thread and
 * those workers on the CPUs of cpus() (pin_cpu < 0: left where they are).
 * cpu names the drainer in warnings. */
void prec_drainer_place__setup(int cpu, int rt_prio, enum prec_affinity affinity,
			       int pin_cpu, struct prec_shard_writer *w);
/* Whether a thread of this process may run SCHED_FIFO at prio (tried). */
bool prec_drainer_place__fifo_allowed(int prio);
/* Warn, one line each, when drainers at SCHED_FIFO prio (0 = none: no
 * warning) can take their CPUs from other work: prio above 50, or the
 * kernel's real-time throttling turned off. Call once per recording. */
void prec_drainer_place__warn_fifo(int prio);

#endif
