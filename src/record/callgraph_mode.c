// SPDX-License-Identifier: MIT
// perf's call-graph mode words (callgraph_mode.h).
#include "record/callgraph_mode.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DUMP_SIZE 65528     /* perf's: a u16, a multiple of 8 */

/* kernel.perf_event_max_stack: the frames a callchain may hold (127 when
 * it cannot be read, the kernel's default). */
static uint64_t kernel_max_stack(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_stack", "r");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v ? v : 127;
}

/* The first word of s at or after *p, words being split at ',' and
 * empty ones skipped (as strtok splits them), copied into w; *p moves
 * past it. Returns false when there is none. */
static bool next_word(const char **p, char *w, size_t len)
{
	size_t n;

	*p += strspn(*p, ",");
	n = strcspn(*p, ",");
	if (!n)
		return false;
	snprintf(w, len, "%.*s", (int)n, *p);
	*p += n;
	return true;
}

int prec_callgraph_mode__stack_size(const char *arg, uint32_t *size, const char **why)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 0);
	if (errno || *end || end == arg || !v || v > MAX_DUMP_SIZE) {
		*why = "dwarf stack size must be 1..65528 bytes";
		return -EINVAL;
	}
	/* The kernel wants a multiple of 8. */
	*size = (uint32_t)((v + 7) & ~7ull);
	return 0;
}

int prec_callgraph_mode__parse(const char *arg, struct prec_callgraph_mode *m,
			       const char **why)
{
	char mode[16], word[64];
	const char *p = arg;
	bool more;

	if (!next_word(&p, mode, sizeof(mode)))
		mode[0] = 0;
	more = next_word(&p, word, sizeof(word));
	m->max_stack = 0;
	m->stack_size = PREC_RECORD_DEFAULT_STACK;
	if (!strcmp(mode, "fp")) {
		unsigned long n = more ? strtoul(word, NULL, 0) : ULONG_MAX;

		m->mode = PREC_CG_FP;
		if (n < kernel_max_stack())
			m->max_stack = (uint16_t)n;
		return 0;
	}
	/* perf's: the PMU's call stack of user-space calls, kept in its
	 * branch records (Intel LBR), a CALLCHAIN beside them */
	if (!strcmp(mode, "lbr") && !more) {
		m->mode = PREC_CG_LBR;
		return 0;
	}
	if (strcmp(mode, "dwarf")) {
		*why = "expected fp[,frames], dwarf[,size] or lbr";
		return -EINVAL;
	}
	m->mode = PREC_CG_DWARF;
	return more ? prec_callgraph_mode__stack_size(word, &m->stack_size, why) : 0;
}
