/* SPDX-License-Identifier: MIT */
/* A tar stream written front to back (tar_writer.c): POSIX ustar entries,
 * a pax header for what ustar cannot hold, names that stay inside the
 * directory it is unpacked in. */
#ifndef PREC_READ_TAR_WRITER_H
#define PREC_READ_TAR_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_tar_writer;

/* A writer onto fd (a file or a pipe: it only ever appends). Returns 0
 * or -ENOMEM. */
int prec_tar_writer__new(struct prec_tar_writer **out, int fd);
/* Frees the writer (NULL is fine); the fd stays the caller's. */
void prec_tar_writer__delete(struct prec_tar_writer *t);

/* Whether name may be an entry's name: relative, no empty, "." or ".."
 * component, no trailing '/', at most PREC_TAR_NAME_MAX bytes. What the
 * add functions check before they write anything. */
bool prec_tar_writer__name_ok(const char *name);
#define PREC_TAR_NAME_MAX 4000u

/* A regular file of size bytes read from src by pread at 0 .. size,
 * streamed through a buffer of the writer's own; a file with holes (by
 * SEEK_DATA / SEEK_HOLE, which move src's offset) as a GNU pax sparse 1.0
 * entry, its holes left out of the stream. Returns 0, 1 (src ended before
 * size bytes: the rest written as zeros, the stream still good, the
 * entry not src's bytes), -EINVAL (a bad name, size past 8 GiB - 1),
 * -EFBIG (the entry would take the stream past its limit), both with
 * nothing written, or -errno of a read or write (the stream is then no
 * good). Blocks on both. */
int prec_tar_writer__add_file(struct prec_tar_writer *t, const char *name,
			      int src, uint64_t size, uint32_t mode, int64_t mtime);
/* A regular file holding len bytes at p. Returns as add_file (never 1). */
int prec_tar_writer__add_mem(struct prec_tar_writer *t, const char *name,
			     const void *p, size_t len, uint32_t mode, int64_t mtime);
/* A symbolic link name -> target. target is relative and, read from the
 * link's directory, never climbs above the top of the archive (a link
 * "a/b/l" may name "../x", not "../../x"). Returns 0, -EINVAL or -errno. */
int prec_tar_writer__add_symlink(struct prec_tar_writer *t, const char *name,
				 const char *target, int64_t mtime);
/* The end: two zero blocks, padded to a whole 10240-byte record as tar
 * writes it. Returns 0 or -errno. No add after it. */
int prec_tar_writer__finish(struct prec_tar_writer *t);
/* Bytes written to fd so far. */
uint64_t prec_tar_writer__bytes(const struct prec_tar_writer *t);
/* Bound the stream at limit bytes (UINT64_MAX, the default: none): an
 * entry that would leave no room for a link and the end under it is
 * refused (-EFBIG), so the finished stream stays within limit. */
void prec_tar_writer__set_limit(struct prec_tar_writer *t, uint64_t limit);

#endif
