// SPDX-License-Identifier: MIT
// The perf.data writer: file format (header, ids, attrs, data, feature
// sections) or pipe format (header records, then data), as the kernel's
// tools/perf/Documentation/perf.data-file-format.txt sets them out;
// buffered, with no allocation per record.
//
// Both formats list the attrs in the manifest's order with the tracking
// dummy last, as perf does (perf script sets a pipe's call-graph printing up
// from the first attr of each type); the pipe names each event in an
// EVENT_UPDATE too. Everything in the headers comes from the manifest (attrs
// and ids, names, host and topology, the tracing blob, TIME_CONV, ID_INDEX,
// AUXTRACE_INFO, the clock units and the thread and CPU maps, the BUILD_ID
// feature); no file is read again. Records go
// through a 1 MiB buffer; a FINISHED_ROUND follows every 8192 records or 100
// ms of record time (the stream is sorted, so any cut is safe). An AUX chunk
// becomes a PERF_RECORD_AUXTRACE at its place in time.
#include "read/internal.h"
#include "read/perfdata_maps.h"
#include "read/zstd_out.h"
#include "util/file.h"
#include "util/log.h"

#include <endian.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PD_BUF_SIZE ((uint32_t)PREC_PERFDATA_FLUSH_BYTES)
#define PERF_MAGIC2 0x32454c4946524550ULL /* "PERFILE2" */
#define FILE_HEADER_SIZE 104
#define ATTR_SIZE 128
#define ATTR_ENTRY_SIZE (ATTR_SIZE + 16)
#define AUXTRACE_HDR_SIZE 48

enum {
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_HEADER_BUILD_ID = 67,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE_INFO = 70,
	REC_AUXTRACE = 71,
	REC_EVENT_UPDATE = 78,
	REC_TIME_CONV = 79,
	REC_HEADER_FEATURE = 80,
	REC_FINISHED_INIT = 82,
};

#define EVENT_UPDATE_NAME 2 /* PERF_EVENT_UPDATE__NAME */

struct file_header {
	uint64_t magic, size, attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t types_offset, types_size;
	uint64_t features[4];
};
_Static_assert(sizeof(struct file_header) == FILE_HEADER_SIZE, "perf file header");

struct auxtrace_rec {
	struct perf_event_header h;
	uint64_t size, offset, reference;
	uint32_t idx, tid, cpu, reserved;
};
_Static_assert(sizeof(struct auxtrace_rec) == AUXTRACE_HDR_SIZE, "AUXTRACE record");

/* PERF_RECORD_TIME_CONV as perf 6.1 writes it, time_cycles and all. */
struct time_conv_rec {
	struct perf_event_header h;
	uint64_t time_shift, time_mult, time_zero, time_cycles, time_mask;
	uint8_t cap_user_time_zero, cap_user_time_short, reserved[6];
};
_Static_assert(sizeof(struct time_conv_rec) == 56, "TIME_CONV record");

/* Features in bit order; file mode writes every one that applies. */
static const int file_feats[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				  14, 16, 17, 18, 20, 21, 22, 23, 25, 26, 27, 28, 29, 31 };
/* Pipe mode: the ones perf itself synthesizes as HEADER_FEATUREs (tracing
 * data and build-ids travel as their own records; CACHE is never sent). */
static const int pipe_feats[] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
				  14, 16, 17, 21, 22, 23, 25, 26, 27, 28, 29, 31 };
#define NR_FILE_FEATS (sizeof(file_feats) / sizeof(file_feats[0]))

struct prec_perfdata {
	int fd;
	enum prec_perfdata_mode mode;
	const struct prec_manifest *m;
	struct prec_out_writer *out;
	uint8_t *buf;         /* being filled; the other may be in flight */
	size_t used;
	uint64_t off;         /* output offset of buf[0] */
	uint64_t data_offset; /* file mode: start of the data section */
	int err;              /* first write error; every later call returns it */
	uint64_t *aux_index;  /* file offsets of AUXTRACE headers */
	uint64_t nr_aux, cap_aux;
	int32_t *ring_cpus;   /* a CPU's ring: its place here (prec_perfdata__rings) */
	uint32_t nr_ring_cpus;
	struct prec_zstd_out *z; /* -z: data records go through it; else NULL */
	bool unflag;          /* the recording asked for no MMAP2 build-ids */
};

static int flush(struct prec_perfdata *pd)
{
	if (pd->err)
		return pd->err;
	if (pd->used) {
		pd->err = prec_out_writer__put(pd->out, &pd->buf, pd->used);
		pd->off += pd->used;
		pd->used = 0;
	}
	return pd->err;
}

/* Append bytes (NULL src = zeros), flushing as needed; any length. */
static int emit(struct prec_perfdata *pd, const void *src, size_t n)
{
	const uint8_t *c = src;

	while (n && !pd->err) {
		size_t room = PD_BUF_SIZE - pd->used, k = n < room ? n : room;

		if (c)
			memcpy(pd->buf + pd->used, c, k);
		else
			memset(pd->buf + pd->used, 0, k);
		pd->used += k;
		n -= k;
		if (c)
			c += k;
		if (pd->used == PD_BUF_SIZE)
			flush(pd);
	}
	return pd->err;
}

static uint64_t out_pos(const struct prec_perfdata *pd)
{
	return pd->off + pd->used;
}

static void put_hdr(struct prec_perfdata *pd, uint32_t type, uint16_t misc,
		    uint16_t size)
{
	struct perf_event_header h = {
		.type = htole32(type), .misc = htole16(misc), .size = htole16(size),
	};

	emit(pd, &h, sizeof(h));
}

static void put_attr(struct prec_perfdata *pd, const uint8_t attr[128])
{
	uint8_t a[ATTR_SIZE];
	uint32_t size = htole32(ATTR_SIZE);

	/* perf 6.1 rejects attr.size > 128 ("more recent ABI"). */
	memcpy(a, attr, sizeof(a));
	memcpy(a + 4, &size, sizeof(size));
	emit(pd, a, sizeof(a));
}

static void put_ids(struct prec_perfdata *pd, const struct prec_manifest_event *e)
{
	for (uint32_t j = 0; j < e->nr_ids; j++) {
		uint64_t id = htole64(e->ids[j]);

		emit(pd, &id, sizeof(id));
	}
}

static void file_header_init(struct file_header *fh, const struct prec_manifest *m,
			     uint64_t attrs_offset)
{
	memset(fh, 0, sizeof(*fh));
	fh->magic = htole64(PERF_MAGIC2);
	fh->size = htole64(FILE_HEADER_SIZE);
	fh->attr_size = htole64(ATTR_ENTRY_SIZE);
	fh->attrs_offset = htole64(attrs_offset);
	fh->attrs_size = htole64((uint64_t)m->nr_events * ATTR_ENTRY_SIZE);
	fh->data_offset = htole64(attrs_offset + (uint64_t)m->nr_events * ATTR_ENTRY_SIZE);
}

/* Header (data size 0 until close), id arrays, attr entries. */
static int open_file(struct prec_perfdata *pd)
{
	const struct prec_manifest *m = pd->m;
	struct file_header fh;
	uint64_t ids_off = FILE_HEADER_SIZE;
	off_t cur = lseek(pd->fd, 0, SEEK_CUR);

	if (cur != 0)
		return cur < 0 ? -errno : -EINVAL;
	for (uint32_t i = 0; i < m->nr_events; i++)
		ids_off += (uint64_t)m->events[i].nr_ids * 8;
	file_header_init(&fh, m, ids_off);
	pd->data_offset = le64toh(fh.data_offset);
	emit(pd, &fh, sizeof(fh));
	for (uint32_t i = 0, at = 0; i < m->nr_events; i++)
		put_ids(pd, &m->events[prec_perfdata__event_next(m, &at)]);
	ids_off = FILE_HEADER_SIZE;
	for (uint32_t i = 0, at = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[prec_perfdata__event_next(m, &at)];
		uint64_t sec[2] = { htole64(ids_off), htole64((uint64_t)e->nr_ids * 8) };

		put_attr(pd, e->attr);
		emit(pd, sec, sizeof(sec));
		ids_off += (uint64_t)e->nr_ids * 8;
	}
	return pd->err;
}

static int pipe_attrs(struct prec_perfdata *pd)
{
	const struct prec_manifest *m = pd->m;

	for (uint32_t i = 0, cur = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[prec_perfdata__event_next(m, &cur)];
		uint64_t size = 8 + ATTR_SIZE + (uint64_t)e->nr_ids * 8;

		if (size > 65535) {
			pr_err("perfdata event %s: %u ids do not fit a pipe-mode attr record",
			       e->name ? e->name : "?", e->nr_ids);
			return -E2BIG;
		}
		put_hdr(pd, REC_HEADER_ATTR, 0, (uint16_t)size);
		put_attr(pd, e->attr);
		put_ids(pd, e);
	}
	return pd->err;
}

/* An EVENT_UPDATE of type NAME per event, as perf record sends in a pipe:
 * perf report and script name a pipe's events from these as the file's
 * EVENT_DESC names them. Right after the attrs they name (perf sends them
 * after its HEADER_FEATUREs; its readers take them anywhere after the
 * attr). */
static int pipe_names(struct prec_perfdata *pd)
{
	const struct prec_manifest *m = pd->m;

	for (uint32_t i = 0, cur = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e = &m->events[prec_perfdata__event_next(m, &cur)];
		size_t n = e->name ? strlen(e->name) + 1 : 0;
		size_t padded = (n + 7) & ~(size_t)7;
		uint64_t body[2] = { htole64(EVENT_UPDATE_NAME), 0 };

		/* Nameless or id-less: perf derives the name, as without. */
		if (!n || !e->nr_ids || 24 + padded > 65535)
			continue;
		body[1] = htole64(e->ids[0]);
		put_hdr(pd, REC_EVENT_UPDATE, 0, (uint16_t)(24 + padded));
		emit(pd, body, sizeof(body));
		emit(pd, e->name, n);
		emit(pd, NULL, padded - n);
	}
	return pd->err;
}

static int pipe_features(struct prec_perfdata *pd)
{
	struct prec_feat_ctx c = { .m = pd->m, .first_time = pd->m->start_time,
				   .last_time = pd->m->stop_time,
				   .comp_level = pd->z ? prec_zstd_out__level(pd->z) : 0,
				   .max_len = 65535 - 16 };
	uint64_t feat_id;

	for (size_t i = 0; i < sizeof(pipe_feats) / sizeof(pipe_feats[0]); i++) {
		void *buf;
		size_t len;
		int err = prec_perfdata__build_feature(pipe_feats[i], &c, &buf, &len);

		if (err == -ENOENT)
			continue;
		if (err)
			return err;
		if (len + 16 <= 65535) {
			put_hdr(pd, REC_HEADER_FEATURE, 0, (uint16_t)(len + 16));
			feat_id = htole64((uint64_t)pipe_feats[i]);
			emit(pd, &feat_id, sizeof(feat_id));
			emit(pd, buf, len);
		} else {
			pr_warn("perfdata feature %d: %zu bytes do not fit a pipe record: left out",
				pipe_feats[i], len);
		}
		free(buf);
	}
	put_hdr(pd, REC_HEADER_FEATURE, 0, 16);
	feat_id = htole64(PREC_FEAT_LAST);
	emit(pd, &feat_id, sizeof(feat_id));
	return pd->err;
}

/* HEADER_TRACING_DATA, then the blob padded to 8 (not in header.size). */
static int pipe_tracing(struct prec_perfdata *pd)
{
	void *blob;
	size_t len, padded;
	uint32_t sz[2];
	int err = prec_tracing_blob(pd->m, &blob, &len);

	if (err || !len)
		return err;
	padded = (len + 7) & ~(size_t)7;
	put_hdr(pd, REC_HEADER_TRACING_DATA, 0, 16);
	sz[0] = htole32((uint32_t)padded);
	sz[1] = 0;
	emit(pd, sz, sizeof(sz));
	emit(pd, blob, len);
	emit(pd, NULL, padded - len);
	free(blob);
	return pd->err;
}

static int pipe_buildids(struct prec_perfdata *pd)
{
	void *buf;
	size_t len;
	int err = prec_perfdata__build_buildids(pd->m, REC_HEADER_BUILD_ID, &buf, &len);

	if (err || !len)
		return err;
	emit(pd, buf, len);
	free(buf);
	return pd->err;
}

static int open_pipe(struct prec_perfdata *pd)
{
	uint64_t h[2] = { htole64(PERF_MAGIC2), htole64(16) };
	int err;

	emit(pd, h, sizeof(h));
	err = pipe_attrs(pd);
	if (!err)
		err = pipe_names(pd);
	if (!err)
		err = pipe_features(pd);
	if (!err)
		err = pipe_tracing(pd);
	if (!err)
		err = pipe_buildids(pd);
	return err;
}

/* TIME_CONV where perf record puts it: after the header records, ahead of
 * AUXTRACE_INFO and the data, only when the control page's words convert
 * (the arm_spe and intel_pt decoders read them from it). */
static int time_conv(struct prec_perfdata *pd)
{
	const struct prec_time_conv *tc = &pd->m->time_conv;
	struct time_conv_rec r = {
		.h = { .type = htole32(REC_TIME_CONV), .size = htole16(sizeof(r)) },
		.time_shift = htole64(tc->time_shift),
		.time_mult = htole64(tc->time_mult),
		.time_zero = htole64(tc->time_zero),
		.time_cycles = htole64(tc->time_cycles),
		.time_mask = htole64(tc->time_mask),
		.cap_user_time_zero = 1,
		.cap_user_time_short = tc->cap_user_time_short,
	};

	if (!tc->cap_user_time_zero)
		return 0;
	emit(pd, &r, sizeof(r));
	return pd->err;
}

/* AUXTRACE_INFO leads the data (both modes) when the recording has AUX. */
static int auxtrace_info(struct prec_perfdata *pd)
{
	const struct prec_manifest *m = pd->m;
	uint64_t size = 16 + (uint64_t)m->nr_auxtrace_priv * 8;
	uint32_t t[2] = { htole32(m->auxtrace_type), 0 };

	if (!m->auxtrace_type)
		return 0;
	if (size > 65535)
		return -E2BIG;
	put_hdr(pd, REC_AUXTRACE_INFO, 0, (uint16_t)size);
	emit(pd, t, sizeof(t));
	for (uint32_t i = 0; i < m->nr_auxtrace_priv; i++) {
		uint64_t v = htole64(m->auxtrace_priv[i]);

		emit(pd, &v, sizeof(v));
	}
	return pd->err;
}

/* Records perf record synthesizes from its event list, from
 * perfdata_maps.c: ID_INDEX ahead of AUXTRACE_INFO, the clock events'
 * units, the thread and CPU maps after it, as perf orders them. */
static int put_built(struct prec_perfdata *pd,
		     int (*build)(const struct prec_manifest *, void **, size_t *))
{
	void *buf;
	size_t len;
	int err = build(pd->m, &buf, &len);

	if (err)
		return err;
	emit(pd, buf, len);
	free(buf);
	return pd->err;
}

/* Whether an event of the recording had attr.build_id: only then can an
 * MMAP2's build-id flag be the kernel's answer to this recording. */
static bool asked_build_ids(const struct prec_manifest *m)
{
	for (uint32_t i = 0; m && i < m->nr_events; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		memcpy(&a, m->events[i].attr,
		       sizeof(a) < sizeof(m->events[i].attr) ? sizeof(a) : sizeof(m->events[i].attr));
		if (a.build_id)
			return true;
	}
	return false;
}

int prec_perfdata__open_zstd(struct prec_perfdata **out, int fd,
			     const struct prec_manifest *m,
			     enum prec_perfdata_mode mode, int zlevel)
{
	struct prec_perfdata *pd = calloc(1, sizeof(*pd));
	int err;

	*out = NULL;
	if (!pd)
		return -ENOMEM;
	pd->fd = fd;
	pd->mode = mode;
	pd->m = m;
	pd->unflag = !asked_build_ids(m);
	/* File mode writes its flushes from a second buffer, in the
	 * background; a pipe's reader sets the pace there anyway, and its
	 * EPIPE must reach us as write()'s. */
	err = prec_out_writer__new(&pd->out, fd, PD_BUF_SIZE, mode == PREC_PERFDATA_FILE);
	if (!err && zlevel)
		err = prec_zstd_out__new(&pd->z, zlevel);
	if (err)
		goto err_free;
	pd->buf = prec_out_writer__first(pd->out);
	err = prec_perfdata__rings(m, &pd->ring_cpus, &pd->nr_ring_cpus);
	if (err)
		goto err_free;
	err = mode == PREC_PERFDATA_FILE ? open_file(pd) : open_pipe(pd);
	if (!err)
		err = time_conv(pd);
	if (!err)
		err = put_built(pd, prec_perfdata__build_id_index);
	if (!err)
		err = auxtrace_info(pd);
	if (!err)
		err = put_built(pd, prec_perfdata__build_maps);
	if (err)
		goto err_free;
	*out = pd;
	return 0;
err_free:
	prec_zstd_out__delete(pd->z);
	prec_out_writer__delete(pd->out);
	free(pd->ring_cpus);
	free(pd);
	return err;
}

int prec_perfdata__open(struct prec_perfdata **out, int fd,
			const struct prec_manifest *m,
			enum prec_perfdata_mode mode)
{
	return prec_perfdata__open_zstd(out, fd, m, mode, 0);
}

/* The compressor's batch out as one COMPRESSED record, ahead of whatever
 * is written plain next (perf record keeps FINISHED_ROUND and AUXTRACE out
 * of the compressed stream: an AUXTRACE's file offset is indexed). */
static int zflush(struct prec_perfdata *pd)
{
	long n;

	if (!pd->z || pd->err)
		return pd->err;
	if (PD_BUF_SIZE - pd->used < PREC_ZSTD_RECORD_MAX && flush(pd))
		return pd->err;
	n = prec_zstd_out__record(pd->z, pd->buf + pd->used);
	if (n < 0)
		return pd->err = (int)n;
	pd->used += (size_t)n;
	return 0;
}

/* A record into the batch, whole: one that does not fit what is left
 * starts the next batch; only one bigger than a batch is cut in two (perf
 * carries a record's head over to the next COMPRESSED record). */
static int zput(struct prec_perfdata *pd, const uint8_t *p, size_t n)
{
	if (n > prec_zstd_out__room(pd->z) && zflush(pd))
		return pd->err;
	while (n) {
		size_t k = prec_zstd_out__add(pd->z, p, n);

		p += k;
		n -= k;
		if (n && zflush(pd))
			return pd->err;
	}
	return 0;
}

/* An MMAP2 with the build-id flag in a recording that asked for none:
 * another session's event with attr.build_id got the mmap first, and the
 * kernel (5.12 up to at least 6.18) left the flag it set for that one in
 * the header it then wrote for ours, over our maj/min/ino. perf would read
 * those as a build-id (perf 6.1 asserts, or worse), so the flag goes. */
static bool bogus_flag(const void *rec)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	return le32toh(h.type) == PERF_RECORD_MMAP2 &&
	       (le16toh(h.misc) & PERF_RECORD_MISC_MMAP_BUILD_ID);
}

static int write_unflagged(struct prec_perfdata *pd, const uint8_t *rec, uint32_t len)
{
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	h.misc = htole16(le16toh(h.misc) & (uint16_t)~PERF_RECORD_MISC_MMAP_BUILD_ID);
	if (pd->z) {
		/* both parts in one batch: the record stays whole */
		if (len > prec_zstd_out__room(pd->z) && zflush(pd))
			return pd->err;
		if (zput(pd, (const uint8_t *)&h, sizeof(h)))
			return pd->err;
		return zput(pd, rec + sizeof(h), len - sizeof(h));
	}
	if (pd->used + len > PD_BUF_SIZE && flush(pd))
		return pd->err;
	memcpy(pd->buf + pd->used, &h, sizeof(h));
	memcpy(pd->buf + pd->used + sizeof(h), rec + sizeof(h), len - sizeof(h));
	pd->used += len;
	return 0;
}

int prec_perfdata__write_record(struct prec_perfdata *pd, const void *rec,
				uint32_t len)
{
	uint16_t size;

	if (pd->err)
		return pd->err;
	if (len < 8)
		return -EINVAL;
	memcpy(&size, (const uint8_t *)rec + 6, sizeof(size));
	if (le16toh(size) != len)
		return -EINVAL;
	if (pd->unflag && bogus_flag(rec))
		return write_unflagged(pd, rec, len);
	if (pd->z)
		return zput(pd, rec, len);
	if (pd->used + len > PD_BUF_SIZE && flush(pd))
		return pd->err;
	memcpy(pd->buf + pd->used, rec, len);
	pd->used += len;
	return 0;
}

static int aux_index_add(struct prec_perfdata *pd, uint64_t pos)
{
	if (pd->nr_aux == pd->cap_aux) {
		uint64_t cap = pd->cap_aux ? pd->cap_aux * 2 : 1024;
		uint64_t *n = realloc(pd->aux_index, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		pd->aux_index = n;
		pd->cap_aux = cap;
	}
	pd->aux_index[pd->nr_aux++] = pos;
	return 0;
}

int prec_perfdata__write_auxtrace(struct prec_perfdata *pd, const void *data,
				  uint32_t len, uint64_t aux_offset, uint32_t cpu)
{
	uint64_t padded = ((uint64_t)len + 7) & ~(uint64_t)7;
	/* idx: the CPU's ring as perf numbers its mmaps, which the ID_INDEX
	 * gives that CPU's ids too; perf queues AUX data by it. A CPU no id
	 * names (none in prec's recordings) keeps its number. */
	uint32_t ring = prec_perfdata__ring_of(pd->ring_cpus, pd->nr_ring_cpus, (int32_t)cpu);
	uint32_t idx = ring != PREC_PERFDATA_NO_RING ? ring : cpu;
	struct auxtrace_rec r = {
		.h = { .type = htole32(REC_AUXTRACE), .size = htole16(AUXTRACE_HDR_SIZE) },
		.size = htole64(padded),
		.offset = htole64(aux_offset),
		.idx = htole32(idx),
		.tid = htole32((uint32_t)-1), /* per-CPU AUX area */
		.cpu = htole32(cpu),
	};

	if (zflush(pd))
		return pd->err;
	/* The index is amortized growth of one u64, not a per-record malloc. */
	if (pd->mode == PREC_PERFDATA_FILE) {
		int err = aux_index_add(pd, out_pos(pd));

		if (err)
			return err;
	}
	emit(pd, &r, sizeof(r));
	emit(pd, data, len);
	return emit(pd, NULL, padded - len);
}

/* A record that is its header alone, out of the compressed stream (as
 * perf's FINISHED_ROUND and FINISHED_INIT are) */
static int bare(struct prec_perfdata *pd, uint32_t type)
{
	const struct perf_event_header h = {
		.type = htole32(type), .size = htole16(8),
	};

	if (pd->z) {
		if (!zflush(pd))
			put_hdr(pd, type, 0, 8);
		return pd->err;
	}
	return prec_perfdata__write_record(pd, &h, sizeof(h));
}

int prec_perfdata__finish_round(struct prec_perfdata *pd)
{
	return bare(pd, REC_FINISHED_ROUND);
}

int prec_perfdata__finish_init(struct prec_perfdata *pd)
{
	return bare(pd, REC_FINISHED_INIT);
}

int prec_perfdata__flush(struct prec_perfdata *pd)
{
	if (zflush(pd))
		return pd->err;
	return flush(pd);
}

struct feat_sec {
	void *buf;
	size_t len;
};

/* Build every applicable feature; bitmap bits for those built. */
static int build_features(const struct prec_feat_ctx *c,
			  struct feat_sec *secs, uint64_t bitmap[4])
{
	for (size_t i = 0; i < NR_FILE_FEATS; i++) {
		int f = file_feats[i];
		int err = prec_perfdata__build_feature(f, c, &secs[i].buf, &secs[i].len);

		if (err == -ENOENT)
			continue;
		if (err) {
			pr_err("perfdata feature %d: %s", f, strerror(-err));
			return err;
		}
		bitmap[f / 64] |= 1ULL << (f % 64);
	}
	return 0;
}

/* HEADER_COMPRESSED's ratio as perf record computes it: bytes in over
 * COMPRESSED bytes out, rounded. */
static uint32_t zratio(const struct prec_perfdata *pd)
{
	uint64_t in, out;

	if (!pd->z)
		return 0;
	prec_zstd_out__totals(pd->z, &in, &out);
	return out ? (uint32_t)((in + out / 2) / out) : 0;
}

/* Feature section table at data end (one entry per set bit, ascending),
 * the payloads after it, then the final header at offset 0. */
static int close_file(struct prec_perfdata *pd, uint64_t first, uint64_t last)
{
	struct prec_feat_ctx c = { .m = pd->m, .first_time = first, .last_time = last,
				   .aux_index = pd->aux_index, .nr_aux = pd->nr_aux,
				   .comp_level = pd->z ? prec_zstd_out__level(pd->z) : 0,
				   .comp_ratio = zratio(pd) };
	struct feat_sec secs[NR_FILE_FEATS] = { { 0 } };
	uint64_t bitmap[4] = { 0 }, data_end = out_pos(pd), pos;
	struct file_header fh;
	size_t n = 0;
	ssize_t wr;
	int err = build_features(&c, secs, bitmap);

	for (size_t i = 0; i < NR_FILE_FEATS; i++)
		n += secs[i].buf != NULL;
	pos = data_end + n * 16;
	for (size_t i = 0; i < NR_FILE_FEATS && !err; i++) {
		uint64_t sec[2] = { htole64(pos), htole64(secs[i].len) };

		if (!secs[i].buf)
			continue;
		emit(pd, sec, sizeof(sec));
		pos += secs[i].len;
	}
	for (size_t i = 0; i < NR_FILE_FEATS; i++) {
		if (!err && secs[i].buf)
			emit(pd, secs[i].buf, secs[i].len);
		free(secs[i].buf);
	}
	if (!err)
		err = flush(pd);
	if (!err)
		err = prec_out_writer__wait(pd->out);
	if (err)
		return err;
	file_header_init(&fh, pd->m, pd->data_offset - (uint64_t)pd->m->nr_events * ATTR_ENTRY_SIZE);
	fh.data_size = htole64(data_end - pd->data_offset);
	for (int i = 0; i < 4; i++)
		fh.features[i] = htole64(bitmap[i]);
	wr = pwrite(pd->fd, &fh, sizeof(fh), 0);
	if (wr != (ssize_t)sizeof(fh))
		return wr < 0 ? -errno : -EIO;
	/* An output that held a longer file keeps no stale tail. */
	if (ftruncate(pd->fd, (off_t)pos) < 0)
		pr_debug("perfdata: truncate to %llu: %s", (unsigned long long)pos,
			 strerror(errno));
	return 0;
}

int prec_perfdata__close(struct prec_perfdata *pd, uint64_t first_time,
			 uint64_t last_time)
{
	int err;

	if (!pd)
		return 0;
	if (zflush(pd))
		err = pd->err;
	else if (pd->mode == PREC_PERFDATA_FILE)
		err = close_file(pd, first_time, last_time);
	else
		err = flush(pd); /* pipe mode writes in this thread */
	prec_out_writer__delete(pd->out);
	prec_zstd_out__delete(pd->z);
	free(pd->aux_index);
	free(pd->ring_cpus);
	free(pd);
	return err;
}
