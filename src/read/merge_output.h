/* SPDX-License-Identifier: MIT */
/* Where a merge (or archive) writes: stdout or a named file made safely
 * (merge_output.c). */
#ifndef PREC_READ_MERGE_OUTPUT_H
#define PREC_READ_MERGE_OUTPUT_H

#include <stdbool.h>

#include "read/perfdata.h"
#include "store/store.h"

struct prec_merge_output {
	int fd;
	enum prec_perfdata_mode mode; /* FILE when fd is a regular file at 0 */
	const char *name;             /* as given, for messages; NULL = stdout */
	int dirfd;                    /* the named output's directory, or -1 */
	char *base;                   /* the output's name in dirfd */
	char *tmp;                    /* the temp file's name in dirfd, or NULL */
	bool force;
	/* perf's directory layout (a --kcore recording): the recording's
	 * dirfd, whose kcore_dir goes to NAME/kcore_dir beside NAME/data;
	 * -1: NAME is the perf.data itself */
	int layout_from;
	uint64_t kcore_bytes;         /* the manifest's size of kcore_dir/kcore */
};

/* Open where the merge goes; name NULL or "-": stdout. Never a terminal.
 * A name for one of prec's own fds (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N) that resolves to that fd's file: that fd. Otherwise the
 * last component is never followed: a new name, or with -f a regular file
 * or a symlink (the link itself is replaced, never its target), is written
 * through a temp file made O_EXCL in the name's directory; a FIFO, socket
 * or character device is written in place only if the effective user owns
 * it (or it is /dev/null); a block device, another user's special file, an
 * existing file or symlink without -f, are refused. May block on our own
 * FIFO until it has a reader. Errors are reported in one line. Returns 0,
 * -EEXIST (exists, no -f), -EPERM (refused), -EINVAL (terminal) or -errno. */
int prec_merge_output__open(struct prec_merge_output *o, const char *name,
			    bool force);
/* The same for a --kcore recording (its directory recfd): a regular
 * file's name becomes perf's directory layout at finish (NAME/data and
 * NAME/kcore_dir/, made as NAME.prec-XXXXXX.d and renamed into place;
 * with -f replacing a file, symlink or directory there, as perf's own
 * output replaces it; its kcore must be kcore_bytes long, else the
 * finish fails in one line). Any other target (stdout, a pipe) gets the
 * perf.data alone. Same returns. */
int prec_merge_output__open_layout(struct prec_merge_output *o, const char *name,
				   bool force, int recfd, uint64_t kcore_bytes);
/* The same for another command's output: messages say cmd ("archive")
 * and kind_of_data ("a tar") where merge's say "merge" and "perf.data";
 * check_target and finish say cmd from then on. Same returns. */
int prec_merge_output__open_as(struct prec_merge_output *o, const char *cmd,
			       const char *kind_of_data, const char *name, bool force);

/* Refuse an output (name as -o gave it; NULL or "-": stdout) that is, by
 * st_dev/st_ino through any symlink, the manifest, a shard of the
 * recording dir (dirfd, read as m) being merged or another of its files
 * (segment files, carry.shard, vdso.so ...): with -f it would replace
 * part of the recording; or that is named as one of those in the
 * recording's directory, there or not (a new segment file would be read
 * as one). Any other target, and one that is no regular file, is fine.
 * Returns 0, or -EINVAL after one error line. */
int prec_merge_output__check_target(const char *name, const char *dir, int dirfd,
				    const struct prec_manifest *m);

/* Close; keep: rename the temp file over the name (not over one that
 * appeared meanwhile, without -f); else remove it. Returns 0 or -errno,
 * reported. */
int prec_merge_output__finish(struct prec_merge_output *o, bool keep);

#endif
