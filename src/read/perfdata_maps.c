// SPDX-License-Identifier: MIT
// The user records perf record synthesizes from its event list between the
// header and the data, made from the manifest's events and ids: ID_INDEX
// (each id's ring, CPU and task), the clock events' EVENT_UPDATE unit and
// scale, THREAD_MAP and CPU_MAP. perf's readers take them in both formats;
// perf report --stats and -D list them, and perf script keeps the maps.
#include "read/perfdata_maps.h"
#include "read/bytebuf.h"
#include "read/perfdata_features.h"

#include <endian.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

enum {
	REC_ID_INDEX = 69,
	REC_THREAD_MAP = 73,
	REC_CPU_MAP = 74,
	REC_EVENT_UPDATE = 78,
};

#define EVENT_UPDATE_UNIT 0  /* PERF_EVENT_UPDATE__UNIT */
#define EVENT_UPDATE_SCALE 1 /* PERF_EVENT_UPDATE__SCALE */
/* perf sizes an EVENT_UPDATE as its struct (header, type, id and a 16-byte
 * union) plus the payload, rounded up to 8 */
#define EVENT_UPDATE_BASE 40u
#define REC_MAX 65535u
#define ID_INDEX_ENTRY 32u   /* id, idx, cpu, tid */
#define THREAD_MAP_ENTRY 24u /* pid, comm[16] */
#define CPU_MAP_CPUS 0       /* PERF_CPU_MAP__CPUS: u16 nr, u16 cpu[nr] */

static void put_hdr(struct prec_bytebuf *b, uint32_t type, uint32_t size)
{
	prec_bytebuf__put_u32(b, type);
	prec_bytebuf__put_u32(b, size << 16); /* misc 0, then the u16 size */
}

static size_t total_ids(const struct prec_manifest *m)
{
	size_t n = 0;

	for (uint32_t i = 0; i < m->nr_events; i++)
		n += m->events[i].nr_ids;
	return n;
}

static bool is_clock(const struct prec_manifest_event *e)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	memcpy(&a, e->attr, sizeof(a) < sizeof(e->attr) ? sizeof(a) : sizeof(e->attr));
	return a.type == PERF_TYPE_SOFTWARE &&
	       (a.config == PERF_COUNT_SW_CPU_CLOCK || a.config == PERF_COUNT_SW_TASK_CLOCK);
}

static void put_clock_updates(struct prec_bytebuf *b, const struct prec_manifest_event *e)
{
	static const char unit[] = "msec";
	const double scale = 1e-6;
	uint64_t bits;

	memcpy(&bits, &scale, sizeof(bits));
	put_hdr(b, REC_EVENT_UPDATE, EVENT_UPDATE_BASE + 8);
	prec_bytebuf__put_u64(b, EVENT_UPDATE_UNIT);
	prec_bytebuf__put_u64(b, e->ids[0]);
	prec_bytebuf__put(b, unit, sizeof(unit));
	prec_bytebuf__put(b, NULL, EVENT_UPDATE_BASE + 8 - 24 - sizeof(unit));
	put_hdr(b, REC_EVENT_UPDATE, EVENT_UPDATE_BASE + 8);
	prec_bytebuf__put_u64(b, EVENT_UPDATE_SCALE);
	prec_bytebuf__put_u64(b, e->ids[0]);
	prec_bytebuf__put_u64(b, bits);
	prec_bytebuf__put(b, NULL, EVENT_UPDATE_BASE - 24);
}

static int cmp_i32(const void *pa, const void *pb)
{
	int32_t a = *(const int32_t *)pa, b = *(const int32_t *)pb;

	return (a > b) - (a < b);
}

/* The distinct values other than -1 of the ids' CPUs (cpus) or tasks,
 * ascending, in a malloc'd array; {-1} when there are none. Returns the
 * count or -ENOMEM. */
static long distinct(const struct prec_manifest *m, bool cpus, int32_t **out)
{
	int32_t *v = malloc((total_ids(m) + 1) * sizeof(*v));
	size_t n = 0, k = 0;

	*out = v;
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const int32_t *src = cpus ? m->events[i].id_cpus : m->events[i].id_tids;

		for (uint32_t j = 0; src && j < m->events[i].nr_ids; j++)
			if (src[j] != -1)
				v[n++] = src[j];
	}
	if (!n) {
		v[0] = -1;
		return 1;
	}
	qsort(v, n, sizeof(*v), cmp_i32);
	for (size_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return (long)k;
}

/* The index of v in the ascending list[n] (made from the same ids, so it
 * is there). */
static uint64_t position(const int32_t *list, long n, int32_t v)
{
	const int32_t *at = bsearch(&v, list, (size_t)n, sizeof(*list), cmp_i32);

	return at ? (uint64_t)(at - list) : 0;
}

int prec_perfdata__rings(const struct prec_manifest *m, int32_t **cpus, uint32_t *nr)
{
	/* a list, not a table by CPU: a manifest's CPU numbers are the
	 * input's, and CPU 2^31 - 2 must cost no more than CPU 1 */
	long n = distinct(m, true, cpus);

	*nr = n < 0 ? 0 : (uint32_t)n;
	return n < 0 ? -ENOMEM : 0;
}

uint32_t prec_perfdata__ring_of(const int32_t *cpus, uint32_t nr, int32_t cpu)
{
	const int32_t *at = cpu == -1 ? NULL : bsearch(&cpu, cpus, nr, sizeof(*cpus), cmp_i32);

	return at ? (uint32_t)(at - cpus) : PREC_PERFDATA_NO_RING;
}

int prec_perfdata__build_id_index(const struct prec_manifest *m, void **buf, size_t *len)
{
	const uint32_t per_rec = (REC_MAX - 16) / ID_INDEX_ENTRY;
	struct prec_bytebuf b = { 0 };
	size_t left = total_ids(m), in_rec = 0;
	int32_t *cpus = NULL, *tids = NULL;
	uint32_t nr_cpus = 0;
	long nr_tids;

	*buf = NULL;
	*len = 0;
	if (!left)
		return 0;
	/* idx is the id's ring, as perf numbers its mmaps: the position of its
	 * CPU in the CPU map (or of its task in the thread map when it has no
	 * CPU). perf's AUX area sampling queues each sample's AUX data by it,
	 * and refuses a queue fed by two CPUs ("auxtrace queue conflict");
	 * the AUXTRACE records carry the same (prec_perfdata__write_auxtrace). */
	nr_tids = distinct(m, false, &tids);
	if (nr_tids < 0 || prec_perfdata__rings(m, &cpus, &nr_cpus) < 0) {
		free(cpus);
		free(tids);
		return -ENOMEM;
	}
	for (uint32_t pos = 0, cur = 0; pos < m->nr_events; pos++) {
		const struct prec_manifest_event *e = &m->events[prec_perfdata__event_next(m, &cur)];

		for (uint32_t j = 0; j < e->nr_ids; j++) {
			int32_t cpu = e->id_cpus ? e->id_cpus[j] : -1;
			int32_t tid = e->id_tids ? e->id_tids[j] : -1;

			if (!in_rec) {
				in_rec = left < per_rec ? left : per_rec;
				put_hdr(&b, REC_ID_INDEX, (uint32_t)(16 + in_rec * ID_INDEX_ENTRY));
				prec_bytebuf__put_u64(&b, in_rec);
			}
			prec_bytebuf__put_u64(&b, e->ids[j]);
			prec_bytebuf__put_u64(&b, cpu != -1 ? prec_perfdata__ring_of(cpus, nr_cpus, cpu)
							    : position(tids, nr_tids, tid));
			prec_bytebuf__put_u64(&b, (uint64_t)(int64_t)cpu);
			prec_bytebuf__put_u64(&b, (uint64_t)(int64_t)tid);
			in_rec--;
			left--;
		}
	}
	free(cpus);
	free(tids);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*buf = b.p;
	*len = b.len;
	return 0;
}

int prec_perfdata__build_maps(const struct prec_manifest *m, void **buf, size_t *len)
{
	struct prec_bytebuf b = { 0 };
	int32_t *v;
	long n;

	*buf = NULL;
	*len = 0;
	for (uint32_t i = 0; i < m->nr_events; i++)
		if (m->events[i].nr_ids && is_clock(&m->events[i]))
			put_clock_updates(&b, &m->events[i]);
	/* One record each, as perf writes them; a map too big for one is
	 * left out (perf's own synthesis fails there). */
	n = distinct(m, false, &v);
	if (n < 0)
		goto nomem;
	if (16 + (size_t)n * THREAD_MAP_ENTRY <= REC_MAX) {
		put_hdr(&b, REC_THREAD_MAP, (uint32_t)(16 + (size_t)n * THREAD_MAP_ENTRY));
		prec_bytebuf__put_u64(&b, (uint64_t)n);
		for (long i = 0; i < n; i++) {
			prec_bytebuf__put_u64(&b, (uint64_t)(int64_t)v[i]);
			prec_bytebuf__put(&b, NULL, 16); /* comm: perf's is empty too */
		}
	}
	free(v);
	n = distinct(m, true, &v);
	if (n < 0)
		goto nomem;
	if (12 + (size_t)n * 2 <= REC_MAX - 7) {
		size_t size = (12 + (size_t)n * 2 + 7) & ~(size_t)7;
		uint16_t h[2] = { htole16(CPU_MAP_CPUS), htole16((uint16_t)n) };

		put_hdr(&b, REC_CPU_MAP, (uint32_t)size);
		prec_bytebuf__put(&b, h, sizeof(h));
		for (long i = 0; i < n; i++) {
			uint16_t c = htole16((uint16_t)v[i]); /* -1 as perf's (u16)-1 */

			prec_bytebuf__put(&b, &c, sizeof(c));
		}
		prec_bytebuf__put(&b, NULL, size - 12 - (size_t)n * 2);
	}
	free(v);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*buf = b.p;
	*len = b.len;
	return 0;
nomem:
	free(b.p);
	return -ENOMEM;
}
