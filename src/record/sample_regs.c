// SPDX-License-Identifier: MIT
// Register names to sample_regs_* bits for this machine's architecture,
// the numbering of the kernel's uapi asm/perf_regs.h.
#include "record/sample_regs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct reg {
	const char *name;
	unsigned bit;
};

#if defined(__x86_64__)
static const struct reg regs[] = {
	{ "ax", 0 }, { "bx", 1 }, { "cx", 2 }, { "dx", 3 }, { "si", 4 }, { "di", 5 },
	{ "bp", 6 }, { "sp", 7 }, { "ip", 8 }, { "flags", 9 }, { "cs", 10 }, { "ss", 11 },
	{ "r8", 16 }, { "r9", 17 }, { "r10", 18 }, { "r11", 19 }, { "r12", 20 },
	{ "r13", 21 }, { "r14", 22 }, { "r15", 23 },
};
/* bits 0..23 less ds, es, fs, gs (12..15), which the kernel reads as 0 */
#define DEFAULT_MASK 0xff0fffull
#elif defined(__aarch64__)
static const struct reg regs[] = {
	{ "x0", 0 }, { "x1", 1 }, { "x2", 2 }, { "x3", 3 }, { "x4", 4 }, { "x5", 5 },
	{ "x6", 6 }, { "x7", 7 }, { "x8", 8 }, { "x9", 9 }, { "x10", 10 }, { "x11", 11 },
	{ "x12", 12 }, { "x13", 13 }, { "x14", 14 }, { "x15", 15 }, { "x16", 16 },
	{ "x17", 17 }, { "x18", 18 }, { "x19", 19 }, { "x20", 20 }, { "x21", 21 },
	{ "x22", 22 }, { "x23", 23 }, { "x24", 24 }, { "x25", 25 }, { "x26", 26 },
	{ "x27", 27 }, { "x28", 28 }, { "x29", 29 }, { "lr", 30 }, { "sp", 31 },
	{ "pc", 32 },
};
/* x0..x28, x29, lr, sp, pc */
#define DEFAULT_MASK ((1ull << 33) - 1)
#else
static const struct reg regs[] = { { "", 0 } };
#define DEFAULT_MASK 0ull
#endif
#define NR_REGS (sizeof(regs) / sizeof(regs[0]))

uint64_t prec_sample_regs__default(void)
{
	return DEFAULT_MASK;
}

static int lookup(const char *name, size_t len, uint64_t *mask)
{
	for (size_t i = 0; i < NR_REGS; i++) {
		if (*regs[i].name && strlen(regs[i].name) == len &&
		    !strncasecmp(regs[i].name, name, len)) {
			*mask |= 1ull << regs[i].bit;
			return 0;
		}
	}
	return -EINVAL;
}

int prec_sample_regs__parse(const char *list, uint64_t *mask, FILE *f)
{
	uint64_t m = 0;

	if (!list || !*list) {
		*mask = DEFAULT_MASK;
		return DEFAULT_MASK ? 0 : -EINVAL;
	}
	if (!strcmp(list, "?")) {
		fprintf(f, "available registers:");
		for (size_t i = 0; i < NR_REGS; i++)
			fprintf(f, " %s", regs[i].name);
		fprintf(f, "\n");
		return 1;
	}
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		if (!len || lookup(p, len, &m))
			return -EINVAL;
		p += len;
		if (*p == ',' && *++p == 0)
			return -EINVAL;
	}
	*mask = m;
	return 0;
}
