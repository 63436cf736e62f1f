// SPDX-License-Identifier: MIT
// Chunk framing: the 64-byte header, the payload raw or LZ4 (fast, or HC for
// lz4_level > 0; kept raw when compression does not shrink it) and the
// CRC-32C over both, into a caller's buffer.
#include "store/chunk_framer.h"

#include <endian.h>
#include <errno.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>
#include <string.h>

void prec_chunk_framer__init(struct prec_chunk_framer *f, enum prec_codec codec,
			     int lz4_level)
{
	memset(f, 0, sizeof(*f));
	f->codec = codec;
	f->lz4_level = lz4_level;
}

void prec_chunk_framer__exit(struct prec_chunk_framer *f)
{
	free(f->lz4_state);
	free(f->lz4_lin);
	f->lz4_state = NULL;
	f->lz4_lin = NULL;
}

int prec_chunk_framer__check(const struct prec_chunk_meta *meta,
			     const struct iovec *span, int nspan, uint32_t *raw)
{
	size_t total = 0;

	if (!meta || nspan < 0 || nspan > 2 || (nspan && !span))
		return -EINVAL;
	if (meta->type != PREC_CHUNK_DATA && meta->type != PREC_CHUNK_AUX &&
	    meta->type != PREC_CHUNK_MARKER)
		return -EINVAL;
	for (int i = 0; i < nspan; i++)
		total += span[i].iov_len;
	if (total > PREC_CHUNK_MAX_PAYLOAD)
		return -EINVAL;
	if (meta->type == PREC_CHUNK_MARKER && total)
		return -EINVAL;
	*raw = (uint32_t)total;
	return 0;
}

size_t prec_chunk_framer__cap(const struct prec_chunk_framer *f, uint32_t raw)
{
	return PREC_CHUNK_HDR_SIZE + (f->codec == PREC_CODEC_LZ4 && raw ?
				      (size_t)LZ4_COMPRESSBOUND(raw) : raw);
}

static void fill_header(struct prec_chunk_header *h, const struct prec_chunk_meta *m,
			uint32_t seq, enum prec_codec codec, uint32_t stored,
			uint32_t raw)
{
	h->magic = htole32(PREC_CHUNK_MAGIC);
	h->type = (uint8_t)m->type;
	h->codec = (uint8_t)codec;
	h->header_size = htole16((uint16_t)PREC_CHUNK_HDR_SIZE);
	h->payload_len = htole32(stored);
	h->raw_len = htole32(raw);
	h->records = htole32(m->records);
	h->seq = htole32(seq);
	h->first_time = htole64(m->first_time);
	h->last_time = htole64(m->last_time);
	h->watermark = htole64(m->watermark);
	h->aux_offset = htole64(m->aux_offset);
	h->flags = htole32(m->flags);
	h->checksum = 0;
}

static int lz4_setup(struct prec_chunk_framer *f)
{
	int fast = LZ4_sizeofState(), hc = LZ4_sizeofStateHC();

	if (f->lz4_state)
		return 0;
	f->lz4_state = malloc((size_t)(fast > hc ? fast : hc));
	f->lz4_lin = malloc(PREC_CHUNK_MAX_PAYLOAD);
	if (!f->lz4_state || !f->lz4_lin)
		return -ENOMEM;
	return 0;
}

/* lz4 encode of one payload into dst (cap bytes). Returns stored length
 * (== raw when kept raw, with *codec NONE) or -errno. */
static int lz4_encode(struct prec_chunk_framer *f, const struct iovec *span,
		      int nspan, uint32_t raw, unsigned char *dst, size_t cap,
		      enum prec_codec *codec)
{
	const char *src = nspan ? span[0].iov_base : NULL;
	int n, ret = lz4_setup(f);

	if (ret)
		return ret;
	/* LZ4 block format wants one contiguous source: join a wrapped ring's
	 * two spans first. */
	if (nspan == 2 && span[1].iov_len) {
		memcpy(f->lz4_lin, span[0].iov_base, span[0].iov_len);
		memcpy(f->lz4_lin + span[0].iov_len, span[1].iov_base, span[1].iov_len);
		src = (const char *)f->lz4_lin;
	}
	if (f->lz4_level > 0)
		n = LZ4_compress_HC_extStateHC(f->lz4_state, src, (char *)dst, (int)raw,
					       (int)cap, f->lz4_level);
	else
		n = LZ4_compress_fast_extState(f->lz4_state, src, (char *)dst, (int)raw,
					       (int)cap, 1);
	if (n > 0 && (uint32_t)n < raw) {
		*codec = PREC_CODEC_LZ4;
		return n;
	}
	/* Did not shrink (or failed): store the bytes as they are. */
	*codec = PREC_CODEC_NONE;
	if (src == (const char *)f->lz4_lin) {
		memcpy(dst, f->lz4_lin, raw);
	} else {
		unsigned char *q = dst;

		for (int i = 0; i < nspan; i++) {
			memcpy(q, span[i].iov_base, span[i].iov_len);
			q += span[i].iov_len;
		}
	}
	return (int)raw;
}

int prec_chunk_framer__frame(struct prec_chunk_framer *f,
			     const struct prec_chunk_meta *meta, uint32_t seq,
			     const struct iovec *span, int nspan, uint32_t raw,
			     unsigned char *p, size_t cap, uint32_t *stored)
{
	enum prec_codec codec = PREC_CODEC_NONE;
	struct prec_chunk_header h;
	uint32_t crc;

	if (f->codec == PREC_CODEC_LZ4 && raw) {
		int ret = lz4_encode(f, span, nspan, raw, p + PREC_CHUNK_HDR_SIZE,
				     cap - PREC_CHUNK_HDR_SIZE, &codec);

		if (ret < 0)
			return ret;
		*stored = (uint32_t)ret;
		fill_header(&h, meta, seq, codec, *stored, raw);
		crc = prec_crc32c(prec_crc32c(0, &h, PREC_CHUNK_HDR_SIZE),
				  p + PREC_CHUNK_HDR_SIZE, *stored);
	} else {
		unsigned char *q = p + PREC_CHUNK_HDR_SIZE;

		/* Raw: the checksum is taken as the ring's bytes are copied,
		 * one pass over them instead of two. */
		*stored = raw;
		fill_header(&h, meta, seq, codec, raw, raw);
		crc = prec_crc32c(0, &h, PREC_CHUNK_HDR_SIZE);
		for (int i = 0; i < nspan; i++) {
			crc = prec_crc32c_copy(crc, q, span[i].iov_base, span[i].iov_len);
			q += span[i].iov_len;
		}
	}
	/* Staging is packed (chunks follow each other as in the file, so a
	 * batch is one iovec): the header may be unaligned there. */
	h.checksum = htole32(crc);
	memcpy(p, &h, PREC_CHUNK_HDR_SIZE);
	return 0;
}

void prec_chunk_framer__header(struct prec_chunk_header *h,
			       const struct prec_chunk_meta *meta, uint32_t seq,
			       const struct iovec *span, int nspan, uint32_t raw)
{
	uint32_t crc;

	fill_header(h, meta, seq, PREC_CODEC_NONE, raw, raw);
	crc = prec_crc32c(0, h, PREC_CHUNK_HDR_SIZE);
	for (int i = 0; i < nspan; i++)
		crc = prec_crc32c(crc, span[i].iov_base, span[i].iov_len);
	h->checksum = htole32(crc);
}
