// SPDX-License-Identifier: MIT
// perf.data feature payloads built from a manifest (perf.data-file-format.txt,
// "Header feature sections"): the same bytes go into a file-mode feature
// section and into a pipe-mode HEADER_FEATURE record, so both writers share
// this file.
#include "read/internal.h"
#include "read/bytebuf.h"
#include "read/zstd_out.h"
#include "util/bytes.h"
#include "util/cpu_list.h"
#include "util/log.h"

#include <endian.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum {
	FEAT_TRACING_DATA = 1,
	FEAT_BUILD_ID = 2,
	FEAT_HOSTNAME = 3,
	FEAT_OSRELEASE = 4,
	FEAT_VERSION = 5,
	FEAT_ARCH = 6,
	FEAT_NRCPUS = 7,
	FEAT_CPUDESC = 8,
	FEAT_CPUID = 9,
	FEAT_TOTAL_MEM = 10,
	FEAT_CMDLINE = 11,
	FEAT_EVENT_DESC = 12,
	FEAT_CPU_TOPOLOGY = 13,
	FEAT_NUMA_TOPOLOGY = 14,
	FEAT_PMU_MAPPINGS = 16,
	FEAT_GROUP_DESC = 17,
	FEAT_AUXTRACE = 18,
	FEAT_CACHE = 20,
	FEAT_SAMPLE_TIME = 21,
	FEAT_MEM_TOPOLOGY = 22,
	FEAT_CLOCKID = 23,
	FEAT_BPF_PROG_INFO = 25,
	FEAT_BPF_BTF = 26,
	FEAT_COMPRESSED = 27,
	FEAT_CPU_PMU_CAPS = 28,
	FEAT_CLOCK_DATA = 29,
	FEAT_PMU_CAPS = 31,
};

/* perf pads every header string to this (NAME_ALIGN); CPU_TOPOLOGY's size
 * bookkeeping assumes it, so it is not optional. */
#define NAME_ALIGN 64
#define BUILD_ID_MISC_SIZE 0x8000 /* PERF_RECORD_MISC_BUILD_ID_SIZE */
#define BUILD_ID_ENTRY_HDR 36     /* header, pid, data[20], size, pad */
#define BUILD_ID_NAME_MAX 4096    /* perf's PATH_MAX: its name buffer */

/* perf_header_string: u32 len, the string, its NUL, zeros up to len. */
static void put_str(struct prec_bytebuf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;

	prec_bytebuf__put_u32(b, (uint32_t)padded);
	prec_bytebuf__put(b, s, n);
	prec_bytebuf__put(b, NULL, padded - n);
}

static int fbuf_done(struct prec_bytebuf *b, void **buf, size_t *len)
{
	if (b->err) {
		free(b->p);
		return b->err;
	}
	*buf = b->p;
	*len = b->len;
	return 0;
}

/* The attr as perf 6.1 must see it: exactly 128 bytes, size field 128. */
static void put_attr(struct prec_bytebuf *b, const uint8_t attr[128])
{
	uint8_t a[128];
	uint32_t size = htole32(128);

	memcpy(a, attr, sizeof(a));
	memcpy(a + 4, &size, sizeof(size));
	prec_bytebuf__put(b, a, sizeof(a));
}

/* prec's own tracking dummy (the side band's: mmap or comm set), which
 * goes last as perf's own dummy does; a dummy the user asked for keeps its
 * place, as in perf's. */
static bool is_tracking(const struct prec_manifest_event *e)
{
	/* the attr's flag bits after read_format: mmap is bit 8, comm 9 */
	uint64_t flags = prec_ld64(e->attr + offsetof(struct perf_event_attr, read_format) + 8);

	return prec_ld32(e->attr) == PERF_TYPE_SOFTWARE &&
	       prec_ld64(e->attr + 8) == PERF_COUNT_SW_DUMMY && (flags & (3ull << 8));
}

uint32_t prec_perfdata__event_at(const struct prec_manifest *m, uint32_t pos)
{
	uint32_t seen = 0;

	/* Two passes, the others then the tracking dummies, each in
	 * manifest order; a handful of events, so no table is kept. */
	for (int tracking = 0; tracking < 2; tracking++)
		for (uint32_t i = 0; i < m->nr_events; i++)
			if (is_tracking(&m->events[i]) == tracking && seen++ == pos)
				return i;
	return pos;
}

uint32_t prec_perfdata__event_next(const struct prec_manifest *m, uint32_t *cur)
{
	uint32_t n = m->nr_events;

	/* *cur: the pass (others, then tracking dummies) times n plus the
	 * index looked at next */
	while (n && *cur < 2 * n) {
		uint32_t i = *cur % n;
		bool tracking = *cur >= n;

		(*cur)++;
		if (is_tracking(&m->events[i]) == tracking)
			return i;
	}
	return UINT32_MAX;
}

/* The members of the group each event leads, or 0 when it leads none perf
 * can show: perf takes a group as its leader's position and the members
 * right after it, which the tracking dummies' moving to the end would
 * break. In one walk (a manifest may hold a million events: the position
 * of each member looked up anew made it cubic); NULL: no memory. */
static uint32_t *group_sizes(const struct prec_manifest *m)
{
	uint32_t nr = m->nr_events;
	uint32_t *sizes = calloc((size_t)nr + 1, sizeof(*sizes));
	uint32_t *left = calloc((size_t)nr + 1, sizeof(*left)); /* members not met */

	if (!sizes || !left) {
		free(sizes);
		free(left);
		return NULL;
	}
	for (uint32_t i = 0; i < nr; i++)
		if (m->events[i].leader1 && m->events[i].leader1 <= nr)
			left[m->events[i].leader1 - 1]++;
	for (uint32_t l = 0; l < nr; l++) {
		uint32_t n = 0, trk = 0; /* members met; tracking dummies since l */

		if (m->events[l].leader1 != l + 1)
			continue;
		/* its members, each at the leader's position + n: only
		 * tracking dummies (which go last) between them */
		for (uint32_t i = l; i < nr && left[l]; i++) {
			bool t = is_tracking(&m->events[i]);

			if (m->events[i].leader1 == l + 1) {
				if (t || i - l - trk != n)
					break;
				n++;
				left[l]--;
			} else if (!t) {
				break;
			}
			trk += t;
		}
		sizes[l] = !left[l] && n > 1 ? n : 0;
	}
	free(left);
	return sizes;
}

/* perf's GROUP_DESC: the number of groups, then each group's name (NAME
 * of NAME{a,b}; perf names a group written without one "{anon_group}"), its leader's
 * position and its size, in position order. */
static void build_group_desc(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	uint32_t n = 0, cur = 0, *sizes = group_sizes(m);

	if (!sizes) {
		b->err = -ENOMEM;
		return;
	}
	for (uint32_t i = 0; i < m->nr_events; i++)
		n += sizes[i] != 0;
	prec_bytebuf__put_u32(b, n);
	for (uint32_t pos = 0; pos < m->nr_events; pos++) {
		uint32_t l = prec_perfdata__event_next(m, &cur), size = sizes[l];

		if (!size)
			continue;
		put_str(b, m->events[l].group_name ? m->events[l].group_name : "{anon_group}");
		prec_bytebuf__put_u32(b, pos);
		prec_bytebuf__put_u32(b, size);
	}
	free(sizes);
}

/* No memory: true, so that building it says so. */
static bool has_groups(const struct prec_manifest *m)
{
	uint32_t *sizes = group_sizes(m);
	bool any = !sizes;

	for (uint32_t i = 0; sizes && i < m->nr_events && !any; i++)
		any = sizes[i] != 0;
	free(sizes);
	return any;
}

int prec_perfdata__build_buildids(const struct prec_manifest *m,
				  uint32_t type, void **buf, size_t *len)
{
	struct prec_bytebuf b = { 0 };

	for (uint32_t i = 0; i < m->nr_buildids; i++) {
		const struct prec_manifest_buildid *e = &m->buildids[i];
		const char *path = e->path ? e->path : "";
		size_t n = strlen(path) + 1;
		size_t padded = (n + NAME_ALIGN - 1) / NAME_ALIGN * NAME_ALIGN;
		struct perf_event_header h;
		uint8_t id[24] = { 0 };

		/* perf 6.1 reads an entry's name into a PATH_MAX array on its
		 * stack, as many bytes as the entry says: a longer one (a
		 * crafted manifest: the recorder keeps none) smashes perf's
		 * stack in perf script, report and buildid-list. */
		if (padded > BUILD_ID_NAME_MAX)
			continue;
		h.type = htole32(type);
		h.misc = htole16((uint16_t)((e->cpumode & 0x7) | BUILD_ID_MISC_SIZE));
		h.size = htole16((uint16_t)(BUILD_ID_ENTRY_HDR + padded));
		prec_bytebuf__put(&b, &h, sizeof(h));
		prec_bytebuf__put_u32(&b, (uint32_t)e->pid);
		memcpy(id, e->id, sizeof(e->id));
		id[20] = e->size <= 20 ? e->size : 20;
		prec_bytebuf__put(&b, id, sizeof(id));
		prec_bytebuf__put(&b, path, n);
		prec_bytebuf__put(&b, NULL, padded - n);
	}
	if (!b.len && !b.err) {
		*buf = NULL;
		*len = 0;
		return 0;
	}
	return fbuf_done(&b, buf, len);
}

static void build_cmdline(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	/* perf's first string is the recording binary; a manifest that kept
	 * only the subcommand's argv ("record", ...) gets "prec" in front. */
	int prepend = !strcmp(m->argv[0] ? m->argv[0] : "", "record");

	prec_bytebuf__put_u32(b, m->argc + (uint32_t)prepend);
	if (prepend)
		put_str(b, "prec");
	for (uint32_t i = 0; i < m->argc; i++)
		put_str(b, m->argv[i] ? m->argv[i] : "");
}

static void build_event_desc(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	uint32_t cur = 0;

	prec_bytebuf__put_u32(b, m->nr_events);
	prec_bytebuf__put_u32(b, 128);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const struct prec_manifest_event *e =
			&m->events[prec_perfdata__event_next(m, &cur)];

		put_attr(b, e->attr);
		prec_bytebuf__put_u32(b, e->nr_ids);
		put_str(b, e->name ? e->name : "");
		for (uint32_t j = 0; j < e->nr_ids; j++)
			prec_bytebuf__put_u64(b, e->ids[j]);
	}
}

/* Append CPU n to a "0-3,7" list being built in s (ascending n). */
static void list_add(char *s, size_t cap, int *last, int *run_start, int n)
{
	size_t l = strlen(s);

	if (*last >= 0 && n == *last + 1) {
		*last = n;
		return;
	}
	if (*last >= 0 && *last != *run_start)
		l += (size_t)snprintf(s + l, cap - l, "-%d", *last);
	snprintf(s + l, cap - l, "%s%d", l ? "," : "", n);
	*last = *run_start = n;
}

static void list_end(char *s, size_t cap, int last, int run_start)
{
	size_t l = strlen(s);

	if (last >= 0 && last != run_start)
		snprintf(s + l, cap - l, "-%d", last);
}

/* Group key of CPU i at a topology level: 0 package, 1 core, 2 die. */
static int same_group(const struct prec_manifest_cpu *a,
		      const struct prec_manifest_cpu *c, int level)
{
	if (a->socket_id != c->socket_id)
		return 0;
	if (level == 0)
		return 1;
	if (a->die_id != c->die_id)
		return 0;
	return level == 2 || a->core_id == c->core_id;
}

/* String list of the CPU sets at one level, each set once, in order of
 * its lowest CPU. CPUs with socket_id < 0 (offline, unknown) are left out. */
static int put_groups(struct prec_bytebuf *b, const struct prec_manifest *m, int level)
{
	uint32_t n = m->nr_cpus_avail, nr = 0;
	size_t cap = (size_t)n * 12 + 16;
	size_t nr_off = b->len;
	char *s = malloc(cap);

	if (!s)
		return -ENOMEM;
	prec_bytebuf__put_u32(b, 0);
	for (uint32_t i = 0; i < n; i++) {
		const struct prec_manifest_cpu *c = &m->cpus[i];
		int last = -1, run = -1, seen = 0;

		if (c->socket_id < 0)
			continue;
		for (uint32_t j = 0; j < i && !seen; j++)
			seen = m->cpus[j].socket_id >= 0 &&
			       same_group(&m->cpus[j], c, level);
		if (seen)
			continue;
		s[0] = 0;
		for (uint32_t j = i; j < n; j++)
			if (m->cpus[j].socket_id >= 0 && same_group(&m->cpus[j], c, level))
				list_add(s, cap, &last, &run, (int)j);
		list_end(s, cap, last, run);
		put_str(b, s);
		nr++;
	}
	free(s);
	if (!b->err) {
		nr = htole32(nr);
		memcpy(b->p + nr_off, &nr, sizeof(nr));
	}
	return 0;
}

/* Whether the recording host had a die level: perf writes it only where
 * the kernel has one (x86_64 and s390x, die_cpus_list in sysfs), and perf
 * report prints "Die ID" for every CPU of a file whose topology has it
 * (arm64's would read "Die ID -1" where perf's own files say nothing). */
static bool has_dies(const struct prec_manifest *m)
{
	return m->arch && (!strncmp(m->arch, "x86_64", 6) || !strncmp(m->arch, "s390x", 5)) &&
	       m->nr_cpus_avail && m->cpus[0].die_id >= 0;
}

static int build_cpu_topology(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	uint32_t n = m->nr_cpus_avail;
	int ids_ok = 1, err;

	/* perf 6.1 fails the feature (and every later one) when a socket id
	 * exceeds nr_cpus_avail; then keep only the sibling lists, which it
	 * reads as an old-format topology. */
	for (uint32_t i = 0; i < n; i++)
		if (m->cpus[i].socket_id >= 0 && (uint32_t)m->cpus[i].socket_id > n)
			ids_ok = 0;
	err = put_groups(b, m, 0);
	if (!err)
		err = put_groups(b, m, 1);
	if (err || !ids_ok)
		return err;
	for (uint32_t i = 0; i < n; i++) {
		prec_bytebuf__put_u32(b, (uint32_t)m->cpus[i].core_id);
		prec_bytebuf__put_u32(b, (uint32_t)m->cpus[i].socket_id);
	}
	if (!has_dies(m))
		return 0;
	err = put_groups(b, m, 2);
	for (uint32_t i = 0; i < n && !err; i++)
		prec_bytebuf__put_u32(b, (uint32_t)m->cpus[i].die_id);
	return err;
}

/* perf's MEM_TOPOLOGY: version 1, the block size, then per node with
 * memory blocks its id, the bitmap's size in bits (the highest block + 1),
 * that again (perf's bitmap writer puts it first too) and the bitmap's u64
 * words. perf c2c looks its memory nodes up there. A node list that does
 * not parse leaves the feature out (-ENOENT). */
static int build_mem_topology(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	int **blocks = calloc(m->nr_numa_nodes, sizeof(*blocks));
	int *nr = calloc(m->nr_numa_nodes, sizeof(*nr));
	uint64_t with = 0;
	int err = blocks && nr ? 0 : -ENOMEM;

	for (uint32_t i = 0; !err && i < m->nr_numa_nodes; i++) {
		if (!m->numa_nodes[i].mem_blocks)
			continue;
		nr[i] = prec_cpu_list__parse(m->numa_nodes[i].mem_blocks, &blocks[i]);
		if (nr[i] < 0)
			err = nr[i] == -ENOMEM ? -ENOMEM : -ENOENT;
		with += nr[i] > 0;
	}
	if (!err && !with)
		err = -ENOENT;
	if (!err) {
		prec_bytebuf__put_u64(b, 1);
		prec_bytebuf__put_u64(b, m->mem_block_bytes);
		prec_bytebuf__put_u64(b, with);
	}
	for (uint32_t i = 0; !err && i < m->nr_numa_nodes; i++) {
		/* sorted: the last is the highest */
		uint64_t bits = nr[i] > 0 ? (uint64_t)blocks[i][nr[i] - 1] + 1 : 0;
		int k = 0;

		if (!bits)
			continue;
		prec_bytebuf__put_u64(b, m->numa_nodes[i].node);
		prec_bytebuf__put_u64(b, bits);
		prec_bytebuf__put_u64(b, bits);
		for (uint64_t w = 0; w < (bits + 63) / 64; w++) {
			uint64_t word = 0;

			for (; k < nr[i] && (uint64_t)blocks[i][k] / 64 == w; k++)
				word |= 1ull << (blocks[i][k] % 64);
			prec_bytebuf__put_u64(b, word);
		}
	}
	for (uint32_t i = 0; blocks && i < m->nr_numa_nodes; i++)
		free(blocks[i]);
	free(blocks);
	free(nr);
	return err;
}

/* perf's name for the core PMU, whose caps go in CPU_PMU_CAPS */
static const struct prec_manifest_pmu *cpu_pmu(const struct prec_manifest *m)
{
	for (uint32_t i = 0; m->pmus && i < m->nr_pmus; i++)
		if (!strcmp(m->pmus[i].name, "cpu"))
			return &m->pmus[i];
	return NULL;
}

static void put_caps(struct prec_bytebuf *b, const struct prec_manifest_pmu *p)
{
	prec_bytebuf__put_u32(b, p->nr_caps);
	for (uint32_t k = 0; k < p->nr_caps; k++) {
		put_str(b, p->caps[k].name);
		put_str(b, p->caps[k].value);
	}
}

/* A hybrid machine's core PMUs (cpu_core, cpu_atom): perf 6.1 writes
 * their caps first in PMU_CAPS, for older perfs' sake. */
static bool is_hybrid(const struct prec_manifest_pmu *p)
{
	return !strncmp(p->name, "cpu_", 4);
}

/* perf's PMU_CAPS: the PMUs with caps but the core one (CPU_PMU_CAPS has
 * it), hybrid ones first, each its caps and then its name. */
static void build_pmu_caps(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < m->nr_pmus; i++)
		n += m->pmus[i].nr_caps && strcmp(m->pmus[i].name, "cpu");
	prec_bytebuf__put_u32(b, n);
	for (int hybrid = 1; hybrid >= 0; hybrid--)
		for (uint32_t i = 0; i < m->nr_pmus; i++) {
			const struct prec_manifest_pmu *p = &m->pmus[i];

			if (!p->nr_caps || !strcmp(p->name, "cpu") || is_hybrid(p) != hybrid)
				continue;
			put_caps(b, p);
			put_str(b, p->name);
		}
}

/* perf's BPF_PROG_INFO: the number of programs, then each one's record
 * (store/bpf_prog.h) as it is, by ascending id; BPF_BTF: the number of BTF
 * objects, then each one's id, size and bytes. perf writes the count 0
 * when none was loaded (and in a pipe, where it writes them before it has
 * read any), so a manifest without them (an older prec's, or
 * --no-bpf-event) gets that. Within c->max_len (a pipe record) only the
 * leading ones that fit go, and a warning says how many did not. */
static void build_bpf(int feat, const struct prec_feat_ctx *c, struct prec_bytebuf *b)
{
	const struct prec_manifest *m = c->m;
	uint32_t nr = feat == FEAT_BPF_PROG_INFO ? m->nr_bpf_progs : m->nr_btfs, n = 0;
	size_t room = c->max_len ? c->max_len - 4 : SIZE_MAX;

	prec_bytebuf__put_u32(b, 0);
	for (; n < nr; n++) {
		if (feat == FEAT_BPF_PROG_INFO) {
			const struct prec_manifest_bpf_prog *p = &m->bpf_progs[n];

			if (p->len > room)
				break;
			prec_bytebuf__put(b, p->rec, p->len);
			room -= p->len;
		} else {
			const struct prec_manifest_btf *t = &m->btfs[n];

			if ((size_t)t->size + 8 > room)
				break;
			prec_bytebuf__put_u32(b, t->id);
			prec_bytebuf__put_u32(b, t->size);
			prec_bytebuf__put(b, t->data, t->size);
			room -= (size_t)t->size + 8;
		}
	}
	if (!b->err) {
		uint32_t le = htole32(n);

		memcpy(b->p, &le, sizeof(le));
	}
	if (n < nr)
		pr_warn("perfdata feature %s: %u of %u %s do not fit a pipe record (64 KiB): left out",
			feat == FEAT_BPF_PROG_INFO ? "BPF_PROG_INFO" : "BPF_BTF", nr - n, nr,
			feat == FEAT_BPF_PROG_INFO ? "BPF programs" : "BTF objects");
}

static const char *feat_string(int feat, const struct prec_manifest *m)
{
	switch (feat) {
	case FEAT_HOSTNAME: return m->hostname;
	case FEAT_OSRELEASE: return m->os_release;
	case FEAT_VERSION: return m->version;
	case FEAT_ARCH: return m->arch;
	case FEAT_CPUDESC: return m->cpu_desc;
	case FEAT_CPUID: return m->cpu_id;
	default: return NULL;
	}
}

static int has_feature(int feat, const struct prec_feat_ctx *c)
{
	const struct prec_manifest *m = c->m;

	switch (feat) {
	case FEAT_HOSTNAME: case FEAT_OSRELEASE: case FEAT_VERSION:
	case FEAT_ARCH: case FEAT_CPUDESC: case FEAT_CPUID:
		return feat_string(feat, m) != NULL;
	case FEAT_NRCPUS: return m->nr_cpus_avail > 0;
	case FEAT_TOTAL_MEM: return m->total_mem_kb > 0;
	case FEAT_CMDLINE: return m->argc > 0 && m->argv;
	case FEAT_EVENT_DESC: return m->nr_events > 0;
	case FEAT_CPU_TOPOLOGY: return m->cpus && m->nr_cpus_avail > 0;
	case FEAT_NUMA_TOPOLOGY: return m->nr_numa_nodes > 0 && m->numa_nodes;
	case FEAT_MEM_TOPOLOGY: return m->nr_numa_nodes > 0 && m->numa_nodes && m->mem_block_bytes;
	case FEAT_PMU_MAPPINGS: case FEAT_PMU_CAPS: return m->nr_pmus > 0 && m->pmus;
	case FEAT_CPU_PMU_CAPS: return cpu_pmu(m) != NULL;
	case FEAT_CACHE: return m->nr_caches > 0 && m->caches;
	case FEAT_GROUP_DESC: return has_groups(m);
	case FEAT_AUXTRACE: return c->nr_aux > 0;
	/* as perf's: always, 0 and 0 without a sample or a time known yet */
	case FEAT_SAMPLE_TIME: return 1;
	case FEAT_CLOCKID: return m->clockid >= 0 && m->clock_res_ns;
	case FEAT_CLOCK_DATA: return m->clockid >= 0 && m->ref_wall_ns;
	case FEAT_COMPRESSED: return c->comp_level > 0;
	case FEAT_BPF_PROG_INFO: case FEAT_BPF_BTF: return 1;
	default: return 0;
	}
}

static int build_simple(int feat, const struct prec_feat_ctx *c, struct prec_bytebuf *b)
{
	const struct prec_manifest *m = c->m;

	switch (feat) {
	case FEAT_NRCPUS:
		prec_bytebuf__put_u32(b, m->nr_cpus_avail);
		prec_bytebuf__put_u32(b, m->nr_cpus_online);
		return 0;
	case FEAT_TOTAL_MEM:
		prec_bytebuf__put_u64(b, m->total_mem_kb);
		return 0;
	case FEAT_CMDLINE:
		build_cmdline(b, m);
		return 0;
	case FEAT_EVENT_DESC:
		build_event_desc(b, m);
		return 0;
	case FEAT_CPU_TOPOLOGY:
		return build_cpu_topology(b, m);
	case FEAT_NUMA_TOPOLOGY:
		/* perf c2c report sets its nodes up from it */
		prec_bytebuf__put_u32(b, m->nr_numa_nodes);
		for (uint32_t i = 0; i < m->nr_numa_nodes; i++) {
			prec_bytebuf__put_u32(b, m->numa_nodes[i].node);
			prec_bytebuf__put_u64(b, m->numa_nodes[i].mem_total_kb);
			prec_bytebuf__put_u64(b, m->numa_nodes[i].mem_free_kb);
			put_str(b, m->numa_nodes[i].cpus ? m->numa_nodes[i].cpus : "");
		}
		return 0;
	case FEAT_PMU_MAPPINGS:
		prec_bytebuf__put_u32(b, m->nr_pmus);
		for (uint32_t i = 0; i < m->nr_pmus; i++) {
			prec_bytebuf__put_u32(b, m->pmus[i].type);
			put_str(b, m->pmus[i].name);
		}
		return 0;
	case FEAT_GROUP_DESC:
		build_group_desc(b, m);
		return 0;
	case FEAT_AUXTRACE:
		prec_bytebuf__put_u64(b, c->nr_aux);
		for (uint64_t i = 0; i < c->nr_aux; i++) {
			prec_bytebuf__put_u64(b, c->aux_index[i]);
			prec_bytebuf__put_u64(b, 48); /* sizeof the AUXTRACE header record */
		}
		return 0;
	case FEAT_CACHE:
		/* version 1; the caches in the manifest's order, perf's */
		prec_bytebuf__put_u32(b, 1);
		prec_bytebuf__put_u32(b, m->nr_caches);
		for (uint32_t i = 0; i < m->nr_caches; i++) {
			const struct prec_manifest_cache *k = &m->caches[i];

			prec_bytebuf__put_u32(b, k->level);
			prec_bytebuf__put_u32(b, k->line_size);
			prec_bytebuf__put_u32(b, k->sets);
			prec_bytebuf__put_u32(b, k->ways);
			put_str(b, k->type);
			put_str(b, k->size);
			put_str(b, k->map);
		}
		return 0;
	case FEAT_MEM_TOPOLOGY:
		return build_mem_topology(b, m);
	case FEAT_SAMPLE_TIME:
		prec_bytebuf__put_u64(b, c->first_time);
		prec_bytebuf__put_u64(b, c->last_time);
		return 0;
	case FEAT_CLOCKID:
		prec_bytebuf__put_u64(b, m->clock_res_ns);
		return 0;
	case FEAT_CLOCK_DATA:
		prec_bytebuf__put_u32(b, 1); /* version; perf rejects others */
		prec_bytebuf__put_u32(b, (uint32_t)m->clockid);
		prec_bytebuf__put_u64(b, m->ref_wall_ns);
		prec_bytebuf__put_u64(b, m->ref_clock_ns);
		return 0;
	case FEAT_COMPRESSED:
		prec_bytebuf__put_u32(b, 0); /* version: perf 6.1 writes 0 */
		prec_bytebuf__put_u32(b, 1); /* type: zstd */
		prec_bytebuf__put_u32(b, (uint32_t)c->comp_level);
		prec_bytebuf__put_u32(b, c->comp_ratio);
		prec_bytebuf__put_u32(b, PREC_ZSTD_MMAP_LEN);
		return 0;
	case FEAT_CPU_PMU_CAPS:
		put_caps(b, cpu_pmu(m));
		return 0;
	case FEAT_PMU_CAPS:
		build_pmu_caps(b, m);
		return 0;
	case FEAT_BPF_PROG_INFO: case FEAT_BPF_BTF:
		build_bpf(feat, c, b);
		return 0;
	default:
		put_str(b, feat_string(feat, m));
		return 0;
	}
}

int prec_perfdata__build_feature(int feat, const struct prec_feat_ctx *c,
				 void **buf, size_t *len)
{
	struct prec_bytebuf b = { 0 };
	int err;

	*buf = NULL;
	*len = 0;
	if (feat == FEAT_TRACING_DATA || feat == FEAT_BUILD_ID) {
		err = feat == FEAT_TRACING_DATA ?
			      prec_tracing_blob(c->m, buf, len) :
			      prec_perfdata__build_buildids(c->m, 0, buf, len);
		if (!err && !*len)
			err = -ENOENT;
		return err;
	}
	if (!has_feature(feat, c))
		return -ENOENT;
	err = build_simple(feat, c, &b);
	if (err) {
		free(b.p);
		return err;
	}
	return fbuf_done(&b, buf, len);
}
