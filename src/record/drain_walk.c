// SPDX-License-Identifier: MIT
// The drainer's header walk: counts records and reads the few record types
// the recording needs to know about (LOST, LOST_SAMPLES, AUX, MMAP2) without
// copying records, plus the deduplicated table of MMAP2 (path, build-id),
// each map new to it without a build-id pushed onto the drainer's queue for
// the build-id reader (buildid_queue.c), and during a --switch-output cut
// the task records copied into its capture (capture.c). The table is hashed and bounded as the manifest's build-id table
// (docs/security.md), so a workload that maps endless distinct paths costs
// neither the recorder's memory nor the rest of the recording.
#include "record/drain_walk.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "record/drainer.h"
#include "record/internal.h"
#include "store/store.h"
#include "util/bytes.h"
#include "util/hash.h"

#define SCRATCH_BYTES 65536u /* > the largest record (u16 size) */
/* Room for a few hundred notes of ordinary paths between two reads of the
 * session (its ticks); a note that finds no room is read at the stop. */
#define QUEUE_BYTES 65536u

/* MMAP2 payload offsets from the record start (perf_event_open(2),
 * PERF_RECORD_MMAP2). */
#define MMAP2_BUILD_ID_SIZE 40
#define MMAP2_BUILD_ID 44
#define MMAP2_PID 8
#define MMAP2_ADDR 16
#define MMAP2_LEN 24
#define MMAP2_MAJ 40           /* maj, min, ino: records without a build-id */
#define MMAP2_MIN 44
#define MMAP2_INO 48
#define MMAP2_FILENAME 72
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID (1 << 14)
#endif

int prec_drain_walk__init(struct prec_drain_walk *w,
			  const struct prec_time_layout *layout,
			  const uint8_t *data, uint64_t size)
{
	memset(w, 0, sizeof(*w));
	w->layout = layout;
	w->data = data;
	w->size = size;
	w->scratch = malloc(SCRATCH_BYTES);
	w->nr_slots = 64;
	w->slots = calloc(w->nr_slots, sizeof(*w->slots));
	if (!w->scratch || !w->slots ||
	    prec_buildid_queue__init(&w->queue, QUEUE_BYTES)) {
		prec_drain_walk__exit(w);
		return -ENOMEM;
	}
	return 0;
}

void prec_drain_walk__exit(struct prec_drain_walk *w)
{
	if (!w)
		return;
	for (uint32_t i = 0; i < w->nr_maps; i++)
		free(w->maps[i].path);
	free(w->maps);
	free(w->slots);
	free(w->scratch);
	prec_buildid_queue__exit(&w->queue);
	memset(w, 0, sizeof(*w));
}

void prec_drain_walk__take_maps(struct prec_drain_walk *w,
				struct prec_seen_map **maps, uint32_t *nr)
{
	*maps = w->maps;
	*nr = w->nr_maps;
	w->maps = NULL;
	w->nr_maps = w->cap_maps = 0;
	w->map_bytes = 0;
	memset(w->slots, 0, w->nr_slots * sizeof(*w->slots));
}

void prec_drain_walk__free_maps(struct prec_seen_map *maps, uint32_t nr)
{
	for (uint32_t i = 0; maps && i < nr; i++)
		free(maps[i].path);
	free(maps);
}

/* A map's key: path and build-id, or path and file (dev, ino) when the
 * record had no build-id; k->path is not NUL-terminated (len bytes). */
struct map_key {
	const char *path;
	size_t len;
	const uint8_t *id;
	uint8_t id_size;
	uint32_t maj, min;
	uint64_t ino;
	/* not part of the key: the mapping, for the reader's map_files */
	int32_t pid;
	uint64_t start, end;
};

static uint64_t map_hash(const struct map_key *k)
{
	uint64_t h = prec_hash__bytes(PREC_HASH_SEED, k->path, k->len);

	h = prec_hash__word(h, k->id_size);
	h = prec_hash__bytes(h, k->id, k->id_size);
	h = prec_hash__word(h, k->maj ^ (uint64_t)k->min << 32);
	return prec_hash__end(prec_hash__word(h, k->ino));
}

static bool map_equal(const struct prec_seen_map *m, const struct map_key *k)
{
	return m->size == k->id_size && !memcmp(m->id, k->id, k->id_size) &&
	       m->maj == k->maj && m->min == k->min && m->ino == k->ino &&
	       !strncmp(m->path, k->path, k->len) && m->path[k->len] == '\0';
}

static void map_key_of(const struct prec_seen_map *m, struct map_key *k)
{
	*k = (struct map_key){ .path = m->path, .len = strlen(m->path),
			       .id = m->id, .id_size = m->size,
			       .maj = m->maj, .min = m->min, .ino = m->ino };
}

/* Double the slot array; MMAP2 records are rare, so this is rare too. */
static int grow_slots(struct prec_drain_walk *w)
{
	uint32_t n = w->nr_slots * 2;
	uint32_t *s = calloc(n, sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < w->nr_maps; i++) {
		struct map_key k;
		uint64_t h;

		map_key_of(&w->maps[i], &k);
		h = map_hash(&k);

		while (s[h & (n - 1)])
			h++;
		s[h & (n - 1)] = i + 1;
	}
	free(w->slots);
	w->slots = s;
	w->nr_slots = n;
	return 0;
}

/* A new map without a build-id, to the session's reader: read soon, while
 * the file (a build's temporary binary) is likely still there. A full
 * queue costs nothing but the wait for the stop's read. */
static void queue_map(struct prec_drain_walk *w, const struct map_key *k,
		      uint16_t cpumode)
{
	struct prec_buildid_note n = { .maj = k->maj, .min = k->min, .ino = k->ino,
		.start = k->start, .end = k->end, .pid = k->pid,
		.cpumode = cpumode, .path_len = (uint16_t)k->len };

	if (k->len < PREC_BUILDID_QUEUE_PATH)
		prec_buildid_queue__push(&w->queue, &n, k->path);
}

/* The manifest's bounds, held here too: a workload mapping endless
 * distinct paths costs the drainer no more memory than the manifest
 * could keep (the pairs past them are counted, never an error). */
static bool over_bounds(const struct prec_drain_walk *w, size_t len)
{
	return len >= PREC_MANIFEST_BUILDID_PATH_MAX ||
	       w->nr_maps >= PREC_MANIFEST_BUILDIDS_MAX ||
	       w->map_bytes + len + 1 > PREC_MANIFEST_BUILDID_BYTES_MAX;
}

static int add_map(struct prec_drain_walk *w, const struct map_key *k,
		   uint16_t cpumode)
{
	uint64_t h = map_hash(k);
	struct prec_seen_map *m;
	uint32_t *slot;

	for (;; h++) {
		slot = &w->slots[h & (w->nr_slots - 1)];
		if (!*slot)
			break;
		if (map_equal(&w->maps[*slot - 1], k))
			return 0;
	}
	if (over_bounds(w, k->len)) {
		w->maps_dropped++;
		return 0;
	}
	if (w->nr_maps == w->cap_maps) {
		uint32_t cap = w->cap_maps ? w->cap_maps * 2 : 16;

		m = realloc(w->maps, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		w->maps = m;
		w->cap_maps = cap;
	}
	m = &w->maps[w->nr_maps];
	memset(m, 0, sizeof(*m));
	m->path = strndup(k->path, k->len);
	if (!m->path)
		return -ENOMEM;
	memcpy(m->id, k->id, k->id_size);
	m->size = k->id_size;
	m->maj = k->maj;
	m->min = k->min;
	m->ino = k->ino;
	m->cpumode = cpumode;
	*slot = ++w->nr_maps;
	w->map_bytes += k->len + 1;
	if (!k->id_size)
		queue_map(w, k, cpumode);
	if (w->nr_maps * 2 >= w->nr_slots)
		return grow_slots(w);
	return 0;
}

static int note_mmap2(struct prec_drain_walk *w,
		      const struct perf_event_header *h, const uint8_t *rec)
{
	static const uint8_t no_id[20];
	struct map_key k = { .path = (const char *)rec + MMAP2_FILENAME,
			     .id = no_id };

	/* A data map (mmap_data): its file's code map, if any, has the id. */
	if (h->size <= MMAP2_FILENAME || (h->misc & PERF_RECORD_MISC_MMAP_DATA))
		return 0;
	k.len = strnlen(k.path, h->size - MMAP2_FILENAME);
	if (!k.len)
		return 0;
	/* The flag without --buildid-mmap: another session's event with
	 * attr.build_id got the mmap first, and the kernel (5.12 up to at
	 * least 6.18) left the flag it set for that one in the header it
	 * reuses for ours, over the maj/min/ino it wrote for us. Those are
	 * what the record holds; the merge clears the flag. */
	if (h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID && !w->build_id)
		w->unflagged++;
	if ((h->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) && w->build_id) {
		k.id_size = rec[MMAP2_BUILD_ID_SIZE];
		if (k.id_size > 20)
			k.id_size = 20;
		if (k.id_size)
			k.id = rec + MMAP2_BUILD_ID;
	} else {
		/* Which file was mapped: only it may give the id later. */
		k.maj = prec_ld32(rec + MMAP2_MAJ);
		k.min = prec_ld32(rec + MMAP2_MIN);
		k.ino = prec_ld64(rec + MMAP2_INO);
		k.pid = (int32_t)prec_ld32(rec + MMAP2_PID);
		k.start = prec_ld64(rec + MMAP2_ADDR);
		k.end = k.start + prec_ld64(rec + MMAP2_LEN);
	}
	return add_map(w, &k, h->misc & PERF_RECORD_MISC_CPUMODE_MASK);
}

/* Everything but SAMPLE: the rare types the recording needs facts from. */
static int note_record(struct prec_drain_walk *w,
		       const struct perf_event_header *h, const uint8_t *rec)
{
	switch (h->type) {
	case PERF_RECORD_LOST:
		if (h->size >= 24)
			w->lost += prec_ld64(rec + 16);
		return 0;
	case PERF_RECORD_LOST_SAMPLES:
		if (h->size >= 16)
			w->lost_samples += prec_ld64(rec + 8);
		return 0;
	case PERF_RECORD_MMAP2:
		return note_mmap2(w, h, rec);
	default:
		return 0;
	}
}

int prec_drain_walk__note_maps(struct prec_drain_walk *w, const uint8_t *buf,
			       uint32_t len)
{
	int err = 0;

	for (uint32_t off = 0; off + sizeof(struct perf_event_header) <= len && !err;) {
		struct perf_event_header h;

		memcpy(&h, buf + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off)
			break;
		if (h.type == PERF_RECORD_MMAP2)
			err = note_mmap2(w, &h, buf + off);
		off += h.size;
	}
	return err;
}

/* Copy n bytes at ring position pos, which may wrap, to dst. */
static void ring_copy(const struct prec_drain_walk *w, void *dst,
		      uint64_t pos, uint32_t n)
{
	uint64_t off = pos & (w->size - 1);
	uint64_t first = w->size - off;

	if (first >= n) {
		memcpy(dst, w->data + off, n);
		return;
	}
	memcpy(dst, w->data + off, first);
	memcpy((uint8_t *)dst + first, w->data, n - first);
}

/* Headers only, ahead of the walk (which frames the same records later in
 * the pass): the AUX chunks that carry these flags go first. A malformed
 * header ends the scan; the walk reports it. */
void prec_drain_walk__aux_flags(struct prec_drain_walk *w, uint64_t start,
				uint64_t head)
{
	while (start != head) {
		struct perf_event_header h;
		uint64_t flags;

		ring_copy(w, &h, start, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - start)
			return;
		if (h.type == PERF_RECORD_AUX && h.size >= 32) {
			ring_copy(w, &flags, start + 24, sizeof(flags));
			w->aux_flags |= (uint32_t)flags;
		}
		start += h.size;
	}
}

int prec_drain_walk__span(struct prec_drain_walk *w, uint64_t start,
			  uint64_t head, uint32_t max,
			  struct prec_drain_span *out)
{
	const uint64_t mask = w->size - 1;
	uint64_t pos = start, lo = UINT64_MAX, hi = 0;
	uint32_t records = 0;
	int err = 0;

	while (pos != head) {
		uint64_t off = pos & mask, t;
		struct perf_event_header h;
		const uint8_t *rec = w->data + off;

		if (off + sizeof(h) <= w->size)
			memcpy(&h, rec, sizeof(h));
		else
			ring_copy(w, &h, pos, sizeof(h));
		if (h.size < sizeof(h) || h.size > head - pos) {
			w->bad_pos = pos;
			w->bad_size = h.size;
			err = -EBADMSG;
			break;
		}
		if (pos + h.size - start > max)
			break;
		if (off + h.size > w->size) {
			ring_copy(w, w->scratch, pos, h.size);
			rec = w->scratch;
		}
		/* in the real trailer of a KSYMBOL the kernel made look longer */
		t = prec_time_layout__time(w->layout, rec,
					   prec_record__size(rec, h.size, PREC_SAMPLE_ID_TRAILER));
		if (t) {
			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
		if (h.type != PERF_RECORD_SAMPLE) {
			if (w->cap)
				prec_capture__add(w->cap, rec, h.size, t);
			err = note_record(w, &h, rec);
			if (err)
				break;
		}
		pos += h.size;
		records++;
	}
	out->start = start;
	out->end = pos;
	out->records = records;
	out->first_time = hi ? lo : 0;
	out->last_time = hi;
	return err;
}
