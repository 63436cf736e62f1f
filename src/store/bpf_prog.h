/* SPDX-License-Identifier: MIT */
/* A BPF program's bpf_prog_info with its arrays, in the one block perf
 * stores per program in its BPF_PROG_INFO feature (bpf_prog.c): the record
 * the recorder builds from the bpf() syscall, the manifest keeps and the
 * merge writes as it is. docs/manifest-format.md (BPF_PROGS) has its bytes. */
#ifndef PREC_STORE_BPF_PROG_H
#define PREC_STORE_BPF_PROG_H

#include <stddef.h>
#include <stdint.h>

/* The record: u32 info_len, u32 data_len, u64 arrays (a bit per array
 * below that data holds), struct bpf_prog_info (info_len bytes), data
 * (data_len bytes: the arrays in bit order, each padded to 8). In info each
 * held array's address field is its offset in data. */
#define PREC_BPF_PROG_HDR 16u
/* sizeof(struct bpf_prog_info) of perf 6.1's headers (up to
 * attach_btf_id): perf refuses a longer one ("detected invalid
 * bpf_prog_info"), so that is what prec asks the kernel for. */
#define PREC_BPF_INFO_LEN 232u
/* The shortest info a record may hold: through prog_tags, the last array
 * perf reads (older kernels write less; perf then skips the program). */
#define PREC_BPF_INFO_MIN 192u

/* perf's array numbers (PERF_BPIL_*), the bits of the record's arrays. */
enum prec_bpf_array {
	PREC_BPF_JITED_INSNS = 0,
	PREC_BPF_XLATED_INSNS,
	PREC_BPF_MAP_IDS,
	PREC_BPF_JITED_KSYMS,
	PREC_BPF_JITED_FUNC_LENS,
	PREC_BPF_FUNC_INFO,
	PREC_BPF_LINE_INFO,
	PREC_BPF_JITED_LINE_INFO,
	PREC_BPF_PROG_TAGS,
	PREC_BPF_NR_ARRAYS
};

/* The arrays perf record asks for (and prec): the JITed code and its
 * functions' addresses, lengths and tags, the BTF func and line info and
 * the line info's JITed addresses; not the translated code or map ids. */
#define PREC_BPF_ARRAYS_RECORDED                                              \
	((1u << PREC_BPF_JITED_INSNS) | (1u << PREC_BPF_JITED_KSYMS) |        \
	 (1u << PREC_BPF_JITED_FUNC_LENS) | (1u << PREC_BPF_FUNC_INFO) |      \
	 (1u << PREC_BPF_LINE_INFO) | (1u << PREC_BPF_JITED_LINE_INFO) |      \
	 (1u << PREC_BPF_PROG_TAGS))

/* Where array i lives in struct bpf_prog_info: its address (u64) and
 * element count (u32) fields, and its element size: fixed, or (fixed 0)
 * read from the u32 field at size_off. name is the info field's. */
struct prec_bpf_array_desc {
	uint16_t addr_off, count_off, size_off;
	uint16_t fixed;
	const char *name;
};
extern const struct prec_bpf_array_desc prec_bpf_arrays[PREC_BPF_NR_ARRAYS];

/* Array i's element size as the info says it. */
uint32_t prec_bpf_prog__elem_size(const uint8_t *info, int i);

/* Whether rec (len bytes) is a record prec writes and perf reads within
 * its bounds: info_len from PREC_BPF_INFO_MIN to PREC_BPF_INFO_LEN, both
 * lengths multiples of 8, data_len at most max_data, the record exactly
 * len bytes, no arrays bit past PREC_BPF_PROG_TAGS, every held array inside
 * data and every other one's address 0. Returns 0, or -EBADMSG with *why
 * naming the field (a static string, "bpf_progs: ..."). */
int prec_bpf_prog__check(const uint8_t *rec, size_t len, uint32_t max_data,
			 const char **why);

#endif
