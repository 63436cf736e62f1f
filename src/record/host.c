// SPDX-License-Identifier: MIT
// Host facts for the manifest: uname, /proc/cpuinfo, /proc/meminfo and the
// CPU lists and topology under /sys/devices/system/cpu.

#include "record/host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "store/store.h"
#include "util/cli.h"
#include "util/log.h"

#define PREC_HOST_VERSION "prec " PREC_VERSION
#define CPU_SYSFS "/sys/devices/system/cpu"

/* Read a small file whole into buf (NUL-terminated). sysfs/procfs files
 * report size 0, so read until EOF. Returns bytes read or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

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
	return fill_cpus(m);
}
