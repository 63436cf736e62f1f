// SPDX-License-Identifier: MIT
// The ftrace ring-buffer page parser of --markers: hand-made pages with
// every event kind, the lengths that wrap 32-bit sums (array[0] =
// 0xfffffffd once gave a callback of 0xfffffff9 bytes), and random pages
// whose every reported entry must lie inside the page's committed data.
#include "../lib/test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "record/markers_page.h"

#define PRINT_ID 5
#define PAGE 4096

struct seen {
	const uint8_t *lo, *hi; /* the committed data */
	int n;
	uint64_t time[8];
	uint32_t len[8];
};

static void on_entry(void *arg, uint64_t time, const void *entry, uint32_t len)
{
	struct seen *s = arg;
	const uint8_t *e = entry;

	CHECK(e >= s->lo && len <= (size_t)(s->hi - e));
	CHECK(len >= 16);
	if (s->n < 8) {
		s->time[s->n] = time;
		s->len[s->n] = len;
	}
	s->n++;
}

struct page {
	uint8_t b[PAGE];
	size_t at;
};

static void put32(struct page *p, uint32_t v)
{
	memcpy(p->b + p->at, &v, 4);
	p->at += 4;
}

static void start(struct page *p, uint64_t ts)
{
	memset(p->b, 0, sizeof(p->b));
	memcpy(p->b, &ts, 8);
	p->at = 16;
}

/* commit = bytes of data after the 16-byte header */
static int parse(struct page *p, uint64_t commit_flags, struct seen *s, bool *missed)
{
	uint64_t commit = (p->at - 16) | commit_flags;

	memcpy(p->b + 8, &commit, 8);
	memset(s, 0, sizeof(*s));
	s->lo = p->b + 16;
	s->hi = p->b + p->at;
	return prec_markers__parse_page(p->b, sizeof(p->b), PRINT_ID, on_entry, s, missed);
}

/* An entry of dlen bytes (a multiple of 4) whose common_type is type. */
static void entry(struct page *p, uint32_t delta, uint32_t dlen, uint16_t type)
{
	if (dlen <= 112) {
		put32(p, delta << 5 | dlen / 4);
	} else {
		put32(p, delta << 5);
		put32(p, dlen + 4); /* array[0] counts itself */
	}
	memset(p->b + p->at, 'a', dlen);
	memcpy(p->b + p->at, &type, 2);
	p->at += dlen;
}

static void good_pages(void)
{
	struct page p;
	struct seen s;
	bool missed;

	start(&p, 1000);
	CHECK_EQ(parse(&p, 0, &s, &missed), 0);
	CHECK(!missed);

	start(&p, 1000);
	entry(&p, 10, 24, PRINT_ID);            /* small: type_len 6 */
	entry(&p, 5, 24, PRINT_ID + 1);         /* another event: skipped */
	put32(&p, 3u << 5 | 30);                /* time extend: +3 + (1 << 27) */
	put32(&p, 1);
	entry(&p, 2, 200, PRINT_ID);            /* big: type_len 0 */
	put32(&p, 7u << 5 | 29);                /* padding with a delta: skipped */
	put32(&p, 12);                          /* bytes after its header */
	p.at += 8;
	put32(&p, 0u << 5 | 31);                /* absolute time stamp */
	put32(&p, 2);
	entry(&p, 1, 16, PRINT_ID);
	CHECK_EQ(parse(&p, 1ull << 31, &s, &missed), 3);
	CHECK(missed);
	CHECK_EQ(s.time[0], 1010);
	CHECK_EQ(s.len[0], 24);
	CHECK_EQ(s.time[1], 1015 + 3 + (1ull << 27) + 2);
	CHECK_EQ(s.len[1], 200);
	CHECK_EQ(s.time[2], (2ull << 27) + 1);
	CHECK_EQ(s.len[2], 16);

	/* padding without a delta: the rest of the page is padding */
	start(&p, 0);
	entry(&p, 1, 16, PRINT_ID);
	put32(&p, 29);
	put32(&p, 0xffffffffu);
	entry(&p, 1, 16, PRINT_ID);
	CHECK_EQ(parse(&p, 0, &s, &missed), 1);
}

/* An event that claims more than the page holds is refused before any
 * callback for it: no sum of lengths may wrap past the check. */
static void lying_lengths(void)
{
	static const uint32_t lens[] = {
		0xfffffffdu, /* 4 + it wraps to 1; its data 0xfffffff9 */
		0xfffffffcu, 0xfffffffeu, 0xffffffffu, 0x80000000u,
		0, 1, 3,     /* less than array[0] itself */
	};
	struct page p;
	struct seen s;
	uint64_t commit;
	bool missed;

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		start(&p, 0);
		put32(&p, 1u << 5);      /* type_len 0 */
		put32(&p, lens[i]);
		put32(&p, PRINT_ID);     /* common_type, then room for the rest */
		p.at += 60;
		CHECK_EQ(parse(&p, 0, &s, &missed), -EBADMSG);
		CHECK_EQ(s.n, 0);
	}
	/* one byte past the committed data, then exactly up to it */
	start(&p, 0);
	put32(&p, 1u << 5);
	put32(&p, 4 + 64 + 1);
	put32(&p, PRINT_ID);
	p.at += 60;
	CHECK_EQ(parse(&p, 0, &s, &missed), -EBADMSG);
	CHECK_EQ(s.n, 0);
	p.at += 1;
	CHECK_EQ(parse(&p, 0, &s, &missed), 1);
	CHECK_EQ(s.len[0], 65);

	/* padding whose length wraps or runs past the page */
	for (size_t i = 0; i < 4; i++) {
		start(&p, 0);
		put32(&p, 1u << 5 | 29);
		put32(&p, lens[i]);
		entry(&p, 1, 16, PRINT_ID);
		CHECK_EQ(parse(&p, 0, &s, &missed), -EBADMSG);
		CHECK_EQ(s.n, 0);
	}
	/* a small event cut by the end of the data; a header cut short */
	start(&p, 0);
	entry(&p, 1, 28, PRINT_ID);
	p.at -= 4;
	CHECK_EQ(parse(&p, 0, &s, &missed), -EBADMSG);
	start(&p, 0);
	put32(&p, 1u << 5);      /* type_len 0 with no array[0] */
	CHECK_EQ(parse(&p, 0, &s, &missed), -EBADMSG);
	start(&p, 0);
	put32(&p, 30);           /* time extend with no second word */
	CHECK_EQ(parse(&p, 0, &s, &missed), -EBADMSG);

	/* the commit itself past the page, and pages shorter than a header */
	start(&p, 0);
	memset(&s, 0, sizeof(s));
	commit = PAGE - 16 + 1;
	memcpy(p.b + 8, &commit, 8);
	CHECK_EQ(prec_markers__parse_page(p.b, PAGE, PRINT_ID, on_entry, &s, &missed), -EBADMSG);
	CHECK_EQ(prec_markers__parse_page(p.b, 15, PRINT_ID, on_entry, &s, &missed), -EBADMSG);
	CHECK_EQ(prec_markers__parse_page(p.b, 0, PRINT_ID, on_entry, &s, &missed), -EBADMSG);
}

/* Random words, with print ids and big lengths made likely. */
static void random_pages(void)
{
	uint64_t st = test_seed() | 1;
	struct page p;
	struct seen s;
	bool missed;

	for (int round = 0; round < 20000; round++) {
		size_t words = 1 + test_rand(&st) % 200;

		start(&p, test_rand(&st));
		for (size_t i = 0; i < words; i++) {
			uint64_t r = test_rand(&st);
			uint32_t w = (uint32_t)r;

			switch (r >> 60) {
			case 0: w = PRINT_ID; break;
			case 1: w = 0xffffffffu - (uint32_t)(r >> 32) % 16; break;
			case 2: w = (uint32_t)(r >> 32) % 300; break;
			case 3: w &= ~31u; break; /* type_len 0 */
			}
			put32(&p, w);
		}
		int r = parse(&p, 0, &s, &missed);

		CHECK(r == -EBADMSG || r == s.n);
	}
}

int main(void)
{
	good_pages();
	lying_lengths();
	random_pages();
	return 0;
}
