/* SPDX-License-Identifier: MIT */
/* The manifest: a recording's metadata, its encoding and its atomic
 * write (manifest.c, manifest_codec.c, manifest_decode.c, manifest_check.c,
 * manifest_io.c, manifest_json.c). docs/manifest-format.md has every byte. */
#ifndef PREC_STORE_MANIFEST_H
#define PREC_STORE_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "store/record_time.h"

enum prec_manifest_state {
	PREC_STATE_RECORDING = 1, /* written at start; recorder still running or died */
	PREC_STATE_COMPLETE = 2,  /* replaced at close */
};

struct prec_manifest_event {
	uint8_t attr[128];     /* struct perf_event_attr as opened (size 128) */
	char *name;            /* as the user wrote it, e.g. "sched:sched_switch" */
	uint32_t nr_ids;
	uint64_t *ids;         /* PERF_EVENT_IOC_ID of each fd */
	int32_t *id_cpus;      /* CPU of each id (-1 if per-task on any CPU) */
	int32_t *id_tids;      /* tid of each id (-1 if per-CPU) */
	/* each id's PERF_FORMAT_LOST count at the close (with --switch-output
	 * since the epoch's start), nr_ids of them; NULL: none lost, or a
	 * manifest before the ID_LOST section (minor 11). The merge writes a
	 * LOST_SAMPLES record for each nonzero one, as perf record does. */
	uint64_t *id_lost;
	/* its group's leader as an index of events[] + 1 (a leader: its
	 * own), 0 in no group: opened with the leader's fd as group_fd */
	uint32_t leader1;
	/* a leader's group name as written (perf's NAME{a,b}), NULL: none
	 * (perf's GROUP_DESC then names it "{anon_group}") */
	char *group_name;
};

struct prec_manifest_tracepoint {
	char *system, *name;   /* "sched", "sched_switch" */
	uint64_t id;           /* tracefs id (attr.config) */
	char *format;          /* text of events/<system>/<name>/format */
};

struct prec_manifest_shard {
	char *name;            /* "cpu000.shard", "sideband.shard" */
	int32_t cpu;
	uint64_t chunks, records, bytes;  /* bytes = payload bytes stored */
	uint64_t raw_bytes;               /* decoded payload bytes */
	uint64_t lost;                    /* records lost (LOST records sum) */
	uint64_t lost_samples;            /* LOST_SAMPLES sum + PERF_FORMAT_LOST */
	uint64_t first_time, last_time;
};

struct prec_manifest_buildid {
	uint16_t cpumode;      /* PERF_RECORD_MISC_KERNEL / _USER ... */
	uint8_t size;          /* bytes used in id[] (<= 20) */
	int32_t pid;           /* -1 = host */
	uint8_t id[20];
	char *path;
};

/* The TSC <-> perf clock conversion a perf ring's control page publishes
 * (struct perf_event_mmap_page time_* words), as perf's TIME_CONV record
 * carries it. */
struct prec_time_conv {
	uint64_t time_zero;
	uint64_t time_cycles;   /* with cap_user_time_short: the counter ... */
	uint64_t time_mask;     /* ... is this narrow, and wraps */
	uint32_t time_mult;
	uint16_t time_shift;
	bool cap_user_time_zero; /* the words convert to the perf clock */
	bool cap_user_time_short;
};

struct prec_manifest_cpu {
	int32_t core_id, socket_id, die_id;
};

/* A NUMA node as perf's NUMA_TOPOLOGY and MEM_TOPOLOGY features have it:
 * memory in kB at the start, its CPUs as a list ("0-3,8"), and the
 * indices of its memory blocks (sysfs's memoryN) as a list, or NULL */
struct prec_manifest_numa_node {
	uint32_t node;
	uint64_t mem_total_kb, mem_free_kb;
	char *cpus;
	char *mem_blocks;
};

/* A PMU as perf's PMU_MAPPINGS, CPU_PMU_CAPS and PMU_CAPS features have it:
 * the attr type its events are opened with (numbered at boot for all but
 * the fixed ones, so only the recording machine knows it), its name, and
 * its sysfs caps in directory order, each a file's name and first line */
struct prec_manifest_pmu_cap {
	char *name, *value;
};

struct prec_manifest_pmu {
	uint32_t type;
	char *name;
	uint32_t nr_caps;
	struct prec_manifest_pmu_cap *caps;
};

/* A CPU cache as perf's CACHE feature has it: one entry for all the CPUs
 * whose cache/indexN directories say the same, in perf's order (by level,
 * then as found, CPU by CPU); type, size and the sharing CPUs' list as
 * sysfs writes them, trimmed ("Data", "32K", "0-1") */
struct prec_manifest_cache {
	uint32_t level, line_size, sets, ways;
	char *type, *size, *map;
};

/* A BPF program loaded at the start as perf's BPF_PROG_INFO feature has
 * it: its info and arrays in one record (store/bpf_prog.h), len bytes */
struct prec_manifest_bpf_prog {
	uint32_t len;
	uint8_t *rec;
};

/* A BTF object such a program names (its btf_id), as perf's BPF_BTF
 * feature has it: the id and the kernel's bytes of it */
struct prec_manifest_btf {
	uint32_t id, size;
	uint8_t *data;
};

/* A manifest holds metadata only; anything bigger is not one of ours, and
 * reading it whole would let a hostile file exhaust memory: readers refuse
 * it (-EFBIG) and the writer never writes one. */
#define PREC_MANIFEST_MAX_SIZE (256u << 20)
/* The build-id table's bounds (docs/manifest-format.md, BUILDIDS): a
 * workload mapping endless distinct paths cannot grow the manifest past
 * what readers take. Mapped files (user paths): at most this many entries
 * and path bytes (NULs included); the other entries (kernel, modules,
 * [vdso]) have PREC_MANIFEST_BUILDIDS_OTHER more of their own. No path of
 * PREC_MANIFEST_BUILDID_PATH_MAX bytes or more (perf's PATH_MAX). */
#define PREC_MANIFEST_BUILDIDS_MAX 65536u
#define PREC_MANIFEST_BUILDID_BYTES_MAX (32u << 20)
#define PREC_MANIFEST_BUILDIDS_OTHER 8192u
#define PREC_MANIFEST_BUILDID_PATH_MAX 4096u
/* The PMUS section's bounds: sysfs is the kernel's, but a machine with
 * thousands of uncore PMUs must not make every manifest huge. PMUs past
 * the first PREC_MANIFEST_PMUS_MAX, caps past PREC_MANIFEST_PMU_CAPS_MAX
 * of a PMU are left out (the recorder says so); a cap's value is at most
 * PREC_MANIFEST_PMU_CAP_VALUE_MAX bytes, as perf reads it. */
#define PREC_MANIFEST_PMUS_MAX 1024u
#define PREC_MANIFEST_PMU_CAPS_MAX 64u
#define PREC_MANIFEST_PMU_CAP_VALUE_MAX 127u
/* The CACHES section's bounds: at most PREC_MANIFEST_CACHES_MAX caches and
 * PREC_MANIFEST_CACHE_BYTES_MAX bytes of their strings, each string under
 * PREC_MANIFEST_CACHE_STR_MAX bytes; the caches past them are left out
 * (the recorder says so). */
#define PREC_MANIFEST_CACHES_MAX 16384u
#define PREC_MANIFEST_CACHE_BYTES_MAX (4u << 20)
#define PREC_MANIFEST_CACHE_STR_MAX 4096u
/* The BPF_PROGS and BPF_BTFS sections' bounds: a machine with thousands of
 * programs must not make the manifest huge. At most PREC_MANIFEST_BPF_MAX
 * programs and as many BTF objects, PREC_MANIFEST_BPF_BYTES_MAX bytes of
 * their records and BTF data together; a program's arrays at most
 * PREC_MANIFEST_BPF_DATA_MAX bytes, a BTF object PREC_MANIFEST_BTF_MAX
 * (the kernel's own cap). The ones past them are left out (the recorder
 * says so). */
#define PREC_MANIFEST_BPF_MAX 16384u
#define PREC_MANIFEST_BPF_BYTES_MAX (32u << 20)
#define PREC_MANIFEST_BPF_DATA_MAX (4u << 20)
#define PREC_MANIFEST_BTF_MAX (16u << 20)

struct prec_manifest_buildid_index;

struct prec_manifest {
	uint32_t state;                   /* enum prec_manifest_state */
	uint8_t session_id[16];
	/* host facts */
	char *hostname, *os_release, *arch, *cpu_desc, *cpu_id, *version;
	uint32_t nr_cpus_avail, nr_cpus_online;
	uint64_t total_mem_kb;
	struct prec_manifest_cpu *cpus;   /* nr_cpus_avail entries, or NULL */
	uint32_t nr_numa_nodes;           /* the NUMA section (minor 6) */
	struct prec_manifest_numa_node *numa_nodes;
	uint64_t mem_block_bytes;         /* a memory block's size, 0: unknown */
	uint32_t nr_pmus;                 /* the PMUS section (minor 7), in */
	struct prec_manifest_pmu *pmus;   /* sysfs's directory order */
	uint32_t nr_caches;               /* the CACHES section (minor 8) */
	struct prec_manifest_cache *caches;
	/* BPF programs loaded at the start (the BPF_PROGS section, minor 10),
	 * by ascending id, and the BTF objects they name (BPF_BTFS, minor 10),
	 * by ascending id, each once; bpf_bytes is what add_bpf_prog() and
	 * add_btf() counted against PREC_MANIFEST_BPF_BYTES_MAX, the caps
	 * their arrays' room, bpf_seen_id the highest program id the
	 * recorder's walk saw, kept or not, bpf_late_cap the bpf_bytes the
	 * programs loaded during the recording may fill up to (these five not
	 * encoded) */
	uint32_t nr_bpf_progs, nr_btfs;
	struct prec_manifest_bpf_prog *bpf_progs;
	struct prec_manifest_btf *btfs;
	uint64_t bpf_bytes;
	uint32_t bpf_progs_cap, btfs_cap;
	uint32_t bpf_seen_id;
	uint64_t bpf_late_cap;
	/* the recording */
	uint32_t argc;
	char **argv;                      /* prec's own command line */
	int32_t clockid;                  /* -1: perf clock */
	uint64_t clock_res_ns;
	uint64_t ref_wall_ns, ref_clock_ns; /* one instant on both clocks */
	uint64_t start_time, stop_time;   /* event clock */
	uint64_t sample_type;             /* common base of all attrs */
	struct prec_time_layout time_layout;
	uint32_t nr_events;
	struct prec_manifest_event *events;
	/* tracing */
	uint32_t nr_tracepoints;
	struct prec_manifest_tracepoint *tracepoints;
	char *header_page, *header_event, *printk_formats, *saved_cmdlines;
	/* totals */
	uint32_t nr_shards;
	struct prec_manifest_shard *shards;
	uint32_t nr_buildids;
	struct prec_manifest_buildid *buildids;
	/* mapped files that got no entry because they could not be read as
	 * the file mapped: path replaced since, read failed, no answer in
	 * time (deleted files are not counted) */
	uint32_t buildids_unread;
	/* (path, build-id) pairs not put in the table: over its bounds (the
	 * BUILDID_DROPS section, minor 3; 0 in older manifests) */
	uint32_t buildids_dropped;
	/* add_buildid()'s hash of the table and its sizes; rebuilt when the
	 * table was filled another way (decode). Not encoded. */
	struct prec_manifest_buildid_index *bid_index;
	/* AUX: PMU-specific AUXTRACE_INFO */
	uint32_t auxtrace_type;
	uint32_t nr_auxtrace_priv;
	uint64_t *auxtrace_priv;
	/* the first ring's TSC conversion; the TIME_CONV section (and
	 * record) exists only when time_conv.cap_user_time_zero */
	struct prec_time_conv time_conv;
	/* --max-disk: the budget (0: none), its segment size, and what it
	 * dropped: whole segments of CPU shards, their chunks, records and
	 * bytes, the first and last time of those records (0: none) */
	struct prec_manifest_max_disk {
		uint64_t limit, segment;
		uint64_t segments, chunks, records, bytes;
		uint64_t first_time, last_time;
	} max_disk;
	/* --kcore: the recording's kcore_dir (record/kcore.c), its kcore's
	 * PT_LOAD segments and size; segments 0: none (the KCORE section,
	 * minor 4) */
	struct prec_manifest_kcore {
#define PREC_MANIFEST_KCORE_DIR "kcore_dir" /* in the recording's directory */
		uint32_t segments;
		uint64_t bytes;
	} kcore;
	/* --off-cpu (the OFFCPU section): the sched_switch source event's
	 * index + 1 (0: no --off-cpu), the offcpu-time event's index, and
	 * where prev_state sits in the source's raw data */
	struct prec_manifest_offcpu {
		uint32_t switch1, event;
		uint16_t state_off, state_size;
	} offcpu;
	/* record -z: the zstd level (perf's -z scale) its perf.data is
	 * compressed at, which prec merge takes unless told otherwise; 0:
	 * none (the COMPRESSION section, minor 12) */
	uint32_t zstd_level;
#define PREC_MANIFEST_ZSTD_LEVEL_MAX 22 /* zstd's highest, perf's too */
};

/* A shard's loss: its LOST records, or its LOST_SAMPLES where the kernel
 * counted more that way (one loss is often reported both ways). */
static inline uint64_t prec_manifest_shard__lost(const struct prec_manifest_shard *sh)
{
	return sh->lost > sh->lost_samples ? sh->lost : sh->lost_samples;
}

/* All strings and arrays of a manifest are owned by it and freed by
 * delete(). The add_* helpers copy their arguments and return 0 or -ENOMEM. */
struct prec_manifest *prec_manifest__new(void);
void prec_manifest__delete(struct prec_manifest *m);
/* Free a PMU's name and caps (p may be NULL or half filled) and zero it. */
void prec_manifest_pmu__exit(struct prec_manifest_pmu *p);

/* Free a cache's strings (c may be NULL or half filled) and zero it. */
void prec_manifest_cache__exit(struct prec_manifest_cache *c);

/* Replace *field (one of m's char * members) with a copy of s (NULL ok). */
int prec_manifest__set_str(struct prec_manifest *m, char **field, const char *s);
int prec_manifest__set_argv(struct prec_manifest *m, int argc, char *const argv[]);
/* Returns the new event's index, or -ENOMEM. */
int prec_manifest__add_event(struct prec_manifest *m, const void *attr128,
			     const char *name);
int prec_manifest__add_event_id(struct prec_manifest *m, uint32_t event,
				uint64_t id, int32_t cpu, int32_t tid);
/* Event event's id index j lost lost samples (id_lost above; the array
 * made on the first nonzero count). Returns 0, -EINVAL (no such id) or
 * -ENOMEM. */
int prec_manifest__set_id_lost(struct prec_manifest *m, uint32_t event, uint32_t j,
			       uint64_t lost);
int prec_manifest__add_tracepoint(struct prec_manifest *m, const char *system,
				  const char *name, uint64_t id,
				  const char *format);
int prec_manifest__add_shard(struct prec_manifest *m,
			     const struct prec_manifest_shard *s);
/* Adds unless an entry with the same id and path exists (a hashed look-up:
 * adding n entries costs O(n)). An entry past the table's bounds (above)
 * is counted in buildids_dropped and not added: 0 all the same. Returns 0,
 * -EINVAL or -ENOMEM. */
int prec_manifest__add_buildid(struct prec_manifest *m,
			       const struct prec_manifest_buildid *b);
/* Add a program's record (copied; store/bpf_prog.h, checked as the decoder
 * checks it: -EINVAL if it is not one) after the ones added, whose ids
 * must be lower (-EINVAL). -E2BIG past the bounds above, -ENOMEM. */
int prec_manifest__add_bpf_prog(struct prec_manifest *m, const void *rec, size_t len);
/* Add BTF object id (its size bytes copied) in id order; 0 if it is
 * there already. -EINVAL for id 0, -E2BIG past the bounds, -ENOMEM. */
int prec_manifest__add_btf(struct prec_manifest *m, uint32_t id, const void *data,
			   uint32_t size);
/* BTF object id of m, or NULL (binary search). */
const struct prec_manifest_btf *prec_manifest__find_btf(const struct prec_manifest *m,
							uint32_t id);

/* Empty the build-id table (perf record -B: a recording without one). */
void prec_manifest__clear_buildids(struct prec_manifest *m);
/* Whether an entry for path exists (any id), hashed as add_buildid().
 * Returns 1, 0, or -ENOMEM (the index could not be built). */
int prec_manifest__has_buildid(struct prec_manifest *m, const char *path);

/* Serialize to a malloc'd buffer. Returns 0 or -errno. */
int prec_manifest__encode(const struct prec_manifest *m, void **buf,
			  size_t *len);
/* Parse a buffer. Returns 0, -EBADMSG (corrupt, truncated, bad checksum,
 * inconsistent contents as prec_manifest__check() finds them; *why says
 * what), -EPROTONOSUPPORT (unknown major version). Never reads outside buf,
 * never allocates more than a small multiple of len. */
int prec_manifest__decode(struct prec_manifest **out, const void *buf,
			  size_t len, const char **why);
/* Whether m is what prec writes (docs/manifest-format.md, "Consistency"):
 * at least one event; every attr has the session's sample_type base and
 * at least one id; no id twice; the time layout follows from the session's
 * sample_type; shard names are plain file names (no '/', not ".", ".." or
 * "manifest"), no name or cpu twice. Returns 0, -EBADMSG with *why (a
 * static string), or -ENOMEM. decode() calls it. */
int prec_manifest__check(const struct prec_manifest *m, const char **why);

/* Atomically (re)write dirfd/manifest: temp file, fsync, rename, fsync dir. */
int prec_manifest__write(const struct prec_manifest *m, int dirfd);
/* Read and decode dirfd/manifest; *why as for decode (or strerror text). */
int prec_manifest__read(struct prec_manifest **out, int dirfd,
			const char **why);

/* Print m as one JSON object (for `prec info --json`): every field; strings
 * escaped (invalid UTF-8 bytes as \u00XX), absent strings as null, session
 * and build-ids in hex, attrs as their key fields plus the 128 bytes in hex.
 * Returns 0, or -EIO when writing to f failed. */
int prec_manifest__print_json(const struct prec_manifest *m, FILE *f);

#endif
