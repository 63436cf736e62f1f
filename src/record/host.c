// SPDX-License-Identifier: MIT
// Host facts for the manifest: uname, /proc/cpuinfo, /proc/meminfo, the
// CPU lists, topology and caches under /sys/devices/system/cpu, the NUMA nodes
// under /sys/devices/system/node and the PMUs under /sys/bus/event_source.

#include "record/host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "store/store.h"
#include "util/cli.h"
#include "util/cpu_list.h"
#include "util/log.h"

#define PREC_HOST_VERSION "prec " PREC_VERSION
#define CPU_SYSFS "/sys/devices/system/cpu"
#define NODE_SYSFS "/sys/devices/system/node"
#define PMU_SYSFS "/sys/bus/event_source/devices"

/* Read fd's small file whole into buf (NUL-terminated) and close it.
 * sysfs/procfs files report size 0, so read until EOF. Returns bytes read
 * or -errno. */
static ssize_t slurp_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;

	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
	return (ssize_t)len;
}

static ssize_t slurp(const char *path, char *buf, size_t size)
{
	return slurp_fd(open(path, O_RDONLY | O_CLOEXEC), buf, size);
}

/* name in dirfd, never through a link */
static ssize_t slurp_at(int dirfd, const char *name, char *buf, size_t size)
{
	return slurp_fd(openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), buf, size);
}

static int read_int(const char *path, int32_t *out)
{
	char buf[64];
	char *end;
	long v;

	if (slurp(path, buf, sizeof(buf)) <= 0)
		return -ENOENT;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

/* Parse a kernel CPU list ("0-3,8,10-11"): highest CPU and count. */
static int parse_cpulist(const char *s, int *max, unsigned int *count)
{
	*max = -1;
	*count = 0;
	while (*s && *s != '\n') {
		char *end;
		unsigned long a = strtoul(s, &end, 10), b = a;

		if (end == s)
			return -EINVAL;
		s = end;
		if (*s == '-') {
			b = strtoul(s + 1, &end, 10);
			if (end == s + 1 || b < a)
				return -EINVAL;
			s = end;
		}
		if (b > 1u << 20)
			return -EINVAL;
		*count += (unsigned int)(b - a + 1);
		if ((int)b > *max)
			*max = (int)b;
		if (*s == ',')
			s++;
	}
	return 0;
}

/* Value of "key<spaces>: value" in a /proc/cpuinfo-style text, first match,
 * copied without the trailing newline. */
static const char *find_field(const char *text, const char *key, char *out,
			      size_t size)
{
	size_t klen = strlen(key);
	const char *line = text;

	while (line && *line) {
		const char *colon = line + klen, *eol = strchr(line, '\n');

		/* "model" must not match "model name": only blanks may sit
		 * between the key and its colon. */
		while (!strncmp(line, key, klen) && (*colon == ' ' || *colon == '\t'))
			colon++;
		if (!strncmp(line, key, klen) && *colon == ':') {
			size_t n;

			colon++;
			n = eol ? (size_t)(eol - colon) : strlen(colon);
			if (n >= size)
				n = size - 1;
			memcpy(out, colon, n);
			out[n] = '\0';
			return out;
		}
		line = eol ? eol + 1 : NULL;
	}
	return NULL;
}

/* Every whitespace run becomes one space; leading and trailing dropped (the
 * CPUDESC convention perf readers expect for branding strings). */
static void squeeze_spaces(char *s)
{
	char *w = s;
	int space = 1;

	for (char *r = s; *r; r++) {
		if (*r == ' ' || *r == '\t' || *r == '\n') {
			if (!space)
				*w++ = ' ';
			space = 1;
			continue;
		}
		*w++ = *r;
		space = 0;
	}
	if (w > s && w[-1] == ' ')
		w--;
	*w = '\0';
}

/* perf's arm64 CPUID: the MIDR_EL1 of the first CPU that shows one (online
 * CPUs do), its variant [23:20] and revision [3:0] cleared, as
 * "0x%016x". None (no CPUID feature, as perf) when no CPU shows it. */
static int fill_midr(struct prec_manifest *m)
{
	char buf[4096], path[128], id[32];
	unsigned int count;
	int max;

	if (slurp(CPU_SYSFS "/present", buf, sizeof(buf)) <= 0 ||
	    parse_cpulist(buf, &max, &count))
		return 0;
	for (int cpu = 0; cpu <= max; cpu++) {
		unsigned long long midr;
		char *end;

		snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/regs/identification/midr_el1", cpu);
		if (slurp(path, buf, sizeof(buf)) <= 0)
			continue;
		errno = 0;
		midr = strtoull(buf, &end, 16);
		if (errno || end == buf || !midr)
			continue;
		midr &= ~(0xfull << 20 | 0xfull);
		snprintf(id, sizeof(id), "0x%016llx", midr);
		return prec_manifest__set_str(m, &m->cpu_id, id);
	}
	return 0;
}

static int fill_cpuinfo(struct prec_manifest *m, const char *arch)
{
	char *text = malloc(1 << 16);
	char v[256], fam[32], mod[32], step[32], id[400];
	int err = 0;

	if (!text)
		return -ENOMEM;
	/* The first processor's block is all we need; 64 KiB holds it. */
	if (slurp("/proc/cpuinfo", text, 1 << 16) <= 0)
		goto out_free;
	if (find_field(text, "model name", v, sizeof(v))) {
		squeeze_spaces(v);
		err = prec_manifest__set_str(m, &m->cpu_desc, v);
		if (err)
			goto out_free;
	}
	if (!strcmp(arch, "aarch64")) {
		err = fill_midr(m);
		goto out_free;
	}
	if (strcmp(arch, "x86_64") && strcmp(arch, "i686") && strcmp(arch, "i386"))
		goto out_free;
	if (find_field(text, "vendor_id", v, sizeof(v)) &&
	    find_field(text, "cpu family", fam, sizeof(fam)) &&
	    find_field(text, "model", mod, sizeof(mod)) &&
	    find_field(text, "stepping", step, sizeof(step))) {
		squeeze_spaces(v);
		squeeze_spaces(fam);
		squeeze_spaces(mod);
		squeeze_spaces(step);
		snprintf(id, sizeof(id), "%s,%s,%s,%s", v, fam, mod, step);
		err = prec_manifest__set_str(m, &m->cpu_id, id);
	}
out_free:
	free(text);
	return err;
}

static void fill_meminfo(struct prec_manifest *m)
{
	char text[4096], v[64];

	if (slurp("/proc/meminfo", text, sizeof(text)) <= 0)
		return;
	if (find_field(text, "MemTotal", v, sizeof(v)))
		m->total_mem_kb = strtoull(v, NULL, 10);
}

static int32_t topo_id(int cpu, const char *file)
{
	char path[128];
	int32_t v;

	snprintf(path, sizeof(path), CPU_SYSFS "/cpu%d/topology/%s", cpu, file);
	return read_int(path, &v) ? -1 : v;
}

static int fill_cpus(struct prec_manifest *m)
{
	char buf[4096];
	unsigned int count;
	int max;

	if (slurp(CPU_SYSFS "/present", buf, sizeof(buf)) > 0 &&
	    !parse_cpulist(buf, &max, &count) && max >= 0)
		m->nr_cpus_avail = (uint32_t)max + 1;
	if (slurp(CPU_SYSFS "/online", buf, sizeof(buf)) > 0 &&
	    !parse_cpulist(buf, &max, &count))
		m->nr_cpus_online = count;
	if (!m->nr_cpus_avail)
		return 0;
	free(m->cpus);
	m->cpus = calloc(m->nr_cpus_avail, sizeof(*m->cpus));
	if (!m->cpus)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->nr_cpus_avail; i++) {
		m->cpus[i].core_id = topo_id((int)i, "core_id");
		m->cpus[i].socket_id = topo_id((int)i, "physical_package_id");
		m->cpus[i].die_id = topo_id((int)i, "die_id");
	}
	return 0;
}

/* The value of "Node N <key>:" in a node's meminfo, in kB (0: absent). */
static uint64_t node_mem_kb(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Node n's memory blocks (its sysfs memoryN entries) as a list such as
 * "0-23,32-199" in *out (NULL when it has none: no memory hotplug).
 * Returns 0 or -ENOMEM. */
static int mem_blocks(int n, char **out)
{
	char path[64], *list = NULL;
	size_t len = 0, cap = 0;
	struct dirent *de;
	uint8_t *set = NULL;
	unsigned int max = 0, b;
	bool any = false;
	DIR *d;

	*out = NULL;
	snprintf(path, sizeof(path), NODE_SYSFS "/node%d", n);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &b) == 1 && b < (1u << 24)) {
			max = any && max > b ? max : b;
			any = true;
		}
	if (any)
		set = calloc(max / 8 + 1, 1);
	rewinddir(d);
	while (set && (de = readdir(d)))
		if (sscanf(de->d_name, "memory%u", &b) == 1 && b <= max)
			set[b / 8] |= (uint8_t)(1u << (b % 8));
	closedir(d);
	if (!any)
		return 0;
	if (!set)
		return -ENOMEM;
	for (unsigned int i = 0; i <= max; i++) {
		unsigned int j = i;
		char run[32];
		int w;

		if (!(set[i / 8] & (1u << (i % 8))))
			continue;
		while (j + 1 <= max && (set[(j + 1) / 8] & (1u << ((j + 1) % 8))))
			j++;
		w = j > i ? snprintf(run, sizeof(run), "%s%u-%u", len ? "," : "", i, j) :
			    snprintf(run, sizeof(run), "%s%u", len ? "," : "", i);
		if (len + (size_t)w + 1 > cap) {
			char *grown = realloc(list, cap = 2 * cap + (size_t)w + 64);

			if (!grown) {
				free(list);
				free(set);
				return -ENOMEM;
			}
			list = grown;
		}
		memcpy(list + len, run, (size_t)w + 1);
		len += (size_t)w;
		i = j;
	}
	free(set);
	*out = list;
	return 0;
}

/* The online NUMA nodes, as perf's NUMA_TOPOLOGY has them (perf c2c
 * needs them): memory total and free, and the node's CPU list. None
 * without sysfs's node directory (a kernel without NUMA). */
static int fill_numa(struct prec_manifest *m)
{
	char buf[4096], path[96];
	int *nodes = NULL, n;

	for (uint32_t i = 0; m->numa_nodes && i < m->nr_numa_nodes; i++) {
		free(m->numa_nodes[i].cpus);
		free(m->numa_nodes[i].mem_blocks);
	}
	free(m->numa_nodes);
	m->numa_nodes = NULL;
	m->nr_numa_nodes = 0;
	/* hexadecimal, as sysfs writes it */
	if (slurp("/sys/devices/system/memory/block_size_bytes", buf, sizeof(buf)) > 0)
		m->mem_block_bytes = strtoull(buf, NULL, 16);
	if (slurp(NODE_SYSFS "/online", buf, sizeof(buf)) <= 0)
		return 0;
	n = prec_cpu_list__parse(buf, &nodes);
	if (n <= 0)
		return n == -ENOMEM ? -ENOMEM : 0;
	m->numa_nodes = calloc((size_t)n, sizeof(*m->numa_nodes));
	if (!m->numa_nodes) {
		free(nodes);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		struct prec_manifest_numa_node *nn = &m->numa_nodes[m->nr_numa_nodes];
		size_t len;

		snprintf(path, sizeof(path), NODE_SYSFS "/node%d/cpulist", nodes[i]);
		if (slurp(path, buf, sizeof(buf)) < 0)
			continue;
		len = strcspn(buf, "\n");
		nn->cpus = strndup(buf, len);
		if (!nn->cpus) {
			free(nodes);
			return -ENOMEM;
		}
		nn->node = (uint32_t)nodes[i];
		if (mem_blocks(nodes[i], &nn->mem_blocks)) {
			free(nodes);
			return -ENOMEM;
		}
		snprintf(path, sizeof(path), NODE_SYSFS "/node%d/meminfo", nodes[i]);
		if (slurp(path, buf, sizeof(buf)) > 0) {
			nn->mem_total_kb = node_mem_kb(buf, "MemTotal:");
			nn->mem_free_kb = node_mem_kb(buf, "MemFree:");
		}
		m->nr_numa_nodes++;
	}
	free(nodes);
	return 0;
}

static bool dot_entry(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

/* A PMU's caps as perf reads them: each file of its caps directory in the
 * directory's order, its first line's first 127 bytes less the last (the
 * newline perf takes it to end with); an empty file is no cap. Those past
 * PREC_MANIFEST_PMU_CAPS_MAX are counted in *left. Returns 0 or -ENOMEM. */
static int pmu_caps(int pmufd, struct prec_manifest_pmu *p, unsigned int *left)
{
	int cfd = openat(pmufd, "caps", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct dirent *de;
	int err = 0;
	DIR *d;

	if (cfd < 0)
		return 0;
	d = fdopendir(cfd);
	if (!d) {
		close(cfd);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		char v[PREC_MANIFEST_PMU_CAP_VALUE_MAX + 1];
		struct prec_manifest_pmu_cap *c;
		size_t len;

		if (dot_entry(de->d_name) || slurp_at(dirfd(d), de->d_name, v, sizeof(v)) <= 0)
			continue;
		if (p->nr_caps == PREC_MANIFEST_PMU_CAPS_MAX) {
			++*left;
			continue;
		}
		if (!p->caps)
			p->caps = calloc(PREC_MANIFEST_PMU_CAPS_MAX, sizeof(*p->caps));
		if (!p->caps) {
			err = -ENOMEM;
			break;
		}
		len = strcspn(v, "\n");
		len += v[len] == '\n';
		c = &p->caps[p->nr_caps];
		c->name = strdup(de->d_name);
		c->value = strndup(v, len ? len - 1 : 0);
		if (!c->name || !c->value) {
			free(c->name);
			free(c->value);
			c->name = c->value = NULL;
			err = -ENOMEM;
			break;
		}
		p->nr_caps++;
	}
	closedir(d);
	return err;
}

/* The PMUs perf's PMU_MAPPINGS and PMU_CAPS features list, in the order
 * perf finds them (its sysfs directory's): the attr type of each, which
 * the kernel numbers at boot for all but the fixed ones, and its caps.
 * PMUs without a readable type are none of perf's. Bounded: a machine of
 * thousands of uncore PMUs keeps the first PREC_MANIFEST_PMUS_MAX, and
 * says so. */
static int fill_pmus(struct prec_manifest *m)
{
	unsigned int left = 0, caps_left = 0;
	int dfd, err = 0;
	struct dirent *de;
	DIR *d;

	for (uint32_t i = 0; m->pmus && i < m->nr_pmus; i++)
		prec_manifest_pmu__exit(&m->pmus[i]);
	free(m->pmus);
	m->pmus = NULL;
	m->nr_pmus = 0;
	dfd = open(PMU_SYSFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return 0;
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		struct prec_manifest_pmu *p;
		char buf[64], *end;
		unsigned long type;
		int pfd;

		if (dot_entry(de->d_name))
			continue;
		if (m->nr_pmus == PREC_MANIFEST_PMUS_MAX) {
			left++;
			continue;
		}
		/* the entries are the kernel's links to the PMUs' devices */
		pfd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (pfd < 0)
			continue;
		if (slurp_at(pfd, "type", buf, sizeof(buf)) <= 0 ||
		    (type = strtoul(buf, &end, 10), end == buf) || type > UINT32_MAX) {
			close(pfd);
			continue;
		}
		if (!m->pmus)
			m->pmus = calloc(PREC_MANIFEST_PMUS_MAX, sizeof(*m->pmus));
		if (!m->pmus) {
			close(pfd);
			err = -ENOMEM;
			break;
		}
		p = &m->pmus[m->nr_pmus++];
		p->type = (uint32_t)type;
		p->name = strdup(de->d_name);
		err = p->name ? pmu_caps(pfd, p, &caps_left) : -ENOMEM;
		close(pfd);
	}
	closedir(d);
	if (left)
		pr_warn("host: %u PMUs past the first %u left out of the recording's PMU list",
			left, PREC_MANIFEST_PMUS_MAX);
	if (caps_left)
		pr_warn("host: %u PMU caps past %u a PMU left out of the recording's PMU list",
			caps_left, PREC_MANIFEST_PMU_CAPS_MAX);
	return err;
}

/* A copy of s without the blanks at its ends (perf's strim), or NULL. */
static char *trimmed(const char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n'))
		n--;
	return strndup(s, n);
}

/* cpu's cache/index<idx> as perf reads it into c: 1 when there is none
 * (the CPU's caches end there), 0, -ENOENT when a file is missing or
 * empty (perf then writes no CACHE feature at all), or -ENOMEM. */
static int read_cache(int sysfd, int cpu, int idx, struct prec_manifest_cache *c)
{
	static const char *const nums[] = { "level", "coherency_line_size",
					     "number_of_sets", "ways_of_associativity" };
	static const char *const strs[] = { "type", "size", "shared_cpu_list" };
	uint32_t *num[] = { &c->level, &c->line_size, &c->sets, &c->ways };
	char **str[] = { &c->type, &c->size, &c->map };
	char path[64], buf[PREC_MANIFEST_CACHE_STR_MAX];
	int fd, err = 0;

	snprintf(path, sizeof(path), "cpu%d/cache/index%d", cpu, idx);
	fd = openat(sysfd, path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 1;
	for (int i = 0; !err && i < 4; i++) {
		if (slurp_at(fd, nums[i], buf, 64) <= 0)
			err = -ENOENT;
		else
			*num[i] = (uint32_t)atoi(buf); /* as perf: what does not parse is 0 */
	}
	for (int i = 0; !err && i < 3; i++) {
		if (slurp_at(fd, strs[i], buf, sizeof(buf)) < 0)
			err = -ENOENT;
		else if (!(*str[i] = trimmed(buf)))
			err = -ENOMEM;
	}
	close(fd);
	return err;
}

static bool same_cache(const struct prec_manifest_cache *a, const struct prec_manifest_cache *b)
{
	return a->level == b->level && a->line_size == b->line_size && a->sets == b->sets &&
	       a->ways == b->ways && !strcmp(a->type, b->type) && !strcmp(a->size, b->size) &&
	       !strcmp(a->map, b->map);
}

/* By level, keeping the order found within one (perf sorts with glibc's
 * qsort, a merge sort, so stable). Returns 0 or -ENOMEM. */
static int sort_by_level(struct prec_manifest_cache *c, uint32_t n)
{
	struct prec_manifest_cache *out = malloc((size_t)n * sizeof(*out));
	uint64_t level = 0;
	uint32_t k = 0;

	if (!out)
		return -ENOMEM;
	while (k < n) {
		uint64_t next = UINT64_MAX;

		for (uint32_t i = 0; i < n; i++)
			if (c[i].level >= level && c[i].level < next)
				next = c[i].level;
		for (uint32_t i = 0; i < n; i++)
			if (c[i].level == next)
				out[k++] = c[i];
		level = next + 1;
	}
	memcpy(c, out, (size_t)n * sizeof(*out));
	free(out);
	return 0;
}

static void clear_caches(struct prec_manifest *m)
{
	for (uint32_t i = 0; m->caches && i < m->nr_caches; i++)
		prec_manifest_cache__exit(&m->caches[i]);
	free(m->caches);
	m->caches = NULL;
	m->nr_caches = 0;
}

/* The CPUs' caches as perf's CACHE feature lists them: CPU by CPU, index0
 * up to the first missing index (at most 4, perf's MAX_CACHE_LVL), each
 * cache once however many CPUs share it, then by level. A file missing
 * leaves none, as perf writes none then. Bounded (entries and bytes): a
 * hostile sysfs keeps the first, and the recorder says so. */
static int fill_caches(struct prec_manifest *m)
{
	uint32_t cap = 0, left = 0;
	size_t bytes = 0;
	int sysfd, err = 0;

	clear_caches(m);
	sysfd = open(CPU_SYSFS, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sysfd < 0)
		return 0;
	for (uint32_t cpu = 0; !err && cpu < m->nr_cpus_avail; cpu++)
		for (int idx = 0; !err && idx < 4; idx++) {
			struct prec_manifest_cache c = { 0 };
			uint32_t i = 0;
			size_t len;
			int r = read_cache(sysfd, (int)cpu, idx, &c);

			if (r == 1)
				break;
			err = r;
			while (!err && i < m->nr_caches && !same_cache(&c, &m->caches[i]))
				i++;
			len = err ? 0 : strlen(c.type) + strlen(c.size) + strlen(c.map);
			/* a shared cache is listed once */
			if (err || i < m->nr_caches) {
				prec_manifest_cache__exit(&c);
				continue;
			}
			if (m->nr_caches == PREC_MANIFEST_CACHES_MAX ||
			    bytes + len > PREC_MANIFEST_CACHE_BYTES_MAX) {
				prec_manifest_cache__exit(&c);
				left++;
				continue;
			}
			if (m->nr_caches == cap) {
				struct prec_manifest_cache *grown;

				cap = cap ? 2 * cap : 16;
				grown = realloc(m->caches, cap * sizeof(*grown));
				if (!grown) {
					prec_manifest_cache__exit(&c);
					err = -ENOMEM;
					break;
				}
				m->caches = grown;
			}
			m->caches[m->nr_caches++] = c;
			bytes += len;
		}
	close(sysfd);
	if (!err && m->nr_caches)
		err = sort_by_level(m->caches, m->nr_caches);
	if (err)
		clear_caches(m);
	if (left && !err)
		pr_warn("host: %u CPU caches past the first %u (or %u bytes) left out of the recording's cache list",
			left, PREC_MANIFEST_CACHES_MAX, PREC_MANIFEST_CACHE_BYTES_MAX);
	return err == -ENOMEM ? err : 0;
}

int prec_host__fill(struct prec_manifest *m)
{
	struct utsname u;
	int err;

	if (uname(&u) == 0) {
		err = prec_manifest__set_str(m, &m->hostname, u.nodename);
		if (!err)
			err = prec_manifest__set_str(m, &m->os_release, u.release);
		if (!err)
			err = prec_manifest__set_str(m, &m->arch, u.machine);
		if (err)
			return err;
		err = fill_cpuinfo(m, u.machine);
		if (err)
			return err;
	} else {
		pr_warn("host: uname: %s", strerror(errno));
	}
	err = prec_manifest__set_str(m, &m->version, PREC_HOST_VERSION);
	if (err)
		return err;
	fill_meminfo(m);
	err = fill_cpus(m);
	if (!err)
		err = fill_numa(m);
	if (!err)
		err = fill_pmus(m);
	return err ? err : fill_caches(m);
}
