// SPDX-License-Identifier: MIT
// A BTF type's name (util/btf.c), as the recorder names a BPF program's
// functions by it: found past types of every tail size (INT, STRUCT,
// FUNC_PROTO, ENUM, ARRAY ...), none for id 0, an id past the types, a
// type without a name; and nothing read outside a blob that lies: a bad
// magic, a header or section past the end, a tail past the types, a kind
// it does not know, a name past the strings or without its NUL.
#include <linux/btf.h>
#include <stdint.h>
#include <string.h>

#include "../lib/test.h"
#include "util/btf.h"

static uint8_t blob[512];
static size_t used;

static void put32(uint32_t v)
{
	memcpy(blob + used, &v, 4);
	used += 4;
}

static void type(uint32_t name, uint32_t kind, uint32_t vlen, uint32_t size)
{
	put32(name);
	put32(kind << 24 | vlen);
	put32(size);
}

/* Strings "\0int\0point\0myfunc\0": 1 int, 5 point, 11 myfunc. */
static const char strs[] = "\0int\0point\0myfunc";

/* The blob: [1] int, [2] struct point { int x, y; }, [3] int (*)(int),
 * [4] enum of 3, [5] int[4], [6] ptr to 2, [7] func myfunc of 3. Returns
 * its size; types at 24, strings after them. */
static size_t build(void)
{
	struct btf_header h = { .magic = BTF_MAGIC, .version = 1, .hdr_len = sizeof(h) };
	size_t types;

	used = sizeof(h);
	type(1, BTF_KIND_INT, 0, 4), put32(32);
	type(5, BTF_KIND_STRUCT, 2, 8), put32(1), put32(1), put32(0), put32(1), put32(1), put32(32);
	type(0, BTF_KIND_FUNC_PROTO, 1, 1), put32(0), put32(1);
	type(0, BTF_KIND_ENUM, 3, 4), put32(1), put32(0), put32(1), put32(1), put32(1), put32(2);
	type(0, BTF_KIND_ARRAY, 0, 0), put32(1), put32(1), put32(4);
	type(0, BTF_KIND_PTR, 0, 2);
	type(11, BTF_KIND_FUNC, 0, 3);
	types = used - sizeof(h);
	memcpy(blob + used, strs, sizeof(strs));
	used += sizeof(strs);
	h.type_len = (uint32_t)types;
	h.str_off = (uint32_t)types;
	h.str_len = sizeof(strs);
	memcpy(blob, &h, sizeof(h));
	return used;
}

static int named(size_t len, uint32_t id, const char *want)
{
	const char *got = prec_btf__type_name(blob, len, id);

	return want ? got && !strcmp(got, want) : !got;
}

int main(void)
{
	size_t len = build(), types_end = len - sizeof(strs);

	CHECK(named(len, 1, "int"));
	CHECK(named(len, 2, "point"));
	CHECK(named(len, 7, "myfunc"));
	CHECK(named(len, 3, NULL));  /* no name */
	CHECK(named(len, 0, NULL));
	CHECK(named(len, 8, NULL));  /* past the types */
	CHECK(named(len - 1, 7, NULL)); /* the strings past the end */
	CHECK(named(23, 1, NULL));   /* no whole header */
	blob[0] ^= 1;
	CHECK(named(len, 1, NULL));
	blob[0] ^= 1;
	/* a tail past the types: the struct with 9 members */
	blob[24 + 16 + 4] = 9;
	CHECK(named(len, 7, NULL));
	CHECK(named(len, 1, "int"));  /* what comes before still reads */
	blob[24 + 16 + 4] = 2;
	/* a kind it does not know (31) before the function */
	blob[24 + 16 + 7] = 31;
	CHECK(named(len, 7, NULL));
	blob[24 + 16 + 7] = BTF_KIND_STRUCT;
	/* the function's name past the strings, then on the last NUL-less byte */
	blob[types_end - 12] = sizeof(strs);
	CHECK(named(len, 7, NULL));
	blob[types_end - 12] = 11;
	blob[len - 1] = 'x';
	CHECK(named(len, 7, NULL));
	blob[len - 1] = 0;
	CHECK(named(len, 7, "myfunc"));
	/* a header length past the blob */
	blob[4] = 200;
	CHECK(named(len, 1, NULL));
	return 0;
}
