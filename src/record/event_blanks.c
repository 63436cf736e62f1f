// SPDX-License-Identifier: MIT
// An -e list's blanks as perf 6.1's lexer reads them, before the grammar
// (event_parse.c) sees the text: a blank between perf's one-byte tokens
// (, { } / : =) or at either end is skipped, a blank before modifier
// letters outside the slashes stands for their ':', and a breakpoint's
// mem:ADDR[/LEN][:rwx] is a token of its own that a blank ends. Anything
// else (two words) is perf's syntax error, refused in one line. A blank
// is any byte perf's lexer skips (its catch-all rule): !cpu-clock is
// cpu-clock, named "!cpu-clock" as perf names it.
#include "record/event_blanks.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "record/event_parse.h"
#include "util/log.h"

/* The bytes a name token of perf's lexer continues with */
static bool name_byte(char c)
{
	return c && (isalnum((unsigned char)c) || strchr("_*?.[]!", c));
}

/* perf's symbols spelled with a '-' (its lexer's fixed words), after
 * which a '.' or '!' starts no name: the word is the symbol's */
static bool hyphen_symbol(const char *w, size_t len)
{
	static const char *const words[] = {
		"cpu-cycles", "stalled-cycles-frontend", "idle-cycles-frontend",
		"stalled-cycles-backend", "idle-cycles-backend", "cache-references",
		"cache-misses", "branch-instructions", "branch-misses", "bus-cycles",
		"ref-cycles", "cpu-clock", "task-clock", "page-faults", "minor-faults",
		"major-faults", "context-switches", "cpu-migrations", "alignment-faults",
		"emulation-faults", "bpf-output", "cgroup-switches", "cycles-ct", "cycles-t",
		"mem-loads", "mem-stores",
	};
	static const char *const prefixes[] = { "topdown-", "tx-capacity-", "el-capacity-" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == len && !strncmp(w, words[i], len))
			return true;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t n = strlen(prefixes[i]);

		if (len > n && !strncmp(w, prefixes[i], n) &&
		    strspn(w + n, "abcdefghijklmnopqrstuvwxyz-") >= len - n)
			return true;
	}
	return false;
}

/* perf's quoted name, '[a-zA-Z_*?[]][a-zA-Z0-9_*?-,.[]:=]*': whether
 * the quote at p opens one or closes one (raw: the item's start) */
static bool name_quote(const char *raw, const char *p)
{
	static const char *const inner = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_*?-,.[]:=";
	const char *o = p;

	if (strchr("_*?[]", p[1]) || isalpha((unsigned char)p[1])) {
		size_t n = strspn(p + 1, inner);

		if (n && p[1 + n] == '\'')
			return true;
	}
	while (o > raw && strchr(inner, o[-1]))
		o--;
	return o > raw && o < p && o[-1] == '\'' && (strchr("_*?[]", *o) || isalpha((unsigned char)*o));
}

/* Whether perf's lexer skips the byte at p (raw: the item's start;
 * in_terms: between a pmu's or event's slashes), as its catch-all rule
 * skips a byte no token starts with: a blank, a byte past ASCII, any of
 * !"#$%&()+;<>@\^`|~ ..., a quote that neither opens nor closes a
 * quoted name (!cpu-clock, cpu-clock#u, cpu-clock'). Such a byte is a
 * blank to the rules below. A '.' or '!' after a name's bytes is the
 * name's (cycles! is one name), but after a number (period=1!), a
 * symbol with a '-' (cpu-clock!) and, between slashes, after a word
 * with one (name=a-b! : perf's term names take no '!'). A '@' between
 * slashes starts perf's driver terms, left to the grammar. */
bool prec_event__skipped(const char *raw, const char *p, bool in_terms)
{
	unsigned char c = (unsigned char)*p;
	const char *q = p, *w;

	if (!c)
		return false;
	if (isspace(c) || c >= 0x80)
		return true;
	if (isalnum(c) || strchr("_*?[]/-,:{}=", c))
		return false;
	if (c == '\'')
		return !name_quote(raw, p);
	/* name="a,b" between slashes is left to the grammar's refusal */
	if (c == '@' || c == '"')
		return !in_terms;
	if (c != '.' && c != '!')
		return true;
	while (q > raw && name_byte(q[-1]))
		q--;
	if (q == p || strspn(q, "0123456789") == (size_t)(p - q) ||
	    (p - q > 2 && !strncmp(q, "0x", 2) && strspn(q + 2, "0123456789abcdefABCDEF") == (size_t)(p - q - 2)))
		return true;
	if (q == raw || q[-1] != '-')
		return false;
	if (in_terms)
		return c == '!';
	for (w = q; w > raw && (isalnum((unsigned char)w[-1]) || w[-1] == '_' || w[-1] == '-'); w--)
		;
	return hyphen_symbol(w, (size_t)(p - w));
}

/* perf's lexer's one-byte tokens, which blanks may stand around */
static bool token_mark(char c)
{
	return c && strchr(",{}/:=", c);
}

/* Modifier letters alone at p (blanks, then a group's '}' or the end
 * after them): how many, 0 when p holds anything else. */
static size_t mods_alone(const char *raw, const char *p)
{
	size_t n = strspn(p, PREC_EVENT_MODS);
	const char *q = p + n;

	while (prec_event__skipped(raw, q, false))
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
			if (!strncmp(p, "mem", 3) && prec_event__skipped(raw, p + 3, false)) {
				for (q = p + 3; prec_event__skipped(raw, q, false); q++)
					;
				if (*q == ':')
					return blank_error(text);
			}
			if (bp.part) {
				memcpy(out + n, p, 4);
				n += 4;
				p += 4;
				continue;
			}
		}
		if (!prec_event__skipped(raw, p, slashes % 2)) {
			/* a breakpoint's LEN follows a '/' that opens no terms */
			slashes += *p == '/' && bp.part != 1;
			if (bp_refuses(&bp, before, *p))
				return blank_error(text);
			out[n++] = *p++;
			continue;
		}
		while (prec_event__skipped(raw, q, slashes % 2))
			q++;
		bp.seen = true;
		bp.before_len |= bp.part == 1;
		if (!before || !*q || token_mark(before) || token_mark(*q)) {
			p = q;
			continue;
		}
		/* perf's grammar: an event's ':' before its modifiers may be
		 * left out, where a blank parts them from the name */
		if (slashes % 2 || !mods_alone(raw, q) || bp_refuses(&bp, ':', *q))
			return blank_error(text);
		out[n++] = ':';
		p = q;
	}
	out[n] = 0;
	return 0;
}
