/* SPDX-License-Identifier: MIT */
/* BPF programs (bpf_synth.c): those already loaded as KSYMBOL and
 * BPF_EVENT records, and their info and BTF in the manifest, with those
 * loaded during the recording. */
#ifndef PREC_RECORD_BPF_SYNTH_H
#define PREC_RECORD_BPF_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prec_manifest;

/* Takes one synthesized record: its type and body (header and sample_id
 * trailer are the sink's). Returns 0 or -errno, which stops the caller. */
typedef int (*prec_rec_sink)(void *ctx, uint32_t type, const void *body, size_t len);

/* Pass to sink, for every JITed BPF program loaded now, a PERF_RECORD_KSYMBOL
 * per function (named as the kernel and perf name it: by its BTF when it
 * has one) and, with events, one PERF_RECORD_BPF_EVENT PROG_LOAD; and when
 * m is not NULL, add the BTF objects they name to m and, with events, each
 * one's info and arrays (the ones past its bounds left out, in one
 * warning): without events, perf's --no-bpf-event. Needs CAP_SYS_ADMIN (or
 * CAP_BPF and CAP_PERFMON); without it there are none. Returns the number
 * of programs or the sink's -errno. */
int prec_bpf_synth__programs(prec_rec_sink sink, void *ctx, struct prec_manifest *m,
			     bool events);

/* What the close may add to a manifest of the programs loaded during the
 * recording: room the recording reserves for it from the start. */
#define PREC_BPF_LATE_BYTES (1u << 20)

/* The programs the looks below left out of a manifest (past the room for
 * them, or past a program's or a BTF object's bound), for the close's
 * warning. */
struct prec_bpf_left {
	uint32_t progs, btfs;
};

/* During the recording, as perf record's side-band thread reads each
 * program it sees load: the info and BTF of the JITed programs loaded
 * since m's walk last looked (an id above the last one it saw) and loaded
 * still, into m, while they fit in PREC_BPF_LATE_BYTES past the start's;
 * those left out are counted in *left. A program unloaded before a look is
 * not seen. Their KSYMBOL and BPF_EVENT records are the kernel's, in the
 * rings. Returns the number added, or -EPERM (not ours to see) or -ENOSPC
 * (the room is full: the close's look counts the rest). */
int prec_bpf_synth__watch(struct prec_manifest *m, struct prec_bpf_left *left);

/* At a recording's close: the last look, as watch's, and one warning that
 * counts the programs and BTF objects left out, by it and by the looks
 * before it (left, or NULL). Returns the number added (or -EPERM). */
int prec_bpf_synth__loaded_since(struct prec_manifest *m, const struct prec_bpf_left *left);

#endif
