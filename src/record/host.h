/* SPDX-License-Identifier: MIT */
/* Host facts for the manifest (host.c). */
#ifndef PREC_RECORD_HOST_H
#define PREC_RECORD_HOST_H

struct prec_manifest;

/* Fill hostname, os_release, arch, cpu_desc, cpu_id, version, nr_cpus_*,
 * total_mem_kb and the per-CPU topology of m from uname, /proc and /sys.
 * Missing facts are left NULL/0; returns 0 or -ENOMEM. */
int prec_host__fill(struct prec_manifest *m);

#endif
