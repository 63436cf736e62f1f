/* SPDX-License-Identifier: MIT */
/* perf record's -o: a perf.data file, merged when the recording ends from
 * the directory recorded beside it, or perf's pipe format streamed to
 * stdout while it records. */
#ifndef PREC_RECORD_FILE_OUTPUT_H
#define PREC_RECORD_FILE_OUTPUT_H

#include <stdbool.h>
#include <sys/types.h>

#include "record/options.h"

#define PREC_FILE_OUTPUT_DIR_SUFFIX ".prec"

struct prec_file_output {
	const char *file;       /* -o FILE, NULL for "-" or without -o */
	bool stream;            /* -o - */
	bool device;            /* -o FILE, FILE a device or FIFO */
	char *dir;              /* the recording's directory (FILE.prec) */
	char *tmpdir;           /* -o - and device: the directory dir is in,
				 * made here */
	int stream_fd;          /* -o -: the stream (stdout as prec got it) */
	pid_t follower;         /* -o -: `prec merge --follow` */
	int follower_rc;        /* its status once reaped early (stream_ended) */
	pid_t copier;           /* -o - into a regular file: its pipe's copier */
	dev_t dev;              /* dir once made, for its removal */
	ino_t ino;
	bool made;
	/* --switch-output: the files written, oldest first, at most
	 * --switch-max-files of them; room for cap_files, grown as files
	 * come (the number may be perf's INT_MAX) */
	char **files;
	uint32_t nr_files, cap_files;
	bool epoch_failed;      /* an epoch's merge failed: kept, exit 1 */
	/* the last name's time, in hundredths of a second since the epoch:
	 * a switch within the same hundredth takes the next one's name */
	uint64_t last_stamp;
};

/* Resolve -o into o->dir: FILE.prec for a file, a new directory under
 * $TMPDIR (else /var/tmp) for a device or FIFO (never replaced: written
 * into, as perf does with /dev/null) and for "-", whose stdout is kept for the stream and
 * replaced by stderr (a command's output must not enter the stream).
 * Returns 0 (nothing to do without -o) or -errno after one line. Main
 * thread, before the command is forked. */
int prec_file_output__init(struct prec_file_output *fo, struct prec_record_opts *o);

/* The recording's directory dirfd now exists (and its start manifest): -o
 * - starts following it. Returns 0 or -errno after one line. */
int prec_file_output__start(struct prec_file_output *fo, const struct prec_record_opts *o,
			    int dirfd);

/* The recording ended (recorded: its final manifest is written). -o FILE:
 * an existing FILE that is not empty becomes FILE.old (as perf), the directory is merged
 * into FILE (or FILE.<time> with --timestamp-filename) by `prec merge`,
 * and removed once the merge succeeded unless --keep-shards. -o -: waits
 * for the stream's end, then removes the directory likewise. Returns 0 or
 * 1 after one line (the directory is then kept and named). Blocks for the
 * merge. */
int prec_file_output__finish(struct prec_file_output *fo, const struct prec_record_opts *o,
			     bool recorded);

/* --switch-output with -o FILE (perf.data by default): the epoch
 * directory epoch, closed (at a cut, or the last at the stop), merged
 * into FILE.<timestamp> (the time now, as perf names the file of a switch)
 * and removed unless --keep-shards; beyond --switch-max-files the oldest
 * file written is removed, as perf does. perf's "[ perf record: Dump
 * FILE.<timestamp> ]" unless -q. A failed merge keeps the epoch, says so
 * in one line, and finish() then returns 1. Returns 0 (nothing to do
 * without both) or -errno. Main thread; blocks for the merge. */
int prec_file_output__epoch(struct prec_file_output *fo, const struct prec_record_opts *o,
			    const char *epoch);

/* -o -: whether the stream's follower ended while the recording runs
 * (reaped here, its status kept for finish()): nothing more reaches the
 * stream, so the recording stops. *sig: the signal that ended it, 0 if it
 * exited (SIGPIPE: the stream's reader left, where perf dies of SIGPIPE
 * at its next write). Main thread, on SIGCHLD. */
bool prec_file_output__stream_ended(struct prec_file_output *fo, int *sig);

void prec_file_output__exit(struct prec_file_output *fo);

#endif
