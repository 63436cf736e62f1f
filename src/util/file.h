/* SPDX-License-Identifier: MIT */
/* Reading whole small text files (/proc, /sys, tracefs), whose stat size is
 * often 0, so they are read until EOF into a buffer that grows. */
#ifndef PREC_UTIL_FILE_H
#define PREC_UTIL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Read path whole into *buf (capacity *cap, grown with realloc; *buf may be
 * NULL with *cap 0), NUL-terminated. Never grows past max bytes. Returns the
 * length, or -errno (-EFBIG past max). The buffer stays the caller's, also
 * on error, so it can be reused across calls. */
ssize_t prec_file__read_text(const char *path, char **buf, size_t *cap,
			     size_t max);
/* read_text(), stopping once CLOCK_MONOTONIC passes deadline_ns after a
 * read(2): then *cut is set and the text ends after its last whole line
 * (a /proc file the kernel generates slowly, perf's --proc-map-timeout).
 * deadline_ns 0: none. Returns as read_text(). */
ssize_t prec_file__read_text_until(const char *path, char **buf, size_t *cap,
				   size_t max, uint64_t deadline_ns, bool *cut);

/* A one-value file (a sysfs attribute, a tracefs id) into buf, len bytes
 * with the NUL, trailing whitespace cut: a longer file is cut at len - 1.
 * Returns the length or -errno. */
int prec_file__read_line(const char *path, char *buf, size_t len);

/* Open dirfd/name read-only as one of a recording's files: a regular file,
 * not reached through a symlink. Anything else is refused before it is
 * opened (a FIFO's open waits for a writer, forever; a device's may act),
 * and the open itself is O_NONBLOCK|O_NOFOLLOW, so a swap after the check
 * cannot block it or lead it elsewhere. Returns the fd (O_NONBLOCK cleared)
 * or -errno; *why is set for the refusals, else left alone: -EINVAL "not a
 * regular file", -ELOOP "is a symbolic link". Never blocks in open(). */
int prec_file__open_regular(int dirfd, const char *name, const char **why);

/* Open, with flags, the very inode the O_PATH descriptor pathfd was
 * checked to be (*st, from fstat of pathfd), through /proc/self/fd: what
 * a name holds by now does not matter. Returns the fd, -ESTALE if what
 * opened is not that inode, or -errno. Blocks as the open does (a FIFO
 * without O_NONBLOCK waits for its other end). */
int prec_file__reopen(int pathfd, const struct stat *st, int flags);

/* Whether fd (an O_PATH descriptor will do) lies on a file system the
 * kernel makes up rather than one that stores files: proc, sysfs,
 * debugfs, tracefs, securityfs, cgroup, bpf, pstore, efivarfs, configfs
 * and the like, where a "regular file" may act when read (/proc/kmsg
 * consumes the kernel's messages) and its size says nothing. An fd whose
 * file system cannot be told counts as such. */
bool prec_file__on_pseudo_fs(int fd);

/* n characters of [A-Za-z0-9] from getrandom() into x (no NUL): a name
 * no one can guess ahead, for a file made where others may write. Returns
 * 0, or -EAGAIN if the kernel gave too few random bytes. */
int prec_file__random_name(char *x, size_t n);

/* Write all n bytes to fd, retrying short writes and EINTR. Returns 0 or
 * -errno (-EIO if the fd stops taking bytes). */
int prec_file__write_all(int fd, const void *p, size_t n);
/* The same at offset off with pwrite() (the file position stays); off
 * UINT64_MAX means write() at the file position. */
int prec_file__pwrite_all(int fd, const void *p, size_t n, uint64_t off);

/* Fill the cnt (at most 8) buffers of iov in turn, as one preadv, from
 * file offset off: all their bytes, or fewer only at the end of the file
 * (a file truncated meanwhile gives a short count, where a mapping would
 * give SIGBUS). EINTR is retried. Returns the count or -errno. */
ssize_t prec_file__preadv_full(int fd, const struct iovec *iov, int cnt, uint64_t off);

#endif
