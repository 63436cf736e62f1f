// SPDX-License-Identifier: MIT
// Loaded BPF programs read with the bpf() syscall (bpf_info.h). A program's
// info is asked twice, as perf record asks it: once for the arrays' counts,
// then with room for each; what the kernel says the second time must match
// the first, or the record would promise bytes it does not hold.
#include "record/bpf_info.h"
#include "store/bpf_prog.h"
#include "util/bytes.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The largest element size believed for a sized array (the kernel's are
 * 8 and 16 bytes). */
#define ELEM_SIZE_MAX 64u

/* The call's result (an fd for the GET_FD_BY_ID commands, else 0) or -errno. */
static int sys_bpf(int cmd, union bpf_attr *a)
{
	long r = syscall(SYS_bpf, cmd, a, sizeof(*a));

	return r < 0 ? -errno : (int)r;
}

int prec_bpf_info__next_prog(uint32_t *id)
{
	union bpf_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.start_id = *id;
	err = sys_bpf(BPF_PROG_GET_NEXT_ID, &a);
	if (!err)
		*id = a.next_id;
	return err;
}

int prec_bpf_info__prog_fd(uint32_t id)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.prog_id = id;
	return sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
}

/* Object fd's info into buf (*len bytes room; the kernel's length back). */
static int obj_info(int fd, void *buf, uint32_t *len)
{
	union bpf_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = *len;
	a.info.info = (uint64_t)(uintptr_t)buf;
	err = sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
	if (!err)
		*len = a.info.info_len;
	return err;
}

/* Array i's bytes by what info says, 8-aligned; -E2BIG for an element
 * size past ELEM_SIZE_MAX (not the kernel's), else at most 2^32 * 64. */
static int64_t array_bytes(const uint8_t *info, int i)
{
	uint32_t size = prec_bpf_prog__elem_size(info, i);

	if (size > ELEM_SIZE_MAX)
		return -E2BIG;
	return (int64_t)(((uint64_t)prec_ld32(info + prec_bpf_arrays[i].count_off) * size + 7) &
			 ~7ull);
}

/* The second answer: the counts and sizes of the first, and each array
 * where it was asked to be (the kernel zeroes the address of one it
 * withholds). */
static int same_answer(const uint8_t *first, const uint8_t *info, const uint8_t *data,
		       uint32_t arrays)
{
	size_t at = 0;

	for (int i = 0; i < PREC_BPF_NR_ARRAYS; i++) {
		const struct prec_bpf_array_desc *d = &prec_bpf_arrays[i];

		if (!(arrays & (1u << i)))
			continue;
		if (prec_ld32(first + d->count_off) != prec_ld32(info + d->count_off) ||
		    prec_bpf_prog__elem_size(first, i) != prec_bpf_prog__elem_size(info, i) ||
		    prec_ld64(info + d->addr_off) != (uint64_t)(uintptr_t)(data + at))
			return -EAGAIN;
		at += (size_t)array_bytes(info, i);
	}
	return 0;
}

int prec_bpf_info__read_prog(int fd, uint32_t arrays, uint32_t max_data, uint8_t **rec,
			     size_t *len)
{
	uint8_t first[PREC_BPF_INFO_LEN] __attribute__((aligned(8))) = { 0 };
	uint8_t *r, *info, *data;
	uint32_t info_len = PREC_BPF_INFO_LEN;
	uint64_t data_len = 0;
	size_t at = 0;
	int err;

	*rec = NULL;
	if (arrays >> PREC_BPF_NR_ARRAYS)
		return -EINVAL;
	err = obj_info(fd, first, &info_len);
	if (err)
		return err;
	if (info_len < PREC_BPF_INFO_MIN)
		return -EOPNOTSUPP;
	for (int i = 0; i < PREC_BPF_NR_ARRAYS; i++) {
		int64_t n;

		if (!(arrays & (1u << i)))
			continue;
		n = array_bytes(first, i);
		if (n < 0)
			return (int)n;
		data_len += (uint64_t)n;
		if (data_len > max_data)
			return -E2BIG;
	}
	r = calloc(1, PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + data_len);
	if (!r)
		return -ENOMEM;
	info = r + PREC_BPF_PROG_HDR;
	data = info + PREC_BPF_INFO_LEN;
	/* Room for each array, in bit order: its count, its element size
	 * where the caller says it, and where it goes. */
	for (int i = 0; i < PREC_BPF_NR_ARRAYS; i++) {
		const struct prec_bpf_array_desc *d = &prec_bpf_arrays[i];

		if (!(arrays & (1u << i)))
			continue;
		prec_st32(info + d->count_off, prec_ld32(first + d->count_off));
		if (!d->fixed)
			prec_st32(info + d->size_off, prec_ld32(first + d->size_off));
		prec_st64(info + d->addr_off, (uint64_t)(uintptr_t)(data + at));
		at += (size_t)array_bytes(first, i);
	}
	info_len = PREC_BPF_INFO_LEN;
	err = obj_info(fd, info, &info_len);
	if (!err)
		err = same_answer(first, info, data, arrays);
	if (err) {
		free(r);
		return err;
	}
	/* The addresses become offsets in data, as perf writes them. */
	for (int i = 0; i < PREC_BPF_NR_ARRAYS; i++) {
		const struct prec_bpf_array_desc *d = &prec_bpf_arrays[i];

		if (arrays & (1u << i))
			prec_st64(info + d->addr_off,
				  prec_ld64(info + d->addr_off) - (uint64_t)(uintptr_t)data);
	}
	prec_st32(r, PREC_BPF_INFO_LEN);
	prec_st32(r + 4, (uint32_t)data_len);
	prec_st64(r + 8, arrays);
	*rec = r;
	*len = PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + (size_t)data_len;
	return 0;
}

int prec_bpf_info__read_btf(uint32_t id, uint32_t max, uint8_t **data, uint32_t *size)
{
	struct bpf_btf_info bi;
	union bpf_attr a;
	uint32_t len = sizeof(bi), want;
	int fd, err;

	*data = NULL;
	memset(&a, 0, sizeof(a));
	a.btf_id = id;
	fd = sys_bpf(BPF_BTF_GET_FD_BY_ID, &a);
	if (fd < 0)
		return fd;
	memset(&bi, 0, sizeof(bi));
	err = obj_info(fd, &bi, &len);
	want = bi.btf_size;
	if (!err && want > max)
		err = -E2BIG;
	if (!err) {
		*data = malloc(want ? want : 1);
		err = *data ? 0 : -ENOMEM;
	}
	if (!err) {
		memset(&bi, 0, sizeof(bi));
		bi.btf = (uint64_t)(uintptr_t)*data;
		bi.btf_size = want;
		len = sizeof(bi);
		err = obj_info(fd, &bi, &len);
		if (!err && bi.btf_size != want)
			err = -EAGAIN;
	}
	close(fd);
	if (err) {
		free(*data);
		*data = NULL;
		return err;
	}
	*size = want;
	return 0;
}
