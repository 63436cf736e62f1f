/* SPDX-License-Identifier: MIT */
/* Names in a BTF blob as the kernel hands one out (btf.c): enough to name
 * a BPF program's functions as the kernel and perf do. */
#ifndef PREC_UTIL_BTF_H
#define PREC_UTIL_BTF_H

#include <stddef.h>
#include <stdint.h>

/* The name of type id (1 = the first) in the BTF blob btf (len bytes, not
 * trusted: every offset is checked), NUL-terminated inside the blob, or
 * NULL when the blob is not BTF, has no such type, or the type has no
 * name. Walks the types up to id: O(id). */
const char *prec_btf__type_name(const uint8_t *btf, size_t len, uint32_t id);

#endif
