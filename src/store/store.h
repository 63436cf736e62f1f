/* SPDX-License-Identifier: MIT */
/* prec store: the on-disk directory format shared by record and read, one
 * header per object; this one brings them all (and the chunk checksum,
 * crc32c.c). docs/format.md has every byte. */
#ifndef PREC_STORE_H
#define PREC_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "store/disk_budget.h"
#include "store/manifest.h"
#include "store/record_time.h"
#include "store/shard_format.h"
#include "store/shard_reader.h"
#include "store/shard_writer.h"
#include "store/writer_lock.h"

/* CRC-32C (Castagnoli). Pass 0 to start; chain by passing the previous
 * result. Uses the SSE4.2 instruction when the CPU has it. Thread-safe. */
uint32_t prec_crc32c(uint32_t crc, const void *buf, size_t len);
/* The same over src, which it also copies to dst (not overlapping): what a
 * memcpy then prec_crc32c(crc, dst, len) give, in one pass. */
uint32_t prec_crc32c_copy(uint32_t crc, void *dst, const void *src, size_t len);

#endif
