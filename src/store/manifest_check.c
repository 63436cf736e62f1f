// SPDX-License-Identifier: MIT
// Consistency of a decoded manifest: contents under a valid checksum that
// prec never writes (events without the common sample_type base or without
// ids, an id or a shard twice, a shard name outside the directory, a time
// layout that does not follow from the sample_type, shard totals no shard
// file can hold) and readers would trust.
#include "store/manifest_format.h"
#include "store/store.h"
#include "util/bytes.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <lz4.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Bits that place the timestamp in a SAMPLE body or in the sample_id
 * trailer: an attr must have exactly the session's, or one time layout
 * would not fit every record. */
#define LAYOUT_BITS                                                          \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |          \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_ID |                \
	 PERF_SAMPLE_STREAM_ID)

static const char *check_session(const struct prec_manifest *m)
{
	struct prec_time_layout tl;

	if (prec_time_layout__init(&tl, m->sample_type) < 0)
		return "session sample_type without PERF_SAMPLE_TIME or PERF_SAMPLE_IDENTIFIER, or with ID or STREAM_ID";
	if (tl.sample_time_off != m->time_layout.sample_time_off ||
	    tl.trailer_time_back != m->time_layout.trailer_time_back)
		return "time layout does not match the session sample_type";
	return NULL;
}

static const char *check_event(const struct prec_manifest *m,
			       const struct prec_manifest_event *e)
{
	uint64_t st = prec_ld64(e->attr + offsetof(struct perf_event_attr, sample_type));

	if (!(st & PERF_SAMPLE_TIME) || !(st & PERF_SAMPLE_IDENTIFIER))
		return "event attr without PERF_SAMPLE_TIME or PERF_SAMPLE_IDENTIFIER";
	if ((st & m->sample_type) != m->sample_type ||
	    (st & LAYOUT_BITS) != (m->sample_type & LAYOUT_BITS))
		return "event attr sample_type differs from the session's base";
	if (!e->nr_ids)
		return "event without ids";
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorted copy: duplicates are neighbours. n log n, as a -p recording of
 * many threads has ids by the ten thousand. */
static int ids_unique(const struct prec_manifest *m, const char **why)
{
	size_t n = 0, k = 0;
	uint64_t *all;
	int err = 0;

	for (uint32_t i = 0; i < m->nr_events; i++)
		n += m->events[i].nr_ids;
	all = malloc((n ? n : 1) * sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nr_events; i++)
		for (uint32_t j = 0; j < m->events[i].nr_ids; j++)
			all[k++] = m->events[i].ids[j];
	qsort(all, n, sizeof(*all), cmp_u64);
	for (size_t i = 1; i < n && !err; i++)
		if (all[i] == all[i - 1]) {
			*why = "event id used twice";
			err = -EBADMSG;
		}
	free(all);
	return err;
}

/* A shard is opened as dirfd/name: anything but a plain name in the
 * recording's directory would read another file. */
static bool shard_name_ok(const char *s)
{
	return s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..") &&
	       strcmp(s, PREC_MANIFEST_NAME);
}

/* Bounds of a shard's totals from the format alone (docs/format.md):
 * chunk headers at file offsets (off_t) past the shard header, payloads
 * no bigger than a reader takes, records of 8 bytes at least. Past them
 * the totals are damage, not a recording: a merge would take a chunk
 * count no file holds for a shard cut short, a window from a first time
 * after the last. The loss counts are the kernel's, with no such bound. */
#define MAX_CHUNKS ((uint64_t)(INT64_MAX - 64) / PREC_CHUNK_HDR_SIZE)

/* Does n chunks of at most each bytes hold less than total? */
static bool past(uint64_t total, uint64_t n, uint64_t each)
{
	uint64_t cap;

	return !__builtin_mul_overflow(n, each, &cap) && total > cap;
}

static const char *check_totals(const struct prec_manifest_shard *s)
{
	if (s->chunks > MAX_CHUNKS)
		return "shard totals: chunks more than a shard file can hold";
	if (past(s->bytes, s->chunks, (uint64_t)LZ4_COMPRESSBOUND(PREC_CHUNK_READ_MAX)))
		return "shard totals: bytes more than its chunks can hold";
	if (past(s->raw_bytes, s->chunks, PREC_CHUNK_READ_MAX))
		return "shard totals: raw bytes more than its chunks can hold";
	if (s->records > s->raw_bytes / sizeof(struct perf_event_header))
		return "shard totals: records more than its raw bytes can hold";
	if (s->first_time > s->last_time)
		return "shard totals: first time after the last";
	return NULL;
}

/* A shard is read once per name. Several shards may share a CPU: a flight
 * recording has a drained shard and a snapshot shard per CPU. */
static int shards_unique(const struct prec_manifest *m, const char **why)
{
	uint32_t n = m->nr_shards;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	int err = 0;

	if (!names)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		names[i] = m->shards[i].name;
	qsort(names, n, sizeof(*names), cmp_str);
	for (uint32_t i = 1; i < n && !err; i++)
		if (!strcmp(names[i], names[i - 1])) {
			*why = "shard name listed twice";
			err = -EBADMSG;
		}
	free(names);
	return err;
}

int prec_manifest__check(const struct prec_manifest *m, const char **why)
{
	int err;

	*why = check_session(m);
	if (!*why && !m->nr_events)
		*why = "no events";
	for (uint32_t i = 0; i < m->nr_events && !*why; i++)
		*why = check_event(m, &m->events[i]);
	for (uint32_t i = 0; i < m->nr_shards && !*why; i++)
		if (!shard_name_ok(m->shards[i].name))
			*why = "shard name is not a file name in the recording's directory";
		else
			*why = check_totals(&m->shards[i]);
	if (*why)
		return -EBADMSG;
	err = ids_unique(m, why);
	if (!err)
		err = shards_unique(m, why);
	if (err == -ENOMEM)
		*why = "out of memory";
	return err;
}
