/* SPDX-License-Identifier: MIT */
/* Helpers shared by the fuzz targets (header-only: each target is one .c):
 * an input cursor, a growing byte buffer, and a builder that turns fuzz
 * bytes into shard files whose checksums are right, so the fuzzers reach
 * the code behind the checksums (cursor, merge, perf.data writer). */
#ifndef PREC_FUZZ_COMMON_H
#define PREC_FUZZ_COMMON_H

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <dirent.h>
#include <lz4.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/manifest_format.h"
#include "store/shard_segments.h"
#include "util/bytes.h"
#include "store/store.h"
#include "util/log.h"

/* Fuzz targets never print: library diagnostics are dropped. */
static inline void fz_quiet(void)
{
	prec_log_level = -1;
}

/* ---- input cursor: reads past the end yield zeros ---- */

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline uint64_t fz_uint(struct fz_in *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)in->p[0] << (8 * i);
	return v;
}

/* Up to n bytes of input; *got says how many. */
static inline const uint8_t *fz_bytes(struct fz_in *in, size_t n, size_t *got)
{
	const uint8_t *q = in->p;

	if (n > in->n)
		n = in->n;
	in->p += n;
	in->n -= n;
	*got = n;
	return q;
}

/* ---- growing buffer; the fuzzer aborts on ENOMEM like on any bug ---- */

struct fz_buf {
	uint8_t *p;
	size_t len, cap;
};

static inline uint8_t *fz_put(struct fz_buf *b, const void *src, size_t n)
{
	uint8_t *q;

	if (!b->p || n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;

		while (cap - b->len < n)
			cap *= 2;
		q = realloc(b->p, cap);
		if (!q)
			__builtin_trap();
		b->p = q;
		b->cap = cap;
	}
	q = b->p + b->len;
	if (src)
		memcpy(q, src, n);
	else
		memset(q, 0, n);
	b->len += n;
	return q;
}

static inline void fz_buf_free(struct fz_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* ---- shard building ---- */

static const uint8_t fz_session[16] = { 'p', 'r', 'e', 'c', '-', 'f', 'u', 'z',
					'z', '-', 's', 'e', 's', 's', 'i', 'o' };

#define FZ_SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
			PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static inline void fz_shard_header_flags(struct fz_buf *b, int32_t cpu, uint32_t flags)
{
	struct prec_shard_header h = {
		.flags = htole32(flags),
		.magic = htole64(PREC_SHARD_MAGIC),
		.version_major = htole16(PREC_FORMAT_MAJOR),
		.version_minor = htole16(PREC_FORMAT_MINOR),
		.header_size = htole32(sizeof(h)),
		.cpu = (int32_t)htole32((uint32_t)cpu),
		.created_ns = htole64(1),
	};

	memcpy(h.session_id, fz_session, sizeof(h.session_id));
	h.checksum = htole32(prec_crc32c(0, &h, offsetof(struct prec_shard_header, checksum)));
	fz_put(b, &h, sizeof(h));
}

static inline void fz_shard_header(struct fz_buf *b, int32_t cpu)
{
	fz_shard_header_flags(b, cpu, 0);
}

/* Chunk control byte of the structured shard language. */
#define FZ_C_TYPE 0x03     /* 0 DATA, 1 AUX, 2 MARKER, 3 raw type byte follows */
#define FZ_C_LZ4 0x04      /* compress the payload */
#define FZ_C_BADCRC 0x08   /* flip the checksum */
#define FZ_C_SEQGAP 0x10   /* skip a sequence number */
#define FZ_C_LIE 0x20      /* record count (and lz4 raw_len) from input */
#define FZ_C_RAW 0x40      /* DATA payload straight from input */
#define FZ_C_LAST 0x80     /* the shard ends after this chunk */

struct fz_gen {
	uint64_t wm;       /* watermark of the last chunk */
	uint32_t seq;
	uint16_t time_off, time_back;
	/* up to format 1.0's first writers' chunks (fz_tile_big) */
	uint8_t pay[PREC_CHUNK_READ_MAX];
	char zpay[LZ4_COMPRESSBOUND(PREC_CHUNK_READ_MAX)];
};

/* One record: u8 type, u8 words (size 8 + 8 * (words & 31)), u8 timing
 * (bit 0: stamp a time near the watermark, bits 1-7 its offset), then the
 * body from input. Returns bytes written into g->pay at pos. */
static inline uint32_t fz_record(struct fz_gen *g, struct fz_in *in, uint32_t pos,
				 uint64_t *first, uint64_t *last)
{
	uint8_t type = (uint8_t)fz_uint(in, 1), words = (uint8_t)fz_uint(in, 1);
	uint8_t timing = (uint8_t)fz_uint(in, 1);
	uint32_t size = 8 + 8 * (words & 31u), tpos = 0;
	struct perf_event_header h = { .type = type, .size = (uint16_t)size };
	size_t got;
	const uint8_t *body;

	if (pos + size > sizeof(g->pay))
		return 0;
	memcpy(g->pay + pos, &h, sizeof(h));
	body = fz_bytes(in, size - 8, &got);
	memcpy(g->pay + pos + 8, body, got);
	memset(g->pay + pos + 8 + got, 0, size - 8 - got);
	if (type == PERF_RECORD_SAMPLE && size >= g->time_off + 8u)
		tpos = g->time_off;
	else if (type != PERF_RECORD_SAMPLE && size >= 8u + g->time_back)
		tpos = size - g->time_back;
	if ((timing & 1) && tpos) {
		/* From 20 ms before the watermark (past the slack) to ~100 ms after. */
		uint64_t t = g->wm - 20000000ull + (uint64_t)(timing >> 1) * 1000000ull;

		memcpy(g->pay + pos + tpos, &t, sizeof(t));
		if (!*first || t < *first)
			*first = t;
		if (t > *last)
			*last = t;
	}
	return size;
}

/* A DATA record count above FZ_TILE means: build n - FZ_TILE records,
 * then repeat them to fill the chunk, so that inputs of a few bytes reach
 * full chunks and full reorder windows. */
#define FZ_TILE 0xe0u
/* Tiles stop at 32 KiB: a full reorder window still takes only a few
 * chunks, and a run stays fast enough for the fuzzer. */
#define FZ_TILE_MAX (32u * 1024u)

static inline uint32_t fz_tile(struct fz_gen *g, uint32_t len, uint32_t *records)
{
	uint32_t block = len, nrec = *records;

	while (block && len + block <= FZ_TILE_MAX) {
		memcpy(g->pay + len, g->pay, block);
		len += block;
		*records += nrec;
	}
	return len;
}

/* A count from FZ_BIG up makes a chunk as format 1.0's first writers could,
 * over PREC_CHUNK_MAX_PAYLOAD, which the merge reads in parts: the records
 * repeated past 64 KiB + (n - FZ_BIG) * 16 KiB (at most 184 KiB). */
#define FZ_BIG 0xf8u

static inline uint32_t fz_tile_big(struct fz_gen *g, uint32_t len, uint32_t *records,
				   uint32_t n)
{
	uint32_t block = len, nrec = *records;
	uint32_t target = PREC_CHUNK_MAX_PAYLOAD + (n - FZ_BIG) * 16384u;

	while (block && len <= target && len + block <= sizeof(g->pay)) {
		memcpy(g->pay + len, g->pay, block);
		len += block;
		*records += nrec;
	}
	return len;
}

/* Fill g->pay with one chunk's raw payload; returns its length. */
static inline uint32_t fz_payload(struct fz_gen *g, struct fz_in *in, uint8_t ctl,
				  uint8_t type, uint32_t *records,
				  uint64_t *first, uint64_t *last)
{
	uint32_t len = 0, n = (uint32_t)fz_uint(in, 1);
	size_t got;
	const uint8_t *q;

	*records = 0;
	if (type == PREC_CHUNK_MARKER)
		return 0;
	if (type != PREC_CHUNK_DATA || (ctl & FZ_C_RAW)) {
		q = fz_bytes(in, n * 16u, &got);
		memcpy(g->pay, q, got);
		return (uint32_t)got;
	}
	for (uint32_t i = 0; i < (n > FZ_TILE ? n - FZ_TILE : n) && in->n; i++) {
		uint32_t k = fz_record(g, in, len, first, last);

		if (!k)
			break;
		len += k;
		(*records)++;
	}
	if (n >= FZ_BIG)
		return fz_tile_big(g, len, records, n);
	return n > FZ_TILE ? fz_tile(g, len, records) : len;
}

/* One chunk from input appended to b. Returns 0, or 1 when the shard ends. */
static inline int fz_chunk(struct fz_gen *g, struct fz_in *in, struct fz_buf *b)
{
	uint8_t ctl = (uint8_t)fz_uint(in, 1);
	uint8_t type = (ctl & FZ_C_TYPE) == 3 ? (uint8_t)fz_uint(in, 1) : (ctl & FZ_C_TYPE) + 1;
	struct prec_chunk_header h = { .magic = PREC_CHUNK_MAGIC, .type = type,
				       .header_size = sizeof(h) };
	uint64_t first = 0, last = 0;
	uint32_t len, records, crc;
	const void *stored;

	g->wm += fz_uint(in, 2) * 100000ull;
	h.watermark = g->wm;
	len = fz_payload(g, in, ctl, type, &records, &first, &last);
	h.records = ctl & FZ_C_LIE ? (uint32_t)fz_uint(in, 1) : records;
	if (type == PREC_CHUNK_AUX) {
		h.aux_offset = fz_uint(in, 4);
		h.flags = (uint32_t)fz_uint(in, 1);
		first = g->wm + fz_uint(in, 1) * 1000000ull;
	}
	h.first_time = first;
	h.last_time = last;
	h.raw_len = h.payload_len = len;
	stored = g->pay;
	if ((ctl & FZ_C_LZ4) && len) {
		int z = LZ4_compress_default((const char *)g->pay, g->zpay, (int)len,
					     (int)sizeof(g->zpay));

		if (z > 0) {
			h.codec = PREC_CODEC_LZ4;
			h.payload_len = (uint32_t)z;
			stored = g->zpay;
		}
		/* LZ4 with LIE: the decoded length lies too (checksum right). */
		if (z > 0 && (ctl & FZ_C_LIE))
			h.raw_len = (uint32_t)fz_uint(in, 3);
	}
	g->seq += ctl & FZ_C_SEQGAP ? 1 : 0;
	h.seq = g->seq++;
	crc = prec_crc32c(0, &h, sizeof(h));
	crc = prec_crc32c(crc, stored, h.payload_len);
	h.checksum = ctl & FZ_C_BADCRC ? crc ^ 1 : crc;
	fz_put(b, &h, sizeof(h));
	fz_put(b, stored, h.payload_len);
	return ctl & FZ_C_LAST ? 1 : 0;
}

/* A whole shard: valid header for cpu, then chunks until the input or the
 * shard ends. Host byte order is little-endian (x86, arm64). */
static inline void fz_shard(struct fz_gen *g, struct fz_in *in, struct fz_buf *b,
			    int32_t cpu)
{
	g->wm = 1000000000ull;
	g->seq = 0;
	fz_shard_header(b, cpu);
	while (in->n && !fz_chunk(g, in, b))
		;
}

/* ---- a recording directory: manifest built in code, shards from input ---- */

#define FZ_MAX_SHARDS 4

static char fz_dir[64];

static inline void fz_shard_name(char *name, size_t size, int32_t cpu)
{
	if (cpu < 0)
		snprintf(name, size, "%s", PREC_SHARD_SIDEBAND_NAME);
	else
		snprintf(name, size, "cpu%03d.shard", (int)cpu);
}

/* The recording dir of one run: created at the start of each run and
 * removed at its end, so that nothing is left behind even when libFuzzer
 * leaves without running atexit handlers. tmpfs keeps this cheap. */
static inline int fz_dir_open(void)
{
	int fd;

	if (!fz_dir[0])
		snprintf(fz_dir, sizeof(fz_dir), "/dev/shm/prec-fuzz-%d", (int)getpid());
	if (mkdir(fz_dir, 0700) < 0 && errno != EEXIST) {
		snprintf(fz_dir, sizeof(fz_dir), "/tmp/prec-fuzz-%d", (int)getpid());
		if (mkdir(fz_dir, 0700) < 0 && errno != EEXIST)
			__builtin_trap();
	}
	fd = open(fz_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		__builtin_trap();
	return fd;
}

/* Every file of the run's directory goes (segment files have any
 * number), then the directory. */
static inline void fz_dir_close(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *e;

	if (!d)
		__builtin_trap();
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd, e->d_name, 0);
	closedir(d);
	close(dirfd);
	rmdir(fz_dir);
}

/* One cpu-clock event with an id per shard CPU; shards cpu 0..n-2 and the
 * side band. extra adds optional parts (bit 0 a tracepoint, bit 1 a
 * build-id, bit 2 AUX info, bit 3 a second event with many ids). */
static inline struct prec_manifest *fz_manifest(unsigned int nshards, unsigned int extra)
{
	struct prec_manifest *m = prec_manifest__new();
	struct perf_event_attr a;
	uint8_t attr[128] = { 0 };
	char name[32];

	if (!m)
		__builtin_trap();
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.size = 128;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_period = 250000;
	a.sample_type = FZ_SAMPLE_TYPE;
	a.sample_id_all = 1;
	memcpy(attr, &a, sizeof(a) < sizeof(attr) ? sizeof(a) : sizeof(attr));
	memcpy(m->session_id, fz_session, sizeof(m->session_id));
	m->state = PREC_STATE_COMPLETE;
	m->clockid = 1;
	m->sample_type = FZ_SAMPLE_TYPE;
	m->nr_cpus_avail = m->nr_cpus_online = nshards;
	m->start_time = 1000000000ull;
	m->stop_time = 2000000000ull;
	if (prec_time_layout__init(&m->time_layout, FZ_SAMPLE_TYPE) < 0 ||
	    prec_manifest__add_event(m, attr, "cpu-clock") < 0 ||
	    prec_manifest__set_str(m, &m->hostname, "fuzzhost") < 0)
		__builtin_trap();
	for (unsigned int i = 0; i < nshards; i++) {
		int32_t cpu = i + 1 == nshards ? PREC_SIDEBAND_CPU : (int32_t)i;
		struct prec_manifest_shard s = { .name = name, .cpu = cpu };

		fz_shard_name(name, sizeof(name), cpu);
		if (prec_manifest__add_shard(m, &s) < 0 ||
		    prec_manifest__add_event_id(m, 0, 1000 + i, cpu, -1) < 0)
			__builtin_trap();
	}
	if (extra & 1 && prec_manifest__add_tracepoint(m, "sched", "sched_switch", 300,
			"name: sched_switch\nID: 300\nformat:\n\tfield:int prev_pid;\toffset:8;\tsize:4;\tsigned:1;\n") < 0)
		__builtin_trap();
	if (extra & 2) {
		struct prec_manifest_buildid bi = { .cpumode = PERF_RECORD_MISC_USER,
						    .size = 20, .pid = -1,
						    .path = (char *)"/usr/bin/true" };

		memset(bi.id, 0xab, sizeof(bi.id));
		if (prec_manifest__add_buildid(m, &bi) < 0)
			__builtin_trap();
	}
	if (extra & 4) {
		m->auxtrace_priv = calloc(4, sizeof(*m->auxtrace_priv));
		if (!m->auxtrace_priv)
			__builtin_trap();
		m->nr_auxtrace_priv = 4;
		m->auxtrace_type = 6;
	}
	if (extra & 8) {
		int ev = prec_manifest__add_event(m, attr, NULL);

		for (unsigned int i = 0; ev >= 0 && i < 600; i++)
			if (prec_manifest__add_event_id(m, (uint32_t)ev, 5000 + i, -1, (int32_t)i) < 0)
				__builtin_trap();
	}
	return m;
}

static inline void fz_write_file(int dirfd, const char *name, const void *p, size_t n)
{
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		__builtin_trap();
	close(fd);
}

/* A raw shard: the bytes as they are, except that a header with the shard
 * magic gets this recording's session id and cpu and its checksum made
 * right, so real shard files (seeds) merge under the built manifest. */
static inline void fz_raw_shard(struct fz_buf *b, const uint8_t *q, size_t n, int32_t cpu)
{
	struct prec_shard_header *h;
	uint64_t magic = 0;
	uint32_t crc;

	fz_put(b, q, n);
	if (n >= sizeof(magic))
		memcpy(&magic, q, sizeof(magic));
	if (n < sizeof(*h) || le64toh(magic) != PREC_SHARD_MAGIC)
		return;
	h = (struct prec_shard_header *)b->p;
	memcpy(h->session_id, fz_session, sizeof(h->session_id));
	h->cpu = (int32_t)htole32((uint32_t)cpu);
	crc = prec_crc32c(0, h, offsetof(struct prec_shard_header, checksum));
	h->checksum = htole32(crc);
}

#define FZ_MAX_SEGMENTS 4

/* A structured shard in segment files (docs/format.md, "Segment files"):
 * a header with SEGMENTS, then a u8 file count (mod FZ_MAX_SEGMENTS, + 1)
 * and per file a u32 number (not for the first, the shard's own file), a
 * u16 length and that many bytes of structured chunks, which go on the
 * shard's chunks and land at their shard offsets in that file (a sparse
 * file). Numbers from input: repeated, out of order, 4294967295, 0 (not a
 * name: that file is left out). */
static inline void fz_segmented_shard(int dirfd, struct fz_gen *g, struct fz_in *in,
				      struct fz_buf *b, const char *name)
{
	unsigned int k = (unsigned int)fz_uint(in, 1) % FZ_MAX_SEGMENTS + 1;

	g->wm = 1000000000ull;
	g->seq = 0;
	fz_shard_header_flags(b, 0, PREC_SHARD_SEGMENTS);
	for (unsigned int i = 0; i < k; i++) {
		uint32_t n = i ? (uint32_t)fz_uint(in, 4) : 0;
		size_t len = (size_t)fz_uint(in, 2), got, start = i ? b->len : 0;
		const uint8_t *q = fz_bytes(in, len, &got);
		struct fz_in sub = { q, got };
		char seg[PREC_SEGMENT_NAME_MAX];
		int fd;

		while (sub.n && !fz_chunk(g, &sub, b))
			;
		if (!i) {
			fz_write_file(dirfd, name, b->p, b->len);
			continue;
		}
		if (prec_shard_segments__name(seg, sizeof(seg), name, n) < 0)
			continue;
		fd = openat(dirfd, seg, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd < 0 || pwrite(fd, b->p + start, b->len - start, (off_t)start) !=
				      (ssize_t)(b->len - start))
			__builtin_trap();
		close(fd);
	}
}

/* Write the shard files of a recording dir from input: byte 0 holds the
 * shard count (bits 0-1, +1), per-shard raw/structured choice (bits 2-5)
 * and with bit 6 the first shard, if structured and a CPU's, in segment
 * files (fz_segmented_shard); each shard then takes a u16 length prefix
 * and that many bytes. Raw shards go through fz_raw_shard(), structured
 * ones through fz_shard(). Returns the number of shards (the manifest's
 * shard table). */
static inline unsigned int fz_write_shards(int dirfd, struct fz_gen *g,
					   const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	unsigned int ctl = (unsigned int)fz_uint(&in, 1);
	unsigned int n = (ctl & 3) + 1;
	struct fz_buf b = { 0 };
	char name[32];

	for (unsigned int i = 0; i < n; i++) {
		int32_t cpu = i + 1 == n ? PREC_SIDEBAND_CPU : (int32_t)i;
		size_t len = (size_t)fz_uint(&in, 2), got;
		const uint8_t *q = fz_bytes(&in, i + 1 == n ? in.n : len, &got);
		struct fz_in sub = { q, got };

		b.len = 0;
		fz_shard_name(name, sizeof(name), cpu);
		if (!i && cpu >= 0 && (ctl & 0x40) && !(ctl & 4u)) {
			fz_segmented_shard(dirfd, g, &sub, &b, name);
			continue;
		}
		if (ctl & (4u << i))
			fz_raw_shard(&b, q, got, cpu);
		else
			fz_shard(g, &sub, &b, cpu);
		fz_write_file(dirfd, name, b.p ? b.p : (const uint8_t *)"", b.len);
	}
	fz_buf_free(&b);
	return n;
}

/* ---- manifests ---- */

/* Copy manifest bytes into an 8-aligned buffer whose header is made valid:
 * magic, total length, checksum, and unless ctl bit 1 / bit 2 the major
 * version / header size. The caller frees the buffer. */
static inline uint8_t *fz_manifest_fixup(const uint8_t *p, size_t n, unsigned int ctl, size_t *len)
{
	size_t total = align8(n < PREC_MANI_HDR_SIZE ? PREC_MANI_HDR_SIZE : n);
	uint8_t *buf = calloc(1, total);

	if (!buf)
		__builtin_trap();
	memcpy(buf, p, n);
	prec_st64(buf, PREC_MANI_MAGIC);
	if (!(ctl & 2))
		prec_st16(buf + 8, PREC_FORMAT_MAJOR);
	if (!(ctl & 4))
		prec_st32(buf + 12, PREC_MANI_HDR_SIZE);
	prec_st64(buf + 16, total);
	prec_st32(buf + PREC_MANI_CRC_OFF, 0);
	prec_st32(buf + PREC_MANI_CRC_OFF, prec_crc32c(0, buf, total));
	*len = total;
	return buf;
}

#endif
