// SPDX-License-Identifier: MIT
// A shard's totals from its whole chunks, read while a recorder may still
// append to it: what `prec info` and `prec info --timeline` show live.
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "read/live_scan.h"
#include "util/bytes.h"
#include "util/sat.h"

#define RECORD_LOST 2u /* PERF_RECORD_LOST: u64 id, u64 lost, sample_id */

/* The LOST records of one chunk: the manifest's "lost" is their sum. Only
 * the records' headers are read; a framing the chunk checksum covered but
 * that does not add up ends the walk (info --check reports it). */
static void walk_lost(const struct prec_chunk *ch, const struct prec_time_layout *tl,
		      struct prec_live_chunk *lc)
{
	const uint8_t *p = ch->payload;
	uint32_t pos = 0;

	while (ch->len - pos >= 8) {
		uint32_t type = prec_ld32(p + pos);
		uint16_t size = prec_ld16(p + pos + 6);

		if (size < 8 || size > ch->len - pos)
			return;
		if (type == RECORD_LOST && size >= 24) {
			lc->lost = prec_add_sat(lc->lost, prec_ld64(p + pos + 16));
			if (!lc->lost_time && tl)
				lc->lost_time = prec_time_layout__time(tl, p + pos, size);
			if (!lc->lost_time)
				lc->lost_time = ch->hdr.first_time;
		}
		pos += size;
	}
}

static void add(struct prec_live_totals *t, const struct prec_chunk *ch)
{
	t->chunks++;
	t->records += ch->hdr.records;
	t->bytes += ch->hdr.payload_len;
	t->raw_bytes += ch->hdr.raw_len;
	if (ch->hdr.first_time && (!t->first_time || ch->hdr.first_time < t->first_time))
		t->first_time = ch->hdr.first_time;
	if (ch->hdr.last_time > t->last_time)
		t->last_time = ch->hdr.last_time;
}

int prec_live_scan__shard(int dirfd, const char *name, const struct prec_time_layout *tl,
			  prec_live_chunk_fn fn, void *arg, struct prec_live_totals *t,
			  const char **why)
{
	struct prec_shard_reader *rd;
	struct prec_chunk ch;
	int r;

	memset(t, 0, sizeof(*t));
	r = prec_shard_reader__open_why(&rd, dirfd, name, NULL, why);
	if (r == -EBADMSG && why && *why && !strcmp(*why, "torn shard header")) {
		/* created, header not on disk yet: nothing to count */
		t->torn = true;
		return 0;
	}
	if (r < 0)
		return r;
	while ((r = prec_shard_reader__next(rd, &ch)) > 0) {
		struct prec_live_chunk lc = {
			.first_time = ch.hdr.first_time, .last_time = ch.hdr.last_time,
			.raw_len = ch.hdr.raw_len, .records = ch.hdr.records,
		};

		add(t, &ch);
		if (ch.hdr.type != PREC_CHUNK_DATA)
			continue;
		walk_lost(&ch, tl, &lc);
		t->lost = prec_add_sat(t->lost, lc.lost);
		if (fn)
			fn(arg, &lc);
	}
	t->end = prec_shard_reader__offset(rd);
	/* -EBADMSG: the chunk the recorder is writing (torn, zero padding of
	 * an O_DIRECT block, a checksum over half-written bytes). */
	t->torn = r == -EBADMSG;
	if (r < 0) {
		const char *seg = prec_shard_reader__segment_file(rd);

		/* static: the reader was opened without record checks */
		t->torn_why = prec_shard_reader__why(rd);
		snprintf(t->torn_file, sizeof(t->torn_file), "%s", seg ? seg : "");
	}
	if (r < 0 && r != -EBADMSG && why)
		*why = *t->torn_why ? t->torn_why : strerror(-r);
	prec_shard_reader__close(rd);
	return r == -EBADMSG ? 0 : r;
}
