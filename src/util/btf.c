// SPDX-License-Identifier: MIT
// A BTF type's name (btf.h): the header, then the types one after another,
// each 12 bytes and a tail whose size its kind and vlen give
// (Documentation/bpf/btf.rst), then the strings.
#include "util/btf.h"
#include "util/bytes.h"

#include <string.h>

#define BTF_MAGIC_LE 0xeb9f
#define BTF_HDR_MIN 24u
#define BTF_TYPE_SIZE 12u

/* Bytes after a type's 12 by kind (1 INT ... 19 ENUM64), or -1 for a kind
 * this walk does not know (the rest cannot be found past it). */
static long tail_size(uint32_t kind, uint32_t vlen)
{
	switch (kind) {
	case 1: case 14: case 17:        /* INT, VAR, DECL_TAG */
		return 4;
	case 2: case 7: case 8: case 9: case 10: case 11: case 12: case 16: case 18:
		return 0;                /* PTR, FWD, TYPEDEF, qualifiers, FUNC, FLOAT, TYPE_TAG */
	case 3:                          /* ARRAY */
		return 12;
	case 4: case 5: case 15: case 19: /* STRUCT, UNION, DATASEC, ENUM64 */
		return 12l * vlen;
	case 6: case 13:                 /* ENUM, FUNC_PROTO */
		return 8l * vlen;
	default:
		return -1;
	}
}

const char *prec_btf__type_name(const uint8_t *btf, size_t len, uint32_t id)
{
	uint32_t hdr_len, type_off, type_len, str_off, str_len, name_off = 0;
	const uint8_t *types, *strs;
	size_t at = 0;

	if (len < BTF_HDR_MIN || prec_ld16(btf) != BTF_MAGIC_LE || !id)
		return NULL;
	hdr_len = prec_ld32(btf + 4);
	type_off = prec_ld32(btf + 8);
	type_len = prec_ld32(btf + 12);
	str_off = prec_ld32(btf + 16);
	str_len = prec_ld32(btf + 20);
	if (hdr_len < BTF_HDR_MIN || hdr_len > len ||
	    (uint64_t)type_off + type_len > len - hdr_len ||
	    (uint64_t)str_off + str_len > len - hdr_len)
		return NULL;
	types = btf + hdr_len + type_off;
	strs = btf + hdr_len + str_off;
	for (uint32_t t = 1; t <= id; t++) {
		uint32_t info;
		long tail;

		if (type_len - at < BTF_TYPE_SIZE)
			return NULL;
		info = prec_ld32(types + at + 4);
		tail = tail_size((info >> 24) & 0x1f, info & 0xffff);
		if (tail < 0 || (uint64_t)tail > type_len - at - BTF_TYPE_SIZE)
			return NULL;
		name_off = prec_ld32(types + at);
		at += BTF_TYPE_SIZE + (size_t)tail;
	}
	if (!name_off || name_off >= str_len || !memchr(strs + name_off, 0, str_len - name_off))
		return NULL;
	return (const char *)strs + name_off;
}
