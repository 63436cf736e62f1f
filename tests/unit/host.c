// SPDX-License-Identifier: MIT
// prec_host__fill against uname, nproc, /proc/meminfo and, when perf is
// installed, perf's own header of a tiny recording (cpudesc, cpuid, topology);
// the PMUs and caches against their sysfs directories.
#include "../lib/test.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "record/host.h"
#include "store/store.h"

/* First line of a shell command's output, newline stripped ("" if none). */
static char *sh(const char *cmd, char *out, size_t size)
{
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (!p)
		return out;
	if (!fgets(out, (int)size, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	pclose(p);
	return out;
}

static void check_basics(const struct prec_manifest *m)
{
	struct utsname u;
	char buf[512];

	CHECK(uname(&u) == 0);
	CHECK(m->hostname && !strcmp(m->hostname, u.nodename));
	CHECK(m->os_release && !strcmp(m->os_release, u.release));
	CHECK(m->arch && !strcmp(m->arch, u.machine));
	CHECK(m->version && !strcmp(m->version, "prec 0.1"));
	CHECK_EQ(m->nr_cpus_online, strtoul(sh("nproc", buf, sizeof(buf)), NULL, 10));
	sh("awk -F'[-,]' '{print $NF}' /sys/devices/system/cpu/present", buf,
	   sizeof(buf));
	CHECK_EQ(m->nr_cpus_avail, strtoul(buf, NULL, 10) + 1);
	sh("awk '/^MemTotal:/ {print $2}' /proc/meminfo", buf, sizeof(buf));
	CHECK(m->total_mem_kb > 0);
	CHECK_EQ(m->total_mem_kb, strtoull(buf, NULL, 10));
	sh("grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//; s/[[:space:]]\\+/ /g; s/ $//'",
	   buf, sizeof(buf));
	/* arm64 has no "model name": no CPUDESC, as perf */
	if (buf[0]) {
		CHECK(m->cpu_desc && !strcmp(m->cpu_desc, buf));
		CHECK(!strstr(m->cpu_desc, "  "));
	} else {
		CHECK(!m->cpu_desc);
	}
	if (!strcmp(u.machine, "aarch64")) {
		char want[32] = "", cmd[128];

		/* the first CPU's MIDR_EL1 less variant and revision */
		for (uint32_t i = 0; i < m->nr_cpus_avail && !want[0]; i++) {
			snprintf(cmd, sizeof(cmd), "cat /sys/devices/system/cpu/cpu%u/"
				 "regs/identification/midr_el1 2>/dev/null", i);
			if (sh(cmd, buf, sizeof(buf))[0])
				snprintf(want, sizeof(want), "0x%016llx",
					 strtoull(buf, NULL, 16) & ~0xf0000full);
		}
		CHECK(!strcmp(m->cpu_id ? m->cpu_id : "", want));
	}
	if (!strcmp(u.machine, "x86_64")) {
		sh("awk -F': ' '/^vendor_id/ {v=$2} /^cpu family/ {f=$2} /^model\t/ {m=$2}"
		   " /^stepping/ {s=$2; print v \",\" f \",\" m \",\" s; exit}' /proc/cpuinfo",
		   buf, sizeof(buf));
		CHECK(m->cpu_id && !strcmp(m->cpu_id, buf));
	}
	CHECK(m->cpus != NULL);
	for (uint32_t i = 0; i < m->nr_cpus_avail; i++) {
		char path[128];

		snprintf(path, sizeof(path),
			 "cat /sys/devices/system/cpu/cpu%u/topology/core_id 2>/dev/null || echo -1", i);
		CHECK_EQ(m->cpus[i].core_id, strtol(sh(path, buf, sizeof(buf)), NULL, 10));
		snprintf(path, sizeof(path),
			 "cat /sys/devices/system/cpu/cpu%u/topology/physical_package_id 2>/dev/null || echo -1", i);
		CHECK_EQ(m->cpus[i].socket_id, strtol(sh(path, buf, sizeof(buf)), NULL, 10));
		snprintf(path, sizeof(path),
			 "cat /sys/devices/system/cpu/cpu%u/topology/die_id 2>/dev/null || echo -1", i);
		CHECK_EQ(m->cpus[i].die_id, strtol(sh(path, buf, sizeof(buf)), NULL, 10));
	}
}

/* The PMUs in their directory's order (readdir's, as perf lists them:
 * not ls, which sorts in busybox), each with its type, and each cap as
 * its file's first line. */
static void check_pmus(const struct prec_manifest *m)
{
	static char buf[1 << 16];
	char cmd[512], one[300];
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	size_t at = 0, len = 0;

	CHECK(d != NULL);
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(cmd, sizeof(cmd), "cat /sys/bus/event_source/devices/%s/type 2>/dev/null",
			 e->d_name);
		if (!sh(cmd, one, sizeof(one))[0])
			continue;
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s=%s ", e->d_name, one);
		CHECK(len < sizeof(buf));
	}
	if (d)
		closedir(d);
	for (uint32_t i = 0; i < m->nr_pmus; i++) {
		int n = snprintf(one, sizeof(one), "%s=%u ", m->pmus[i].name, m->pmus[i].type);

		CHECK(!strncmp(buf + at, one, (size_t)n));
		at += (size_t)n;
		for (uint32_t k = 0; k < m->pmus[i].nr_caps; k++) {
			snprintf(cmd, sizeof(cmd), "head -c 127 /sys/bus/event_source/devices/%s/caps/%s | head -1",
				 m->pmus[i].name, m->pmus[i].caps[k].name);
			CHECK(!strcmp(sh(cmd, one, sizeof(one)), m->pmus[i].caps[k].value));
		}
	}
	CHECK_EQ(at, strlen(buf));
	CHECK(buf[0]);
}

/* Each cache once (sysfs's cache/indexN of every CPU, distinct), by
 * level, its numbers and strings as sysfs has them. */
static void check_caches(const struct prec_manifest *m)
{
	static char buf[1 << 16];
	char one[512];
	unsigned long want;

	sh("for d in /sys/devices/system/cpu/cpu[0-9]*/cache/index[0-3]; do [ -d $d ] &&"
	   " echo $(cat $d/level $d/coherency_line_size $d/number_of_sets"
	   " $d/ways_of_associativity $d/type $d/size $d/shared_cpu_list); done | sort -u | wc -l",
	   buf, sizeof(buf));
	want = strtoul(buf, NULL, 10);
	/* a cache with a file missing (arm64 guests lack the geometry):
	 * none at all, as perf writes no CACHE then */
	sh("for d in /sys/devices/system/cpu/cpu[0-9]*/cache/index[0-3]; do [ -d $d ] &&"
	   " for f in level coherency_line_size number_of_sets ways_of_associativity type"
	   " size shared_cpu_list; do [ -r $d/$f ] || echo $d/$f; done; done | wc -l",
	   buf, sizeof(buf));
	if (strtoul(buf, NULL, 10))
		want = 0;
	CHECK_EQ(m->nr_caches, want);
	sh("for d in /sys/devices/system/cpu/cpu[0-9]*/cache/index[0-3]; do [ -d $d ] &&"
	   " echo $(cat $d/level $d/coherency_line_size $d/number_of_sets"
	   " $d/ways_of_associativity $d/type $d/size $d/shared_cpu_list); done | sort -u | tr '\\n' '|'",
	   buf, sizeof(buf));
	for (uint32_t i = 0; i < m->nr_caches; i++) {
		const struct prec_manifest_cache *c = &m->caches[i];

		snprintf(one, sizeof(one), "%u %u %u %u %s %s %s|", c->level, c->line_size, c->sets,
			 c->ways, c->type, c->size, c->map);
		if (!strstr(buf, one))
			fprintf(stderr, "cache '%s' not in sysfs's '%s'\n", one, buf);
		CHECK(strstr(buf, one));
		CHECK(!i || m->caches[i - 1].level <= c->level);
	}
}

/* perf's own view of the same host: the strongest oracle we have. */
static void check_against_perf(const struct prec_manifest *m, const char *dir)
{
	char cmd[1024], buf[512];

	snprintf(cmd, sizeof(cmd),
		 "perf record -q -o %s/perf.data -e cpu-clock true >/dev/null 2>&1 && echo ok",
		 dir);
	if (strcmp(sh(cmd, buf, sizeof(buf)), "ok")) {
		fprintf(stderr, "perf record failed: skipping the perf comparison\n");
		return;
	}
	snprintf(cmd, sizeof(cmd),
		 "perf report --header-only -i %s/perf.data 2>/dev/null | sed -n 's/^# cpudesc : //p'",
		 dir);
	CHECK(!strcmp(sh(cmd, buf, sizeof(buf)), m->cpu_desc ? m->cpu_desc : ""));
	if (m->cpu_id) {
		snprintf(cmd, sizeof(cmd),
			 "perf report --header-only -i %s/perf.data 2>/dev/null | sed -n 's/^# cpuid : //p'",
			 dir);
		CHECK(!strcmp(sh(cmd, buf, sizeof(buf)), m->cpu_id));
	}
	snprintf(cmd, sizeof(cmd),
		 "perf report --header-only -i %s/perf.data 2>/dev/null | sed -n 's/^# nrcpus avail : //p'",
		 dir);
	CHECK_EQ(m->nr_cpus_avail, strtoul(sh(cmd, buf, sizeof(buf)), NULL, 10));
	snprintf(cmd, sizeof(cmd),
		 "perf report --header-only -i %s/perf.data 2>/dev/null | sed -n 's/^# total memory : \\([0-9]*\\) kB/\\1/p'",
		 dir);
	CHECK_EQ(m->total_mem_kb, strtoull(sh(cmd, buf, sizeof(buf)), NULL, 10));
	/* "CPU 0: Core ID 0, Die ID 0, Socket ID 0" */
	for (uint32_t i = 0; i < m->nr_cpus_avail; i++) {
		char want[160];

		snprintf(cmd, sizeof(cmd),
			 "perf report --header-only -I -i %s/perf.data 2>/dev/null | grep '^# CPU %u: '",
			 dir, i);
		sh(cmd, buf, sizeof(buf));
		/* perf has a die level where the kernel does (x86_64, s390x) */
		if (m->cpus[i].die_id >= 0)
			snprintf(want, sizeof(want), "# CPU %u: Core ID %d, Die ID %d, Socket ID %d",
				 i, m->cpus[i].core_id, m->cpus[i].die_id, m->cpus[i].socket_id);
		else
			snprintf(want, sizeof(want), "# CPU %u: Core ID %d, Socket ID %d",
				 i, m->cpus[i].core_id, m->cpus[i].socket_id);
		if (buf[0])
			CHECK(!strcmp(buf, want));
	}
}

int main(void)
{
	struct prec_manifest *m = prec_manifest__new();
	char *dir = test_tmpdir("host");
	char buf[64];

	CHECK(m && dir);
	CHECK_EQ(prec_host__fill(m), 0);
	check_basics(m);
	check_pmus(m);
	check_caches(m);
	/* A second fill replaces, never leaks or duplicates. */
	CHECK_EQ(prec_host__fill(m), 0);
	check_basics(m);
	check_pmus(m);
	check_caches(m);
	if (sh("command -v perf >/dev/null && echo yes", buf, sizeof(buf))[0])
		check_against_perf(m, dir);
	prec_manifest__delete(m);
	test_rmdir(dir);
	free(dir);
	return 0;
}
