/* SPDX-License-Identifier: MIT */
/* The build-ids of mapped files read while recording (buildid_reader.c):
 * the drainers queue the new maps that came without one, the session's
 * thread reads their notes soon after, by file (device, inode), and the
 * stop takes the ids from here: a file deleted before the stop keeps it. */
#ifndef PREC_RECORD_BUILDID_READER_H
#define PREC_RECORD_BUILDID_READER_H

#include <stdint.h>

struct prec_buildid_queue;
struct prec_buildid_reader;

int prec_buildid_reader__new(struct prec_buildid_reader **out);
void prec_buildid_reader__delete(struct prec_buildid_reader *r);
/* Empty the queues qs[0..n) (NULL entries skipped) and read the files
 * not read yet, within a short deadline. A file system that does not
 * answer in time turns the reader off for the rest of the recording (its
 * files are read at the stop, under the stop's own deadline). Allocates;
 * may block up to the deadline. The queues' consumer thread. */
void prec_buildid_reader__read(struct prec_buildid_reader *r,
			       struct prec_buildid_queue *const *qs, int n);
/* The id read for file maj:min, ino into id: its length (1..20), -ENOENT
 * when the file was not read (or not in time), or the read's -errno
 * (-ENODATA: no note; -ENOEXEC: not ELF...). Any thread once the reads
 * are over. */
int prec_buildid_reader__find(const struct prec_buildid_reader *r, uint32_t maj,
			      uint32_t min, uint64_t ino, uint8_t id[20]);

#endif
