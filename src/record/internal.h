/* SPDX-License-Identifier: MIT */
/* Private interfaces of src/record. Not included outside this folder (tests
 * may). Two halves: the live pipeline (events, rings, drainers, workload,
 * cmd_record.c) and the facts gathered around it (host, tracefs, side band,
 * build-ids). */
#ifndef PREC_RECORD_INTERNAL_H
#define PREC_RECORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "store/store.h"
#include "record/markers.h"
#include "record/markers_page.h"
#include "record/tracefs.h"

/* Where a drainer thread may run, relative to the CPU whose ring it drains. */
enum prec_affinity {
	PREC_AFFINITY_AUTO,     /* CPU when the drainers are SCHED_FIFO,
				 * OTHERS when they are not */
	PREC_AFFINITY_NONE,     /* anywhere */
	PREC_AFFINITY_CPU,      /* the ring's CPU itself */
	PREC_AFFINITY_PACKAGE,  /* any CPU of the ring CPU's package */
	PREC_AFFINITY_OTHERS,   /* the package's other CPUs (the ring's CPU
				 * only when it is alone in its package) */
};

/* Every attr prec opens has this sample_type base (plus per-event extras
 * such as PERIOD, RAW, CALLCHAIN), so one struct prec_time_layout fits all
 * records of a recording. Never ID or STREAM_ID. */
#define PREC_SAMPLE_BASE                                                     \
	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |          \
	 PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
/* Size of the sample_id trailer for PREC_SAMPLE_BASE: tid, time, cpu,
 * identifier. Synthesized records append this many zero bytes. */
#define PREC_SAMPLE_ID_TRAILER 32

/* ---- ring (ring.c): one mmap'd perf ring per CPU, plus its AUX area ---- */

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
};

/* mmap 1 + data_pages pages of fd (data_pages a power of two), read-write
 * unless overwrite. aux_bytes > 0 maps an AUX area too (power of two
 * pages, read-write, not with overwrite): aux_offset = (1 + data_pages) *
 * page size and aux_size are written into the control page first. Returns
 * 0 or -errno (-EINVAL: bad sizes, -EOPNOTSUPP: the PMU has no AUX area). */
int prec_ring__map(struct prec_ring *r, int fd, size_t data_pages,
		   size_t aux_bytes, bool overwrite);
void prec_ring__unmap(struct prec_ring *r);
/* A ring in caller memory (tests, benchmarks): mem holds a control page of
 * 4096 bytes followed by size data bytes (and aux_size AUX bytes). */
void prec_ring__init_mem(struct prec_ring *r, void *mem, uint64_t size,
			 uint64_t aux_size);

/* ---- perf clock (perfclock.c): the kernel's clock from user space ---- */

/* Reads the CPU's cycle counter into *cyc (a test passes its own). Returns
 * false when there is none. */
typedef bool (*prec_counter_fn)(void *arg, uint64_t *cyc);

/* The counter a control page's TSC conversion applies to: rdtsc on x86,
 * cntvct_el0 on arm64. False (and 0) elsewhere. Any thread. */
bool prec_perfclock__counter(uint64_t *cyc);
/* Copy pc's time words under its seqlock into *tc. Returns 0, -EOPNOTSUPP
 * (no cap_user_time_zero: *tc holds the words all the same), -EAGAIN (the
 * seqlock never settled; *tc zeroed) or -EINVAL (pc NULL). */
int prec_perfclock__read(const struct perf_event_mmap_page *pc,
			 struct prec_time_conv *tc);
/* The perf-clock time of counter value cyc (the uapi header's formula,
 * with the cap_user_time_short unwrap). */
uint64_t prec_time_conv__ns(const struct prec_time_conv *tc, uint64_t cyc);
/* The perf clock now, converted with pc's words read around the counter.
 * 0 (a watermark that promises nothing) when pc is NULL, has no
 * cap_user_time_zero, its seqlock never settles, or there is no counter.
 * Never blocks; any thread. */
uint64_t prec_perfclock__now(const struct perf_event_mmap_page *pc);
/* The same with counter instead of the CPU's (tests). */
uint64_t prec_perfclock__now_with(const struct perf_event_mmap_page *pc,
				  prec_counter_fn counter, void *arg);

/* ---- drainer (drainer.c): one thread per CPU ring ---- */

struct prec_drainer;

struct prec_drainer_opts {
	int cpu;
	struct prec_ring *ring;
	struct prec_shard_writer *writer; /* owned by the caller */
	struct prec_time_layout layout;
	int clockid;            /* clock of the events, for watermarks */
	/* clockid < 0 (perf clock): the control page whose TSC conversion
	 * gives the watermarks; NULL = watermarks 0 */
	const struct perf_event_mmap_page *clock_page;
	uint64_t round_ns;      /* empty marker chunk at least this often */
	bool copy;              /* copy-then-write instead of writev from the mmap */
	int pin_cpu;            /* the ring's CPU, -1 = no pinning */
	enum prec_affinity affinity; /* which CPUs around pin_cpu */
	int rt_prio;            /* > 0: the thread runs SCHED_FIFO at this */
};

/* -r's default: the lowest real-time priority, enough to run before every
 * fair-scheduled task on the CPU and behind every other real-time one. */
#define PREC_DRAIN_AUTO_PRIO 1

struct prec_drainer_stats {
	uint64_t records, bytes, chunks, wakeups;
	uint64_t lost;          /* sum of PERF_RECORD_LOST.lost */
	uint64_t lost_samples;  /* sum of PERF_RECORD_LOST_SAMPLES.lost */
	uint64_t first_time, last_time;
};

/* A (build-id, path) pair seen in an MMAP2 record, or a path whose MMAP2
 * had no build-id (size 0) so the closer may read the ELF note. */
struct prec_seen_map {
	uint8_t id[20];
	uint8_t size;          /* 0: the record had no build-id, but ... */
	uint16_t cpumode;
	uint32_t maj, min;     /* ... the mapped file's device and inode, */
	uint64_t ino;          /* which its path must still name to be read */
	char *path;
};

int prec_drainer__new(struct prec_drainer **out,
		      const struct prec_drainer_opts *opts);
/* Whether a thread of this process may run SCHED_FIFO at prio (tried). */
bool prec_drainer__fifo_allowed(int prio);
/* Warn, one line each, when drainers at SCHED_FIFO prio (0 = none: no
 * warning) can take their CPUs from other work: prio above 50, or the
 * kernel's real-time throttling turned off. Call once per recording. */
void prec_drainer__warn_fifo(int prio);
/* Start the thread. */
int prec_drainer__start(struct prec_drainer *d);
/* Drain what the ring holds now into chunks (one pass, no thread): used by
 * the thread, and by tests on simulated rings. Returns chunks written or
 * -errno. */
int prec_drainer__drain(struct prec_drainer *d);
/* Ask the thread to drain to empty and exit (async-signal-safe), then wait
 * for it. Returns the thread's first error or 0. */
void prec_drainer__stop(struct prec_drainer *d);
int prec_drainer__join(struct prec_drainer *d);
/* Before start(): fd (an eventfd the caller owns and polls) gets 1 added
 * the moment the thread hits its first error, so the caller can stop the
 * recording at once; the thread then logs nothing itself. -1 = none. */
void prec_drainer__set_notify(struct prec_drainer *d, int fd);
/* The thread's first error so far, or 0. Any thread may call it. */
int prec_drainer__error(const struct prec_drainer *d);
/* Bytes drained as of the last pass; any thread may call it. */
uint64_t prec_drainer__bytes(const struct prec_drainer *d);
void prec_drainer__stats(const struct prec_drainer *d,
			 struct prec_drainer_stats *st);
/* Maps seen (deduplicated by path+id); valid until delete(). */
const struct prec_seen_map *prec_drainer__maps(const struct prec_drainer *d,
					       int *nr);
void prec_drainer__delete(struct prec_drainer *d);

/* ---- host facts (host.c) ---- */

/* Fill hostname, os_release, arch, cpu_desc, cpu_id, version, nr_cpus_*,
 * total_mem_kb and the per-CPU topology of m from uname, /proc and /sys.
 * Missing facts are left NULL/0; returns 0 or -ENOMEM. */
int prec_host__fill(struct prec_manifest *m);

/* ---- build-ids (buildid.c) ---- */

/* One mapped file whose build-id is wanted: the path its MMAP2 record or
 * /proc/PID/maps line named and the identity (device, inode) it gave. */
struct prec_buildid_req {
	const char *path;
	int32_t pid;           /* > 0: a path that is missing or names another
				* file here is looked up under /proc/PID/root */
	uint32_t maj, min;
	uint64_t ino;
	int ret;               /* out (resolve): read_mapped's return */
	uint8_t id[20];        /* out (resolve) */
};

/* NT_GNU_BUILD_ID of the regular file open at fd, read with pread into
 * bounded buffers (no mapping: a truncated file cannot SIGBUS us). Returns
 * the id length (1..20), -ENODATA (no build-id note), -ENOEXEC (not a
 * regular ELF file), -EINVAL (a build-id longer than 20 bytes) or -errno
 * (read failed). Blocks as long as the file's reads do. */
int prec_buildid__read_fd(int fd, uint8_t id[20]);
/* r->path's build-id if the path (or, with r->pid, /proc/PID/root + path)
 * still names the regular file r->maj:r->min, r->ino; -ESTALE when it
 * names anything else (a replaced file, a symlink, a FIFO, a device, a
 * file of the same name in another namespace). Opens nothing but that
 * inode (O_PATH lookup, then the checked inode by /proc/self/fd). Other
 * returns as read_fd. Blocks as long as the file system does: callers on
 * a path that must end use resolve(). */
int prec_buildid__read_mapped(const struct prec_buildid_req *r, uint8_t id[20]);
/* read_mapped() of every reqs[i] into reqs[i].ret and .id, in detached
 * worker threads; returns within RESOLVE_TOTAL_MS (buildid.c) whatever the
 * files do: a file not done by then gets -ETIMEDOUT, and a worker stuck
 * in it stays behind on its own copies of the requests. Any thread. */
void prec_buildid__resolve(struct prec_buildid_req *reqs, size_t nr);
/* Whether a read_mapped() return means the mapped file could not be read
 * (its path names another file, the read failed or did not answer in
 * time), as opposed to read and found with no usable note, or deleted
 * (-ENOENT): what the manifest's buildids_unread counts. */
bool prec_buildid__unread(int ret);
/* Running kernel's id from /sys/kernel/notes; a module's from
 * /sys/module/NAME/notes/.note.gnu.build-id. Returns the id length,
 * -ENODATA (no note), -EINVAL or -errno. */
int prec_buildid__read_kernel(uint8_t id[20]);
int prec_buildid__read_module(const char *module, uint8_t id[20]);

/* ---- BPF programs already loaded (bpf_synth.c) ---- */

/* Takes one synthesized record: its type and body (header and sample_id
 * trailer are the sink's). Returns 0 or -errno, which stops the caller. */
typedef int (*prec_rec_sink)(void *ctx, uint32_t type, const void *body, size_t len);

/* Pass to sink, for every JITed BPF program loaded now, a PERF_RECORD_KSYMBOL
 * per function (named as the kernel names it without BTF) and one
 * PERF_RECORD_BPF_EVENT PROG_LOAD. Needs CAP_SYS_ADMIN (or CAP_BPF and
 * CAP_PERFMON); without it there are none. Returns the number of programs
 * or the sink's -errno. */
int prec_bpf_synth__programs(prec_rec_sink sink, void *ctx);

/* ---- side band (sideband.c) ---- */

struct prec_sideband_opts {
	bool all_tasks;        /* every process in /proc (-a, -C) */
	const pid_t *pids;     /* else only these processes (-p) / tids (-t) */
	int nr_pids;
	/* also the readable, non-executable mappings of files (misc
	 * MMAP_DATA), as the tracking event's mmap_data records them */
	bool data_maps;
	bool bpf;              /* the BPF programs loaded now (bpf_synth.c) */
	/* pids are prec's fork of the command, not exec'd yet: their maps are
	 * prec's own and gone at the exec, where the tracking event starts;
	 * only FORK and COMM (perf synthesizes a COMM alone) */
	bool before_exec;
};

/* Write into w the synthesized records of the system as it is now: kernel
 * MMAP "[kernel.kallsyms]_text" (misc KERNEL, pid -1), module MMAPs, and for
 * each selected process FORK, COMM and one MMAP2 per executable mapping
 * (no MMAP2 with before_exec), each followed by PREC_SAMPLE_ID_TRAILER zero bytes (time 0). Adds to m
 * the build-ids of the kernel, the modules and every mapped ELF file it
 * could read. Returns the number of records written or -errno. */
int prec_sideband__synthesize(struct prec_shard_writer *w,
			      struct prec_manifest *m,
			      const struct prec_sideband_opts *opts);

/* Tail synthesis (prec_tail, tail.c): the same scan of /proc at each
 * flight-recorder snapshot, into w (the tail shard). Keeps its buffers and
 * the set of mapped files already looked at between calls. */
struct prec_sideband_tail;

/* data_maps as prec_sideband_opts. m gives the time layout and the
 * build-ids known so far (their paths are not read again). Returns 0,
 * -EINVAL (a layout whose trailer time is not in the trailer) or -ENOMEM. */
int prec_sideband_tail__new(struct prec_sideband_tail **out,
			    struct prec_shard_writer *w, struct prec_manifest *m,
			    bool data_maps);
/* A process a tail names at its own time. */
struct prec_tail_at {
	int32_t pid;
	uint32_t pad;
	uint64_t time;
};

/* Write, for every process in /proc (pids NULL) or for the processes of
 * pids[0..nr) (each id stands for its process, gone ones are skipped), a
 * COMM per thread and an MMAP2 per executable mapping as
 * prec_sideband__synthesize does, but no FORK, and with time (> 0) in
 * every record's sample_id trailer; then the same again for each of those
 * processes in late[0..nr_late) (in time order, each pid once) at the
 * later of its time and time. Records go out in time order, in DATA
 * chunks whose watermark is their first time. Adds the build-ids of files mapped that m has no
 * id for. Waits until the chunks are in the file. Main thread; blocks on
 * /proc, and on the build-id reads up to prec_buildid__resolve()'s
 * deadline. Returns the records written or -errno. */
int prec_sideband_tail__write(struct prec_sideband_tail *t, const pid_t *pids,
			      int nr, uint64_t time, const struct prec_tail_at *late,
			      int nr_late);
void prec_sideband_tail__delete(struct prec_sideband_tail *t);

/* ---- flight-recorder snapshots (snapshot.c) ---- */

struct prec_snapshot;

struct prec_snapshot_opts {
	struct prec_ring *rings;          /* nr backward rings (overwrite) */
	struct prec_shard_writer **writers; /* the CPU shard of each ring */
	const int *cpus;
	int nr;
	struct prec_time_layout layout;
};

struct prec_snapshot_stats {
	uint64_t snapshots, chunks, records, bytes;
	uint64_t dropped;       /* records overwritten while being copied */
	uint64_t oldest;        /* time of the oldest record the latest
				 * snapshot wrote, over every ring (0: none) */
};

/* Takes the copy buffer (the largest ring) now. Returns 0 or -ENOMEM. */
int prec_snapshot__new(struct prec_snapshot **out,
		       const struct prec_snapshot_opts *o);
/* One snapshot of every ring: pause output, copy the records written since
 * the previous snapshot (at most one ring's worth, oldest whole record
 * first), resume, write them as DATA chunks in time order and wait until
 * they are in the files. Caller's thread; not async-signal-safe. Returns 0
 * or the first -errno. */
int prec_snapshot__take(struct prec_snapshot *s);
void prec_snapshot__stats(const struct prec_snapshot *s,
			  struct prec_snapshot_stats *st);
/* Ring i's totals over every snapshot so far, as a drainer counts them:
 * the sum of its PERF_RECORD_LOST and of its PERF_RECORD_LOST_SAMPLES
 * records written to the shard. */
void prec_snapshot__lost(const struct prec_snapshot *s, int i,
			 uint64_t *lost, uint64_t *lost_samples);
/* A record a snapshot wrote from which perf takes a process (pid == tid)
 * afresh: its FORK, or its exec's COMM. */
struct prec_snapshot_restart {
	int32_t pid;
	uint32_t pad;
	uint64_t time;
};
/* The latest snapshot's restarts (ring by ring, each ring's oldest first;
 * a pid may come more than once); *nr of them, valid until the next
 * take(). The tail names such a process again after them (tail.c). */
const struct prec_snapshot_restart *
prec_snapshot__restarts(const struct prec_snapshot *s, size_t *nr);
void prec_snapshot__delete(struct prec_snapshot *s);

/* The records of a backward ring (data, size a power of two) between head
 * (data_head, moving down) and prev (head at the previous snapshot, 0 at
 * start), keeping only whole records within one ring of head: *end is the
 * position just past the oldest kept record, *records their count. Returns
 * 0, or -EBADMSG when an unwrapped span does not parse as whole records
 * (end and records then describe the part before the bad record). */
int prec_snapshot__range(const uint8_t *data, uint64_t size, uint64_t head,
			 uint64_t prev, uint64_t *end, uint32_t *records);
/* copy holds the records of ring span [head, end) oldest first (bytes =
 * end - head); now is data_head read again after copying. The kernel wrote
 * down to now meanwhile, over ring positions [now + size, head + size): the
 * oldest copied records reaching past now + size may be torn. Returns how
 * many bytes of such records lead copy; *records loses their count. */
uint64_t prec_snapshot__trim(const uint8_t *copy, uint64_t size, uint64_t head,
			     uint64_t end, uint64_t now, uint32_t *records);

#endif
