/* SPDX-License-Identifier: MIT */
/* Cgroups (cgroup.c): -G's names opened by descriptor beneath the cgroup
 * mount perf uses, and --all-cgroups' CGROUP records for the cgroups that
 * exist when the recording starts. */
#ifndef PREC_RECORD_CGROUP_H
#define PREC_RECORD_CGROUP_H

#include "record/bpf_synth.h"

struct prec_evlist;
struct prec_record_opts;

/* Deepest cgroup the side band names; deeper ones are left out. */
#define PREC_CGROUP_MAX_DEPTH 64

/* After the events are parsed: give each event of the -e arguments its -G
 * cgroup as perf 6.1 does (parse_cgroups): the Nth name over all -G
 * arguments, empty items included, goes to the Nth event (counting the
 * events each -e gave, prec's own left out), which must have been given
 * before that -G; an empty item leaves its event in no cgroup; when the
 * first -G has one name and no other name follows it, every event given
 * before it gets that cgroup. A name is a path below the mount (a leading
 * '/' is allowed), opened one component at a time with
 * O_NOFOLLOW|O_DIRECTORY from the mount's descriptor; '.' and '..' are
 * refused. Sets evsel.cgroup_fd. Returns 0, or -EINVAL after one line
 * naming the -G argument, the cgroup and the reason (no mount, a name
 * with no event, '..', a cgroup that does not exist...): a bad command
 * line. Main thread, before the events are opened. */
int prec_cgroup__assign(struct prec_evlist *el, const struct prec_record_opts *o);

/* Pass to sink a PERF_RECORD_CGROUP body (u64 id, the path from the mount
 * with a leading '/', NUL-padded to 8 bytes) for every cgroup directory
 * below the mount, the root ("/") first, parents before children, as perf
 * synthesizes them; the id is the directory's file handle on the cgroup
 * file system (the id the kernel puts in PERF_SAMPLE_CGROUP). Cgroups
 * deeper than PREC_CGROUP_MAX_DEPTH or with a path over PATH_MAX, and
 * directories that vanish during the walk, are left out. No cgroup mount:
 * one warning and no record. Returns the number of records, or the
 * sink's -errno. Blocks on the cgroup file system; any thread. */
int prec_cgroup__synthesize(prec_rec_sink sink, void *ctx);

#endif
