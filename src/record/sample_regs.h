/* SPDX-License-Identifier: MIT */
/* The machine's registers as perf names them for -I/--intr-regs and
 * --user-regs: names to the kernel's sample_regs_* bits (asm/perf_regs.h). */
#ifndef PREC_RECORD_SAMPLE_REGS_H
#define PREC_RECORD_SAMPLE_REGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The registers perf samples at the interrupt (-I) when none are named:
 * every general one the kernel can give (x86_64: not the segment selectors
 * ds, es, fs, gs; arm64: x0..x29, lr, sp, pc). */
uint64_t prec_sample_regs__default(void);

/* The user registers perf samples for --user-regs without a list and for
 * --call-graph dwarf: the same, plus on arm64 vg when the CPU has SVE and
 * the kernel accepts it (found out once, by opening and closing a cycles
 * event: as perf does). Any thread. */
uint64_t prec_sample_regs__user_default(void);

/* The user registers perf adds to every event's samples for frame-pointer
 * callchains (-g, --call-graph fp): arm64's lr, which holds a leaf
 * function's caller while no frame record does (perf report mends the
 * chain with it); 0 on x86_64. */
uint64_t prec_sample_regs__fp_leaf(void);

/* The two user registers perf forces for --call-graph dwarf when
 * --user-regs names a subset (its DWARF_MINIMAL_REGS): the instruction
 * and stack pointers (x86_64 ip, sp; arm64 pc, sp); 0 elsewhere. */
uint64_t prec_sample_regs__dwarf_minimal(void);

/* list: register names, comma-separated, case-insensitive (perf's), or
 * NULL/"" for the default (user: the user registers'). Returns 0 with
 * *mask set, 1 when the list reaches a "?" item (the names were printed
 * to f as perf prints them), -EINVAL for a name this machine lacks (not
 * printed: the caller names its option). */
int prec_sample_regs__parse(const char *list, bool user, uint64_t *mask, FILE *f);

#endif
