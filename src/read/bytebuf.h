/* SPDX-License-Identifier: MIT */
/* A growable byte buffer for building perf.data metadata (feature payloads,
 * the tracing blob) before it is written. Errors are sticky: callers append
 * freely and check err once at the end. Not for per-record use. */
#ifndef PREC_READ_BYTEBUF_H
#define PREC_READ_BYTEBUF_H

#include <stddef.h>
#include <stdint.h>

struct prec_bytebuf {
	uint8_t *p;
	size_t len, cap;
	int err;        /* first -errno, 0 if none */
};

/* Append n bytes from src, or n zero bytes when src is NULL. */
void prec_bytebuf__put(struct prec_bytebuf *b, const void *src, size_t n);
/* Append little-endian integers. */
void prec_bytebuf__put_u32(struct prec_bytebuf *b, uint32_t v);
void prec_bytebuf__put_u64(struct prec_bytebuf *b, uint64_t v);

#endif
