/* SPDX-License-Identifier: MIT */
/* Host facts for the manifest (host.c). */
#ifndef PREC_RECORD_HOST_H
#define PREC_RECORD_HOST_H

struct prec_manifest;

/* Fill hostname, os_release, arch, cpu_desc, cpu_id, version, nr_cpus_*,
 * total_mem_kb, the per-CPU topology, the NUMA nodes, the PMUs and the
 * CPU caches of m from uname, /proc and /sys (a list cut at its bound is
 * said once).
 * Missing facts are left NULL/0; returns 0 or -ENOMEM. */
int prec_host__fill(struct prec_manifest *m);

#endif
