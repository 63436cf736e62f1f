// SPDX-License-Identifier: MIT
// The markers' page parser: one ftrace ring-buffer page (kernel header_page
// layout) walked event by event, every length checked against the page.
#include "record/markers_page.h"

#include <errno.h>

#include "util/bytes.h"

/* ring_buffer event types (kernel/trace/ring_buffer.c) */
#define RB_TYPE_MAX_DATA 28u
#define RB_TYPE_PADDING 29u
#define RB_TYPE_TIME_EXTEND 30u
#define RB_TYPE_TIME_STAMP 31u
#define RB_TS_SHIFT 27
#define RB_TS_MSB (0xf8ull << 56)
#define RB_MISSED_EVENTS (1ull << 31)
#define RB_COMMIT_MASK ((1ull << 30) - 1)
#define PAGE_HDR 16u

/* One data event at p with room bytes left in the page (at least 4): its
 * whole length and its payload. Every length is checked against room by
 * subtraction, in 64 bits, before it is added to anything. */
static int data_event(const uint8_t *p, uint32_t type_len, size_t room,
		      size_t *ev_len, const uint8_t **data, size_t *dlen)
{
	uint64_t len;

	if (type_len) {
		*dlen = (size_t)type_len * 4;
		*data = p + 4;
		*ev_len = 4 + *dlen;
		return *dlen <= room - 4 ? 0 : -EBADMSG;
	}
	if (room < 8)
		return -EBADMSG;
	/* array[0] counts itself: its data follows it */
	len = prec_ld32(p + 4);
	if (len < 4 || len > room - 4)
		return -EBADMSG;
	*ev_len = 4 + (size_t)len;
	*dlen = (size_t)len - 4;
	*data = p + 8;
	return 0;
}

int prec_markers__parse_page(const void *page, size_t len, uint16_t print_id,
			     prec_marker_fn fn, void *arg, bool *missed)
{
	const uint8_t *p;
	uint64_t ts, commit;
	size_t room;
	int n = 0;

	*missed = false;
	if (len < PAGE_HDR)
		return -EBADMSG;
	ts = prec_ld64(page);
	commit = prec_ld64((const uint8_t *)page + 8);
	*missed = !!(commit & RB_MISSED_EVENTS);
	if ((commit & RB_COMMIT_MASK) > len - PAGE_HDR)
		return -EBADMSG;
	p = (const uint8_t *)page + PAGE_HDR;
	room = (size_t)(commit & RB_COMMIT_MASK);
	while (room >= 4) {
		uint32_t hdr = prec_ld32(p), type_len = hdr & 31, delta = hdr >> 5;
		size_t ev_len, dlen;
		const uint8_t *data;

		if (type_len == RB_TYPE_PADDING) {
			uint64_t pad;

			if (!delta || room < 8)
				break; /* the rest of the page is padding */
			pad = prec_ld32(p + 4); /* bytes after the header */
			if (pad > room - 4)
				return -EBADMSG;
			ev_len = 4 + (size_t)pad;
			ts += delta;
		} else if (type_len >= RB_TYPE_TIME_EXTEND) {
			uint64_t v;

			if (room < 8)
				return -EBADMSG;
			v = ((uint64_t)prec_ld32(p + 4) << RB_TS_SHIFT) | delta;
			if (type_len == RB_TYPE_TIME_EXTEND)
				ts += v;
			else
				ts = v | (ts & RB_TS_MSB);
			ev_len = 8;
		} else {
			if (data_event(p, type_len, room, &ev_len, &data, &dlen))
				return -EBADMSG;
			ts += delta;
			if (dlen >= 16 && (prec_ld32(data) & 0xffff) == print_id) {
				fn(arg, ts, data, (uint32_t)dlen);
				n++;
			}
		}
		/* the loop's invariant: p moves forward and stays inside */
		if (ev_len < 4 || ev_len > room)
			return -EBADMSG;
		p += ev_len;
		room -= ev_len;
	}
	return n;
}
