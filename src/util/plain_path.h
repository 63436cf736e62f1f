/* SPDX-License-Identifier: MIT */
/* A mapped file opened by the path a workload or a recording named
 * (plain_path.c): walked from "/" by descriptor, no link followed but
 * root's own, and opened only as a regular file on a file system that
 * stores files. What `prec archive` and the recorder's build-id cache read. */
#ifndef PREC_UTIL_PLAIN_PATH_H
#define PREC_UTIL_PLAIN_PATH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Whether p is absolute with only plain components: no "", "." or ".."
 * and none longer than NAME_MAX (a name that can be made below another
 * directory, as perf's cache and a tar do). */
bool prec_plain_path__ok(const char *p);

/* The absolute path p walked from "/" one component at a time, each
 * opened O_PATH|O_NOFOLLOW from the last; a symbolic link on the way is
 * followed only if root owns it and the directory holding it, which no one
 * else may write (at most 40 such links); any other link ends the walk.
 * The last component, if it is a regular file bigger than an ELF header,
 * of at most max_size bytes, on a file system that stores files (never
 * proc, sysfs, tracefs...), is then opened O_RDONLY|O_NONBLOCK|O_NOCTTY
 * through /proc/self/fd of the checked descriptor (no FIFO waits, no
 * device opens). Returns the fd with *st, -ENAMETOOLONG, -ENOMEM, or
 * -ENOENT whatever else stopped it (a path no one may read looks like a
 * missing one). Blocks as long as the file system does. Any thread. */
int prec_plain_path__open(const char *p, uint64_t max_size, struct stat *st);

#endif
