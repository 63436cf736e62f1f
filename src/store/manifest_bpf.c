// SPDX-License-Identifier: MIT
// The manifest's BPF programs and BTF objects (the BPF_PROGS and BPF_BTFS
// sections): added in the order perf writes them, within the bounds of
// store/manifest.h, each record checked as the decoder will check it.
#include "store/bpf_prog.h"
#include "store/store.h"
#include "util/bytes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Room for one more element in *arr (nr used of *cap), doubling; a
 * decoded array has no cap (0) and is exactly nr long. -ENOMEM. */
static int grow(void **arr, uint32_t nr, uint32_t *cap, size_t size)
{
	uint32_t want = nr ? 2 * nr : 4;
	void *p;

	if (nr < *cap)
		return 0;
	p = realloc(*arr, (size_t)want * size);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = want;
	return 0;
}

static uint32_t rec_id(const uint8_t *rec)
{
	return prec_ld32(rec + PREC_BPF_PROG_HDR + 4); /* bpf_prog_info.id */
}

int prec_manifest__add_bpf_prog(struct prec_manifest *m, const void *rec, size_t len)
{
	const char *why;
	uint8_t *copy;

	if (prec_bpf_prog__check(rec, len, PREC_MANIFEST_BPF_DATA_MAX, &why) ||
	    (m->nr_bpf_progs && rec_id(m->bpf_progs[m->nr_bpf_progs - 1].rec) >= rec_id(rec)))
		return -EINVAL;
	if (m->nr_bpf_progs >= PREC_MANIFEST_BPF_MAX ||
	    len > PREC_MANIFEST_BPF_BYTES_MAX - m->bpf_bytes)
		return -E2BIG;
	if (grow((void **)&m->bpf_progs, m->nr_bpf_progs, &m->bpf_progs_cap,
		 sizeof(*m->bpf_progs)))
		return -ENOMEM;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, rec, len);
	m->bpf_progs[m->nr_bpf_progs++] = (struct prec_manifest_bpf_prog){ (uint32_t)len, copy };
	m->bpf_bytes += len;
	return 0;
}

/* Where id is or goes in m's BTF objects (ascending ids). */
static uint32_t btf_slot(const struct prec_manifest *m, uint32_t id)
{
	uint32_t lo = 0, hi = m->nr_btfs;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->btfs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct prec_manifest_btf *prec_manifest__find_btf(const struct prec_manifest *m,
							uint32_t id)
{
	uint32_t at = btf_slot(m, id);

	return at < m->nr_btfs && m->btfs[at].id == id ? &m->btfs[at] : NULL;
}

int prec_manifest__add_btf(struct prec_manifest *m, uint32_t id, const void *data,
			   uint32_t size)
{
	uint32_t at = btf_slot(m, id);
	uint8_t *copy;

	if (!id || (size && !data))
		return -EINVAL;
	if (at < m->nr_btfs && m->btfs[at].id == id)
		return 0;
	if (m->nr_btfs >= PREC_MANIFEST_BPF_MAX || size > PREC_MANIFEST_BTF_MAX ||
	    size > PREC_MANIFEST_BPF_BYTES_MAX - m->bpf_bytes)
		return -E2BIG;
	if (grow((void **)&m->btfs, m->nr_btfs, &m->btfs_cap, sizeof(*m->btfs)))
		return -ENOMEM;
	copy = malloc(size ? size : 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, data, size);
	memmove(&m->btfs[at + 1], &m->btfs[at], (size_t)(m->nr_btfs - at) * sizeof(*m->btfs));
	m->btfs[at] = (struct prec_manifest_btf){ id, size, copy };
	m->nr_btfs++;
	m->bpf_bytes += size;
	return 0;
}
