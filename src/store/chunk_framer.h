/* SPDX-License-Identifier: MIT */
/* Private to src/store: a chunk as the file has it (docs/format.md), built
 * in memory: the header, the payload raw or lz4, the checksum. No I/O. */
#ifndef PREC_STORE_CHUNK_FRAMER_H
#define PREC_STORE_CHUNK_FRAMER_H

#include "store/store.h"

/* The codec of one writer and lz4's state, allocated at the first chunk
 * that is compressed. */
struct prec_chunk_framer {
	enum prec_codec codec;
	int lz4_level;          /* 0 = fast; > 0 = LZ4 HC level */
	void *lz4_state;
	unsigned char *lz4_lin; /* joins a wrapped ring's two spans */
};

void prec_chunk_framer__init(struct prec_chunk_framer *f, enum prec_codec codec,
			     int lz4_level);
void prec_chunk_framer__exit(struct prec_chunk_framer *f);

/* Check append()'s arguments (see store.h) and sum the payload into *raw.
 * Returns 0 or -EINVAL. */
int prec_chunk_framer__check(const struct prec_chunk_meta *meta,
			     const struct iovec *span, int nspan, uint32_t *raw);

/* Bytes to set aside for a chunk of raw payload bytes: the header, and the
 * payload or lz4's worst case for it. */
size_t prec_chunk_framer__cap(const struct prec_chunk_framer *f, uint32_t raw);

/* Build chunk number seq at p (cap bytes, from cap()): header, payload
 * (lz4 when the codec says so and it shrinks, else the spans' bytes) and
 * checksum. p needs no alignment. Returns 0 with *stored (payload bytes
 * after the header), or -ENOMEM. Any thread, one at a time per framer. */
int prec_chunk_framer__frame(struct prec_chunk_framer *f,
			     const struct prec_chunk_meta *meta, uint32_t seq,
			     const struct iovec *span, int nspan, uint32_t raw,
			     unsigned char *p, size_t cap, uint32_t *stored);

/* The header of chunk seq whose payload is the spans as they are (zero
 * copy: the payload is written from the caller's memory), checksum over
 * both. */
void prec_chunk_framer__header(struct prec_chunk_header *h,
			       const struct prec_chunk_meta *meta, uint32_t seq,
			       const struct iovec *span, int nspan, uint32_t raw);

#endif
