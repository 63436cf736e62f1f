// SPDX-License-Identifier: MIT
// The zstd compressor of `prec merge -z`: a batch of the record stream, one
// zstd stream for the whole data section, PERF_RECORD_COMPRESSED records out.
//
// Records are copied into a batch small enough that its compressed form
// always fits one PERF_RECORD_COMPRESSED, compressed (one stream, flushed at
// each record and never ended) straight into the output buffer, as perf
// record -z writes them; perf 6.1 decompresses each record on its own into a
// buffer of the COMPRESSED feature's mmap_len, so a record must decompress
// to at least one byte and no more than that. FINISHED_ROUND and AUXTRACE
// stay outside the stream, as perf keeps them (an AUXTRACE's file offset is
// indexed): the batch is flushed before each. The batch and the context are
// made once; nothing is allocated per record.
#include "read/zstd_out.h"

#include <endian.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define REC_COMPRESSED 81 /* PERF_RECORD_COMPRESSED */
#define HDR 8             /* its perf_event_header; the zstd bytes follow */

/* The batch: whatever zstd makes of it must fit one record, as perf 6.1
 * decompresses each COMPRESSED record on its own: a block cut across two
 * records leaves the first one decompressing to nothing, which perf reports
 * as "Couldn't decompress data" and stops. ZSTD_COMPRESSBOUND is the worst
 * case (incompressible bytes, the frame header on the first flush). */
#define BATCH 65024u
_Static_assert(ZSTD_COMPRESSBOUND(BATCH) + HDR <= PREC_ZSTD_RECORD_MAX,
	       "a flushed batch fits one COMPRESSED record");
_Static_assert(BATCH <= PREC_ZSTD_MMAP_LEN, "a record decompresses within mmap_len");

struct prec_zstd_out {
	ZSTD_CCtx *cctx;
	int level;
	size_t used;          /* bytes in batch */
	uint64_t in, out;     /* totals: batch bytes taken, record bytes made */
	uint8_t batch[BATCH];
};

int prec_zstd_out__new(struct prec_zstd_out **out, int level)
{
	struct prec_zstd_out *z;

	*out = NULL;
	if (level < PREC_ZSTD_LEVEL_MIN || level > PREC_ZSTD_LEVEL_MAX)
		return -EINVAL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->level = level;
	z->cctx = ZSTD_createCCtx();
	if (!z->cctx ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level))) {
		prec_zstd_out__delete(z);
		return -ENOMEM;
	}
	*out = z;
	return 0;
}

size_t prec_zstd_out__room(const struct prec_zstd_out *z)
{
	return BATCH - z->used;
}

size_t prec_zstd_out__add(struct prec_zstd_out *z, const void *src, size_t n)
{
	size_t k = n < BATCH - z->used ? n : BATCH - z->used;

	memcpy(z->batch + z->used, src, k);
	z->used += k;
	return k;
}

long prec_zstd_out__record(struct prec_zstd_out *z, void *dst)
{
	ZSTD_inBuffer in = { z->batch, z->used, 0 };
	ZSTD_outBuffer o = { (uint8_t *)dst + HDR, PREC_ZSTD_RECORD_MAX - HDR, 0 };
	struct perf_event_header h = { .type = htole32(REC_COMPRESSED) };
	size_t left;

	if (!z->used)
		return 0;
	/* zstd's streaming buffers are its own, sized once when the first
	 * call sees the parameters; later calls do not allocate. */
	left = ZSTD_compressStream2(z->cctx, &o, &in, ZSTD_e_flush);
	/* Not all out: only a zstd failure, the bound says it fits. */
	if (ZSTD_isError(left) || left || in.pos != in.size)
		return -EIO;
	h.size = htole16((uint16_t)(HDR + o.pos));
	memcpy(dst, &h, sizeof(h));
	z->in += z->used;
	z->out += HDR + o.pos;
	z->used = 0;
	return (long)(HDR + o.pos);
}

void prec_zstd_out__totals(const struct prec_zstd_out *z, uint64_t *in, uint64_t *out)
{
	*in = z->in;
	*out = z->out;
}

int prec_zstd_out__level(const struct prec_zstd_out *z)
{
	return z->level;
}

void prec_zstd_out__delete(struct prec_zstd_out *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z);
}
