// SPDX-License-Identifier: MIT
// A cut's capture: the task records one drainer copies while a
// --switch-output cut is under way, and their replay, merged by time, into
// the new epoch's side band (why: session.c, prec_session__cut).
//
// The cut, step by step: the next epoch's directory, writers and start
// manifest first; then each drainer is asked to capture (a flag it reads
// after each pass's data_head) and the new side band is read from /proc;
// then each drainer drains once more into its old shard and moves to its new
// writer after that pass, so the cut falls between two chunks of each CPU
// with no pause of the ring and no record read twice. At that point it hands
// over its loss counts and its maps table (moved, not copied) and the task
// records (COMM, MMAP, MMAP2, FORK, NAMESPACES, CGROUP, KSYMBOL, BPF_EVENT)
// stamped since the capture began, copied
// into the buffer the session gave it (no allocation in the drain loop; a
// full buffer counts what it drops). They are written, merged by time, after
// the synthesized records (time 0). The old epoch's writers, no longer any
// drainer's, are flushed, counted and closed by the main thread, which
// writes its final manifest; epochs.c prunes past --switch-max-files.
#include "record/capture.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "record/chunk_pack.h"
#include "store/store.h"

int prec_capture__init(struct prec_capture *c, uint32_t size, uint64_t since)
{
	memset(c, 0, sizeof(*c));
	c->since = since;
	c->buf = malloc(size);
	if (!c->buf)
		return -ENOMEM;
	c->size = size;
	return 0;
}

void prec_capture__exit(struct prec_capture *c)
{
	if (!c)
		return;
	free(c->buf);
	memset(c, 0, sizeof(*c));
}

/* The records that tell perf who a pid is, what it has mapped, and what
 * the cut's scan names too (a task's namespaces, a cgroup's path, a BPF
 * program's symbol): made in the cut's window, they are drained into the
 * old epoch, and the new one would not know them. EXIT is not needed: a
 * later FORK of the pid replaces the task in perf. */
static bool wanted(uint32_t type)
{
	switch (type) {
	case PERF_RECORD_COMM:
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
	case PERF_RECORD_FORK:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_CGROUP:
	case PERF_RECORD_KSYMBOL:
	case PERF_RECORD_BPF_EVENT:
		return true;
	default:
		return false;
	}
}

void prec_capture__add(struct prec_capture *c, const void *rec, uint16_t size,
		       uint64_t time)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (!wanted(h.type) || time < c->since)
		return;
	if (size > c->size - c->len) {
		c->dropped++;
		return;
	}
	memcpy(c->buf + c->len, rec, size);
	c->len += size;
	c->records++;
}

struct ref {
	uint64_t time;
	const uint8_t *rec;
	uint32_t order;         /* capture, then place in it: ties stay put */
	uint16_t size;
};

static int by_time(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Every record of caps[0..n), in time order, in *out. Returns the count or
 * -ENOMEM. */
static int sorted_refs(struct prec_capture *const *caps, int n,
		       const struct prec_time_layout *layout, struct ref **out)
{
	size_t total = 0, k = 0;
	struct ref *r;

	for (int i = 0; i < n; i++)
		total += caps[i] ? caps[i]->records : 0;
	*out = NULL;
	if (!total)
		return 0;
	r = malloc(total * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		for (uint32_t off = 0; caps[i] && off < caps[i]->len;) {
			const uint8_t *rec = caps[i]->buf + off;
			struct perf_event_header h;

			memcpy(&h, rec, sizeof(h));
			r[k] = (struct ref){ .rec = rec, .size = h.size,
					     .order = (uint32_t)k,
					     .time = prec_time_layout__time(layout, rec, h.size) };
			off += h.size;
			k++;
		}
	}
	qsort(r, k, sizeof(*r), by_time);
	*out = r;
	return (int)k;
}

int prec_capture__write(struct prec_capture *const *caps, int n,
			const struct prec_time_layout *layout,
			struct prec_shard_writer *w)
{
	struct prec_chunk_pack pack;
	uint8_t *out = NULL;
	struct ref *r;
	size_t len = 0;
	int nr = sorted_refs(caps, n, layout, &r), err = 0;

	if (nr <= 0)
		return nr;
	for (int i = 0; i < nr; i++)
		len += r[i].size;
	out = malloc(len);
	if (!out) {
		free(r);
		return -ENOMEM;
	}
	len = 0;
	for (int i = 0; i < nr; i++) {
		memcpy(out + len, r[i].rec, r[i].size);
		len += r[i].size;
	}
	prec_chunk_pack__init(&pack, w, out);
	for (int i = 0; i < nr && !err; i++)
		err = prec_chunk_pack__add(&pack, r[i].size, r[i].time);
	if (!err)
		err = prec_chunk_pack__finish(&pack);
	free(out);
	free(r);
	return err ? err : nr;
}
