/* SPDX-License-Identifier: MIT */
/* Sizes on the command line ("256", "512K", "4MiB", "500MB"): one parser
 * for prec record's own size options (--aux-size, --max-disk, ...), and
 * perf's syntax for perf's (-m, --max-size, --switch-output). */
#ifndef PREC_UTIL_SIZE_H
#define PREC_UTIL_SIZE_H

#include <stddef.h>
#include <stdint.h>

/* Syntax flag: byte sizes (prec's --max-disk, --max-staging; perf's own
 * options read theirs with prec_size__perf_tag()). A bare number counts
 * bytes and a B alone is a suffix too. Without it (perf's -m) a bare number counts the
 * caller's units (pages). The number is decimal either way, as perf's
 * (-m 010 is 10 pages). */
#define PREC_SIZE_BYTES 1u

/* The largest ring or AUX area prec_size__parse() accepts: 1 TiB. */
#define PREC_SIZE_RING_MAX (1ull << 40)

/* Split arg into its number (*num) and the multiplier of its suffix
 * (*mult): K, M or G in any case, optionally followed by B or iB, are
 * binary multiples; *mult is 0 when there is no suffix. Checks, in this
 * order: -EOVERFLOW (the number does not fit 64 bits), -EINVAL (arg does
 * not start with a digit or is no number), -EDOM (a fraction: 1.5G;
 * sizes are whole numbers, as perf's), -EINVAL (zero), -EOPNOTSUPP (a
 * suffix other than those). Returns 0 or one of those; *num and *mult
 * are set only on success. Pure; any thread. */
int prec_size__split(const char *arg, unsigned int flags, uint64_t *num,
		     uint64_t *mult);
/* prec_size__split(), then *bytes = num times the multiplier, or times
 * unit when there is no suffix. Returns 0, a split error, or -ERANGE
 * when the product does not fit 64 bits. */
int prec_size__bytes(const char *arg, unsigned int flags, uint64_t unit,
		     uint64_t *bytes);
/* A ring or AUX area: prec_size__bytes() with unit page_size (a power of
 * two) and no flags, at most PREC_SIZE_RING_MAX (else -ERANGE), rounded
 * up to a power-of-two number of pages as the kernel wants them. Returns
 * 0 or the -errno of prec_size__bytes(). */
int prec_size__parse(const char *arg, size_t page_size, uint64_t *bytes);

/* A tag of perf's parse_tag_value() and what it multiplies by. */
struct prec_size_tag {
	char tag;
	uint64_t mult;
};

/* s as perf's parse_tag_value() reads it, quirks and all, for the options
 * that take it (--max-size, --switch-output, -m's sizes): the first of
 * tags (their order, their case, ending at a tag 0) found anywhere in s
 * must follow strtoul's decimal number at s's start (blanks and a sign
 * before it) at once, and whatever comes after it is ignored ("1M5" is
 * 1M, "1MB" nothing: B is found first); no tag in s is nothing. Returns 0
 * with *v the product, or -EINVAL (what perf reads as none: also a
 * product over 64 bits, or all its bits set). Pure; any thread. */
int prec_size__perf_tag(const char *s, const struct prec_size_tag *tags, uint64_t *v);

#endif
