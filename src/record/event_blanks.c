// SPDX-License-Identifier: MIT
// An -e list's blanks as perf 6.1's lexer reads them, before the grammar
// (event_parse.c) sees the text: a blank between perf's one-byte tokens
// (, { } / : =) or at either end is skipped, a blank before modifier
// letters outside the slashes stands for their ':', and a breakpoint's
// mem:ADDR[/LEN][:rwx] is a token of its own that a blank ends. Anything
// else (two words) is perf's syntax error, refused in one line.
#include "record/event_blanks.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "record/event_parse.h"
#include "util/log.h"

static bool blank(char c)
{
	return c && isspace((unsigned char)c);
}

/* perf's lexer's one-byte tokens, which blanks may stand around */
static bool token_mark(char c)
{
	return c && strchr(",{}/:=", c);
}

/* Modifier letters alone at p (blanks, then a group's '}' or the end
 * after them): how many, 0 when p holds anything else. */
static size_t mods_alone(const char *p)
{
	size_t n = strspn(p, PREC_EVENT_MODS);
	const char *q = p + n;

	while (blank(*q))
		q++;
	return n && (!*q || *q == '}') ? n : 0;
}

static int blank_error(const char *text)
{
	pr_err("event '%s': event syntax error, as perf's: a blank between two words (blanks go between perf's tokens: around , { } / : =, and before modifier letters), or inside a breakpoint's mem:ADDR[/LEN][:rwx]",
	       text);
	return -EINVAL;
}

/* Where a breakpoint's blanks stand: perf's lexer reads mem:ADDR[/LEN]
 * [:rwx] in a state of its own, which a blank ends; what follows is read
 * as any event's tokens. So its rwx letters come before any blank, and
 * with a LEN a blank before the '/' leaves no modifiers after it (each
 * one of perf's syntax errors). */
struct bp_blanks {
	int part;        /* 0: no breakpoint; 1: ADDR; 2: LEN on */
	bool seen;       /* a blank dropped since mem: */
	bool before_len; /* one before LEN's '/' */
};

/* c about to follow out[n - 1] in a breakpoint (as a ':' inserted for
 * modifiers too): whether perf's lexer refuses it there. */
static bool bp_refuses(struct bp_blanks *bp, char before, char c)
{
	if (!bp->part)
		return false;
	if (c == '/' && bp->part == 1)
		bp->part = 2;
	if (before != ':')
		return false;
	if (strchr("rwx", c))
		return bp->seen;
	return strchr(PREC_EVENT_MODS, c) && bp->part == 2 && bp->before_len;
}

int prec_event__drop_blanks(const char *text, const char *raw, char *out, size_t size)
{
	struct bp_blanks bp = { 0 };
	const char *p = raw;
	size_t n = 0;
	int slashes = 0;

	if (size <= strlen(raw))
		return blank_error(text);
	while (*p) {
		const char *q = p;
		char before = n ? out[n - 1] : 0;

		if (!n || before == '{') {
			/* an event starts: mem:, whole (mem :0x1000 is no
			 * breakpoint for perf's lexer) */
			bp.part = !strncmp(p, "mem:", 4);
			bp.seen = bp.before_len = false;
			if (!strncmp(p, "mem", 3) && blank(p[3]) && p[3 + strspn(p + 3, " \t\n\v\f\r")] == ':')
				return blank_error(text);
			if (bp.part) {
				memcpy(out + n, p, 4);
				n += 4;
				p += 4;
				continue;
			}
		}
		if (!blank(*p)) {
			/* a breakpoint's LEN follows a '/' that opens no terms */
			slashes += *p == '/' && bp.part != 1;
			if (bp_refuses(&bp, before, *p))
				return blank_error(text);
			out[n++] = *p++;
			continue;
		}
		while (blank(*q))
			q++;
		bp.seen = true;
		bp.before_len |= bp.part == 1;
		if (!before || !*q || token_mark(before) || token_mark(*q)) {
			p = q;
			continue;
		}
		/* perf's grammar: an event's ':' before its modifiers may be
		 * left out, where a blank parts them from the name */
		if (slashes % 2 || !mods_alone(q) || bp_refuses(&bp, ':', *q))
			return blank_error(text);
		out[n++] = ':';
		p = q;
	}
	out[n] = 0;
	return 0;
}
