// SPDX-License-Identifier: MIT
// The one escaper of text from a recording: which bytes a terminal may act
// on, and the form each is shown in (for prec info, prec dump and the log).
#include "util/escape.h"

#include <stdint.h>
#include <string.h>

/* Length of the printable UTF-8 character at p (left bytes there, left > 0),
 * or 0 for a byte a terminal may act on or that is not UTF-8: C0 controls,
 * DEL, C1 controls, the bidi controls (embeddings, overrides, isolates:
 * they show text in another order than it is), overlong forms,
 * surrogates, past U+10FFFF, a character cut short by the end. */
static size_t printable_len(const unsigned char *p, size_t left)
{
	size_t n;
	uint32_t c;

	if (*p >= 0x20 && *p < 0x7f)
		return 1;
	if (*p >= 0xc2 && *p <= 0xdf)
		n = 2, c = *p & 0x1fu;
	else if (*p >= 0xe0 && *p <= 0xef)
		n = 3, c = *p & 0x0fu;
	else if (*p >= 0xf0 && *p <= 0xf4)
		n = 4, c = *p & 0x07u;
	else
		return 0;
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80) /* also stops at a NUL */
			return 0;
		c = c << 6 | (p[i] & 0x3fu);
	}
	if (c < 0xa0 || (n == 3 && c < 0x800) || (n == 4 && c < 0x10000) ||
	    (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff ||
	    (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
		return 0;
	return n;
}

/* The shown form of the character at p into out; returns the input bytes it
 * took (at least 1), *olen the output's length (at most 4). */
static size_t one(const unsigned char *p, size_t left, int quote, char out[4], size_t *olen)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = printable_len(p, left);

	if (*p == '\\' || (quote && *p == (unsigned char)quote)) {
		out[0] = '\\';
		out[1] = (char)*p;
		*olen = 2;
		return 1;
	}
	if (n) {
		memcpy(out, p, n);
		*olen = n;
		return n;
	}
	out[0] = '\\';
	*olen = 2;
	if (*p == '\n' || *p == '\t' || *p == '\r') {
		out[1] = *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r';
		return 1;
	}
	out[1] = 'x';
	out[2] = hex[*p >> 4];
	out[3] = hex[*p & 15];
	*olen = 4;
	return 1;
}

static size_t until_nul(const void *s, size_t len)
{
	const void *nul = memchr(s, 0, len);

	return nul ? (size_t)((const char *)nul - (const char *)s) : len;
}

bool prec_escape__needed(const void *s, size_t len)
{
	const unsigned char *p = s;

	len = until_nul(s, len);
	for (size_t i = 0; i < len;) {
		size_t n = printable_len(p + i, len - i);

		if (!n)
			return true;
		i += n;
	}
	return false;
}

void prec_escape__put(FILE *f, const void *s, size_t len, int quote)
{
	const unsigned char *p = s;
	char out[4];
	size_t olen;

	len = until_nul(s, len);
	for (size_t i = 0; i < len;) {
		i += one(p + i, len - i, quote, out, &olen);
		fwrite(out, 1, olen, f);
	}
}

size_t prec_escape__to_buf(char *dst, size_t size, const void *s, size_t len, int quote)
{
	static const char cut[] = "...";
	const unsigned char *p = s;
	size_t pos = 0, olen, need = 0, room;
	char out[4];

	len = until_nul(s, len);
	for (size_t i = 0; i < len; need += olen)
		i += one(p + i, len - i, quote, out, &olen);
	/* Cut only between escapes, so that no half of one goes out. */
	room = need < size ? size - 1 : size > sizeof(cut) ? size - sizeof(cut) : 0;
	for (size_t i = 0; i < len;) {
		size_t k = one(p + i, len - i, quote, out, &olen);

		if (pos + olen > room)
			break;
		memcpy(dst + pos, out, olen);
		pos += olen;
		i += k;
	}
	if (need >= size && size >= sizeof(cut)) {
		memcpy(dst + pos, cut, sizeof(cut) - 1);
		pos += sizeof(cut) - 1;
	}
	dst[pos] = '\0';
	return pos;
}
