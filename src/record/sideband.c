// SPDX-License-Identifier: MIT
// Side band synthesis: the kernel and module MMAPs, the loaded BPF
// programs' KSYMBOL and BPF_EVENT records (bpf_synth.c) and, with
// --all-cgroups, the CGROUP records (cgroup.c), and per existing task
// FORK/COMM/MMAP2 (and NAMESPACES) records as perf would synthesize them
// from /proc, packed whole into DATA chunks of the side-band shard; plus
// their build-ids (the vDSO's from vdso.c). The synthesis again
// (prec_sideband_again: tails, the carry) reuses the task scan.

#include "record/sideband.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "record/bpf_synth.h"
#include "util/buildid.h"
#include "util/buildid_workers.h"
#include "util/clock.h"
#include "record/cgroup.h"
#include "record/chunk_pack.h"
#include "record/internal.h"
#include "record/thread_map.h"
#include "record/vdso.h"
#include "store/store.h"
#include "util/file.h"
#include "util/log.h"
#include "util/proc.h"
#include "util/proc_ns.h"

#define SB_NBUF 4              /* chunk buffers in flight (non-copy writers) */
#define SB_REC_MAX 8192        /* largest record we build, trailer included */
#define SB_NAME_MAX 4096       /* longer file names are truncated */
#define SB_TEXT_MAX (64u << 20) /* bound on one /proc text file */
/* A bounded synthesis gives no process more than this share of its bound. */
#define SB_PROC_SHARE 16

struct sb_mod {
	char name[64];
	uint64_t start, size;
	char *path;            /* .ko path or NULL */
};

struct sb {
	struct prec_shard_writer *w;
	struct prec_manifest *m;
	uint8_t *buf[SB_NBUF];
	int64_t ticket[SB_NBUF]; /* each buffer's last chunk */
	int cur;               /* the buffer being packed */
	struct prec_chunk_pack pack;
	int total;
	uint8_t rec[SB_REC_MAX];
	char *text;            /* reusable /proc file buffer */
	size_t text_cap;
	char **seen;           /* open-addressed set of "maj:min:ino path"
				* keys of the mapped files queued below */
	size_t seen_cap, seen_nr;
	struct prec_buildid_req *reqs; /* paths point into seen's keys */
	size_t nr_reqs, cap_reqs;
	bool data_maps;        /* prec_sideband_opts.data_maps */
	bool before_exec;      /* prec_sideband_opts.before_exec */
	bool no_maps;          /* prec_sideband_opts.no_maps */
	bool no_fork;          /* again: COMM and MMAP2 only */
	bool namespaces;       /* prec_sideband_opts.namespaces */
	/* perf's scan of every task (-a): a thread's FORK, NAMESPACES and
	 * COMM, in that order; the tasks of its thread map (the command, -p,
	 * -t) get no FORK (their parents are not recorded: the command's is
	 * prec), and their NAMESPACES after the COMM */
	bool every_task;
	int64_t map_timeout_ns; /* prec_sideband_opts.map_timeout_ms; -1: none */
	uint64_t map_timeouts; /* processes whose maps it cut */
	bool vdso;             /* a [vdso] map was written: its build-id added */
	uint64_t time;         /* put in every record's trailer (0: start) */
	uint16_t time_back;    /* where: prec_time_layout.trailer_time_back */
	/* a bounded synthesis (0: none): records past bound bytes, or a
	 * process's past its share of it, are left out and counted */
	uint64_t bound, bytes, proc_bytes, left_out;
	pid_t proc_tgid;       /* whose share proc_bytes counts (sb_listed) */
	bool in_proc;          /* the records are a process's (sb_process) */
};

/* ---- chunk packing ---- */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

/* The chunk in the current buffer out, and the next buffer taken once
 * the writer is done with it: without copy mode it reads a buffer until
 * that buffer's chunk is written. */
static int sb_next_buf(struct sb *sb)
{
	int err = prec_chunk_pack__cut(&sb->pack, sb->buf[(sb->cur + 1) % SB_NBUF]);

	if (err)
		return err;
	sb->ticket[sb->cur] = sb->pack.last;
	sb->cur = (sb->cur + 1) % SB_NBUF;
	if (sb->ticket[sb->cur] > 0)
		return prec_shard_writer__wait(sb->w, sb->ticket[sb->cur]);
	return 0;
}

/* Append sb->rec (header.size already set, trailer zeroed) as one record. */
static int sb_emit(struct sb *sb, uint32_t size)
{
	int err;

	if (sb->bound && (sb->bytes + size > sb->bound ||
			  (sb->in_proc && sb->proc_bytes + size > sb->bound / SB_PROC_SHARE))) {
		sb->left_out++;
		return 0;
	}
	sb->bytes += size;
	sb->proc_bytes += size;
	/* Records go out in time order (all 0 at the start). */
	if (sb->pack.len + size > PREC_CHUNK_MAX_PAYLOAD) {
		err = sb_next_buf(sb);
		if (err)
			return err;
	}
	if (sb->time)
		put64(sb->rec + size - sb->time_back, sb->time);
	memcpy(sb->buf[sb->cur] + sb->pack.len, sb->rec, size);
	sb->total++;
	return prec_chunk_pack__add(&sb->pack, (uint16_t)size, sb->time);
}

static size_t align8(size_t v)
{
	return (v + 7) & ~(size_t)7;
}

/* Start a record in sb->rec: header plus zeroed body of body_len bytes. */
static uint8_t *rec_begin(struct sb *sb, uint32_t type, uint16_t misc,
			  size_t body_len)
{
	struct perf_event_header h = {
		.type = type, .misc = misc,
		.size = (uint16_t)(sizeof(h) + body_len + PREC_SAMPLE_ID_TRAILER),
	};

	memset(sb->rec, 0, sizeof(h) + body_len + PREC_SAMPLE_ID_TRAILER);
	memcpy(sb->rec, &h, sizeof(h));
	return sb->rec + sizeof(h);
}

/* Copy a NUL-terminated name; returns its padded length (at least 8). */
static size_t name_len(const char *s)
{
	size_t n = strnlen(s, SB_NAME_MAX - 1);

	return align8(n + 1);
}

static void put_name(uint8_t *p, const char *s)
{
	memcpy(p, s, strnlen(s, SB_NAME_MAX - 1));
}

static int emit_mmap(struct sb *sb, uint64_t addr, uint64_t len,
		     uint64_t pgoff, const char *name)
{
	size_t nl = name_len(name);
	uint8_t *b = rec_begin(sb, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL,
			       32 + nl);

	put32(b, (uint32_t)-1);
	put32(b + 4, 0);
	put64(b + 8, addr);
	put64(b + 16, len);
	put64(b + 24, pgoff);
	put_name(b + 32, name);
	return sb_emit(sb, (uint32_t)(8 + 32 + nl + PREC_SAMPLE_ID_TRAILER));
}

/* misc FORK_EXEC, as perf marks the FORKs it synthesizes: its reader then
 * does not copy the parent's maps into the child, as it does on a kernel
 * FORK (the child's own MMAP2s follow; without it, a task bash started
 * had bash's maps too in perf report --mmaps). */
static int emit_fork(struct sb *sb, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid)
{
	uint8_t *b = rec_begin(sb, PERF_RECORD_FORK, PERF_RECORD_MISC_FORK_EXEC, 24);

	put32(b, pid);
	put32(b + 4, ppid);
	put32(b + 8, tid);
	put32(b + 12, ptid);
	return sb_emit(sb, 8 + 24 + PREC_SAMPLE_ID_TRAILER);
}

/* A task's name as the kernel's COMM records carry it and perf cuts its
 * synthesized ones: TASK_COMM_LEN less the NUL. /proc adds a workqueue
 * worker's description ("kworker/u8:3-events_unbound"); perf keeps its
 * first 15 bytes, and so does prec, so the tasks are named alike. */
#define SB_COMM_MAX 15

static int emit_comm(struct sb *sb, uint32_t pid, uint32_t tid, const char *comm)
{
	size_t n = strnlen(comm, SB_COMM_MAX), nl = align8(n + 1);
	uint8_t *b = rec_begin(sb, PERF_RECORD_COMM, 0, 8 + nl);

	put32(b, pid);
	put32(b + 4, tid);
	memcpy(b + 8, comm, n); /* its NUL and padding: rec_begin's zeros */
	return sb_emit(sb, (uint32_t)(8 + 8 + nl + PREC_SAMPLE_ID_TRAILER));
}

/* The namespaces of one thread, as the kernel's NAMESPACES record lays
 * them out (PERF_RECORD_NAMESPACES in linux/perf_event.h). */
static int emit_namespaces(struct sb *sb, uint32_t pid, uint32_t tid,
			   const struct prec_proc_ns *ns)
{
	uint8_t *b = rec_begin(sb, PERF_RECORD_NAMESPACES, 0,
			       16 + PREC_PROC_NS_NR * 16);

	put32(b, pid);
	put32(b + 4, tid);
	put64(b + 8, PREC_PROC_NS_NR);
	for (int i = 0; i < PREC_PROC_NS_NR; i++) {
		put64(b + 16 + 16 * i, ns[i].dev);
		put64(b + 24 + 16 * i, ns[i].ino);
	}
	return sb_emit(sb, 8 + 16 + PREC_PROC_NS_NR * 16 + PREC_SAMPLE_ID_TRAILER);
}

/* One line of /proc/PID/maps, parsed. */
struct sb_map {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	const char *path;
};

/* extra: more misc bits (PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT) */
static int emit_mmap2(struct sb *sb, uint32_t pid, const struct sb_map *mp, uint16_t extra)
{
	size_t nl = name_len(mp->path);
	uint16_t misc = PERF_RECORD_MISC_USER | extra |
			(mp->prot & PROT_EXEC ? 0 : PERF_RECORD_MISC_MMAP_DATA);
	uint8_t *b = rec_begin(sb, PERF_RECORD_MMAP2, misc, 64 + nl);

	put32(b, pid);
	put32(b + 4, pid);
	put64(b + 8, mp->start);
	put64(b + 16, mp->end - mp->start);
	put64(b + 24, mp->pgoff);
	put32(b + 32, mp->maj);
	put32(b + 36, mp->min);
	put64(b + 40, mp->ino);
	/* ino_generation (b + 48) stays 0: /proc does not expose it. */
	put32(b + 56, mp->prot);
	put32(b + 60, mp->flags);
	put_name(b + 64, mp->path);
	return sb_emit(sb, (uint32_t)(8 + 64 + nl + PREC_SAMPLE_ID_TRAILER));
}

/* ---- helpers: files and the path set ---- */

/* A whole /proc file into sb->text (reused across calls, bounded).
 * Returns its length or -errno. */
static ssize_t sb_read(struct sb *sb, const char *path)
{
	return prec_file__read_text(path, &sb->text, &sb->text_cap, SB_TEXT_MAX);
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static bool seen_has(const struct sb *sb, const char *key)
{
	if (!sb->seen_cap)
		return false;
	for (size_t i = hash_str(key) & (sb->seen_cap - 1); sb->seen[i];
	     i = (i + 1) & (sb->seen_cap - 1))
		if (!strcmp(sb->seen[i], key))
			return true;
	return false;
}

/* Insert key (malloc'd; the set takes it) into the seen set. Returns 1 if
 * new, 0 if seen (key freed), -ENOMEM (key freed). */
static int seen_add(struct sb *sb, char *key)
{
	size_t i;

	if (2 * (sb->seen_nr + 1) > sb->seen_cap) {
		size_t cap = sb->seen_cap ? sb->seen_cap * 2 : 256;
		char **n = calloc(cap, sizeof(*n));

		if (!n) {
			free(key);
			return -ENOMEM;
		}
		for (size_t j = 0; j < sb->seen_cap; j++) {
			if (!sb->seen[j])
				continue;
			for (i = hash_str(sb->seen[j]) & (cap - 1); n[i];)
				i = (i + 1) & (cap - 1);
			n[i] = sb->seen[j];
		}
		free(sb->seen);
		sb->seen = n;
		sb->seen_cap = cap;
	}
	for (i = hash_str(key) & (sb->seen_cap - 1); sb->seen[i];
	     i = (i + 1) & (sb->seen_cap - 1)) {
		if (!strcmp(sb->seen[i], key)) {
			free(key);
			return 0;
		}
	}
	sb->seen[i] = key;
	sb->seen_nr++;
	return 1;
}

static int add_buildid(struct sb *sb, const uint8_t *id, int size,
		       uint16_t cpumode, const char *path)
{
	struct prec_manifest_buildid b = {
		.cpumode = cpumode, .size = (uint8_t)size, .pid = -1,
		.path = (char *)path,
	};

	memcpy(b.id, id, (size_t)size);
	return prec_manifest__add_buildid(sb->m, &b);
}

/* Queue the build-id of a file mapped by pid, once per (file, path): read
 * by sb_file_buildids() only while the path still names that file. */
static int sb_want_buildid(struct sb *sb, pid_t pid, const struct sb_map *mp)
{
	struct prec_buildid_req *n;
	char *key;
	int ret;

	/* A path whose id is known already (a tail after the start's
	 * synthesis, or an earlier tail) is not read again. */
	if (seen_has(sb, mp->path))
		return 0;
	if (asprintf(&key, "%x:%x:%llu %s", mp->maj, mp->min,
		     (unsigned long long)mp->ino, mp->path) < 0)
		return -ENOMEM;
	ret = seen_add(sb, key);
	if (ret <= 0)
		return ret;
	if (sb->nr_reqs == sb->cap_reqs) {
		size_t cap = sb->cap_reqs ? 2 * sb->cap_reqs : 256;

		n = realloc(sb->reqs, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		sb->reqs = n;
		sb->cap_reqs = cap;
	}
	sb->reqs[sb->nr_reqs++] = (struct prec_buildid_req){
		.path = strchr(key, ' ') + 1, .pid = pid,
		.maj = mp->maj, .min = mp->min, .ino = mp->ino };
	return 0;
}

/* The queued files' build-ids, within prec_buildid_workers__resolve()'s deadline:
 * a file that does not answer must not hold the recording's start.
 * Failures (no note, file replaced or gone, not ELF) only mean no entry. */
static int sb_file_buildids(struct sb *sb)
{
	int err = 0;

	prec_buildid_workers__resolve(sb->reqs, sb->nr_reqs);
	for (size_t i = 0; i < sb->nr_reqs && !err; i++) {
		const struct prec_buildid_req *r = &sb->reqs[i];
		char *key;

		if (prec_buildid__unread(r->ret))
			sb->m->buildids_unread++;
		if (r->ret <= 0) {
			pr_debug("sideband %s: build-id: %s", r->path, strerror(-r->ret));
			continue;
		}
		/* One id per path, the first found (as perf keeps one per
		 * dso name): keyed "/path", which no "maj:min:ino" key is. */
		key = strdup(r->path);
		err = key ? seen_add(sb, key) : -ENOMEM;
		if (err == 1)
			err = add_buildid(sb, r->id, r->ret, PERF_RECORD_MISC_USER, r->path);
	}
	return err;
}

/* ---- kernel and modules ---- */

struct ksyms {
	uint64_t text, stext, etext;
	bool has_text, has_stext, has_etext;
};

/* Stops as soon as it has what it needs: the kernel formats the whole
 * file (every symbol) as it is read, and _etext sits near its end. */
static void scan_kallsyms(struct ksyms *k, bool need_etext)
{
	char line[512];
	FILE *f = fopen("/proc/kallsyms", "re");

	memset(k, 0, sizeof(*k));
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *sp, *name;
		uint64_t addr = strtoull(line, &sp, 16);

		if (sp == line || sp[0] != ' ' || !sp[1] || sp[2] != ' ')
			continue;
		name = sp + 3;
		name[strcspn(name, "\t\n")] = '\0';
		if (!strcmp(name, "_text"))
			k->text = addr, k->has_text = true;
		else if (!strcmp(name, "_stext"))
			k->stext = addr, k->has_stext = true;
		else if (!strcmp(name, "_etext"))
			k->etext = addr, k->has_etext = true;
		if (k->has_text && (k->has_etext || !need_etext))
			break;
	}
	fclose(f);
}

/* x86 publishes [_text, _etext) as the "Kernel code" resource of
 * /proc/iomem (physical addresses, but the length is what we need), which
 * saves reading all of kallsyms. Other arches bound it differently. */
static bool iomem_text_len(uint64_t *len)
{
#if defined(__x86_64__) || defined(__i386__)
	char line[256];
	FILE *f = fopen("/proc/iomem", "re");
	bool ok = false;

	if (!f)
		return false;
	while (!ok && fgets(line, sizeof(line), f)) {
		unsigned long long a, b;

		if (strstr(line, " : Kernel code\n") &&
		    sscanf(line, " %llx-%llx", &a, &b) == 2 && b > a) {
			*len = b - a + 1;
			ok = true;
		}
	}
	fclose(f);
	return ok;
#else
	(void)len;
	return false;
#endif
}

static int sb_kernel(struct sb *sb, bool quiet)
{
	const char *sym = "_text";
	uint64_t start, len = 0;
	bool fast;
	uint8_t id[20];
	struct ksyms k;
	char name[64];
	int ret;

	fast = iomem_text_len(&len);
	scan_kallsyms(&k, !fast);
	start = k.text;
	if (!k.has_text && k.has_stext) {
		start = k.stext;
		sym = "_stext";
	}
	if (!start && !quiet)
		pr_warn("sideband: kernel text address hidden (kptr_restrict?): kernel symbols will not resolve");
	/* Without _etext the map reaches the top of the address space. */
	if (!fast || !k.has_text)
		len = k.etext > start ? k.etext - start : ~0ull - start;
	snprintf(name, sizeof(name), "[kernel.kallsyms]%s", sym);
	ret = emit_mmap(sb, start, len, start, name);
	if (ret)
		return ret;
	ret = prec_buildid__read_kernel(id);
	if (ret < 0) {
		pr_warn("sideband: kernel build-id: %s", strerror(-ret));
		return 0;
	}
	return add_buildid(sb, id, ret, PERF_RECORD_MISC_KERNEL,
			   "[kernel.kallsyms]");
}

/* "foo-bar.ko.xz" -> "foo_bar": the name /proc/modules uses. */
static void mod_name(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	size_t n;

	base = base ? base + 1 : path;
	n = strcspn(base, ".");
	if (n >= size)
		n = size - 1;
	for (size_t i = 0; i < n; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[n] = '\0';
}

/* Full .ko paths from modules.dep ("kernel/x/y.ko.xz: deps"), one pass. */
static int find_module_paths(struct sb *sb, struct sb_mod *mods, int nr)
{
	char dir[128], path[256], name[64];
	struct utsname u;
	char *line, *next;

	if (uname(&u) || snprintf(dir, sizeof(dir), "/lib/modules/%s",
				  u.release) >= (int)sizeof(dir))
		return 0;
	snprintf(path, sizeof(path), "%s/modules.dep", dir);
	if (sb_read(sb, path) < 0)
		return 0;
	for (line = sb->text; line && *line; line = next) {
		char *colon = strchr(line, ':');

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!colon)
			continue;
		*colon = '\0';
		mod_name(line, name, sizeof(name));
		for (int i = 0; i < nr; i++) {
			if (mods[i].path || strcmp(mods[i].name, name))
				continue;
			if (asprintf(&mods[i].path, "%s/%s", dir, line) < 0) {
				mods[i].path = NULL;
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/* /proc/modules: "name size refs deps state 0xaddr". */
static int read_modules(struct sb *sb, struct sb_mod **out)
{
	struct sb_mod *mods = NULL, *t;
	char *line, *next;
	int nr = 0;

	*out = NULL;
	if (sb_read(sb, "/proc/modules") < 0)
		return 0;
	for (line = sb->text; line && *line; line = next) {
		char name[64], state[32];
		unsigned long long size, addr;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%63s %llu %*s %*s %31s %llx", name, &size,
			   state, &addr) != 4)
			continue;
		t = realloc(mods, (size_t)(nr + 1) * sizeof(*mods));
		if (!t) {
			free(mods);
			return -ENOMEM;
		}
		mods = t;
		memset(&mods[nr], 0, sizeof(*mods));
		memcpy(mods[nr].name, name, sizeof(name));
		mods[nr].start = addr;
		mods[nr].size = size;
		nr++;
	}
	*out = mods;
	return nr;
}

static int sb_modules(struct sb *sb)
{
	struct sb_mod *mods;
	char bracket[80];
	uint8_t id[20];
	int nr = read_modules(sb, &mods), err = 0;

	if (nr > 0)
		err = find_module_paths(sb, mods, nr);
	for (int i = 0; i < nr && !err; i++) {
		const char *name = mods[i].path;
		int ret;

		if (!name) {
			snprintf(bracket, sizeof(bracket), "[%s]", mods[i].name);
			name = bracket;
		}
		err = emit_mmap(sb, mods[i].start, mods[i].size, 0, name);
		if (err)
			break;
		ret = prec_buildid__read_module(mods[i].name, id);
		if (ret > 0)
			err = add_buildid(sb, id, ret, PERF_RECORD_MISC_KERNEL, name);
	}
	for (int i = 0; i < nr; i++)
		free(mods[i].path);
	free(mods);
	return nr < 0 ? nr : err;
}

/* ---- processes ---- */

/* "7f00-7f10 r-xp 00001000 fe:00 1234   /usr/lib/x.so" */
static bool parse_map(char *line, struct sb_map *mp)
{
	char *p = line, *perms;

	mp->start = strtoull(p, &p, 16);
	if (*p++ != '-')
		return false;
	mp->end = strtoull(p, &p, 16);
	if (*p++ != ' ' || strlen(p) < 5 || mp->end < mp->start)
		return false;
	perms = p;
	p += 4;
	mp->pgoff = strtoull(p, &p, 16);
	mp->maj = (uint32_t)strtoul(p, &p, 16);
	if (*p++ != ':')
		return false;
	mp->min = (uint32_t)strtoul(p, &p, 16);
	mp->ino = strtoull(p, &p, 10);
	p += strspn(p, " ");
	mp->path = p;
	mp->prot = (perms[0] == 'r' ? PROT_READ : 0) |
		   (perms[1] == 'w' ? PROT_WRITE : 0) |
		   (perms[2] == 'x' ? PROT_EXEC : 0);
	mp->flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
	return true;
}

/* The map at hand when --proc-map-timeout ran out: the process's last,
 * marked as perf marks it (whatever its protection), said once. */
static int timed_out(struct sb *sb, pid_t pid, struct sb_map *mp)
{
	if (!mp->path[0])
		mp->path = "//anon";
	if (!sb->map_timeouts++)
		pr_warn("/proc/%d/maps: not read within --proc-map-timeout (%lld ms): its later maps are left out, and any such process's (perf report counts them)",
			(int)pid, (long long)(sb->map_timeout_ns / 1000000));
	return emit_mmap2(sb, (uint32_t)pid, mp, PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT);
}

/* The MMAP2s of process pid's executable maps (and data maps, with
 * data_maps). Returns 0, 1 (its maps could not be read: none) or -errno. */
static int sb_maps(struct sb *sb, pid_t pid)
{
	char path[64], *line, *next;
	uint64_t deadline = 0;
	struct sb_map mp;
	bool cut = false;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (sb->map_timeout_ns >= 0)
		deadline = prec_now_ns(CLOCK_MONOTONIC) + (uint64_t)sb->map_timeout_ns;
	if (prec_file__read_text_until(path, &sb->text, &sb->text_cap, SB_TEXT_MAX,
				       deadline, &cut) < 0)
		return 1; /* gone, or not ours to read */
	for (line = sb->text; line && *line && !err; line = next) {
		uint64_t left = sb->left_out;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!parse_map(line, &mp))
			continue;
		/* As perf: the time is looked at after each line; a read cut
		 * short ends at its last whole line. */
		if ((cut && (!next || !*next)) ||
		    (deadline && prec_now_ns(CLOCK_MONOTONIC) > deadline))
			return timed_out(sb, pid, &mp);
		/* --call-graph dwarf: perf's unwinder reads .eh_frame_hdr and
		 * the like through the maps it knows, not only code's. */
		if (!(mp.prot & PROT_EXEC)) {
			if (sb->data_maps && (mp.prot & PROT_READ) && mp.path[0] == '/')
				err = emit_mmap2(sb, (uint32_t)pid, &mp, 0);
			continue;
		}
		/* As perf: every executable map, anonymous ones (JIT code,
		 * resolved through /tmp/perf-PID.map) named "//anon". */
		if (!mp.path[0])
			mp.path = "//anon";
		err = emit_mmap2(sb, (uint32_t)pid, &mp, 0);
		/* a map the bound left out names no file: none to read */
		if (!err && mp.path[0] == '/' && sb->left_out == left)
			err = sb_want_buildid(sb, pid, &mp);
		if (!err && !sb->vdso && !strcmp(mp.path, PREC_VDSO_MAP)) {
			sb->vdso = true;
			err = prec_vdso__add_buildid(sb->m);
		}
	}
	return err;
}

static int read_status(struct sb *sb, pid_t id, struct prec_proc_status *st)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	if (sb_read(sb, path) < 0)
		return -ESRCH;
	return prec_proc__parse_status(sb->text, st);
}

/* The NAMESPACES record of thread tid, read through its directory under
 * the process's task directory (taskdir): an id reused since the listing
 * is at worst another task's namespaces, never a file outside /proc. A
 * thread gone meanwhile has them 0, as perf's stat() leaves them. */
static int sb_namespaces(struct sb *sb, int32_t tgid, int taskdir, int32_t tid)
{
	struct prec_proc_ns ns[PREC_PROC_NS_NR] = { { 0, 0 } };
	char name[16];
	int fd;

	snprintf(name, sizeof(name), "%d", (int)tid);
	fd = openat(taskdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		prec_proc_ns__read(fd, ns);
		close(fd);
	}
	return emit_namespaces(sb, (uint32_t)tgid, (uint32_t)tid, ns);
}

/* FORK (every_task only) then COMM for one thread, and its NAMESPACES
 * (--namespaces) where perf puts it: the order perf synthesizes them in. The
 * main thread's parent is the process's parent; other threads are taken
 * as spawned by the main thread. taskdir: the process's /proc/PID/task,
 * open. Returns 1 (named), 0 (gone: not named) or -errno. */
static int sb_thread(struct sb *sb, const struct prec_proc_status *st, int taskdir,
		     int32_t tid)
{
	char path[96];
	uint32_t parent = tid == st->tgid ? (uint32_t)st->ppid : (uint32_t)st->tgid;
	ssize_t n;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", st->tgid, tid);
	n = sb_read(sb, path);
	if (n < 0)
		return 0; /* thread exited meanwhile: not named */
	if (n > 0 && sb->text[n - 1] == '\n')
		sb->text[n - 1] = '\0';
	err = sb->no_fork || !sb->every_task ? 0 :
	      emit_fork(sb, (uint32_t)st->tgid, parent, (uint32_t)tid, parent);
	if (!err && sb->namespaces && sb->every_task)
		err = sb_namespaces(sb, st->tgid, taskdir, tid);
	if (!err)
		err = emit_comm(sb, (uint32_t)st->tgid, (uint32_t)tid, sb->text);
	if (!err && sb->namespaces && !sb->every_task)
		err = sb_namespaces(sb, st->tgid, taskdir, tid);
	return err ? err : 1;
}

/* One process, every thread of it, as perf's scan of /proc names them:
 * its threads listed first (those that start meanwhile, prec's own
 * included, are not named), each's records, the process's maps right
 * after its leader's, wherever the leader is in the listing. */
static int sb_process(struct sb *sb, const struct prec_proc_status *st)
{
	pid_t tgid = st->tgid, *tids;
	char path[64];
	int taskdir, n, err = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
	taskdir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (taskdir < 0)
		return 0; /* vanished */
	n = prec_thread_map__new(&tgid, 1, true, &tids);
	if (n < 0) {
		close(taskdir);
		return n;
	}
	sb->proc_bytes = 0;
	sb->proc_tgid = tgid;
	sb->in_proc = true;
	for (int i = 0; i < n && !err; i++) {
		int named = sb_thread(sb, st, taskdir, (int32_t)tids[i]);

		err = named < 0 ? named : 0;
		if (named > 0 && tids[i] == tgid && !st->kthread &&
		    !sb->before_exec && !sb->no_maps)
			err = sb_maps(sb, tgid);
	}
	/* err 1: maps not ours to read (a task of another pid namespace's
	 * init, say): perf's scan names none of the threads after the
	 * leader then, nor does prec */
	err = err > 0 ? 0 : err;
	free(tids);
	close(taskdir);
	sb->in_proc = false;
	return err;
}

static int sb_all_tasks(struct sb *sb)
{
	struct prec_proc_status st;
	pid_t *pids;
	int nr = prec_proc__pids(&pids), err = 0;

	if (nr < 0)
		return nr;
	for (int i = 0; !err && i < nr; i++)
		if (!read_status(sb, pids[i], &st))
			err = sb_process(sb, &st);
	free(pids);
	return err;
}

/* One thread as perf's synthesis of a thread map names it (not its whole
 * process): its COMM (NAMESPACES after it), then the process's MMAP2s if
 * it leads its thread group (none before_exec). A thread gone meanwhile is
 * named by nothing. */
static int sb_listed(struct sb *sb, const struct prec_proc_status *st, int32_t tid)
{
	char path[64];
	int taskdir, err;

	snprintf(path, sizeof(path), "/proc/%d/task", st->tgid);
	taskdir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (taskdir < 0)
		return 0; /* vanished */
	/* the bound's share is a process's, whichever of its threads */
	if (sb->proc_tgid != st->tgid)
		sb->proc_bytes = 0;
	sb->proc_tgid = st->tgid;
	sb->in_proc = true;
	err = sb_thread(sb, st, taskdir, tid);
	close(taskdir);
	if (err > 0)
		err = tid != st->tgid || st->kthread || sb->before_exec || sb->no_maps ?
		      0 : sb_maps(sb, st->tgid);
	sb->in_proc = false;
	return err > 0 ? 0 : err;
}

static bool listed(const pid_t *tids, int nr, pid_t tid)
{
	for (int i = 0; i < nr; i++)
		if (tids[i] == tid)
			return true;
	return false;
}

/* -p, -u, -t (processes false) and the command: the tasks of their thread
 * map (thread_map.h), as perf's synthesis of it names them: each thread's
 * COMM, the process's maps after its leader's; a thread whose leader is
 * not in the map brings the leader's COMM and maps after its own, again
 * for each such thread, as perf's. A repeated id is named again. Where
 * perf stops at a task gone meanwhile, prec names the others. */
static int sb_pids(struct sb *sb, const pid_t *ids, int nr, bool processes)
{
	pid_t *tids;
	int n = prec_thread_map__new(ids, nr, processes, &tids), err = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n && !err; i++) {
		struct prec_proc_status st;

		if (read_status(sb, tids[i], &st))
			continue;
		err = sb_listed(sb, &st, (int32_t)tids[i]);
		if (!err && tids[i] != st.tgid && !listed(tids, n, st.tgid))
			err = sb_listed(sb, &st, (int32_t)st.tgid);
	}
	free(tids);
	return err;
}

/* The command prec forked, before its exec (prec_sideband_opts.command):
 * COMM pid/pid with its name now ("perf-exec"), then its NAMESPACES
 * with --namespaces, the order perf synthesizes its command's in. */
static int sb_command(struct sb *sb, pid_t pid)
{
	char path[64];
	ssize_t n;
	int taskdir, err;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	n = sb_read(sb, path);
	if (n <= 0)
		return 0; /* gone: nothing to name */
	if (sb->text[n - 1] == '\n')
		sb->text[n - 1] = '\0';
	err = emit_comm(sb, (uint32_t)pid, (uint32_t)pid, sb->text);
	if (err || !sb->namespaces)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	taskdir = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = sb_namespaces(sb, (int32_t)pid, taskdir, (int32_t)pid);
	if (taskdir >= 0)
		close(taskdir);
	return err;
}

/* Whether the tasks' synthesis named pid already: -p, -t or the command
 * as the target, their processes, pid among them. */
static bool sb_named(const struct prec_sideband_opts *opts, pid_t pid)
{
	if (opts->no_tasks || opts->all_tasks)
		return false;
	for (int i = 0; i < opts->nr_pids; i++)
		if (opts->pids[i] == pid)
			return true;
	return false;
}

/* prec_rec_sink for bpf_synth.c: kernel records, time 0 like the rest. */
static int sb_kernel_rec(void *ctx, uint32_t type, const void *body, size_t len)
{
	struct sb *sb = ctx;
	uint8_t *b = rec_begin(sb, type, 0, len); /* misc 0, as the kernel */

	memcpy(b, body, len);
	return sb_emit(sb, (uint32_t)(sizeof(struct perf_event_header) + len +
				      PREC_SAMPLE_ID_TRAILER));
}

static void sb_exit(struct sb *sb)
{
	for (int i = 0; i < SB_NBUF; i++)
		free(sb->buf[i]);
	for (size_t i = 0; i < sb->seen_cap; i++)
		free(sb->seen[i]);
	free(sb->seen);
	free(sb->reqs);
	free(sb->text);
}

static int sb_init(struct sb *sb, struct prec_shard_writer *w,
		   struct prec_manifest *m)
{
	memset(sb, 0, sizeof(*sb));
	sb->w = w;
	sb->m = m;
	for (int i = 0; i < SB_NBUF; i++) {
		sb->buf[i] = malloc(PREC_CHUNK_MAX_PAYLOAD);
		if (!sb->buf[i])
			return -ENOMEM;
	}
	prec_chunk_pack__init(&sb->pack, w, sb->buf[0]);
	sb->map_timeout_ns = -1;
	sb->text_cap = 64 * 1024;
	sb->text = malloc(sb->text_cap);
	return sb->text ? 0 : -ENOMEM;
}

/* The end of a synthesis that went well so far (err 0): the build-ids of
 * the files it mapped, the last chunk out, and every chunk waited for (in
 * the file or the writer's staging). Returns err, else the first error. */
static int sb_finish(struct sb *sb, int err)
{
	if (!err)
		err = sb_file_buildids(sb);
	if (!err)
		err = prec_chunk_pack__finish(&sb->pack);
	/* Every chunk is written: a next synthesis (a tail's) may pack into
	 * the current buffer from its start. */
	if (!err)
		return prec_chunk_pack__cut(&sb->pack, sb->buf[sb->cur]);
	/* Still every chunk appended waited for: the writer may be reading
	 * the buffers the caller is about to free. */
	if (sb->pack.last > 0)
		prec_shard_writer__wait(sb->w, sb->pack.last);
	return err;
}

int prec_sideband__synthesize(struct prec_shard_writer *w,
			      struct prec_manifest *m,
			      const struct prec_sideband_opts *opts)
{
	struct sb *sb = malloc(sizeof(*sb));
	int err;

	if (!sb)
		return -ENOMEM;
	err = sb_init(sb, w, m);
	sb->data_maps = opts && opts->data_maps;
	sb->before_exec = opts && opts->before_exec;
	sb->namespaces = opts && opts->namespaces;
	sb->every_task = opts && opts->all_tasks;
	sb->bound = opts ? opts->max_bytes : 0;
	if (opts && opts->map_timeout)
		sb->map_timeout_ns = (int64_t)opts->map_timeout_ms * 1000000;
	if (!err)
		err = sb_kernel(sb, opts && opts->user_only);
	if (!err)
		err = sb_modules(sb);
	/* The programs' symbols with --no-bpf-event too, as perf's */
	if (!err && opts) {
		int n = prec_bpf_synth__programs(sb_kernel_rec, sb, sb->m, opts->bpf);

		err = n < 0 ? n : 0;
	}
	/* Before the tasks, as perf: the ids samples carry get their names. */
	if (!err && opts && opts->cgroups) {
		int n = prec_cgroup__synthesize(sb_kernel_rec, sb);

		err = n < 0 ? n : 0;
	}
	sb->no_maps = opts && opts->no_maps;
	if (opts && opts->no_tasks)
		; /* --synth=no: the tasks that exist are not named */
	else if (!err && opts && opts->all_tasks)
		err = sb_all_tasks(sb);
	else if (!err && opts && opts->nr_pids > 0)
		err = sb_pids(sb, opts->pids, opts->nr_pids, !opts->threads);
	if (!err && opts && opts->command > 0 && !sb_named(opts, opts->command))
		err = sb_command(sb, opts->command);
	/* Our buffers go away below: every chunk must be in the file (or in
	 * the writer's staging) first. */
	err = sb_finish(sb, err);
	if (!err && sb->left_out)
		pr_warn("%s: %llu records of the tasks' comms and maps left out over its bound (%llu bytes, an eighth of --max-disk; a process a sixteenth of that): their tasks may show as :PID or without symbols until they exec or map again",
			PREC_SHARD_SIDEBAND_NAME, (unsigned long long)sb->left_out,
			(unsigned long long)sb->bound);
	if (err)
		pr_err("sideband: synthesize: %s", strerror(-err));
	else
		err = sb->total;
	sb_exit(sb);
	free(sb);
	return err;
}

/* ---- the synthesis again: the tasks as they are at a later time ---- */

struct prec_sideband_again {
	struct sb sb;           /* kept: its seen set spares re-reading files */
};

int prec_sideband_again__new(struct prec_sideband_again **out,
			     struct prec_shard_writer *w, struct prec_manifest *m,
			     bool data_maps)
{
	struct prec_sideband_again *t = malloc(sizeof(*t));
	int err;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	err = sb_init(&t->sb, w, m);
	t->sb.data_maps = data_maps;
	t->sb.no_fork = true;
	t->sb.time_back = m->time_layout.trailer_time_back;
	/* The time must fall inside the zeroed trailer sb_emit fills. */
	if (!err && (t->sb.time_back < 8 || t->sb.time_back > PREC_SAMPLE_ID_TRAILER))
		err = -EINVAL;
	/* Paths whose id the manifest has (the start's synthesis): known. */
	for (uint32_t i = 0; !err && i < m->nr_buildids; i++) {
		const char *path = m->buildids[i].path;
		char *key;

		if (!path || path[0] != '/' || m->buildids[i].cpumode != PERF_RECORD_MISC_USER)
			continue;
		key = strdup(path);
		err = key ? seen_add(&t->sb, key) : -ENOMEM;
		err = err < 0 ? err : 0;
	}
	if (err) {
		prec_sideband_again__delete(t);
		return err;
	}
	*out = t;
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* The processes a tail names, sorted: every one in /proc (pids NULL), or
 * those of pids (each id's Tgid). Returns how many or -errno. */
static int again_tgids(struct sb *sb, const pid_t *pids, int nr, pid_t **out)
{
	size_t n = 0, u = 0;
	pid_t *v;

	/* /proc's entries are the processes' own ids: no status to read
	 * (a tail needs no parent, and a kernel thread's empty maps cost no
	 * more than its status would). */
	if (!pids)
		return prec_proc__pids(out);
	*out = NULL;
	v = malloc(((size_t)nr + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < nr; i++) {
		struct prec_proc_status st;

		if (!read_status(sb, pids[i], &st))
			v[n++] = st.tgid;
	}
	qsort(v, n, sizeof(*v), cmp_pid);
	for (size_t i = 0; i < n; i++)
		if (!u || v[i] != v[u - 1])
			v[u++] = v[i];
	*out = v;
	return (int)u;
}

int prec_sideband_again__write(struct prec_sideband_again *t, const pid_t *pids,
			       int nr, uint64_t time)
{
	struct sb *sb = &t->sb;
	pid_t *tg = NULL;
	int ntg, err = 0;

	if (!time)
		return -EINVAL;
	ntg = again_tgids(sb, pids, nr, &tg);
	if (ntg < 0)
		return ntg;
	sb->total = 0;
	sb->bytes = 0;
	sb->nr_reqs = 0;
	/* Every process at time: records go out in time order. */
	sb->time = time;
	sb->every_task = !pids;
	for (int i = 0; i < ntg && !err; i++)
		err = sb_process(sb, &(struct prec_proc_status){ .tgid = tg[i] });
	free(tg);
	/* In the file before the snapshot is acked, as the CPU shards are. */
	err = sb_finish(sb, err);
	return err ? err : sb->total;
}

int prec_sideband_again__write_threads(struct prec_sideband_again *t,
				       const pid_t *tids, int nr, uint64_t time)
{
	struct sb *sb = &t->sb;
	pid_t *leaders;
	int nl = 0, err = 0;

	if (!time)
		return -EINVAL;
	leaders = malloc(((size_t)nr + 1) * sizeof(*leaders));
	if (!leaders)
		return -ENOMEM;
	sb->total = 0;
	sb->bytes = 0;
	sb->nr_reqs = 0;
	sb->time = time;
	sb->every_task = false;
	sb->proc_tgid = 0;
	for (int i = 0; i < nr && !err; i++) {
		struct prec_proc_status st;

		/* Gone: perf's synthesis stops at it and names none of the
		 * threads listed after it; prec names them. */
		if (read_status(sb, tids[i], &st))
			continue;
		err = sb_listed(sb, &st, (int32_t)tids[i]);
		/* A thread whose leader is not listed brings the leader's
		 * COMM and maps after its own, as perf's (once a process,
		 * where perf repeats them for each such thread). */
		if (err || tids[i] == st.tgid || listed(tids, nr, st.tgid) ||
		    listed(leaders, nl, st.tgid))
			continue;
		leaders[nl++] = st.tgid;
		err = sb_listed(sb, &st, (int32_t)st.tgid);
	}
	free(leaders);
	err = sb_finish(sb, err);
	return err ? err : sb->total;
}

void prec_sideband_again__bound(struct prec_sideband_again *t, uint64_t bytes)
{
	t->sb.bound = bytes;
}

void prec_sideband_again__namespaces(struct prec_sideband_again *t)
{
	t->sb.namespaces = true;
}

void prec_sideband_again__map_timeout(struct prec_sideband_again *t, uint32_t ms)
{
	t->sb.map_timeout_ns = (int64_t)ms * 1000000;
}

uint64_t prec_sideband_again__left_out(const struct prec_sideband_again *t)
{
	return t->sb.left_out;
}

void prec_sideband_again__delete(struct prec_sideband_again *t)
{
	if (!t)
		return;
	sb_exit(&t->sb);
	free(t);
}
