// SPDX-License-Identifier: MIT
// Shard writer: LZ4 chunk payloads (fast, or HC for lz4_level > 0), kept raw
// when compression does not shrink them. State is allocated once per writer.
#include "store/shard_writer.h"

#include <errno.h>
#include <lz4.h>
#include <lz4hc.h>
#include <stdlib.h>
#include <string.h>

static int lz4_setup(struct prec_shard_writer *w)
{
	int fast = LZ4_sizeofState(), hc = LZ4_sizeofStateHC();

	if (w->lz4_state)
		return 0;
	w->lz4_state = malloc((size_t)(fast > hc ? fast : hc));
	w->lz4_lin = malloc(PREC_CHUNK_MAX_PAYLOAD);
	if (!w->lz4_state || !w->lz4_lin)
		return -ENOMEM;
	return 0;
}

int prec_wr__lz4(struct prec_shard_writer *w, const struct iovec *span,
		 int nspan, uint32_t raw, unsigned char *dst, size_t cap,
		 enum prec_codec *codec)
{
	const char *src = nspan ? span[0].iov_base : NULL;
	int n, ret = lz4_setup(w);

	if (ret)
		return ret;
	/* LZ4 block format wants one contiguous source: join a wrapped ring's
	 * two spans first. */
	if (nspan == 2 && span[1].iov_len) {
		memcpy(w->lz4_lin, span[0].iov_base, span[0].iov_len);
		memcpy(w->lz4_lin + span[0].iov_len, span[1].iov_base, span[1].iov_len);
		src = (const char *)w->lz4_lin;
	}
	if (w->lz4_level > 0)
		n = LZ4_compress_HC_extStateHC(w->lz4_state, src, (char *)dst, (int)raw,
					       (int)cap, w->lz4_level);
	else
		n = LZ4_compress_fast_extState(w->lz4_state, src, (char *)dst, (int)raw,
					       (int)cap, 1);
	if (n > 0 && (uint32_t)n < raw) {
		*codec = PREC_CODEC_LZ4;
		return n;
	}
	/* Did not shrink (or failed): store the bytes as they are. */
	*codec = PREC_CODEC_NONE;
	if (src == (const char *)w->lz4_lin) {
		memcpy(dst, w->lz4_lin, raw);
	} else {
		unsigned char *q = dst;

		for (int i = 0; i < nspan; i++) {
			memcpy(q, span[i].iov_base, span[i].iov_len);
			q += span[i].iov_len;
		}
	}
	return (int)raw;
}
