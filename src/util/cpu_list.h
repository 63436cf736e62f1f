/* SPDX-License-Identifier: MIT */
/* CPU lists in perf's syntax ("0-3,8,10-11"), one parser for prec record's
 * -C, prec merge's and prec dump's --cpu, and sysfs's online list. */
#ifndef PREC_UTIL_CPU_LIST_H
#define PREC_UTIL_CPU_LIST_H

/* CPUs a list may name: 0 .. PREC_CPU_LIST_MAX - 1. */
#define PREC_CPU_LIST_MAX 65536

/* s (one trailing newline allowed, as sysfs writes it) into a malloc'd,
 * sorted array of distinct CPUs. Returns the count, -EINVAL (not such a
 * list, or empty; no message) or -ENOMEM. */
int prec_cpu_list__parse(const char *s, int **cpus);
/* Online CPUs from sysfs. Returns the count or -errno. */
int prec_cpu_list__online(int **cpus);

#endif
