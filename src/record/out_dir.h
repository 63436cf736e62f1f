/* SPDX-License-Identifier: MIT */
/* The recording's output directory (out_dir.c): made, or an empty one of
 * ours taken, or with -f the old one moved aside until the new recording
 * is complete; removed whole if the recording never starts, the old one
 * then put back. Every step is relative to the parent opened once. */
#ifndef PREC_RECORD_OUT_DIR_H
#define PREC_RECORD_OUT_DIR_H

#include <stdbool.h>
#include <sys/types.h>

struct prec_out_dir {
	char *path;            /* as given, trailing slashes cut */
	const char *name;      /* its last component (points into path) */
	int parentfd;          /* path's parent: name, old_name relative to it */
	int fd;                /* the directory, -1 until made */
	char *old_path;        /* -f's victim, renamed aside, or NULL */
	const char *old_name;  /* its last component (points into old_path) */
	dev_t old_dev;         /* old_path as checked: removed only if still it */
	ino_t old_ino;
};

/* Create path (0700), or use an existing empty directory of ours (made
 * 0700), or refuse anything else there (-EEXIST, one line printed) unless
 * force (then rename it aside, to be removed by commit()). Whatever exists
 * there and belongs to another user is refused, force or not. Never
 * through a symlink at path. Touches nothing on refusal. d is set up even
 * on failure (exit() frees it). */
int prec_out_dir__create(struct prec_out_dir *d, const char *path, bool force);
/* The new recording's final manifest is on disk: -f's old directory is
 * removed (only if it is still the one moved aside). Idempotent. */
void prec_out_dir__commit(struct prec_out_dir *d);
/* The recording never started: the directory is removed whole (only if
 * its name still holds it) and -f's old one put back. */
void prec_out_dir__discard(struct prec_out_dir *d);
void prec_out_dir__exit(struct prec_out_dir *d);

#endif
