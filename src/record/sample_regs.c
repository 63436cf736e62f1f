// SPDX-License-Identifier: MIT
// Register names to sample_regs_* bits for this machine's architecture,
// the numbering of the kernel's uapi asm/perf_regs.h.
#include "record/sample_regs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(__aarch64__)
#include <linux/perf_event.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

struct reg {
	const char *name;
	unsigned bit;
};

/* Spelled as perf's list (-I?) spells them: x86's in capitals, arm64's
 * not; taken in any case. */
#if defined(__x86_64__)
static const struct reg regs[] = {
	{ "AX", 0 }, { "BX", 1 }, { "CX", 2 }, { "DX", 3 }, { "SI", 4 }, { "DI", 5 },
	{ "BP", 6 }, { "SP", 7 }, { "IP", 8 }, { "FLAGS", 9 }, { "CS", 10 }, { "SS", 11 },
	{ "R8", 16 }, { "R9", 17 }, { "R10", 18 }, { "R11", 19 }, { "R12", 20 },
	{ "R13", 21 }, { "R14", 22 }, { "R15", 23 },
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
	{ "pc", 32 }, { "vg", 46 },
};
/* x0..x28, x29, lr, sp, pc: perf's PERF_REGS_MASK */
#define DEFAULT_MASK ((1ull << 33) - 1)
/* vg, SVE's vector length in 64-bit granules: an unwinder needs it for the
 * CFI of frames that hold SVE registers. User registers only. */
#define VG_BIT (1ull << 46)
#ifndef HWCAP_SVE
#define HWCAP_SVE (1 << 22)
#endif
#else
static const struct reg regs[] = { { "", 0 } };
#define DEFAULT_MASK 0ull
#endif
#define NR_REGS (sizeof(regs) / sizeof(regs[0]))

uint64_t prec_sample_regs__default(void)
{
	return DEFAULT_MASK;
}

#if defined(__aarch64__)
static uint64_t user_mask = DEFAULT_MASK;
static pthread_once_t user_once = PTHREAD_ONCE_INIT;

/* As perf decides its arm64 user mask: vg when the CPU has SVE and the
 * kernel takes the bit (6.0+ does), asked of the kernel with a cycles
 * event on this thread that is opened disabled and closed at once. */
static void user_probe(void)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_type = PERF_SAMPLE_REGS_USER,
		.sample_period = 1,
		.sample_regs_user = DEFAULT_MASK | VG_BIT,
		.disabled = 1,
		.exclude_kernel = 1,
	};
	long fd;

	if (!(getauxval(AT_HWCAP) & HWCAP_SVE))
		return;
	fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd >= 0) {
		close((int)fd);
		user_mask = DEFAULT_MASK | VG_BIT;
	}
}

uint64_t prec_sample_regs__user_default(void)
{
	pthread_once(&user_once, user_probe);
	return user_mask;
}
#else
uint64_t prec_sample_regs__user_default(void)
{
	return DEFAULT_MASK;
}
#endif

uint64_t prec_sample_regs__fp_leaf(void)
{
#if defined(__aarch64__)
	return 1ull << 30; /* lr */
#else
	return 0;
#endif
}

uint64_t prec_sample_regs__dwarf_minimal(void)
{
#if defined(__x86_64__)
	return (1ull << 7) | (1ull << 8); /* sp, ip */
#elif defined(__aarch64__)
	return (1ull << 31) | (1ull << 32); /* sp, pc */
#else
	return 0;
#endif
}

/* name's bit in *mask, when it is one of the registers in avail. */
static int lookup(const char *name, size_t len, uint64_t avail, uint64_t *mask)
{
	for (size_t i = 0; i < NR_REGS; i++) {
		if ((avail >> regs[i].bit & 1) && strlen(regs[i].name) == len &&
		    !strncasecmp(regs[i].name, name, len)) {
			*mask |= 1ull << regs[i].bit;
			return 0;
		}
	}
	return -EINVAL;
}

int prec_sample_regs__parse(const char *list, bool user, uint64_t *mask, FILE *f)
{
	uint64_t avail = user ? prec_sample_regs__user_default() : DEFAULT_MASK, m = 0;

	if (!list || !*list) {
		*mask = avail;
		return avail ? 0 : -EINVAL;
	}
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");

		/* perf's list, byte for byte: each name and a blank */
		if (len == 1 && *p == '?') {
			fprintf(f, "available registers: ");
			for (size_t i = 0; i < NR_REGS; i++)
				if (avail >> regs[i].bit & 1)
					fprintf(f, "%s ", regs[i].name);
			fprintf(f, "\n");
			return 1;
		}
		if (!len || lookup(p, len, avail, &m))
			return -EINVAL;
		p += len;
		if (*p == ',' && *++p == 0)
			return -EINVAL;
	}
	*mask = m;
	return 0;
}
