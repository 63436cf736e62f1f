// SPDX-License-Identifier: MIT
// perf 6.1's branch filter names (branch_modes.h).
#include "record/branch_modes.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <strings.h>

/* perf 6.1's table (util/parse-branch-options.c): no hw_index there, a
 * bit perf sets only for --call-graph lbr */
static const struct {
	const char *name;
	uint64_t bit;
} modes[] = {
	{ "u", PERF_SAMPLE_BRANCH_USER }, { "k", PERF_SAMPLE_BRANCH_KERNEL },
	{ "hv", PERF_SAMPLE_BRANCH_HV }, { "any", PERF_SAMPLE_BRANCH_ANY },
	{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL }, { "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
	{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL }, { "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
	{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX }, { "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
	{ "cond", PERF_SAMPLE_BRANCH_COND }, { "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
	{ "call", PERF_SAMPLE_BRANCH_CALL }, { "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
	{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK }, { "priv", PERF_SAMPLE_BRANCH_PRIV_SAVE },
};

#define PLM (PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV)

int prec_branch_modes__bits(const char *list, uint64_t *bits, const char **bad, size_t *bad_len)
{
	const char *p = list;

	for (;;) {
		size_t len = strcspn(p, ","), i;

		for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (strlen(modes[i].name) == len && !strncasecmp(modes[i].name, p, len))
				break;
		if (i == sizeof(modes) / sizeof(modes[0])) {
			*bad = p;
			*bad_len = len;
			return -EINVAL;
		}
		*bits |= modes[i].bit;
		if (!p[len])
			return 0;
		p += len + 1;
	}
}

uint64_t prec_branch_modes__settle(uint64_t mode)
{
	return mode & ~(uint64_t)PLM ? mode : PERF_SAMPLE_BRANCH_ANY;
}

int prec_branch_terms__add(struct prec_branch_terms *t, const char *value, size_t len)
{
	char word[64];
	uint64_t bits = 0;
	const char *bad;
	size_t bad_len;

	if (len == 2 && !strncmp(value, "no", 2)) {
		t->last = 0;
		return 0;
	}
	if (len >= sizeof(word))
		return -EINVAL;
	memcpy(word, value, len);
	word[len] = 0;
	if (prec_branch_modes__bits(word, &bits, &bad, &bad_len))
		return -EINVAL;
	if (t->named)
		t->rest |= bits;
	else
		t->first = bits;
	t->named = true;
	t->last = 1;
	return 0;
}

/* The names folded over x as perf's parse_branch_str folds each: once x
 * holds a bit past the privilege levels, a plain OR. */
static uint64_t fold(const struct prec_branch_terms *t, uint64_t x)
{
	if ((x | t->first) & ~(uint64_t)PLM)
		return x | t->first | t->rest;
	return PERF_SAMPLE_BRANCH_ANY | t->rest;
}

void prec_branch_terms__apply(const struct prec_branch_terms *t, uint64_t *sample_type,
			      uint64_t *bst)
{
	if (t->last < 0)
		return;
	if (t->named)
		*bst = fold(t, *bst ? *bst : fold(t, 0));
	if (t->last)
		*sample_type |= PERF_SAMPLE_BRANCH_STACK;
	else
		*sample_type &= ~(uint64_t)PERF_SAMPLE_BRANCH_STACK;
}
