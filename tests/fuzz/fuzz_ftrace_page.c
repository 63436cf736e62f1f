// SPDX-License-Identifier: MIT
// Fuzz target: the ftrace ring-buffer page parser of --markers
// (prec_markers__parse_page), fed what trace_pipe_raw would hand it. Byte 0:
// bit 0 makes the page header's commit length right (the rest of the input
// is the committed data), so mutations land in the events; bit 1 sets the
// kernel's missed-events flag. Bytes 1-2: the print event id to look for.
// The rest: the page. Every entry reported must lie inside the committed
// data and be read to its last byte (ASan); the return value is -EBADMSG
// or the number of entries reported.
#include "fuzz_common.h"

#include "record/markers_page.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct seen {
	const uint8_t *lo, *hi;
	int n;
	uint64_t sum;
};

static void on_entry(void *arg, uint64_t time, const void *entry, uint32_t len)
{
	struct seen *s = arg;
	const uint8_t *e = entry;

	(void)time;
	if (e < s->lo || e > s->hi || len > (size_t)(s->hi - e) || len < 16)
		__builtin_trap();
	for (uint32_t i = 0; i < len; i++)
		s->sum += e[i];
	s->n++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0 };
	unsigned int ctl;
	uint16_t id;
	uint8_t *page;
	uint64_t commit = 0;
	size_t len;
	bool missed;
	int r;

	fz_quiet();
	if (size < 3)
		return 0;
	ctl = data[0];
	id = (uint16_t)(data[1] | data[2] << 8);
	len = size - 3;
	/* exactly the page's size: ASan sees a read one byte past it */
	page = malloc(len ? len : 1);
	if (!page)
		__builtin_trap();
	memcpy(page, data + 3, len);
	if ((ctl & 1) && len >= 16) {
		commit = (len - 16) | ((ctl & 2) ? 1ull << 31 : 0);
		memcpy(page + 8, &commit, 8);
	}
	s.lo = page + 16;
	s.hi = page + len;
	if (len >= 16) {
		memcpy(&commit, page + 8, 8);
		if ((commit & ((1ull << 30) - 1)) <= len - 16)
			s.hi = page + 16 + (commit & ((1ull << 30) - 1));
	}
	r = prec_markers__parse_page(page, len, id, on_entry, &s, &missed);
	if (r != -EBADMSG && r != s.n)
		__builtin_trap();
	if (r >= 0 && len >= 16 && missed != !!(commit & (1ull << 31)))
		__builtin_trap();
	free(page);
	return 0;
}
