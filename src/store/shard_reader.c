// SPDX-License-Identifier: MIT
// Shard reader: a sequential chunk iterator over a file (pread) or a memory
// buffer, one code path for both. Every length is checked before it is used
// and every byte checksummed before it is exposed.
#include "store/shard_segments.h"
#include "store/store.h"
#include "util/file.h"
#include "util/log.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* A later minor version may grow the shard header; chunks start after it. */
#define MAX_SHARD_HEADER 4096u
#define LZ4_MAX_STORED ((uint32_t)LZ4_COMPRESSBOUND(PREC_CHUNK_READ_MAX))
/* A chunk in parts: each part but the last ends before a record that would
 * not fit in the buffer, so two parts in a row hold more than the buffer
 * (PREC_CHUNK_MAX_PAYLOAD): 256 KiB make 7 parts at most. */
#define PARTS_MAX 8

/* One part of a chunk read in parts, as the checking pass saw it. */
struct part {
	uint32_t off, len; /* in the raw payload */
	uint32_t crc;      /* CRC-32C of these bytes alone */
};

struct prec_shard_reader {
	int fd;                 /* -1 for memory */
	/* PREC_SHARD_SEGMENTS: the directory and the shard's name, and the
	 * segment file the chunks are read from (seg_fd, -1 for file 0,
	 * which is fd) */
	int dirfd;
	char *name;
	int seg_fd;
	uint32_t seg;
	char seg_name[PREC_SEGMENT_NAME_MAX]; /* seg's, when seg_fd is open */
	bool seg_bad;           /* seg_name: a file there that could not be opened */
	const unsigned char *mem;
	size_t mem_len;
	struct prec_shard_header hdr;
	uint64_t off;           /* next chunk, or the bad one */
	uint32_t seq;           /* expected next seq */
	int err;                /* sticky result after an error */
	const char *why;
	unsigned char *buf;     /* raw payload, buf_cap bytes */
	uint32_t buf_cap;       /* grown to the largest chunk met */
	/* lz4 stored payload: the reader's own, or one shared with the other
	 * readers of a merge (opts.scratch) */
	struct prec_shard_scratch *z, own_z;
	/* prec_shard_reader__set_two_buffers(): the previous payload, which
	 * the next one does not overwrite */
	unsigned char *spare;
	uint32_t spare_cap;
	/* buf, spare: the caller's (opts.lent_buffers), not
	 * freed here */
	bool buf_lent, spare_lent;
	/* next() swapped buf and spare for a chunk it has not handed out
	 * yet: retry() swaps them back */
	bool swapped;
	/* The next chunk's header as stored, read along with the payload
	 * before it: one read per chunk instead of two. */
	struct prec_chunk_header ahead;
	bool have_ahead;
	bool parts_on;          /* opts.parts */
	/* the chunk being handed out in parts: its offset stays r->off */
	struct prec_chunk_header part_hdr;
	struct part part[PARTS_MAX];
	uint32_t nparts, part_next;
	/* opts.check_records */
	bool rec_check;
	struct prec_time_layout rec_tl;
	char rec_why[96];       /* the first record the checking pass refused */
};

/* Copy up to len bytes at off of a memory shard. */
static size_t mem_at(const struct prec_shard_reader *r, uint64_t off, void *dst, size_t len)
{
	if (!len || off >= r->mem_len)
		return 0;
	if (len > r->mem_len - off)
		len = r->mem_len - off;
	memcpy(dst, r->mem + off, len);
	return len;
}

/* Read alen bytes at off into a, then the blen bytes after them into b (one
 * preadv for a file). Returns the bytes read, a's then b's (short only at
 * the end of the data), or -errno. */
static ssize_t read2_fd(struct prec_shard_reader *r, int fd, uint64_t off, void *a,
			size_t alen, void *b, size_t blen)
{
	struct iovec iov[2] = { { a, alen }, { b, blen } };
	size_t done;

	if (fd >= 0)
		return prec_file__preadv_full(fd, iov, 2, off);
	done = mem_at(r, off, a, alen);
	if (done == alen)
		done += mem_at(r, off + alen, b, blen);
	return (ssize_t)done;
}

/* The file the chunks are read from now. */
static int data_fd(const struct prec_shard_reader *r)
{
	return r->seg_fd >= 0 ? r->seg_fd : r->fd;
}

/* read2_fd() of the chunks' file. */
static ssize_t read2_at(struct prec_shard_reader *r, uint64_t off, void *a,
			size_t alen, void *b, size_t blen)
{
	return read2_fd(r, data_fd(r), off, a, alen, b, blen);
}

/* Read up to len bytes at off. Returns bytes read (short only at end of
 * data) or -errno. */
static ssize_t read_at(struct prec_shard_reader *r, uint64_t off, void *dst, size_t len)
{
	return read2_at(r, off, dst, len, NULL, 0);
}

static int bad(struct prec_shard_reader *r, const char *why)
{
	r->err = -EBADMSG;
	r->why = why;
	return -EBADMSG;
}

static void hdr_to_host(struct prec_chunk_header *h)
{
	h->magic = le32toh(h->magic);
	h->header_size = le16toh(h->header_size);
	h->payload_len = le32toh(h->payload_len);
	h->raw_len = le32toh(h->raw_len);
	h->records = le32toh(h->records);
	h->seq = le32toh(h->seq);
	h->first_time = le64toh(h->first_time);
	h->last_time = le64toh(h->last_time);
	h->watermark = le64toh(h->watermark);
	h->aux_offset = le64toh(h->aux_offset);
	h->flags = le32toh(h->flags);
	h->checksum = le32toh(h->checksum);
}

/* Zeros where a chunk should start were never written by prec: the padding
 * of an O_DIRECT writer's last block, or blocks a crash left unwritten. */
static bool all_zero_header(const struct prec_chunk_header *le)
{
	static const struct prec_chunk_header zero;

	return !memcmp(le, &zero, sizeof(zero));
}

/* Field checks that need no payload; the order is the documented one. */
static const char *check_header(const struct prec_chunk_header *h)
{
	if (h->magic != PREC_CHUNK_MAGIC)
		return "bad magic";
	if (h->header_size != PREC_CHUNK_HDR_SIZE)
		return "bad header size";
	if (h->type < PREC_CHUNK_DATA || h->type > PREC_CHUNK_MARKER)
		return "bad chunk type";
	if (h->codec != PREC_CODEC_NONE && h->codec != PREC_CODEC_LZ4)
		return "bad codec";
	if (h->payload_len > (h->codec == PREC_CODEC_LZ4 ? LZ4_MAX_STORED
							 : PREC_CHUNK_READ_MAX))
		return "payload too large";
	if (h->raw_len > PREC_CHUNK_READ_MAX)
		return "raw length too large";
	if (h->codec == PREC_CODEC_NONE && h->raw_len != h->payload_len)
		return "raw length differs from payload length";
	if (h->codec == PREC_CODEC_LZ4 && (!h->payload_len || !h->raw_len))
		return "empty lz4 payload";
	if (h->type == PREC_CHUNK_MARKER && h->raw_len)
		return "marker with payload";
	return NULL;
}

/* Decode an lz4 payload from the scratch into buf; the length must be exact. */
static int decode(struct prec_shard_reader *r, const struct prec_chunk_header *h)
{
	int n = LZ4_decompress_safe((const char *)r->z->buf, (char *)r->buf,
				    (int)h->payload_len, (int)h->raw_len);

	if (n < 0 || (uint32_t)n != h->raw_len)
		return bad(r, "bad lz4 payload");
	return 0;
}

/* Let *buf go: freed unless lent (*lent; NULL: never lent). */
static void drop(unsigned char **buf, uint32_t *cap, bool *lent)
{
	if (!lent || !*lent)
		free(*buf);
	*buf = NULL;
	*cap = 0;
	if (lent)
		*lent = false;
}

/* Make *buf hold at least len bytes (its old bytes are not kept). Only a
 * chunk bigger than every earlier one grows it: a merge holds one buffer per
 * shard, so each should cost what that shard's chunks need, no more. A lent
 * buffer too small is left to its owner and replaced by one of our own. */
static int reserve(unsigned char **buf, uint32_t *cap, bool *lent, uint32_t len)
{
	unsigned char *p;

	if (len <= *cap && *buf)
		return 0;
	p = malloc(len ? len : 1);
	if (!p)
		return -ENOMEM;
	drop(buf, cap, lent);
	*buf = p;
	*cap = len;
	return 0;
}

/* With two buffers, a payload goes into the one the previous did not use. */
static void take_spare(struct prec_shard_reader *r)
{
	unsigned char *b = r->buf;
	uint32_t cap = r->buf_cap;
	bool lent = r->buf_lent;

	if (!r->spare)
		return;
	r->buf = r->spare;
	r->buf_cap = r->spare_cap;
	r->buf_lent = r->spare_lent;
	r->spare = b;
	r->spare_cap = cap;
	r->spare_lent = lent;
}

/* Read the stored payload and check the chunk checksum: crc32c over the
 * header as stored (little-endian, checksum field zero), then the payload. */
static int read_payload(struct prec_shard_reader *r, const struct prec_chunk_header *h,
			struct prec_chunk_header *stored_hdr, unsigned char **stored)
{
	uint32_t crc;
	ssize_t n;

	if (reserve(&r->buf, &r->buf_cap, &r->buf_lent, h->raw_len))
		return -ENOMEM;
	*stored = r->buf;
	if (h->codec == PREC_CODEC_LZ4) {
		if (reserve(&r->z->buf, &r->z->cap, NULL, h->payload_len))
			return -ENOMEM;
		*stored = r->z->buf;
	}
	n = read2_at(r, r->off + PREC_CHUNK_HDR_SIZE, *stored, h->payload_len, &r->ahead,
		     PREC_CHUNK_HDR_SIZE);
	if (n < 0)
		return (int)n;
	if ((uint32_t)n < h->payload_len)
		return bad(r, "torn payload");
	/* a part of a header is read again, and judged, by the next call */
	r->have_ahead = (uint32_t)n == h->payload_len + PREC_CHUNK_HDR_SIZE;
	stored_hdr->checksum = 0;
	crc = prec_crc32c(0, stored_hdr, PREC_CHUNK_HDR_SIZE);
	crc = prec_crc32c(crc, *stored, h->payload_len);
	if (crc != h->checksum)
		return bad(r, "bad checksum");
	return 0;
}

/* ---- Chunks bigger than the buffer, in parts ---------------------------- */

/* Bytes of the whole perf records at the start of p[0, len), the raw
 * payload's bytes from base on, counted into *nrec; 0 if the first is not
 * whole, or no record can start there (size under 8 bytes: the framing is
 * broken). With rec_check each whole record is judged as the merge judges
 * the records of a chunk read whole; the first refused is kept in rec_why. */
static uint32_t whole_records(struct prec_shard_reader *r, const unsigned char *p,
			      uint32_t len, uint32_t base, uint32_t *nrec)
{
	uint32_t pos = 0;

	while (len - pos >= 8) {
		uint16_t size, same;
		const char *why;

		memcpy(&size, p + pos + 6, sizeof(size));
		size = le16toh(size);
		if (size < 8)
			return 0;
		if (size > len - pos)
			break;
		if (r->rec_check && !r->rec_why[0] &&
		    (why = prec_record__bad(&r->rec_tl, p + pos, size, &same)))
			snprintf(r->rec_why, sizeof(r->rec_why), "record at +0x%x (size %u): %s",
				 base + pos, size, why);
		pos += size;
		++*nrec;
	}
	return pos;
}

/* The checking pass: stream the payload through the buffer once, for the
 * checksum (first, as for any chunk), and cut it into parts of whole records
 * while checking them, their framing and their count, which the caller
 * cannot do: it never holds the whole chunk. A record refused comes before
 * the framing after it: it is the first thing wrong. */
static int check_parts(struct prec_shard_reader *r, const struct prec_chunk_header *h,
		       struct prec_chunk_header *stored_hdr)
{
	uint32_t crc, pos = 0, nrec = 0;
	bool framed = true;

	stored_hdr->checksum = 0;
	crc = prec_crc32c(0, stored_hdr, PREC_CHUNK_HDR_SIZE);
	r->nparts = 0;
	r->rec_why[0] = '\0';
	while (pos < h->raw_len) {
		uint32_t want = h->raw_len - pos < r->buf_cap ? h->raw_len - pos : r->buf_cap;
		uint32_t cut = want;
		ssize_t n = read_at(r, r->off + PREC_CHUNK_HDR_SIZE + pos, r->buf, want);

		if (n < 0)
			return (int)n;
		if ((uint32_t)n != want)
			return bad(r, "torn payload");
		if (framed) {
			cut = whole_records(r, r->buf, want, pos, &nrec);
			framed = cut && r->nparts < PARTS_MAX;
			if (framed)
				r->part[r->nparts++] = (struct part){ pos, cut,
					prec_crc32c(0, r->buf, cut) };
			else
				cut = want;
		}
		crc = prec_crc32c(crc, r->buf, cut);
		pos += cut;
	}
	if (crc != h->checksum)
		return bad(r, "bad checksum");
	if (r->rec_why[0])
		return bad(r, r->rec_why);
	if (!framed || nrec != h->records)
		return bad(r, "bad record framing");
	return 0;
}

/* Past the chunk in parts: after its last part, or when the caller moves on
 * before it (the chunk was checked whole). */
static void skip_parts(struct prec_shard_reader *r)
{
	r->off += PREC_CHUNK_HDR_SIZE + r->part_hdr.payload_len;
	r->seq++;
	r->nparts = r->part_next = 0;
}

/* Read part k again; its bytes must be the ones the checking pass saw. */
static int load_part(struct prec_shard_reader *r, struct prec_chunk *c, uint32_t k)
{
	const struct part *p = &r->part[k];
	ssize_t n = read_at(r, r->off + PREC_CHUNK_HDR_SIZE + p->off, r->buf, p->len);

	if (n < 0)
		return (int)n;
	if ((uint32_t)n != p->len || prec_crc32c(0, r->buf, p->len) != p->crc)
		return bad(r, "chunk changed between reads");
	c->hdr = r->part_hdr;
	c->offset = r->off;
	c->payload = r->buf;
	c->len = p->len;
	c->part_off = p->off;
	c->more = k + 1 < r->nparts;
	r->part_next = k + 1;
	r->swapped = false;
	if (!c->more) {
		skip_parts(r);
	}
	return 1;
}

static int first_part(struct prec_shard_reader *r, struct prec_chunk_header *stored_hdr,
		      struct prec_chunk *c)
{
	int ret = check_parts(r, &c->hdr, stored_hdr);

	if (ret)
		return ret;
	if (c->hdr.seq != r->seq)
		return bad(r, "chunk sequence gap");
	r->part_hdr = c->hdr;
	return load_part(r, c, 0);
}

int prec_shard_reader__next_part(struct prec_shard_reader *r, struct prec_chunk *c)
{
	if (r->err)
		return r->err;
	if (r->part_next >= r->nparts)
		return -EINVAL;
	take_spare(r);
	return load_part(r, c, r->part_next);
}

void prec_shard_scratch__release(struct prec_shard_scratch *s)
{
	free(s->buf);
	s->buf = NULL;
	s->cap = 0;
}

int prec_shard_reader__set_two_buffers(struct prec_shard_reader *r, bool on)
{
	if (on)
		return reserve(&r->spare, &r->spare_cap, &r->spare_lent,
			       PREC_CHUNK_MAX_PAYLOAD);
	drop(&r->spare, &r->spare_cap, &r->spare_lent);
	return 0;
}

/* The buffers as opts asks, before the header is read into the first. */
static int take_opts(struct prec_shard_reader *r, const struct prec_shard_reader_opts *o)
{
	static const struct prec_shard_reader_opts none;

	if (!o)
		o = &none;
	r->z = o->scratch ? o->scratch : &r->own_z;
	r->parts_on = o->parts;
	r->rec_check = o->check_records != NULL;
	if (o->check_records)
		r->rec_tl = *o->check_records;
	if (o->lent_buffers) {
		if (o->lent_cap < PREC_CHUNK_MAX_PAYLOAD)
			return -EINVAL;
		r->buf = o->lent_buffers;
		r->spare = (unsigned char *)o->lent_buffers + o->lent_cap;
		r->buf_cap = r->spare_cap = o->lent_cap;
		r->buf_lent = r->spare_lent = true;
		return 0;
	}
	if (o->two_buffers)
		return prec_shard_reader__set_two_buffers(r, true);
	return 0;
}

/* ------------------------------------------------------------------------ */

/* The segment file n, if it holds a chunk header (not zeros) at r->off:
 * 1 and *fd; 0 if it holds nothing at all yet (opened ahead, the live
 * end), 2 if it holds data but none there (a file before r->off's), or
 * -errno (-ENOENT: no such file). */
static int try_segment(struct prec_shard_reader *r, uint32_t n, int *fd)
{
	char name[PREC_SEGMENT_NAME_MAX];
	struct prec_chunk_header head;
	const char *why = NULL;
	struct stat st;
	ssize_t got;
	int ret = prec_shard_segments__name(name, sizeof(name), r->name, n);

	if (ret)
		return ret;
	*fd = prec_file__open_regular(r->dirfd, name, &why);
	if (*fd < 0 && *fd != -ENOENT) {
		/* a file there that is none of the recorder's (a link, a
		 * FIFO) or cannot be read: the one a message names, and why */
		memcpy(r->seg_name, name, sizeof(r->seg_name));
		r->seg_bad = true;
		r->why = why;
	}
	if (*fd < 0)
		return *fd;
	got = read2_fd(r, *fd, r->off, &head, sizeof(head), NULL, 0);
	if (got == (ssize_t)sizeof(head) && !all_zero_header(&head))
		return 1;
	ret = got < 0 ? (int)got : fstat(*fd, &st) < 0 ? -errno : st.st_size ? 2 : 0;
	close(*fd);
	*fd = -1;
	return ret;
}

/* Reading from segment file n, open as fd, now. */
static int take_segment(struct prec_shard_reader *r, uint32_t n, int fd)
{
	if (r->seg_fd >= 0)
		close(r->seg_fd);
	r->seg_fd = fd;
	r->seg = n;
	r->have_ahead = false;
	/* try_segment() made the same name from these: it fits */
	prec_shard_segments__name(r->seg_name, sizeof(r->seg_name), r->name, n);
	return 1;
}

/* At the end of the chunks of the segment file read (its end, or the
 * zeros padding its last block): the next file that holds a chunk at
 * r->off, past files that end before it (left by a drop in progress) and
 * over numbers already dropped. The recorder writes a segment file only
 * once the one before it is whole: a file holding data means its
 * predecessor ended where it starts. The next number is tried first;
 * else the numbers the directory holds past it, each once, in order, and
 * none past PREC_SEGMENT_LAST: a directory with planted numbers costs one
 * read of it and a try per file. Returns 1 (reading from it now), 0 (none
 * yet: the end) or -errno. */
static int next_segment(struct prec_shard_reader *r)
{
	uint32_t *later = NULL, above = r->seg;
	int fd = -1, ret, nr;

	if (r->seg < PREC_SEGMENT_LAST) {
		ret = try_segment(r, ++above, &fd);
		if (ret == 1)
			return take_segment(r, above, fd);
		if (ret == 0 || (ret < 0 && ret != -ENOENT))
			return ret;
	}
	nr = prec_shard_segments__list(r->dirfd, r->name, above, &later);
	ret = nr < 0 ? nr : 0;
	for (int i = 0; i < nr; i++) {
		ret = try_segment(r, later[i], &fd);
		if (ret == 1) {
			ret = take_segment(r, later[i], fd);
			break;
		}
		if (ret == 0 || (ret < 0 && ret != -ENOENT))
			break;
		ret = 0; /* gone meanwhile, or ends before r->off: the next */
	}
	free(later);
	return ret;
}

static int next_chunk(struct prec_shard_reader *r, struct prec_chunk *c)
{
	struct prec_chunk_header h, le;
	unsigned char *stored;
	const char *why;
	ssize_t n;
	int ret;

	if (r->err)
		return r->err;
	if (r->part_next < r->nparts)
		skip_parts(r);
	if (r->have_ahead) {
		le = r->ahead;
		n = PREC_CHUNK_HDR_SIZE;
	} else {
		n = read_at(r, r->off, &le, PREC_CHUNK_HDR_SIZE);
	}
	r->have_ahead = false;
	if (n >= 0 && r->name &&
	    ((uint32_t)n < PREC_CHUNK_HDR_SIZE || all_zero_header(&le))) {
		ret = next_segment(r);
		if (ret < 0)
			return ret;
		if (ret)
			n = read_at(r, r->off, &le, PREC_CHUNK_HDR_SIZE);
	}
	if (n < 0)
		return (int)n;
	if (n == 0)
		return 0;
	if ((uint32_t)n < PREC_CHUNK_HDR_SIZE)
		return bad(r, "torn chunk header");
	h = le;
	hdr_to_host(&h);
	why = all_zero_header(&le) ? "torn chunk header (zeros)" : check_header(&h);
	if (why)
		return bad(r, why);
	c->hdr = h;
	c->offset = r->off;
	c->part_off = 0;
	take_spare(r);
	r->swapped = true;
	if (r->parts_on && h.type == PREC_CHUNK_DATA && h.codec == PREC_CODEC_NONE &&
	    h.raw_len > PREC_CHUNK_MAX_PAYLOAD)
		return first_part(r, &le, c);
	c->more = false;
	ret = read_payload(r, &h, &le, &stored);
	if (ret)
		return ret;
	if (h.seq != r->seq)
		return bad(r, "chunk sequence gap");
	if (h.codec == PREC_CODEC_LZ4 && decode(r, &h))
		return r->err;
	c->payload = r->buf;
	c->len = h.raw_len;
	r->off += PREC_CHUNK_HDR_SIZE + h.payload_len;
	r->seq++;
	r->swapped = false;
	return 1;
}

int prec_shard_reader__next(struct prec_shard_reader *r, struct prec_chunk *c)
{
	bool ahead = r->have_ahead && !r->err;
	int ret = next_chunk(r, c);

	/* The header read ahead with the last payload is as the file was
	 * then: a live recording's tail (zeros, or a header half there) may
	 * have been written since, and no retry() comes once the recording
	 * has ended. A chunk that fails on it is read once more from the
	 * file before it counts as damage. */
	if (ret == -EBADMSG && ahead) {
		prec_shard_reader__retry(r);
		ret = next_chunk(r, c);
	}
	return ret;
}

void prec_shard_reader__retry(struct prec_shard_reader *r)
{
	if (r->err != -EBADMSG)
		return;
	r->err = 0;
	r->why = NULL;
	r->have_ahead = false;
	/* a chunk in parts that failed its checking pass has no part due */
	r->nparts = r->part_next = 0;
	if (r->swapped)
		take_spare(r);
	r->swapped = false;
}

static int check_shard_header(struct prec_shard_reader *r);

int prec_shard_reader__skip_trimmed(struct prec_shard_reader *r)
{
	uint64_t off = r->off;
	uint32_t seq = r->seq;
	int err = r->err;
	const char *why = r->why;

	if (err && err != -EBADMSG)
		return 0;
	/* The header as the recorder last wrote it: --max-disk rewrites it
	 * (first_chunk, first_seq) before it punches the chunks out. */
	if (check_shard_header(r) || !(r->hdr.flags & PREC_SHARD_TRIMMED) ||
	    r->hdr.first_chunk <= off) {
		r->off = off;
		r->seq = seq;
		r->err = err;
		r->why = why;
		return 0;
	}
	r->err = -EBADMSG; /* what retry() resets */
	prec_shard_reader__retry(r);
	return 1;
}

/* ------------------------------------------------------------------------ */

static int check_shard_header(struct prec_shard_reader *r)
{
	struct prec_shard_header *h = &r->hdr;
	ssize_t n = read2_fd(r, r->fd, 0, h, sizeof(*h), NULL, 0);
	uint32_t crc;

	if (n < 0)
		return (int)n;
	if ((size_t)n < sizeof(*h))
		return bad(r, "torn shard header");
	if (le64toh(h->magic) != PREC_SHARD_MAGIC)
		return bad(r, "bad shard magic");
	if (le16toh(h->version_major) != PREC_FORMAT_MAJOR) {
		r->why = "unsupported major version";
		return -EPROTONOSUPPORT;
	}
	crc = prec_crc32c(0, h, offsetof(struct prec_shard_header, checksum));
	if (crc != le32toh(h->checksum))
		return bad(r, "bad shard header checksum");
	h->version_major = le16toh(h->version_major);
	h->version_minor = le16toh(h->version_minor);
	h->header_size = le32toh(h->header_size);
	h->cpu = (int32_t)le32toh((uint32_t)h->cpu);
	h->flags = le32toh(h->flags);
	h->created_ns = le64toh(h->created_ns);
	h->magic = le64toh(h->magic);
	h->checksum = crc;
	h->first_chunk = le64toh(h->first_chunk);
	h->first_seq = le32toh(h->first_seq);
	if (h->header_size < sizeof(*h) || h->header_size > MAX_SHARD_HEADER)
		return bad(r, "bad shard header size");
	r->off = h->header_size;
	/* --max-disk dropped the chunks before first_chunk (holes now). */
	if (h->flags & PREC_SHARD_TRIMMED) {
		if (h->first_chunk < h->header_size)
			return bad(r, "bad first chunk offset");
		r->off = h->first_chunk;
		r->seq = h->first_seq;
	}
	return 0;
}

static int open_common(struct prec_shard_reader **out, struct prec_shard_reader *r,
		       const char *name, const struct prec_shard_reader_opts *opts,
		       const char **why)
{
	int ret;

	r->dirfd = r->seg_fd = -1;
	ret = take_opts(r, opts);
	/* What a current writer's chunks need; only old files grow it. */
	if (!ret && !r->buf)
		ret = reserve(&r->buf, &r->buf_cap, &r->buf_lent, PREC_CHUNK_MAX_PAYLOAD);
	if (!ret)
		ret = check_shard_header(r);
	if (ret) {
		pr_debug("shard %s: open: %s", name,
			 r->why ? r->why : strerror(-ret));
		if (why)
			*why = r->why ? r->why : strerrordesc_np(-ret);
		prec_shard_reader__close(r);
		return ret;
	}
	r->err = 0;
	r->why = NULL;
	*out = r;
	return 0;
}

/* Segment files: the directory and name, for the files after the first. */
static int keep_dir(struct prec_shard_reader *r, int dirfd, const char *name)
{
	r->dirfd = dirfd == AT_FDCWD ? open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
				       fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (r->dirfd < 0)
		return -errno;
	r->name = strdup(name);
	return r->name ? 0 : -ENOMEM;
}

int prec_shard_reader__open_why(struct prec_shard_reader **out, int dirfd,
				const char *name, const struct prec_shard_reader_opts *opts,
				const char **why)
{
	struct prec_shard_reader *r;
	const char *reason = NULL;
	int ret;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	/* As the manifest: a FIFO in a shard's place would block open()
	 * forever, and a symlink would read a file outside the recording. */
	r->fd = prec_file__open_regular(dirfd, name, &reason);
	if (r->fd < 0) {
		int err = r->fd;

		if (why)
			*why = reason ? reason : strerrordesc_np(-err);
		free(r);
		return err;
	}
	ret = open_common(out, r, name, opts, why);
	if (ret || !(r->hdr.flags & PREC_SHARD_SEGMENTS))
		return ret;
	ret = keep_dir(r, dirfd, name);
	if (ret) {
		if (why)
			*why = strerrordesc_np(-ret);
		prec_shard_reader__close(r);
		*out = NULL;
	}
	return ret;
}

int prec_shard_reader__open(struct prec_shard_reader **out, int dirfd,
			    const char *name)
{
	return prec_shard_reader__open_why(out, dirfd, name, NULL, NULL);
}

int prec_shard_reader__open_mem(struct prec_shard_reader **out,
				const void *buf, size_t len,
				const struct prec_shard_reader_opts *opts)
{
	struct prec_shard_reader *r;

	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->mem = buf;
	r->mem_len = len;
	return open_common(out, r, "(memory)", opts, NULL);
}

const struct prec_shard_header *
prec_shard_reader__header(const struct prec_shard_reader *r)
{
	return &r->hdr;
}

uint64_t prec_shard_reader__offset(const struct prec_shard_reader *r)
{
	return r->off;
}

const char *prec_shard_reader__segment_file(const struct prec_shard_reader *r)
{
	return r->seg_fd >= 0 || r->seg_bad ? r->seg_name : NULL;
}

bool prec_shard_reader__zeros_from(const struct prec_shard_reader *r, uint64_t off)
{
	uint8_t buf[4096];

	int fd = data_fd(r);

	if (fd < 0) {
		for (; off < r->mem_len; off++)
			if (r->mem[off])
				return false;
		return true;
	}
	for (;;) {
		off_t data = lseek(fd, (off_t)off, SEEK_DATA);
		off_t hole;

		if (data < 0)
			return errno == ENXIO; /* nothing stored past off */
		hole = lseek(fd, data, SEEK_HOLE);
		if (hole < 0)
			return false;
		for (off = (uint64_t)data; off < (uint64_t)hole;) {
			uint64_t left = (uint64_t)hole - off;
			size_t n = left < sizeof(buf) ? (size_t)left : sizeof(buf);
			ssize_t got = pread(fd, buf, n, (off_t)off);

			if (got <= 0)
				return false;
			for (ssize_t i = 0; i < got; i++)
				if (buf[i])
					return false;
			off += (uint64_t)got;
		}
	}
}

const char *prec_shard_reader__why(const struct prec_shard_reader *r)
{
	return r->why ? r->why : "";
}

void prec_shard_reader__close(struct prec_shard_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->seg_fd >= 0)
		close(r->seg_fd);
	if (r->dirfd >= 0)
		close(r->dirfd);
	free(r->name);
	drop(&r->buf, &r->buf_cap, &r->buf_lent);
	drop(&r->spare, &r->spare_cap, &r->spare_lent);
	free(r->own_z.buf);
	free(r);
}
