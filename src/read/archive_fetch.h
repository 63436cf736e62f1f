/* SPDX-License-Identifier: MIT */
/* One file of prec archive fetched by a child process (archive_fetch.c):
 * it opens the file, checks its build-id, maps its holes and streams its
 * bytes through a pipe, which the archive reads with a deadline. A file
 * that never answers (a FUSE server, a hard NFS mount) costs the deadline
 * and its child is killed; the archive goes on. */
#ifndef PREC_READ_ARCHIVE_FETCH_H
#define PREC_READ_ARCHIVE_FETCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "read/tar_writer.h"

/* How long the child may go without a byte (its answer, then each read)
 * before it is taken as stuck. A local file answers in microseconds. */
#define PREC_FETCH_STALL_MS 5000u

/* Opens the file in the child: its fd (for reading) with *st, or -1. */
typedef int (*prec_fetch_open_fn)(void *ctx, struct stat *st);

/* What the child found. */
struct prec_fetch_head {
	int32_t found;         /* 1: the file, holding the id; 0: not it */
	uint32_t nr;           /* extents (0: the file whole) */
	uint64_t size;
	uint32_t mode;
	uint32_t pad;
	int64_t mtime;
};

struct prec_fetch {
	pid_t pid;
	int fd;                /* the pipe's read end */
	bool dead;             /* stuck or broken: reads give 0 from here */
	struct prec_fetch_head head;
	struct prec_tar_extent x[PREC_TAR_EXTENTS_MAX + 1];
};

/* Fork a child that calls open(ctx) with the caller's credentials (its
 * file-system identity too), reads the build-id of what it opened and
 * compares it with id[0, id_len), and answers; close_fd (>= 0) is closed
 * in the child (the archive's output: a stuck child must not hold it).
 * Waits up to PREC_FETCH_STALL_MS for the answer. Returns 0 (f->head
 * valid), -ETIMEDOUT (no answer: the child is killed) or -errno (fork,
 * pipe, memory). Call prec_fetch__close() after either. */
int prec_fetch__open(struct prec_fetch *f, prec_fetch_open_fn open, void *ctx,
		     const uint8_t *id, uint8_t id_len, int close_fd);
/* The file's bytes, in the order the tar asks for them (a
 * prec_tar_read_fn on f): from the pipe, waiting up to the stall
 * deadline for each read; 0 once it ends, is stuck or broke. */
ssize_t prec_fetch__read(void *f, void *buf, size_t len, uint64_t off);
/* After the bytes: whether the file changed while it was read (it ended
 * early, its size, mtime or ctime moved, or the child got stuck): 1, or
 * 0 for a copy of the file as it was opened. */
int prec_fetch__changed(struct prec_fetch *f);
/* Kill the child if it still runs and reap it (a child stuck where even
 * SIGKILL waits is left to exit on its own). */
void prec_fetch__close(struct prec_fetch *f);

#endif
