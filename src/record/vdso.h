/* SPDX-License-Identifier: MIT */
/* The vDSO (vdso.c): the image the kernel maps into every process as
 * [vdso], its build-id, and its copy in the recording (vdso.so). */
#ifndef PREC_RECORD_VDSO_H
#define PREC_RECORD_VDSO_H

#include <stddef.h>
#include <stdint.h>

struct prec_manifest;

/* The name perf gives the vDSO's map and build-id entry. */
#define PREC_VDSO_MAP "[vdso]"

struct prec_vdso {
	const uint8_t *image;  /* our own [vdso] mapping, read in place */
	size_t len;
	uint8_t id[20];
	uint8_t id_size;
};

/* Find this process's vDSO: the [vdso] line of /proc/self/maps that starts
 * at getauxval(AT_SYSINFO_EHDR), and the build-id in its notes. The
 * recorder runs on the kernel its workloads run on, so theirs is the same
 * image (a 32-bit workload's vdso32 excepted). Returns 0, -ENOENT (no
 * vDSO), -ENODATA (no build-id note) or -errno. Any thread; reads /proc. */
int prec_vdso__find(struct prec_vdso *v);

/* Add the vDSO's build-id to m as perf writes it (PREC_VDSO_MAP, misc
 * USER, pid -1), once. Returns 0 (also when the vDSO has no build-id:
 * nothing to add) or -errno. */
int prec_vdso__add_buildid(struct prec_manifest *m);

/* Write the vDSO's image as PREC_VDSO_NAME in the recording directory
 * dirfd (O_EXCL, O_NOFOLLOW, mode 0600 as the shards), for `prec archive`
 * to carry with the binaries, and its build-id to add_to as
 * prec_vdso__add_buildid() does (NULL: m has it already), from one read
 * of the vDSO. Returns 0 or -errno (-EEXIST: there is one; with add_to,
 * 0 when there is no vDSO with a build-id to keep). */
int prec_vdso__save(int dirfd, struct prec_manifest *add_to);

#endif
