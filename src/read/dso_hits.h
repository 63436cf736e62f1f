/* SPDX-License-Identifier: MIT */
/* Which mapped files a recording's samples hit (dso_hits.c): the tasks'
 * maps followed through MMAP, MMAP2, FORK and exec, each sample's IP and
 * call chain looked up in them, as `perf buildid-list --with-hits` marks
 * the files `perf archive` packs. */
#ifndef PREC_READ_DSO_HITS_H
#define PREC_READ_DSO_HITS_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

struct prec_dso_hits;

/* Hits of a recording described by m (its events' sample_type and
 * read_format, by id). Returns 0 or -ENOMEM. */
int prec_dso_hits__new(struct prec_dso_hits **out, const struct prec_manifest *m);
/* Frees h (NULL is fine). */
void prec_dso_hits__delete(struct prec_dso_hits *h);

/* One record of the merged stream (rec_len bytes at rec, in time order):
 * a map, a fork or an exec changes the tasks' maps, a sample marks the
 * files its IP and call chain fall in. Other records and malformed ones
 * (any field past rec_len) are skipped. Returns 0 or -ENOMEM (the hits so
 * far stay valid). Allocates only for a new task, map or file name. */
int prec_dso_hits__add(struct prec_dso_hits *h, const void *rec, uint32_t rec_len);

/* Whether a sample hit path: a file's name as its MMAP2 gave it, "[vdso]",
 * "[kernel.kallsyms]" for a kernel address outside every module. */
bool prec_dso_hits__hit(const struct prec_dso_hits *h, const char *path);
/* Samples seen: those of an event the manifest names, in user or kernel
 * mode (a guest's or the hypervisor's are not). */
uint64_t prec_dso_hits__samples(const struct prec_dso_hits *h);

#endif
