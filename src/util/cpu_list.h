/* SPDX-License-Identifier: MIT */
/* CPU lists in perf's syntax ("0-3,8,10-11"): prec merge's and prec
 * dump's --cpu and sysfs's online list; prec record's -C as perf record
 * reads it, its quirks included. */
#ifndef PREC_UTIL_CPU_LIST_H
#define PREC_UTIL_CPU_LIST_H

/* CPUs a list may name: 0 .. PREC_CPU_LIST_MAX - 1. */
#define PREC_CPU_LIST_MAX 65536

/* s (one trailing newline allowed, as sysfs writes it) into a malloc'd,
 * sorted array of distinct CPUs. Returns the count, -EINVAL (not such a
 * list, or empty; no message) or -ENOMEM. */
int prec_cpu_list__parse(const char *s, int **cpus);
/* s as perf record's -C reads it (libperf's cpu map): items N or N-M,
 * each number in C's base rules (0x10, 010), separated by ','; an item
 * twice or a range backwards is invalid; the list ends, as perf's does,
 * at the first item that does not start with a digit, so "0," is CPU 0
 * and "0,,1" too. *rest is then the text ignored (NULL when there is
 * none). Returns the count (a malloc'd, sorted array), -EINVAL (no
 * message) or -ENOMEM. */
int prec_cpu_list__parse_perf(const char *s, int **cpus, const char **rest);
/* Online CPUs from sysfs. Returns the count or -errno. */
int prec_cpu_list__online(int **cpus);
/* Possible CPUs from sysfs, the same way. */
int prec_cpu_list__possible(int **cpus);

#endif
