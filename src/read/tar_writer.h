/* SPDX-License-Identifier: MIT */
/* A tar stream written front to back (tar_writer.c): POSIX ustar entries,
 * a pax header for what ustar cannot hold, names that stay inside the
 * directory it is unpacked in. */
#ifndef PREC_READ_TAR_WRITER_H
#define PREC_READ_TAR_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
/* A data extent of a file with holes. */
struct prec_tar_extent {
	uint64_t off, len;
};
/* The most extents a sparse entry's map holds (one more for its end). */
#define PREC_TAR_EXTENTS_MAX 512u
/* src's data extents in [0, size) by SEEK_DATA / SEEK_HOLE (which move
 * src's offset) into x (room for PREC_TAR_EXTENTS_MAX + 1): how many, the
 * last one ending the file (if need be an empty one at size). 0 when src
 * has no hole, is already shorter than size, its file system does not
 * say, or it has more extents: it is written whole. May block as src's
 * file system does. */
uint32_t prec_tar_writer__extents(int src, uint64_t size, struct prec_tar_extent *x);
/* Up to len bytes of a file at off (asked in order of off); returns how
 * many (> 0), 0 where the file ends (the rest is written as zeros), or
 * -errno (the stream is then no good). */
typedef ssize_t (*prec_tar_read_fn)(void *ctx, void *buf, size_t len, uint64_t off);
/* A regular file of size bytes, read through rd: whole when n is 0, else
 * in sparse form with the extents x[0, n) of prec_tar_writer__extents().
 * Returns as add_file. */
int prec_tar_writer__add_extents(struct prec_tar_writer *t, const char *name, uint64_t size,
				 const struct prec_tar_extent *x, uint32_t n,
				 prec_tar_read_fn rd, void *ctx, uint32_t mode, int64_t mtime);
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
