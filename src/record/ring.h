/* SPDX-License-Identifier: MIT */
/* One mmap'd perf ring (ring.c): the control page, the data area and
 * the AUX area of a CPU. */
#ifndef PREC_RECORD_RING_H
#define PREC_RECORD_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct perf_event_mmap_page;

struct prec_ring {
	struct perf_event_mmap_page *page; /* control page */
	uint8_t *data;          /* data area, size bytes (a power of two) */
	uint64_t size;
	uint8_t *aux;           /* AUX area or NULL */
	uint64_t aux_size;
	void *map;              /* what munmap needs; NULL for simulated rings */
	size_t map_len;
	int fd;                 /* the perf fd owning the ring, -1 if simulated */
	bool overwrite;         /* write_backward ring mapped read-only */
	/* AUX area mapped read-only (perf's AUX snapshot and sample modes):
	 * the kernel overwrites it, it is never drained (aux_mode.c) */
	bool aux_overwrite;
};

/* prec_ring__map's mode: bits. */
#define PREC_RING_OVERWRITE 1u      /* data area read-only (write_backward) */
#define PREC_RING_AUX_OVERWRITE 2u  /* AUX area read-only */

/* mmap 1 + data_pages pages of fd (data_pages a power of two), read-write
 * unless mode has PREC_RING_OVERWRITE. aux_bytes > 0 maps an AUX area too
 * (power of two pages, read-write unless PREC_RING_AUX_OVERWRITE, not with
 * PREC_RING_OVERWRITE): aux_offset = (1 + data_pages) * page size and
 * aux_size are written into the control page first. Returns 0 or -errno
 * (-EINVAL: bad sizes, -EOPNOTSUPP: the PMU has no AUX area). */
int prec_ring__map(struct prec_ring *r, int fd, size_t data_pages,
		   size_t aux_bytes, unsigned int mode);
void prec_ring__unmap(struct prec_ring *r);
/* A ring in caller memory (tests, benchmarks): mem holds a control page of
 * 4096 bytes followed by size data bytes (and aux_size AUX bytes). */
void prec_ring__init_mem(struct prec_ring *r, void *mem, uint64_t size,
			 uint64_t aux_size);

#endif
