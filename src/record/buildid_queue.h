/* SPDX-License-Identifier: MIT */
/* The mapped files a drainer saw without a build-id, handed to the thread
 * that reads their notes (buildid_queue.c): one producer, one consumer,
 * a fixed byte ring, no lock and no allocation after init. */
#ifndef PREC_RECORD_BUILDID_QUEUE_H
#define PREC_RECORD_BUILDID_QUEUE_H

#include <stdint.h>

/* One MMAP2 whose file should be read: the file (device, inode), which
 * its path must still name, and the mapping (pid, start, end), whose
 * /proc/PID/map_files entry names the file while it is mapped even when
 * the path no longer does. */
struct prec_buildid_note {
	uint32_t maj, min;
	uint64_t ino;
	uint64_t start, end;
	int32_t pid;
	uint16_t cpumode;
	uint16_t path_len;      /* bytes of the path, without a NUL */
};

struct prec_buildid_queue {
	uint8_t *buf;
	uint32_t size;          /* a power of two */
	uint64_t head;          /* written by the producer (release) */
	uint64_t tail;          /* written by the consumer (release) */
	uint64_t full;          /* notes not queued for want of room */
};

/* A queue of bytes (a power of two, >= 8 KiB) bytes. Returns 0 or -ENOMEM. */
int prec_buildid_queue__init(struct prec_buildid_queue *q, uint32_t bytes);
void prec_buildid_queue__exit(struct prec_buildid_queue *q);
/* Queue n and its path[0, n->path_len). Returns 0, or -ENOSPC when the
 * consumer is that far behind (counted in q->full; the note is dropped:
 * the stop reads what is left). Producer thread only; never blocks. */
int prec_buildid_queue__push(struct prec_buildid_queue *q,
			     const struct prec_buildid_note *n, const char *path);
/* The oldest note into *n and its path, NUL-terminated, into path (at
 * least PREC_BUILDID_QUEUE_PATH bytes). Returns 1, or 0 when empty.
 * Consumer thread only; never blocks. */
int prec_buildid_queue__pop(struct prec_buildid_queue *q,
			    struct prec_buildid_note *n, char *path);

/* The longest path a note carries (PATH_MAX, NUL included); a longer one
 * is not queued. */
#define PREC_BUILDID_QUEUE_PATH 4096u

#endif
