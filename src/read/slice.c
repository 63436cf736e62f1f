// SPDX-License-Identifier: MIT
// The merge's staging area: copies of the records of one time slice, and
// their entries, put in (time, cursor) order by a stable radix sort. The
// keys of a slice span a short time, so two or three passes of 11 bits do;
// a slice that holds the side band's time-0 records takes more, once.
#include "read/slice.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIGIT_BITS 11u
#define DIGITS (1u << DIGIT_BITS)

struct prec_slice {
	uint8_t *buf;
	uint32_t cap, used;
	struct prec_slice_ent *ent, *tmp;
	uint32_t ecap, n, pos;
	uint32_t added;   /* bytes since the last carry() */
};

int prec_slice__new(struct prec_slice **out, uint32_t bytes)
{
	struct prec_slice *s = calloc(1, sizeof(*s));

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->cap = bytes;
	s->ecap = bytes / 32 ? bytes / 32 : 1;
	s->buf = malloc(bytes);
	s->ent = malloc(s->ecap * sizeof(*s->ent));
	s->tmp = malloc(s->ecap * sizeof(*s->tmp));
	if (!s->buf || !s->ent || !s->tmp) {
		prec_slice__delete(s);
		return -ENOMEM;
	}
	*out = s;
	return 0;
}

void prec_slice__delete(struct prec_slice *s)
{
	if (!s)
		return;
	free(s->buf);
	free(s->ent);
	free(s->tmp);
	free(s);
}

bool prec_slice__room(const struct prec_slice *s, uint32_t len)
{
	return s->n < s->ecap && len <= s->cap - s->used;
}

void prec_slice__add(struct prec_slice *s, uint64_t time, uint16_t idx,
		     const void *rec, uint16_t len)
{
	memcpy(s->buf + s->used, rec, len);
	s->ent[s->n++] = (struct prec_slice_ent){ .time = time, .off = s->used, .len = len,
						  .idx = idx };
	s->used += len;
	s->added += len;
}

static unsigned int passes_for(uint64_t span)
{
	unsigned int p = 0;

	for (; span; span >>= DIGIT_BITS)
		p++;
	return p;
}

/* The key a pass sorts on: time - lo, or (carry()) the offset. */
static uint64_t key_of(const struct prec_slice_ent *e, bool by_off, uint64_t lo)
{
	return by_off ? e->off : e->time - lo;
}

/* One stable counting pass on the digit at shift of the key. */
static void radix_pass(struct prec_slice *s, bool by_off, uint64_t lo, unsigned int shift)
{
	uint32_t count[DIGITS] = { 0 }, sum = 0;
	struct prec_slice_ent *t;

	for (uint32_t i = 0; i < s->n; i++)
		count[(key_of(&s->ent[i], by_off, lo) >> shift) & (DIGITS - 1)]++;
	for (uint32_t d = 0; d < DIGITS; d++) {
		uint32_t c = count[d];

		count[d] = sum;
		sum += c;
	}
	for (uint32_t i = 0; i < s->n; i++)
		s->tmp[count[(key_of(&s->ent[i], by_off, lo) >> shift) & (DIGITS - 1)]++] = s->ent[i];
	t = s->ent;
	s->ent = s->tmp;
	s->tmp = t;
}

/* By time alone, stable: the entries are in the order they were added
 * (carry() keeps that), and equal times then come in cursor order. A
 * merge takes cursors in index order, so within one fill that is plain.
 * Across fills: a record kept back at (t, j) was taken before a record
 * (t, i) of a later fill only if cursor i had not reached t when the
 * earlier fill stopped, at cursor j or before it; so i >= j, and kept
 * first is cursor order. */
void prec_slice__sort(struct prec_slice *s)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	for (uint32_t i = 0; i < s->n; i++) {
		lo = s->ent[i].time < lo ? s->ent[i].time : lo;
		hi = s->ent[i].time > hi ? s->ent[i].time : hi;
	}
	for (unsigned int p = 0; s->n && p < passes_for(hi - lo); p++)
		radix_pass(s, false, lo, p * DIGIT_BITS);
	s->pos = 0;
}

const struct prec_slice_ent *prec_slice__front(const struct prec_slice *s)
{
	return s->pos < s->n ? &s->ent[s->pos] : NULL;
}

const uint8_t *prec_slice__bytes(const struct prec_slice *s, const struct prec_slice_ent *e)
{
	return s->buf + e->off;
}

void prec_slice__pop(struct prec_slice *s)
{
	s->pos++;
}

/* Rare (a slice cut short by its room, or records past the bound): the
 * entries left are moved down in the order of their bytes, which is the
 * order they were added in, so each cursor's records keep theirs. */
void prec_slice__carry(struct prec_slice *s)
{
	uint32_t left = s->n - s->pos, at = 0;

	if (left && s->pos)
		memmove(s->ent, s->ent + s->pos, left * sizeof(*s->ent));
	s->n = left;
	/* offsets < cap: no allocation (glibc's qsort takes one) */
	for (unsigned int p = 0; left && p < passes_for(s->cap); p++)
		radix_pass(s, true, 0, p * DIGIT_BITS);
	for (uint32_t i = 0; i < left; i++) {
		if (s->ent[i].off != at)
			memmove(s->buf + at, s->buf + s->ent[i].off, s->ent[i].len);
		s->ent[i].off = at;
		at += s->ent[i].len;
	}
	s->pos = 0;
	s->used = at;
	s->added = 0;
}

uint32_t prec_slice__added(const struct prec_slice *s)
{
	return s->added;
}
