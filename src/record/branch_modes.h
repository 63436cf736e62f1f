/* SPDX-License-Identifier: MIT */
/* perf 6.1's branch filter names (-j, and the branch_type= event term)
 * read as its parse_branch_str reads them. */
#ifndef PREC_RECORD_BRANCH_MODES_H
#define PREC_RECORD_BRANCH_MODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The names of list, split at ',' and each matched case aside, ORed into
 * *bits as they are (no default). Returns 0, or -EINVAL with *bad the
 * first word that names no filter (perf's "unknown branch filter"; an
 * empty word too), *bad pointing into list, *bad_len its length. */
int prec_branch_modes__bits(const char *list, uint64_t *bits, const char **bad, size_t *bad_len);
/* perf's default: a mode of privilege levels only (u, k, hv) or none is
 * any branch, and keeps only ANY (perf 6.1 drops the levels then). */
uint64_t prec_branch_modes__settle(uint64_t mode);

/* An event's branch_type= terms, in their order, as perf 6.1 applies
 * them: each name sets the BRANCH_STACK bit and ORs its bits into the
 * attr's branch_sample_type, settling after each ("k" alone is ANY, and
 * "k" after it ORs in); "no" clears the bit and leaves the type. Kept as
 * what the fold needs: the first name's bits, the later ones' OR. */
struct prec_branch_terms {
	uint64_t first, rest;
	bool named;   /* a branch_type=NAME (not "no") given */
	int8_t last;  /* the last term: 1 a name, 0 "no", -1 none */
};

/* A branch_type= value (value, len bytes: one of perf's names, or "no")
 * after the terms t holds. Returns 0, or -EINVAL for a word perf's
 * parse_branch_str refuses. */
int prec_branch_terms__add(struct prec_branch_terms *t, const char *value, size_t len);
/* The terms over an attr: *bst is the type the options set (-j, -b,
 * --call-graph lbr), 0 for none, in which case the terms' own first
 * (perf's parse-time attr); *sample_type's BRANCH_STACK as the last term
 * says. No term: both unchanged. */
void prec_branch_terms__apply(const struct prec_branch_terms *t, uint64_t *sample_type,
			      uint64_t *bst);

#endif
