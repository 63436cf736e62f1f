/* SPDX-License-Identifier: MIT */
/* Private to src/store and its tests: the two CRC-32C implementations behind
 * prec_crc32c(), exposed so a test can check that they agree. */
#ifndef PREC_STORE_CRC32C_H
#define PREC_STORE_CRC32C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Table-driven (slicing-by-8) CRC-32C; same contract as prec_crc32c(). */
uint32_t prec_crc32c__sw(uint32_t crc, const void *buf, size_t len);

/* The CPU's CRC-32C instruction (x86 SSE4.2 crc32, ARMv8 crc32c*); only
 * call when prec_crc32c__have_hw(). */
uint32_t prec_crc32c__hw(uint32_t crc, const void *buf, size_t len);

/* The same, copying src to dst (not overlapping) in the same pass. */
uint32_t prec_crc32c__hw_copy(uint32_t crc, void *dst, const void *src, size_t len);

/* True when the CPU has that instruction (cpuid on x86, AT_HWCAP's
 * HWCAP_CRC32 on arm64). */
bool prec_crc32c__have_hw(void);

#endif
