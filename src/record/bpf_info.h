/* SPDX-License-Identifier: MIT */
/* What the bpf() syscall tells of loaded BPF programs (bpf_info.c): their
 * ids, each one's info and arrays as perf stores them, and the BTF objects
 * they name. Needs CAP_SYS_ADMIN (or CAP_BPF and CAP_PERFMON). */
#ifndef PREC_RECORD_BPF_INFO_H
#define PREC_RECORD_BPF_INFO_H

#include <stddef.h>
#include <stdint.h>

/* The next program id after *id into *id: 0, or -errno (-ENOENT: no more;
 * -EPERM: not ours to see). */
int prec_bpf_info__next_prog(uint32_t *id);
/* An fd of program id, or -errno (-ENOENT: unloaded meanwhile). */
int prec_bpf_info__prog_fd(uint32_t id);

/* Program fd's record (store/bpf_prog.h) in a malloc'd *rec of *len bytes:
 * PREC_BPF_INFO_LEN bytes of its info as the kernel gives them and the
 * arrays of the mask arrays (PREC_BPF_ARRAYS_RECORDED: the ones perf
 * record reads; no bit past PREC_BPF_PROG_TAGS). The kernel's
 * counts are believed only up to max_data bytes of arrays (-E2BIG past
 * them) and only if its second answer repeats its first (else -EAGAIN: a
 * count or size changed, or it withheld an array, as it does from a reader
 * without the right to see the JITed code). -EOPNOTSUPP from a kernel
 * whose info stops before prog_tags; else the syscall's -errno. */
int prec_bpf_info__read_prog(int fd, uint32_t arrays, uint32_t max_data, uint8_t **rec,
			     size_t *len);

/* BTF object id's bytes in a malloc'd *data of *size bytes, at most max:
 * 0, -E2BIG past max, -EAGAIN if its size changed between the two reads,
 * or the syscall's -errno. */
int prec_bpf_info__read_btf(uint32_t id, uint32_t max, uint8_t **data, uint32_t *size);

#endif
