// SPDX-License-Identifier: MIT
// perf's per-program BPF record (bpf_prog.h): where each array sits in
// struct bpf_prog_info, and the check that a record's arrays lie inside it,
// so that a manifest's bytes never send perf reading past them.
#include "store/bpf_prog.h"
#include "util/bytes.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stddef.h>

#define INFO(f) ((uint16_t)offsetof(struct bpf_prog_info, f))

const struct prec_bpf_array_desc prec_bpf_arrays[PREC_BPF_NR_ARRAYS] = {
	[PREC_BPF_JITED_INSNS] = { INFO(jited_prog_insns), INFO(jited_prog_len), 0, 1,
				   "jited_prog_insns" },
	[PREC_BPF_XLATED_INSNS] = { INFO(xlated_prog_insns), INFO(xlated_prog_len), 0, 1,
				    "xlated_prog_insns" },
	[PREC_BPF_MAP_IDS] = { INFO(map_ids), INFO(nr_map_ids), 0, 4, "map_ids" },
	[PREC_BPF_JITED_KSYMS] = { INFO(jited_ksyms), INFO(nr_jited_ksyms), 0, 8,
				   "jited_ksyms" },
	[PREC_BPF_JITED_FUNC_LENS] = { INFO(jited_func_lens), INFO(nr_jited_func_lens), 0, 4,
				       "jited_func_lens" },
	[PREC_BPF_FUNC_INFO] = { INFO(func_info), INFO(nr_func_info),
				 INFO(func_info_rec_size), 0, "func_info" },
	[PREC_BPF_LINE_INFO] = { INFO(line_info), INFO(nr_line_info),
				 INFO(line_info_rec_size), 0, "line_info" },
	[PREC_BPF_JITED_LINE_INFO] = { INFO(jited_line_info), INFO(nr_jited_line_info),
				       INFO(jited_line_info_rec_size), 0, "jited_line_info" },
	[PREC_BPF_PROG_TAGS] = { INFO(prog_tags), INFO(nr_prog_tags), 0, BPF_TAG_SIZE,
				 "prog_tags" },
};

/* Every field the table names is inside the shortest info a record has. */
_Static_assert(offsetof(struct bpf_prog_info, prog_tags) + 8 == PREC_BPF_INFO_MIN,
	       "PREC_BPF_INFO_MIN");
_Static_assert(offsetof(struct bpf_prog_info, attach_btf_id) + 4 <= PREC_BPF_INFO_LEN &&
	       PREC_BPF_INFO_LEN % 8 == 0, "PREC_BPF_INFO_LEN");

/* The why of an array outside data, and of an address where none is held:
 * static strings, one per array. */
static const char *const past_data[PREC_BPF_NR_ARRAYS] = {
	"bpf_progs: jited_prog_insns past data_len",
	"bpf_progs: xlated_prog_insns past data_len",
	"bpf_progs: map_ids past data_len",
	"bpf_progs: jited_ksyms past data_len",
	"bpf_progs: jited_func_lens past data_len",
	"bpf_progs: func_info past data_len",
	"bpf_progs: line_info past data_len",
	"bpf_progs: jited_line_info past data_len",
	"bpf_progs: prog_tags past data_len",
};
static const char *const not_held[PREC_BPF_NR_ARRAYS] = {
	"bpf_progs: jited_prog_insns address without the array",
	"bpf_progs: xlated_prog_insns address without the array",
	"bpf_progs: map_ids address without the array",
	"bpf_progs: jited_ksyms address without the array",
	"bpf_progs: jited_func_lens address without the array",
	"bpf_progs: func_info address without the array",
	"bpf_progs: line_info address without the array",
	"bpf_progs: jited_line_info address without the array",
	"bpf_progs: prog_tags address without the array",
};

uint32_t prec_bpf_prog__elem_size(const uint8_t *info, int i)
{
	const struct prec_bpf_array_desc *d = &prec_bpf_arrays[i];

	return d->fixed ? d->fixed : prec_ld32(info + d->size_off);
}

static int bad(const char **why, const char *what)
{
	*why = what;
	return -EBADMSG;
}

int prec_bpf_prog__check(const uint8_t *rec, size_t len, uint32_t max_data,
			 const char **why)
{
	uint32_t info_len, data_len;
	uint64_t arrays;
	const uint8_t *info;

	if (len < PREC_BPF_PROG_HDR + PREC_BPF_INFO_MIN)
		return bad(why, "bpf_progs: a record shorter than its info");
	info_len = prec_ld32(rec);
	data_len = prec_ld32(rec + 4);
	arrays = prec_ld64(rec + 8);
	if (info_len < PREC_BPF_INFO_MIN || info_len > PREC_BPF_INFO_LEN || info_len % 8)
		return bad(why, "bpf_progs: info_len out of range");
	if (data_len > max_data || data_len % 8)
		return bad(why, "bpf_progs: data_len over its bound");
	if (len != (size_t)PREC_BPF_PROG_HDR + info_len + data_len)
		return bad(why, "bpf_progs: record length not info_len + data_len");
	if (arrays >> PREC_BPF_NR_ARRAYS)
		return bad(why, "bpf_progs: arrays has unknown bits");
	info = rec + PREC_BPF_PROG_HDR;
	for (int i = 0; i < PREC_BPF_NR_ARRAYS; i++) {
		const struct prec_bpf_array_desc *d = &prec_bpf_arrays[i];
		uint64_t at = prec_ld64(info + d->addr_off);
		uint64_t bytes = (uint64_t)prec_ld32(info + d->count_off) *
				 prec_bpf_prog__elem_size(info, i);

		if (!(arrays & (1ull << i))) {
			if (at)
				return bad(why, not_held[i]);
			continue;
		}
		if (at > data_len || bytes > data_len - at)
			return bad(why, past_data[i]);
	}
	*why = NULL;
	return 0;
}
