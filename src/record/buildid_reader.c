// SPDX-License-Identifier: MIT
// Build-ids of the files the drainers saw mapped without one, read while
// recording and kept by file (device, inode) for the stop.
//
// The drain walk pushes each map new to its table, with its pid and
// address range, onto the drainer's queue (buildid_queue.c; a full queue
// drops the note, counted, and the stop reads that file instead). The main
// thread empties every queue each 100 ms: each file not read yet is read
// once, by descriptor, only while its path (or /proc/PID/root + path in
// another mount namespace, or else the mapping's /proc/PID/map_files/
// START-END) names the same device and inode, by workers under
// READ_DEADLINE_MS. So a binary deleted before the recording ends (a
// build's temporary program) still has its id: read while its path was
// there, or through the mapping while it runs. A file that does not answer
// in time turns these reads off for the rest of the recording. The id is
// kept, not the file: a descriptor per file until the stop would pin up to
// 65,536 files and their disk space (a build's deleted temporaries), and a
// copy of each when mapped would put the copies on the recording's path.
// tests/e2e/record_buildid_deleted.sh.
#include "record/buildid_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "record/buildid_queue.h"
#include "store/store.h"
#include "util/buildid.h"
#include "util/buildid_workers.h"
#include "util/log.h"

/* A read of this batch's files must not hold the session's thread (the
 * one that answers signals and the control channel) longer than this. */
#define READ_DEADLINE_MS 250u
/* Files read per call; the rest wait in their queues for the next. */
#define BATCH 256u

struct file_id {
	uint32_t maj, min;
	uint64_t ino;
	int ret;               /* id length, or -errno; -EINPROGRESS: batched */
	uint8_t id[20];
};

struct prec_buildid_reader {
	struct file_id *files; /* open addressing on (maj, min, ino) */
	uint32_t nr, cap;      /* cap a power of two, > 2 * nr */
	bool off;              /* a file did not answer: no more reads */
	/* a batch's files, each found in files again by its identity once
	 * read: a claim later in the batch may grow (move) the table */
	struct prec_buildid_req reqs[BATCH];
	char *paths[BATCH];
	char path[PREC_BUILDID_QUEUE_PATH]; /* the note being popped */
};

static uint64_t file_hash(uint32_t maj, uint32_t min, uint64_t ino)
{
	uint64_t h = (ino ^ ((uint64_t)maj << 32 | min)) * 0x9e3779b97f4a7c15ull;

	return h ^ (h >> 31);
}

int prec_buildid_reader__new(struct prec_buildid_reader **out)
{
	struct prec_buildid_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return -ENOMEM;
	r->cap = 256;
	r->files = calloc(r->cap, sizeof(*r->files));
	if (!r->files) {
		free(r);
		return -ENOMEM;
	}
	*out = r;
	return 0;
}

void prec_buildid_reader__delete(struct prec_buildid_reader *r)
{
	if (!r)
		return;
	free(r->files);
	free(r);
}

/* ino 0 marks a free slot: no regular file has inode 0. */
static struct file_id *lookup(struct file_id *files, uint32_t cap, uint32_t maj,
			      uint32_t min, uint64_t ino)
{
	uint64_t h = file_hash(maj, min, ino);
	struct file_id *f;

	for (;; h++) {
		f = &files[h & (cap - 1)];
		if (!f->ino || (f->ino == ino && f->maj == maj && f->min == min))
			return f;
	}
}

static int grow(struct prec_buildid_reader *r)
{
	uint32_t cap = r->cap * 2;
	struct file_id *n = calloc(cap, sizeof(*n));

	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i < r->cap; i++)
		if (r->files[i].ino)
			*lookup(n, cap, r->files[i].maj, r->files[i].min,
				r->files[i].ino) = r->files[i];
	free(r->files);
	r->files = n;
	r->cap = cap;
	return 0;
}

/* The entry for the note's file, new (ret -EINPROGRESS) or NULL when it
 * is known already, or the table is full (its bound: the manifest's). */
static struct file_id *claim(struct prec_buildid_reader *r,
			     const struct prec_buildid_note *n)
{
	struct file_id *f;

	if (!n->ino)
		return NULL;
	f = lookup(r->files, r->cap, n->maj, n->min, n->ino);
	if (f->ino || r->nr >= PREC_MANIFEST_BUILDIDS_MAX)
		return NULL;
	if ((r->nr + 1) * 2 >= r->cap) {
		if (grow(r))
			return NULL;
		f = lookup(r->files, r->cap, n->maj, n->min, n->ino);
	}
	*f = (struct file_id){ .maj = n->maj, .min = n->min, .ino = n->ino,
			       .ret = -EINPROGRESS };
	r->nr++;
	return f;
}

/* Up to BATCH new files from the queues into r->reqs. */
static size_t collect(struct prec_buildid_reader *r,
		      struct prec_buildid_queue *const *qs, int nq)
{
	char *path = r->path;
	struct prec_buildid_note n;
	size_t nr = 0;

	for (int i = 0; i < nq && nr < BATCH; i++) {
		while (qs[i] && nr < BATCH && prec_buildid_queue__pop(qs[i], &n, path)) {
			struct file_id *f = claim(r, &n);

			if (!f || path[0] != '/')
				continue;
			r->paths[nr] = strdup(path);
			if (!r->paths[nr]) {
				f->ret = -ENOMEM;
				continue;
			}
			r->reqs[nr] = (struct prec_buildid_req){ .path = r->paths[nr],
				.pid = n.pid, .maj = n.maj, .min = n.min, .ino = n.ino,
				.map_start = n.start, .map_end = n.end };
			nr++;
		}
	}
	return nr;
}

void prec_buildid_reader__read(struct prec_buildid_reader *r,
			       struct prec_buildid_queue *const *qs, int n)
{
	bool timed_out = false;
	size_t nr;
	int err;

	if (r->off)
		return;
	do {
		nr = collect(r, qs, n);
		/* no worker to be had (it said why): the stop reads them all,
		 * rather than a fork tried again at every tick */
		err = prec_buildid_workers__resolve_within(r->reqs, nr, READ_DEADLINE_MS);
		if (err)
			r->off = true;
		for (size_t i = 0; i < nr; i++) {
			struct file_id *f = lookup(r->files, r->cap, r->reqs[i].maj,
						   r->reqs[i].min, r->reqs[i].ino);

			f->ret = r->reqs[i].ret;
			memcpy(f->id, r->reqs[i].id, sizeof(f->id));
			/* The stop's read says the same of the files it reads:
			 * -v names every mapped file without an id once, however
			 * soon the recording ends. */
			if (f->ret <= 0 && f->ret != -ETIMEDOUT)
				pr_debug("build-id %s: %s", r->paths[i], strerror(-f->ret));
			free(r->paths[i]);
			if (f->ret == -ETIMEDOUT && !err)
				r->off = timed_out = true;
		}
	} while (nr == BATCH && !r->off);
	if (timed_out)
		pr_warn("build-ids: a mapped file did not answer: the rest are read at the stop");
}

int prec_buildid_reader__find(const struct prec_buildid_reader *r, uint32_t maj,
			      uint32_t min, uint64_t ino, uint8_t id[20])
{
	const struct file_id *f;

	if (!r || !ino)
		return -ENOENT;
	f = lookup(r->files, r->cap, maj, min, ino);
	if (!f->ino || f->ret == -EINPROGRESS || f->ret == -ETIMEDOUT)
		return -ENOENT;
	if (f->ret > 0)
		memcpy(id, f->id, sizeof(f->id));
	return f->ret;
}
