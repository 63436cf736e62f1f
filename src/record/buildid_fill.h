/* SPDX-License-Identifier: MIT */
/* perf's build-id cache filled when a recording ends (buildid_fill.c), as
 * `perf record` fills ~/.debug: every file of the recording's build-id
 * table that still holds its recorded id (prec's table is perf's
 * --buildid-all one: every mapped file), the kernel's kallsyms and the
 * vDSO. The work runs in a child process under a deadline, so a file
 * system that stops answering cannot hold the recorder's exit. */
#ifndef PREC_RECORD_BUILDID_FILL_H
#define PREC_RECORD_BUILDID_FILL_H

#include <stdbool.h>
#include <stdint.h>

struct prec_buildid_fill;

/* What a fill did, for the recorder's -v line. */
struct prec_buildid_fill_stats {
	uint32_t put;          /* new entries (linked or copied) */
	uint32_t there;        /* entries the cache had already */
	uint32_t skipped;      /* files gone, replaced, of another id, too big */
	uint32_t linked;       /* of put: hard links */
	uint32_t left;         /* not reached by the deadline */
	uint64_t copied;       /* bytes copied */
	int err;               /* the cache's own error (-EPERM: not the user's) */
};

int prec_buildid_fill__new(struct prec_buildid_fill **out);
/* Free a fill that was never run (NULL is fine). */
void prec_buildid_fill__delete(struct prec_buildid_fill *f);

/* A mapped file: its path as the recording names it and the id recorded
 * for it; known (true), the device and inode it had when mapped, which it
 * must still be. Returns 0 or -ENOMEM. Allocates; the caller's thread. */
int prec_buildid_fill__add_file(struct prec_buildid_fill *f, const char *path,
				const uint8_t *id, uint8_t size, bool known,
				uint32_t maj, uint32_t min, uint64_t ino);
/* The running kernel (its kallsyms, if it is the recorded one) and the
 * vDSO (this process's image, if its id is the recorded one). */
int prec_buildid_fill__add_kernel(struct prec_buildid_fill *f, const uint8_t *id,
				  uint8_t size);
int prec_buildid_fill__add_vdso(struct prec_buildid_fill *f, const uint8_t *id,
				uint8_t size);

/* Fill the cache with what was added, in a child process (util/child.h),
 * waiting at most ms for it: past that the worker stops at its next file
 * or chunk (one stuck in a read is left there). f is freed here. *st gets
 * the totals so far. Blocks up to ms. The session's thread, at the stop. */
void prec_buildid_fill__run(struct prec_buildid_fill *f, unsigned int ms,
			    struct prec_buildid_fill_stats *st);

#endif
