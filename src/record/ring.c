// SPDX-License-Identifier: MIT
// One perf ring: mmap of a perf fd's control page + data area (and its AUX
// area), or the same layout simulated in caller memory for tests/benchmarks.

#include "record/ring.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SIM_PAGE 4096u

static bool is_pow2(uint64_t x)
{
	return x && !(x & (x - 1));
}

/* Map the AUX area of r's fd right after the data area: the kernel wants
 * aux_offset and aux_size in the control page before the second mmap, at
 * or past the end of the data area, page aligned. It decides whether the
 * PMU has an AUX area: EOPNOTSUPP for ordinary events. */
static int map_aux(struct prec_ring *r, size_t aux_bytes, int prot,
		   size_t page_size)
{
	struct perf_event_mmap_page *pg = r->page;
	/* Where the data area ends in the fd: (1 + data pages) * page size,
	 * also on kernels that leave data_offset/data_size 0. */
	uint64_t off = (uint64_t)(r->data - (uint8_t *)r->map) + r->size;
	void *p;

	if (aux_bytes % page_size || !is_pow2(aux_bytes / page_size))
		return -EINVAL;
	off = (off + page_size - 1) & ~((uint64_t)page_size - 1);
	__atomic_store_n(&pg->aux_offset, off, __ATOMIC_RELAXED);
	__atomic_store_n(&pg->aux_size, (uint64_t)aux_bytes, __ATOMIC_RELAXED);
	p = mmap(NULL, aux_bytes, prot, MAP_SHARED, r->fd, (off_t)off);
	if (p == MAP_FAILED)
		return -errno;
	r->aux = p;
	r->aux_size = aux_bytes;
	return 0;
}

int prec_ring__map(struct prec_ring *r, int fd, size_t data_pages,
		   size_t aux_bytes, unsigned int mode)
{
	bool overwrite = mode & PREC_RING_OVERWRITE;
	long ps = sysconf(_SC_PAGESIZE);
	size_t page_size = ps > 0 ? (size_t)ps : SIM_PAGE;
	/* Read-only selects the kernel's overwrite mode (it ignores data_tail). */
	int prot = overwrite ? PROT_READ : PROT_READ | PROT_WRITE;
	struct perf_event_mmap_page *pg;
	size_t len;
	void *map;
	int err;

	memset(r, 0, sizeof(*r));
	r->fd = -1;
	/* A read-only control page cannot take aux_offset/aux_size. */
	if (!is_pow2(data_pages) || (overwrite && aux_bytes))
		return -EINVAL;
	len = (1 + data_pages) * page_size;
	map = mmap(NULL, len, prot, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return -errno;
	pg = map;
	r->map = map;
	r->map_len = len;
	r->page = pg;
	r->fd = fd;
	r->overwrite = overwrite;
	/* Kernels before 4.1 leave data_offset/data_size 0: data follows the
	 * control page. */
	if (pg->data_offset && pg->data_size) {
		r->data = (uint8_t *)map + pg->data_offset;
		r->size = pg->data_size;
	} else {
		r->data = (uint8_t *)map + page_size;
		r->size = data_pages * page_size;
	}
	if (!aux_bytes)
		return 0;
	/* Read-only: the kernel's overwrite mode of the AUX area, which
	 * then ignores aux_tail. */
	r->aux_overwrite = mode & PREC_RING_AUX_OVERWRITE;
	err = map_aux(r, aux_bytes, r->aux_overwrite ? PROT_READ : prot, page_size);
	if (err < 0) {
		prec_ring__unmap(r);
		return err;
	}
	return 0;
}

void prec_ring__unmap(struct prec_ring *r)
{
	if (!r)
		return;
	/* Simulated rings (map == NULL) live in caller memory. */
	if (r->map) {
		if (r->aux)
			munmap(r->aux, r->aux_size);
		munmap(r->map, r->map_len);
	}
	memset(r, 0, sizeof(*r));
	r->fd = -1;
}

void prec_ring__init_mem(struct prec_ring *r, void *mem, uint64_t size,
			 uint64_t aux_size)
{
	struct perf_event_mmap_page *pg = mem;

	memset(r, 0, sizeof(*r));
	memset(mem, 0, SIM_PAGE);
	pg->data_offset = SIM_PAGE;
	pg->data_size = size;
	pg->aux_offset = aux_size ? SIM_PAGE + size : 0;
	pg->aux_size = aux_size;
	r->page = pg;
	r->data = (uint8_t *)mem + SIM_PAGE;
	r->size = size;
	r->aux = aux_size ? (uint8_t *)mem + SIM_PAGE + size : NULL;
	r->aux_size = aux_size;
	r->fd = -1;
}
