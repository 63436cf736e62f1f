// SPDX-License-Identifier: MIT
// perf.data writer, judged by /usr/bin/perf: a manifest built in memory
// (cpu-clock + raw_syscalls:sys_enter), synthetic records written in file
// and pipe mode, then perf script / report / buildid-list and an own parser.
#include "read/internal.h"
#include "read/perfdata_maps.h"
#include "store/bpf_prog.h"
#include "util/bytes.h"
#include "../lib/test.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NR_SAMPLES 200
#define TRACEFS "/sys/kernel/tracing"
#define SAMPLE_BASE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
		     PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)

static char *tmp;
static int have_tp;
static uint32_t tp_id;
static char kernel_bid[41];

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = calloc(1, 1 << 20);
	CHECK(buf);
	n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	CHECK(d);
	return d;
}

static void set_attr(struct prec_manifest_event *e, uint32_t type, uint64_t config,
		     uint64_t sample_type, const char *name, uint64_t id0)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = type;
	a.size = 128;
	a.config = config;
	a.sample_period = type == PERF_TYPE_SOFTWARE ? 100000 : 1;
	a.sample_type = sample_type;
	a.sample_id_all = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	memcpy(e->attr, &a, 128);
	e->name = xstrdup(name);
	e->nr_ids = 2;
	e->ids = calloc(2, sizeof(*e->ids));
	e->id_cpus = calloc(2, sizeof(*e->id_cpus));
	e->id_tids = calloc(2, sizeof(*e->id_tids));
	CHECK(e->ids && e->id_cpus && e->id_tids);
	for (int i = 0; i < 2; i++) {
		e->ids[i] = id0 + (uint64_t)i;
		e->id_cpus[i] = i;
		e->id_tids[i] = -1;
	}
}

static void add_tracepoint(struct prec_manifest *m)
{
	char *fmt = read_text(TRACEFS "/events/raw_syscalls/sys_enter/format");
	const char *idl;

	if (!fmt) {
		printf("no tracefs at " TRACEFS ": cpu-clock only\n");
		return;
	}
	idl = strstr(fmt, "\nID: ");
	CHECK(idl);
	tp_id = (uint32_t)strtoul(idl + 5, NULL, 10);
	m->nr_tracepoints = 1;
	m->tracepoints = calloc(1, sizeof(*m->tracepoints));
	CHECK(m->tracepoints);
	m->tracepoints[0].system = xstrdup("raw_syscalls");
	m->tracepoints[0].name = xstrdup("sys_enter");
	m->tracepoints[0].id = tp_id;
	m->tracepoints[0].format = fmt;
	m->header_page = read_text(TRACEFS "/events/header_page");
	m->header_event = read_text(TRACEFS "/events/header_event");
	set_attr(&m->events[1], PERF_TYPE_TRACEPOINT, tp_id,
		 SAMPLE_BASE | PERF_SAMPLE_RAW, "raw_syscalls:sys_enter", 201);
	m->nr_events = 2;
	have_tp = 1;
}

/* The running kernel's build-id from /sys/kernel/notes (ELF notes), so
 * perf finds kallsyms for it instead of warning. Returns 1 if found. */
static int kernel_build_id(uint8_t id[20])
{
	uint8_t notes[4096];
	ssize_t n;
	size_t pos = 0;
	int fd = open("/sys/kernel/notes", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, notes, sizeof(notes));
	close(fd);
	while (n > 0 && pos + 12 <= (size_t)n) {
		uint32_t nsz, dsz, type;
		size_t name_at = pos + 12, desc_at;

		memcpy(&nsz, notes + pos, 4);
		memcpy(&dsz, notes + pos + 4, 4);
		memcpy(&type, notes + pos + 8, 4);
		desc_at = name_at + ((nsz + 3) & ~3u);
		if (desc_at + dsz > (size_t)n)
			break;
		if (type == 3 && nsz == 4 && !memcmp(notes + name_at, "GNU", 4) && dsz == 20) {
			memcpy(id, notes + desc_at, 20);
			return 1;
		}
		pos = desc_at + ((dsz + 3) & ~3u);
	}
	return 0;
}

static struct prec_manifest *make_manifest(void)
{
	static char *argv[] = { "record", "-e", "cpu-clock", "-o", "x.dir" };
	struct prec_manifest *m = calloc(1, sizeof(*m));
	struct utsname u;

	CHECK(m && uname(&u) == 0);
	m->state = PREC_STATE_COMPLETE;
	m->hostname = xstrdup(u.nodename);
	m->os_release = xstrdup(u.release);
	m->arch = xstrdup(u.machine);
	m->version = xstrdup("prec-test-1.0");
	m->cpu_desc = xstrdup("Test CPU @ 1.00GHz");
	m->cpu_id = xstrdup("GenuineIntel,6,167,1");
	m->nr_cpus_avail = m->nr_cpus_online = 2;
	m->total_mem_kb = 4000000;
	m->cpus = calloc(2, sizeof(*m->cpus));
	CHECK(m->cpus);
	m->cpus[1].core_id = 1;
	m->argc = 5;
	m->argv = argv;
	m->clockid = CLOCK_MONOTONIC;
	m->clock_res_ns = 1;
	m->ref_wall_ns = 1700000000000000000ull;
	m->ref_clock_ns = 1000000000ull;
	m->sample_type = SAMPLE_BASE;
	m->events = calloc(2, sizeof(*m->events));
	CHECK(m->events);
	set_attr(&m->events[0], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
		 SAMPLE_BASE, "cpu-clock", 101);
	m->nr_events = 1;
	m->buildids = calloc(2, sizeof(*m->buildids));
	CHECK(m->buildids);
	m->nr_buildids = 2;
	m->buildids[0] = (struct prec_manifest_buildid){ .cpumode = PERF_RECORD_MISC_KERNEL,
		.size = 20, .pid = -1, .path = xstrdup("[kernel.kallsyms]") };
	m->buildids[1] = (struct prec_manifest_buildid){ .cpumode = PERF_RECORD_MISC_USER,
		.size = 20, .pid = -1, .path = xstrdup("/usr/bin/prec-test-binary") };
	for (int i = 0; i < 20; i++) {
		m->buildids[0].id[i] = (uint8_t)(0xa0 + i);
		m->buildids[1].id[i] = (uint8_t)(0x10 + i);
	}
	kernel_build_id(m->buildids[0].id);
	for (int i = 0; i < 20; i++)
		snprintf(kernel_bid + 2 * i, 3, "%02x", m->buildids[0].id[i]);
	add_tracepoint(m);
	return m;
}

static void free_manifest(struct prec_manifest *m)
{
	for (uint32_t i = 0; i < m->nr_events; i++) {
		free(m->events[i].name);
		free(m->events[i].ids);
		free(m->events[i].id_cpus);
		free(m->events[i].id_tids);
	}
	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		free(m->tracepoints[i].system);
		free(m->tracepoints[i].name);
		free(m->tracepoints[i].format);
	}
	for (uint32_t i = 0; i < m->nr_buildids; i++)
		free(m->buildids[i].path);
	free(m->tracepoints);
	free(m->buildids);
	free(m->events);
	free(m->cpus);
	free(m->hostname);
	free(m->os_release);
	free(m->arch);
	free(m->version);
	free(m->cpu_desc);
	free(m->cpu_id);
	free(m->header_page);
	free(m->header_event);
	free(m);
}

/* ---- synthetic records ---- */

struct rb {
	uint8_t b[512];
	uint32_t n;
};

static void rb_put(struct rb *r, const void *p, uint32_t n)
{
	CHECK(r->n + n <= sizeof(r->b));
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static void rb_u32(struct rb *r, uint32_t v) { rb_put(r, &v, 4); }
static void rb_u64(struct rb *r, uint64_t v) { rb_put(r, &v, 8); }

static void rb_hdr(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	r->n = 0;
	rb_put(r, &h, sizeof(h));
}

static void rb_str(struct rb *r, const char *s)
{
	uint32_t n = (uint32_t)strlen(s) + 1, pad = (8 - n % 8) % 8;
	static const uint8_t zero[8];

	rb_put(r, s, n);
	rb_put(r, zero, pad);
}

/* sample_id trailer for TID|TIME|CPU|IDENTIFIER, then set header.size. */
static void rb_trailer(struct rb *r, uint32_t pid, uint64_t time, uint64_t id)
{
	uint16_t size;

	rb_u32(r, pid);
	rb_u32(r, pid);
	rb_u64(r, time);
	rb_u64(r, 0);
	rb_u64(r, id);
	size = (uint16_t)r->n;
	memcpy(r->b + 6, &size, 2);
}

static void write_rec(struct prec_perfdata *pd, const struct rb *r)
{
	CHECK_EQ(prec_perfdata__write_record(pd, r->b, r->n), 0);
}

static void write_preamble(struct prec_perfdata *pd)
{
	struct rb r;

	rb_hdr(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_KERNEL);
	rb_u32(&r, (uint32_t)-1);
	rb_u32(&r, 0);
	rb_u64(&r, 0xffffffff81000000ull);
	rb_u64(&r, 0x1000000);
	rb_u64(&r, 0xffffffff81000000ull);
	rb_str(&r, "[kernel.kallsyms]_text");
	rb_trailer(&r, 0, 0, 0);
	write_rec(pd, &r);
	rb_hdr(&r, PERF_RECORD_COMM, 0);
	rb_u32(&r, 4242);
	rb_u32(&r, 4242);
	rb_str(&r, "prectest");
	rb_trailer(&r, 4242, 0, 0);
	write_rec(pd, &r);
	/* Samples hit this map and the kernel's, so buildid-list on a pipe
	 * (which lists hit DSOs only) shows both build-ids. */
	rb_hdr(&r, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER);
	rb_u32(&r, 4242);
	rb_u32(&r, 4242);
	rb_u64(&r, 0x400000);
	rb_u64(&r, 0x10000);
	rb_u64(&r, 0);
	rb_str(&r, "/usr/bin/prec-test-binary");
	rb_trailer(&r, 4242, 0, 0);
	write_rec(pd, &r);
}

/* Sample i: even = cpu-clock (every other one in the kernel), odd =
 * sys_enter with NR 110 (i % 4 == 1) or 111. */
static void write_sample(struct prec_perfdata *pd, int i, uint64_t *first,
			 uint64_t *last)
{
	int tp = have_tp && (i & 1);
	uint32_t cpu = (uint32_t)(i / 2) & 1;
	uint64_t time = 1000000000ull + (uint64_t)i * 1000;
	int kernel = !tp && i % 4 == 2;
	struct rb r;
	uint16_t size;

	rb_hdr(&r, PERF_RECORD_SAMPLE, kernel ? PERF_RECORD_MISC_KERNEL : PERF_RECORD_MISC_USER);
	rb_u64(&r, (tp ? 201 : 101) + cpu);
	rb_u64(&r, (kernel ? 0xffffffff81001000ull : 0x401000) + (uint64_t)i);
	rb_u32(&r, 4242);
	rb_u32(&r, 4242);
	rb_u64(&r, time);
	rb_u64(&r, cpu);
	rb_u64(&r, tp ? 1 : 100000);
	if (tp) {
		/* u32 size, then common fields + id + args[6], padded so the
		 * record stays 8-aligned, as the kernel does. */
		rb_u32(&r, 68);
		rb_put(&r, &(uint16_t){ (uint16_t)tp_id }, 2);
		rb_put(&r, &(uint16_t){ 0 }, 2);
		rb_u32(&r, 4242);
		rb_u64(&r, i % 4 == 1 ? 110 : 111);
		for (int a = 0; a < 6; a++)
			rb_u64(&r, (uint64_t)a);
		rb_u32(&r, 0);
	}
	size = (uint16_t)r.n;
	memcpy(r.b + 6, &size, 2);
	write_rec(pd, &r);
	prec_perfdata__saw_time(first, last, time);
}

static void write_stream(struct prec_perfdata *pd, uint64_t *first, uint64_t *last)
{
	write_preamble(pd);
	for (int i = 0; i < NR_SAMPLES; i++) {
		write_sample(pd, i, first, last);
		if (i % 10 == 9)
			CHECK_EQ(prec_perfdata__finish_round(pd), 0);
	}
}

/* ---- checking with perf ---- */

/* Run a shell command in which every %s is the scratch directory. */
static int sh(const char *fmt)
{
	char cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), fmt, tmp, tmp, tmp, tmp);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static char *tmp_file(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	return read_text(path);
}

/* Lines of s containing needle (all lines when needle is NULL). */
static int count_lines(const char *s, const char *needle)
{
	int n = 0;

	while (s && *s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char line[4096];

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		if (!needle || strstr(line, needle))
			n++;
		s += len + (nl != NULL);
	}
	return n;
}

static void check_script_output(void)
{
	char *out = tmp_file("script.out"), *err = tmp_file("script.err");

	CHECK(out && err);
	if (*err)
		fprintf(stderr, "perf script stderr:\n%s", err);
	CHECK_EQ(strlen(err), 0);
	CHECK_EQ(count_lines(out, NULL), NR_SAMPLES);
	CHECK_EQ(count_lines(out, "prectest"), NR_SAMPLES);
	if (have_tp) {
		CHECK_EQ(count_lines(out, "raw_syscalls:sys_enter"), NR_SAMPLES / 2);
		CHECK_EQ(count_lines(out, "NR 110 (0, 1, 2, 3, 4, 5)"), NR_SAMPLES / 4);
		CHECK_EQ(count_lines(out, "NR 111 (0, 1, 2, 3, 4, 5)"), NR_SAMPLES / 4);
	}
	free(out);
	free(err);
}

static void check_header_only(const struct prec_manifest *m, int file_mode)
{
	char *out = tmp_file("hdr.out"), *err = tmp_file("hdr.err");
	char want[256];

	CHECK(out && err);
	snprintf(want, sizeof(want), "# hostname : %s\n", m->hostname);
	CHECK(strstr(out, want));
	snprintf(want, sizeof(want), "# os release : %s\n", m->os_release);
	CHECK(strstr(out, want));
	CHECK(strstr(out, "# perf version : prec-test-1.0\n"));
	CHECK(strstr(out, "# arch : "));
	CHECK(strstr(out, "# nrcpus online : 2\n"));
	CHECK(strstr(out, "# cpudesc : Test CPU @ 1.00GHz\n"));
	CHECK(strstr(out, "# total memory : 4000000 kB\n"));
	CHECK(strstr(out, "# cmdline : prec record -e cpu-clock -o x.dir \n"));
	CHECK(strstr(out, "# event : name = cpu-clock, "));
	CHECK(strstr(out, "id = { 101, 102 }"));
	if (have_tp)
		CHECK(strstr(out, "# event : name = raw_syscalls:sys_enter, "));
	CHECK(strstr(out, "# sibling sockets : 0-1\n"));
	CHECK(strstr(out, "# sibling threads : 1\n"));
	/* a die level where perf writes one: x86_64, s390x (test_dies) */
	if (!strcmp(m->arch, "x86_64") || !strcmp(m->arch, "s390x"))
		CHECK(strstr(out, "# CPU 1: Core ID 1, Die ID 0, Socket ID 0\n"));
	else
		CHECK(strstr(out, "# CPU 1: Core ID 1, Socket ID 0\n"));
	CHECK(strstr(out, "# clockid: monotonic (1)\n"));
	CHECK(strstr(out, "= 1700000000.000000 (TOD) = 1.000000000 (monotonic)\n"));
	if (file_mode) {
		CHECK(strstr(out, "# time of first sample : 1.000000\n"));
		CHECK(strstr(out, "# time of last sample : 1.000199\n"));
	}
	CHECK_EQ(strlen(err), 0);
	free(out);
	free(err);
}

static void check_buildids(const char *which)
{
	char *out = tmp_file(which);
	char want[128];

	CHECK(out);
	snprintf(want, sizeof(want), "%s [kernel.kallsyms]", kernel_bid);
	CHECK(strstr(out, want));
	CHECK(strstr(out, "101112131415161718191a1b1c1d1e1f20212223 /usr/bin/prec-test-binary"));
	free(out);
}

/* ---- own parser of the file-mode layout ---- */

struct file_header {
	uint64_t magic, size, attr_size;
	uint64_t attrs_offset, attrs_size;
	uint64_t data_offset, data_size;
	uint64_t types_offset, types_size;
	uint64_t features[4];
};

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void parse_attrs(const uint8_t *f, const struct file_header *h,
			const struct prec_manifest *m)
{
	uint64_t ids_off = 104;

	CHECK_EQ(h->attrs_size, (uint64_t)m->nr_events * 144);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		const uint8_t *e = f + h->attrs_offset + i * 144;
		const struct prec_manifest_event *ev = &m->events[prec_perfdata__event_at(m, i)];
		uint32_t asize;

		memcpy(&asize, e + 4, 4);
		CHECK_EQ(asize, 128);
		CHECK(!memcmp(e, ev->attr, 4) && !memcmp(e + 8, ev->attr + 8, 120));
		CHECK_EQ(get64(e + 128), ids_off);
		CHECK_EQ(get64(e + 136), ev->nr_ids * 8);
		for (uint32_t j = 0; j < ev->nr_ids; j++)
			CHECK_EQ(get64(f + ids_off + j * 8), ev->ids[j]);
		ids_off += ev->nr_ids * 8;
	}
	CHECK_EQ(h->attrs_offset, ids_off);
	CHECK_EQ(h->data_offset, h->attrs_offset + h->attrs_size);
}

/* Walk the data section; returns samples, counts rounds and AUXTRACEs. */
static int walk_data(const uint8_t *f, const struct file_header *h, int *rounds,
		     int *aux)
{
	uint64_t pos = h->data_offset, end = h->data_offset + h->data_size;
	int samples = 0;

	*rounds = *aux = 0;
	while (pos < end) {
		struct perf_event_header eh;

		memcpy(&eh, f + pos, sizeof(eh));
		CHECK(eh.size >= 8 && pos + eh.size <= end);
		samples += eh.type == PERF_RECORD_SAMPLE;
		*rounds += eh.type == 68;
		if (eh.type == 71) {
			(*aux)++;
			pos += get64(f + pos + 8);
		}
		pos += eh.size;
	}
	CHECK_EQ(pos, end);
	return samples;
}

/* Checks the section table; returns the offset of feature want's section. */
static uint64_t parse_features(const uint8_t *f, size_t len,
			       const struct file_header *h, uint64_t want_bits,
			       int want, uint64_t *want_size)
{
	uint64_t table = h->data_offset + h->data_size, next, found = 0;
	int n = __builtin_popcountll(h->features[0]);

	CHECK_EQ(h->features[0], want_bits);
	CHECK(!h->features[1] && !h->features[2] && !h->features[3]);
	next = table + (uint64_t)n * 16;
	for (int bit = 0, k = 0; bit < 64; bit++) {
		const uint8_t *sec = f + table + (uint64_t)k * 16;

		if (!(want_bits >> bit & 1))
			continue;
		CHECK_EQ(get64(sec), next); /* contiguous, ascending */
		CHECK(get64(sec) + get64(sec + 8) <= len);
		if (bit == want) {
			found = get64(sec);
			*want_size = get64(sec + 8);
		}
		next += get64(sec + 8);
		k++;
	}
	CHECK_EQ(next, len);
	return found;
}

static void parse_file(const char *path, const struct prec_manifest *m,
		       int nr_aux)
{
	size_t len;
	uint8_t *f = test_load(path, &len);
	struct file_header h;
	uint64_t bits = 0x2000003ffcull, sz = 0, off;
	int rounds, aux;
	uint32_t slen;

	CHECK(len >= sizeof(h));
	memcpy(&h, f, sizeof(h));
	CHECK(!memcmp(f, "PERFILE2", 8));
	CHECK_EQ(h.size, 104);
	CHECK_EQ(h.attr_size, 144);
	parse_attrs(f, &h, m);
	CHECK(h.data_offset + h.data_size <= len);
	CHECK_EQ(walk_data(f, &h, &rounds, &aux), NR_SAMPLES);
	CHECK_EQ(rounds, NR_SAMPLES / 10);
	CHECK_EQ(aux, nr_aux);
	/* 2-13 host/build-id/topology, 21 SAMPLE_TIME, 23 CLOCKID, 25 BPF_PROG_INFO
	 * and 26 BPF_BTF (count 0: no program), 29 CLOCK_DATA */
	bits = 0x3ffcull | 1ull << 21 | 1ull << 23 | 3ull << 25 | 1ull << 29;
	bits |= have_tp ? 2 : 0;
	bits |= nr_aux ? 1ull << 18 : 0;
	off = parse_features(f, len, &h, bits, 3, &sz);
	memcpy(&slen, f + off, 4);
	CHECK_EQ(slen % 64, 0);
	CHECK_EQ(sz, 4 + slen);
	CHECK(!strcmp((const char *)f + off + 4, m->hostname));
	for (int feat = 25; feat <= 26 && !m->nr_bpf_progs; feat++) {
		off = parse_features(f, len, &h, bits, feat, &sz);
		CHECK(sz == 4 && prec_ld32(f + off) == 0);
	}
	off = parse_features(f, len, &h, bits, 21, &sz);
	CHECK_EQ(sz, 16);
	CHECK_EQ(get64(f + off), 1000000000ull);
	CHECK_EQ(get64(f + off + 8), 1000000000ull + (NR_SAMPLES - 1) * 1000);
	if (nr_aux) {
		off = parse_features(f, len, &h, bits, 18, &sz);
		CHECK_EQ(get64(f + off), (uint64_t)nr_aux);
		CHECK_EQ(sz, 8 + 16 * (uint64_t)nr_aux);
		for (int i = 0; i < nr_aux; i++) {
			uint64_t at = get64(f + off + 8 + 16 * i);

			CHECK_EQ(get64(f + off + 16 + 16 * i), 48);
			CHECK_EQ(*(const uint32_t *)(f + at), 71);
			CHECK_EQ(get64(f + at + 16), 0x1000ull * (uint64_t)i);
			CHECK_EQ(f[at + 48], (uint8_t)(i + 1));
		}
	}
	free(f);
}

/* ---- the scenarios ---- */

/* The synthetic stream written to tmp/name in the given mode. */
static void write_out(struct prec_manifest *m, const char *name,
		      enum prec_perfdata_mode mode)
{
	char path[512];
	struct prec_perfdata *pd;
	uint64_t first = 0, last = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(prec_perfdata__open(&pd, fd, m, mode), 0);
	write_stream(pd, &first, &last);
	CHECK_EQ(prec_perfdata__close(pd, first, last), 0);
	close(fd);
}


static void test_file(struct prec_manifest *m)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/file.data", tmp);
	write_out(m, "file.data", PREC_PERFDATA_FILE);
	parse_file(path, m, 0);
	CHECK_EQ(sh("perf script -i %s/file.data >%s/script.out 2>%s/script.err"), 0);
	check_script_output();
	CHECK_EQ(sh("perf report --header-only -I -i %s/file.data >%s/hdr.out 2>%s/hdr.err"), 0);
	check_header_only(m, 1);
	CHECK_EQ(sh("perf buildid-list -i %s/file.data >%s/bid.out 2>%s/bid.err"), 0);
	check_buildids("bid.out");
	printf("file mode: perf script, report --header-only, buildid-list ok\n");
}

/* The topology's die level as perf writes it, whatever this host is: an
 * x86_64 recording's dies, none for an aarch64 one (perf's own arm64 files
 * have none; with one, perf report prints "Die ID -1" for every CPU). */
static void test_dies(struct prec_manifest *m)
{
	char *arch = m->arch, *out;

	m->arch = "aarch64";
	m->cpus[0].die_id = m->cpus[1].die_id = -1;
	write_out(m, "arm.data", PREC_PERFDATA_FILE);
	CHECK_EQ(sh("perf report --header-only -I -i %s/arm.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK(out && strstr(out, "# CPU 1: Core ID 1, Socket ID 0\n"));
	CHECK(out && !strstr(out, "Die ID") && !strstr(out, "sibling dies"));
	free(out);
	m->arch = "x86_64";
	m->cpus[0].die_id = m->cpus[1].die_id = 0;
	write_out(m, "x86.data", PREC_PERFDATA_FILE);
	CHECK_EQ(sh("perf report --header-only -I -i %s/x86.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK(out && strstr(out, "# CPU 1: Core ID 1, Die ID 0, Socket ID 0\n"));
	CHECK(out && strstr(out, "# sibling dies    : 0-1\n"));
	free(out);
	m->arch = arch;
	printf("topology: a die level for x86_64, none for aarch64\n");
}

/* The PMUs' features as perf reads them, file and pipe: the mappings,
 * the core PMU's caps (CPU_PMU_CAPS), the others' with caps (PMU_CAPS, a
 * hybrid one first); then a core PMU without caps. */
static void test_pmus(struct prec_manifest *m)
{
	struct prec_manifest_pmu_cap cpu[2] = { { "max_precise", "3" }, { "pmu_name", "zen4" } };
	struct prec_manifest_pmu_cap ibs[1] = { { "zen4_ibs_extensions", "1" } };
	struct prec_manifest_pmu_cap core[1] = { { "branches", "32" } };
	struct prec_manifest_pmu pmus[5] = {
		{ 1, "software", 0, NULL }, { 4, "cpu", 2, cpu }, { 11, "ibs_op", 1, ibs },
		{ 9, "msr", 0, NULL }, { 8, "cpu_core", 1, core },
	};
	static const char *want[] = {
		"# pmu mappings: software = 1, cpu = 4, ibs_op = 11, msr = 9, cpu_core = 8\n",
		"# cpu pmu capabilities: max_precise=3, pmu_name=zen4\n",
		"# cpu_core pmu capabilities: branches=32\n# ibs_op pmu capabilities: zen4_ibs_extensions=1\n",
	};
	char *out;

	m->pmus = pmus;
	m->nr_pmus = 5;
	write_out(m, "pmus.data", PREC_PERFDATA_FILE);
	CHECK_EQ(sh("perf report --header-only -I -i %s/pmus.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	for (int i = 0; i < 3; i++) {
		if (!out || !strstr(out, want[i]))
			fprintf(stderr, "want %s in:\n%s\n", want[i], out ? out : "(none)");
		CHECK(out && strstr(out, want[i]));
	}
	free(out);
	write_out(m, "pmus-pipe.data", PREC_PERFDATA_PIPE);
	CHECK_EQ(sh("perf report --header-only -I -i - <%s/pmus-pipe.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	for (int i = 0; i < 3; i++)
		CHECK(out && strstr(out, want[i]));
	free(out);
	pmus[1].nr_caps = 0;
	write_out(m, "pmus.data", PREC_PERFDATA_FILE);
	CHECK_EQ(sh("perf report --header-only -I -i %s/pmus.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK(out && strstr(out, "# cpu pmu capabilities: not available\n"));
	free(out);
	m->pmus = NULL;
	m->nr_pmus = 0;
	printf("pmus: mappings, cpu and other PMUs' caps, file and pipe\n");
}

/* A program's record (store/bpf_prog.h) into r: one JITed function of
 * jited bytes at addr, tag 01..08, named name, no BTF. Returns its length. */
static size_t bpf_rec(uint8_t *r, uint32_t id, const char *name, uint64_t addr,
		      uint32_t jited)
{
	uint8_t *info = r + PREC_BPF_PROG_HDR, *data = info + PREC_BPF_INFO_LEN;
	uint32_t j8 = (jited + 7) & ~7u;

	memset(r, 0, PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + j8 + 24);
	prec_st32(r, PREC_BPF_INFO_LEN);
	prec_st32(r + 4, j8 + 24);
	prec_st64(r + 8, PREC_BPF_ARRAYS_RECORDED);
#define AT(f) (info + offsetof(struct bpf_prog_info, f))
	prec_st32(AT(type), BPF_PROG_TYPE_SOCKET_FILTER);
	prec_st32(AT(id), id);
	for (int i = 0; i < 8; i++)
		AT(tag)[i] = data[j8 + 16 + i] = (uint8_t)(i + 1);
	prec_st32(AT(jited_prog_len), jited);
	memcpy(AT(name), name, strlen(name));
	prec_st32(AT(nr_jited_ksyms), 1);
	prec_st64(AT(jited_ksyms), j8);
	prec_st64(data + j8, addr);
	prec_st32(AT(nr_jited_func_lens), 1);
	prec_st64(AT(jited_func_lens), j8 + 8);
	prec_st32(data + j8 + 8, jited);
	prec_st32(AT(func_info_rec_size), 8);
	prec_st64(AT(func_info), j8 + 16);
	prec_st32(AT(line_info_rec_size), 16);
	prec_st64(AT(line_info), j8 + 16);
	prec_st32(AT(jited_line_info_rec_size), 8);
	prec_st64(AT(jited_line_info), j8 + 16);
	prec_st32(AT(nr_prog_tags), 1);
	prec_st64(AT(prog_tags), j8 + 16);
#undef AT
	memset(data, 0xcc, jited);
	return PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + j8 + 24;
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; p && (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* BPF_PROG_INFO and BPF_BTF from the manifest's programs and BTF objects:
 * perf report --header-only prints a line for each, from a file and from
 * a pipe; a pipe takes the programs that fit its 64 KiB record (the file
 * all 300). */
static void test_bpf(struct prec_manifest *m)
{
	static const char want[] = "# bpf_prog_info 42: bpf_prog_0102030405060708_unitprog "
				   "addr 0xffffffffa0001000 size 64\n";
	uint8_t rec[PREC_BPF_PROG_HDR + PREC_BPF_INFO_LEN + 256 + 24], btf[40] = { 1 };
	char *out;
	size_t len, first;
	int fit;

	CHECK_EQ(prec_manifest__add_btf(m, 7, btf, sizeof(btf)), 0);
	len = first = bpf_rec(rec, 42, "unitprog", 0xffffffffa0001000ull, 64);
	CHECK_EQ(prec_manifest__add_bpf_prog(m, rec, len), 0);
	CHECK_EQ(prec_manifest__add_bpf_prog(m, rec, len), -EINVAL); /* id 42 again */
	write_out(m, "bpf.data", PREC_PERFDATA_FILE);
	CHECK_EQ(sh("perf report --header-only -I -i %s/bpf.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK(out && strstr(out, want) && strstr(out, "# btf info of id 7\n"));
	CHECK(out && !strstr(out, "BPF_PROG_INFO") && !strstr(out, "BPF_BTF"));
	free(out);
	write_out(m, "bpf-pipe.data", PREC_PERFDATA_PIPE);
	CHECK_EQ(sh("perf report --header-only -I -i - <%s/bpf-pipe.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK(out && strstr(out, want) && strstr(out, "# btf info of id 7\n"));
	free(out);
	for (uint32_t id = 100; id < 399; id++) {
		len = bpf_rec(rec, id, "many", 0xffffffffa0100000ull + 256 * id, 200);
		CHECK_EQ(prec_manifest__add_bpf_prog(m, rec, len), 0);
	}
	/* the record's payload: the count, program 42, then what fits */
	fit = 1 + (int)((65535 - 16 - 4 - first) / len);
	write_out(m, "bpf-pipe.data", PREC_PERFDATA_PIPE);
	CHECK_EQ(sh("perf report --header-only -I -i - <%s/bpf-pipe.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK(out && strstr(out, want));
	CHECK_EQ(count_str(out, "# bpf_prog_info "), fit);
	free(out);
	write_out(m, "bpf.data", PREC_PERFDATA_FILE);
	CHECK_EQ(sh("perf report --header-only -I -i %s/bpf.data >%s/hdr.out 2>%s/hdr.err"), 0);
	out = tmp_file("hdr.out");
	CHECK_EQ(count_str(out, "# bpf_prog_info "), 300);
	free(out);
	for (uint32_t i = 0; i < m->nr_bpf_progs; i++)
		free(m->bpf_progs[i].rec);
	free(m->bpf_progs);
	free(m->btfs[0].data);
	free(m->btfs);
	m->bpf_progs = NULL;
	m->btfs = NULL;
	m->nr_bpf_progs = m->nr_btfs = m->bpf_progs_cap = m->btfs_cap = 0;
	m->bpf_bytes = 0;
	printf("bpf: BPF_PROG_INFO and BPF_BTF, file and pipe (%d of 300 programs fit one)\n", fit);
}

/* Pipe mode into a real pipe read by `perf script -i -`. */
static void test_pipe(struct prec_manifest *m)
{
	char out[512], err[512];
	struct prec_perfdata *pd;
	uint64_t first = 0, last = 0;
	int p[2], status;
	pid_t child;

	snprintf(out, sizeof(out), "%s/script.out", tmp);
	snprintf(err, sizeof(err), "%s/script.err", tmp);
	CHECK(pipe(p) == 0);
	child = fork();
	CHECK(child >= 0);
	if (child == 0) {
		int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		if (o < 0 || e < 0 || dup2(p[0], 0) < 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
			_exit(126);
		close(p[1]);
		execlp("perf", "perf", "script", "-i", "-", (char *)NULL);
		_exit(127);
	}
	close(p[0]);
	CHECK_EQ(prec_perfdata__open(&pd, p[1], m, PREC_PERFDATA_PIPE), 0);
	write_stream(pd, &first, &last);
	CHECK_EQ(prec_perfdata__close(pd, first, last), 0);
	close(p[1]);
	CHECK(waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	check_script_output();
	printf("pipe mode: perf script -i - ok\n");
}

/* Pipe format saved in a file, read back through stdin. */
static void test_pipe_file(struct prec_manifest *m)
{
	uint32_t nr_events = m->nr_events, nr_tp = m->nr_tracepoints;
	int had_tp = have_tp;

	write_out(m, "pipe.data", PREC_PERFDATA_PIPE);
	CHECK_EQ(sh("cat %s/pipe.data | perf report --header-only -I -i - >%s/hdr.out 2>%s/hdr.err"), 0);
	check_header_only(m, 0);
	/* perf 6.1 buildid-list has no tracing-data handler and misparses
	 * any pipe stream with tracepoints (its own too): test without. */
	m->nr_events = 1;
	m->nr_tracepoints = 0;
	have_tp = 0;
	write_out(m, "pipe-notp.data", PREC_PERFDATA_PIPE);
	CHECK_EQ(sh("cat %s/pipe-notp.data | perf buildid-list -i - >%s/pbid.out 2>%s/pbid.err"), 0);
	check_buildids("pbid.out");
	m->nr_events = nr_events;
	m->nr_tracepoints = nr_tp;
	have_tp = had_tp;
	printf("pipe mode: buildid-list -i -, report --header-only -i - ok\n");
}

/* AUXTRACE records and their index (perf cannot decode AUX here). */
static void test_aux(struct prec_manifest *m)
{
	char path[512];
	struct prec_perfdata *pd;
	uint64_t first = 0, last = 0;
	uint8_t bytes[3000];
	int fd;

	snprintf(path, sizeof(path), "%s/aux.data", tmp);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(prec_perfdata__open(&pd, fd, m, PREC_PERFDATA_FILE), 0);
	write_preamble(pd);
	for (int i = 0; i < NR_SAMPLES; i++) {
		if (i % 40 == 0) {
			memset(bytes, i / 40 + 1, sizeof(bytes));
			CHECK_EQ(prec_perfdata__write_auxtrace(pd, bytes, 1001 + (uint32_t)i,
				0x1000ull * (uint64_t)(i / 40), 0), 0);
		}
		write_sample(pd, i, &first, &last);
		if (i % 10 == 9)
			CHECK_EQ(prec_perfdata__finish_round(pd), 0);
	}
	CHECK_EQ(prec_perfdata__close(pd, first, last), 0);
	close(fd);
	parse_file(path, m, NR_SAMPLES / 40);
	printf("file mode: AUXTRACE index ok\n");
}

/* A reader that went away: the error surfaces as -EPIPE, no signal. */
static void test_epipe(struct prec_manifest *m)
{
	struct prec_perfdata *pd;
	uint64_t first = 0, last = 0;
	int p[2], err = 0;

	CHECK(pipe(p) == 0);
	close(p[0]);
	CHECK_EQ(prec_perfdata__open(&pd, p[1], m, PREC_PERFDATA_PIPE), 0);
	for (int round = 0; round < 100 && !err; round++) {
		write_preamble(pd);
		for (int i = 0; i < 2000 && !err; i++) {
			struct rb r;

			rb_hdr(&r, PERF_RECORD_COMM, 0);
			rb_u32(&r, 1);
			rb_u32(&r, 1);
			rb_str(&r, "x");
			rb_trailer(&r, 1, 1, 0);
			err = prec_perfdata__write_record(pd, r.b, r.n);
		}
	}
	CHECK_EQ(err, -EPIPE);
	CHECK_EQ(prec_perfdata__write_record(pd, "", 0), -EPIPE);
	CHECK_EQ(prec_perfdata__close(pd, first, last), -EPIPE);
	close(p[1]);
	/* File mode refuses an fd not at offset 0 (the header goes there). */
	{
		char path[512];
		int fd;

		snprintf(path, sizeof(path), "%s/off.data", tmp);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
		CHECK(fd >= 0 && write(fd, "x", 1) == 1);
		CHECK_EQ(prec_perfdata__open(&pd, fd, m, PREC_PERFDATA_FILE), -EINVAL);
		close(fd);
	}
	prec_perfdata__close(NULL, 0, 0);
}

/* Feature payloads are not aligned. */
static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/* The synthetic stream, zstd level 1, to tmp/name; AUX chunks with it. */
static void write_z(struct prec_manifest *m, const char *name,
		    enum prec_perfdata_mode mode, int with_aux)
{
	char path[512];
	struct prec_perfdata *pd;
	uint64_t first = 0, last = 0;
	uint8_t bytes[3000];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(prec_perfdata__open_zstd(&pd, fd, m, mode, 1), 0);
	write_preamble(pd);
	for (int i = 0; i < NR_SAMPLES; i++) {
		if (with_aux && i % 40 == 0) {
			memset(bytes, i / 40 + 1, sizeof(bytes));
			CHECK_EQ(prec_perfdata__write_auxtrace(pd, bytes, 1001 + (uint32_t)i,
				0x1000ull * (uint64_t)(i / 40), 0), 0);
		}
		write_sample(pd, i, &first, &last);
		if (i % 10 == 9)
			CHECK_EQ(prec_perfdata__finish_round(pd), 0);
	}
	CHECK_EQ(prec_perfdata__close(pd, first, last), 0);
	close(fd);
}

/* -z: the same stream compressed reads the same in perf script, file and
 * pipe format, with perf's COMPRESSED header line; FINISHED_ROUND and
 * AUXTRACE stay plain, each AUXTRACE where the index says. */
static void test_zstd(struct prec_manifest *m)
{
	char path[512];
	size_t len;
	uint8_t *f;
	struct file_header h;
	uint64_t bits, off, sz, pos, end;
	int rounds = 0, aux = 0, comp = 0, plain = 0;
	char *hdr;

	write_z(m, "z.data", PREC_PERFDATA_FILE, 0);
	CHECK_EQ(sh("perf script -i %s/z.data >%s/script.out 2>%s/script.err"), 0);
	check_script_output();
	CHECK_EQ(sh("perf report --header-only -i %s/z.data >%s/hdr.out 2>%s/hdr.err"), 0);
	hdr = tmp_file("hdr.out");
	CHECK(hdr && strstr(hdr, "# compressed : Zstd, level = 1, ratio = "));
	free(hdr);
	write_z(m, "zpipe.data", PREC_PERFDATA_PIPE, 0);
	CHECK_EQ(sh("cat %s/zpipe.data | perf script -i - >%s/script.out 2>%s/script.err"), 0);
	check_script_output();

	write_z(m, "zaux.data", PREC_PERFDATA_FILE, 1);
	snprintf(path, sizeof(path), "%s/zaux.data", tmp);
	f = test_load(path, &len);
	CHECK(f && len >= sizeof(h));
	memcpy(&h, f, sizeof(h));
	pos = h.data_offset;
	end = h.data_offset + h.data_size;
	CHECK(end <= len);
	while (pos < end) {
		struct perf_event_header eh;

		memcpy(&eh, f + pos, sizeof(eh));
		CHECK(eh.size >= 8 && pos + eh.size <= end);
		rounds += eh.type == 68;
		comp += eh.type == 81;
		plain += eh.type < 64;
		if (eh.type == 71) {
			aux++;
			pos += get64(f + pos + 8);
		}
		pos += eh.size;
	}
	CHECK_EQ(pos, end);
	CHECK_EQ(rounds, NR_SAMPLES / 10);
	CHECK_EQ(aux, NR_SAMPLES / 40);
	CHECK_EQ(plain, 0);
	CHECK(comp >= NR_SAMPLES / 40);
	bits = 0x3ffcull | 1ull << 18 | 1ull << 21 | 1ull << 23 | 3ull << 25 | 1ull << 27 |
	       1ull << 29;
	bits |= have_tp ? 2 : 0;
	off = parse_features(f, len, &h, bits, 27, &sz);
	CHECK_EQ(sz, 20);
	CHECK_EQ(get32(f + off), 0);          /* version */
	CHECK_EQ(get32(f + off + 4), 1);      /* zstd */
	CHECK_EQ(get32(f + off + 8), 1);      /* level */
	CHECK(get32(f + off + 12) >= 1);      /* ratio */
	CHECK_EQ(get32(f + off + 16), 65536); /* mmap_len */
	off = parse_features(f, len, &h, bits, 18, &sz);
	CHECK_EQ(get64(f + off), (uint64_t)aux);
	for (int i = 0; i < aux; i++) {
		uint64_t at = get64(f + off + 8 + 16 * i);

		CHECK_EQ(get32(f + at), 71);
		CHECK_EQ(get64(f + at + 16), 0x1000ull * (uint64_t)i);
		CHECK_EQ(f[at + 48], (uint8_t)(i + 1));
	}
	free(f);
	printf("-z: perf script file and pipe, COMPRESSED feature, AUXTRACE index ok\n");
}

/* The software dummies go last, the others keep the manifest's order. */
/* An MMAP2 that came with another session's build-id flag (the kernel
 * leaves it set, over our maj/min/ino) loses it in the merged file of a
 * recording that asked for no build-ids, plain or zstd; where the
 * recording asked (attr.build_id), the flag is the kernel's answer and
 * stays. perf script shows maj:min ino for the one, a build-id for the
 * other. */
static void write_flagged(struct prec_manifest *m, const char *name, int zlevel)
{
	struct prec_perfdata *pd;
	char path[512];
	struct rb r;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0);
	CHECK_EQ(prec_perfdata__open_zstd(&pd, fd, m, PREC_PERFDATA_FILE, zlevel), 0);
	write_preamble(pd);
	rb_hdr(&r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID);
	rb_u32(&r, 4242);
	rb_u32(&r, 4242);
	rb_u64(&r, 0x500000);
	rb_u64(&r, 0x1000);
	rb_u64(&r, 0);
	rb_u32(&r, 0x103);      /* maj: read as a 3-byte build-id */
	rb_u32(&r, 7);          /* min */
	rb_u64(&r, 1234);       /* ino */
	rb_u64(&r, 0);          /* ino_generation */
	rb_u32(&r, 5);          /* prot */
	rb_u32(&r, 2);          /* flags */
	rb_str(&r, "/usr/lib/prec-unflag.so");
	rb_trailer(&r, 4242, 1, 0);
	write_rec(pd, &r);
	CHECK_EQ(prec_perfdata__close(pd, 1, 1), 0);
	close(fd);
}

static void set_build_id_attr(struct prec_manifest *m, int on)
{
	struct perf_event_attr a;

	memcpy(&a, m->events[0].attr, sizeof(a));
	a.build_id = (uint64_t)on;
	memcpy(m->events[0].attr, &a, sizeof(a));
}

static void test_unflag(struct prec_manifest *m)
{
	static const struct { const char *name; int zlevel, asked; const char *want; } c[] = {
		{ "unflag.data", 0, 0, "103:07 1234 0]" },
		{ "unflag-z.data", 1, 0, "103:07 1234 0]" },
		{ "flag.data", 0, 1, "@ 0 <070000>]" },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char cmd[1024];
		int rc;

		set_build_id_attr(m, c[i].asked);
		write_flagged(m, c[i].name, c[i].zlevel);
		snprintf(cmd, sizeof(cmd), "perf script --show-mmap-events -i %s/%s 2>&1 | "
			 "grep -F prec-unflag.so | tee %s/%s.out | grep -qF '%s'",
			 tmp, c[i].name, tmp, c[i].name, c[i].want);
		rc = system(cmd);
		if (rc)
			fprintf(stderr, "%s: %s", c[i].name, tmp_file("unflag.data.out"));
		CHECK_EQ(rc, 0);
	}
	set_build_id_attr(m, 0);
	printf("MMAP2 build-id flags: cleared where not asked for, kept where asked\n");
}

static void test_event_order(void)
{
	/* prec's tracking dummies (the side band's bits: mmap, or comm) go
	 * last; a dummy the user asked for keeps its place, as in perf's */
	static const struct { uint32_t type; uint64_t config, flags; } ev[] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 1ull << 8 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 0 },
		{ PERF_TYPE_TRACEPOINT, PERF_COUNT_SW_DUMMY, 1ull << 8 },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 0 },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 1ull << 9 },
	};
	static const uint32_t want[] = { 1, 2, 3, 4, 0, 5 };
	struct prec_manifest_event events[6];
	struct prec_manifest m = { .events = events, .nr_events = 6 };

	memset(events, 0, sizeof(events));
	for (int i = 0; i < 6; i++) {
		memcpy(events[i].attr, &ev[i].type, 4);
		memcpy(events[i].attr + 8, &ev[i].config, 8);
		memcpy(events[i].attr + offsetof(struct perf_event_attr, read_format) + 8,
		       &ev[i].flags, 8);
	}
	for (uint32_t i = 0; i < 6; i++)
		CHECK_EQ(prec_perfdata__event_at(&m, i), want[i]);
	m.nr_events = 1;
	CHECK_EQ(prec_perfdata__event_at(&m, 0), 0);
}

/* perfdata_maps.c's records on a recording perf would split: 5000 ids of
 * a cpu-clock on 64 CPUs (per CPU, no task) and its tracking dummy's 64 */
static void test_maps(void)
{
	enum { NR = 5000, NCPU = 64 };
	struct prec_manifest_event events[2];
	struct prec_manifest m = { .events = events, .nr_events = 2 };
	uint32_t type_sw = PERF_TYPE_SOFTWARE;
	uint64_t dummy = PERF_COUNT_SW_DUMMY, mmap_bit = 1ull << 8, got = 0, rec_nr[4];
	int nrec = 0;
	uint8_t *buf, *p;
	size_t len;

	memset(events, 0, sizeof(events));
	for (int e = 0; e < 2; e++) {
		uint32_t n = e ? NCPU : NR;

		memcpy(events[e].attr, &type_sw, 4);
		events[e].nr_ids = n;
		events[e].ids = calloc(n, sizeof(uint64_t));
		events[e].id_cpus = calloc(n, sizeof(int32_t));
		events[e].id_tids = calloc(n, sizeof(int32_t));
		CHECK(events[e].ids && events[e].id_cpus && events[e].id_tids);
		for (uint32_t i = 0; i < n; i++) {
			events[e].ids[i] = (e ? 100000 : 1) + i;
			events[e].id_cpus[i] = (int32_t)(i % NCPU);
			events[e].id_tids[i] = -1;
		}
	}
	/* events[0]: the tracking dummy (written last); events[1]: cpu-clock */
	memcpy(events[0].attr + 8, &dummy, 8);
	memcpy(events[0].attr + offsetof(struct perf_event_attr, read_format) + 8, &mmap_bit, 8);
	{
		uint64_t *t = events[0].ids; uint32_t tn = events[0].nr_ids;
		int32_t *tc = events[0].id_cpus, *tt = events[0].id_tids;

		events[0].ids = events[1].ids; events[0].nr_ids = events[1].nr_ids;
		events[0].id_cpus = events[1].id_cpus; events[0].id_tids = events[1].id_tids;
		events[1].ids = t; events[1].nr_ids = tn; events[1].id_cpus = tc; events[1].id_tids = tt;
	}
	CHECK_EQ(prec_perfdata__build_id_index(&m, (void **)&buf, &len), 0);
	/* perf's cut: 2047 entries a record, the cpu-clock's first */
	for (p = buf; p < buf + len && nrec < 4; nrec++) {
		uint32_t type = prec_ld32(p);
		uint16_t size = prec_ld16(p + 6);
		uint64_t nr = prec_ld64(p + 8);

		CHECK_EQ(type, 69);
		CHECK_EQ(size, 16 + nr * 32);
		for (uint64_t i = 0; i < nr; i++, got++) {
			const uint8_t *e = p + 16 + i * 32;
			bool clock = got < NR;

			CHECK_EQ(prec_ld64(e), clock ? 1 + got : 100000 + got - NR);
			/* idx: the ring, its CPU's place in the CPU map 0..NCPU-1 */
			CHECK_EQ(prec_ld64(e + 8), (clock ? got : got - NR) % NCPU);
			CHECK_EQ(prec_ld64(e + 16), (clock ? got : got - NR) % NCPU);
			CHECK_EQ(prec_ld64(e + 24), UINT64_MAX);
		}
		rec_nr[nrec] = nr;
		p += size;
	}
	CHECK(p == buf + len);
	CHECK_EQ(nrec, 3);
	CHECK(rec_nr[0] == 2047 && rec_nr[1] == 2047 && rec_nr[2] == NR + NCPU - 2 * 2047);
	free(buf);
	/* the clock's unit and scale, then the maps: no task (-1), 64 CPUs */
	CHECK_EQ(prec_perfdata__build_maps(&m, (void **)&buf, &len), 0);
	p = buf;
	CHECK(prec_ld32(p) == 78 && prec_ld16(p + 6) == 48 && prec_ld64(p + 8) == 0 &&
	      prec_ld64(p + 16) == 1 && !strcmp((char *)p + 24, "msec"));
	p += 48;
	CHECK(prec_ld32(p) == 78 && prec_ld16(p + 6) == 48 && prec_ld64(p + 8) == 1);
	{
		double sc;

		memcpy(&sc, p + 24, sizeof(sc));
		CHECK(sc == 1e-6);
	}
	p += 48;
	CHECK(prec_ld32(p) == 73 && prec_ld16(p + 6) == 40 && prec_ld64(p + 8) == 1 &&
	      prec_ld64(p + 16) == UINT64_MAX);
	p += 40;
	CHECK(prec_ld32(p) == 74 && prec_ld16(p + 6) == (12 + 2 * NCPU + 7) / 8 * 8);
	CHECK(prec_ld16(p + 8) == 0 && prec_ld16(p + 10) == NCPU);
	for (int c = 0; c < NCPU; c++)
		CHECK_EQ(prec_ld16(p + 12 + 2 * c), c);
	CHECK(p + prec_ld16(p + 6) == buf + len);
	free(buf);
	for (int e = 0; e < 2; e++) {
		free(events[e].ids);
		free(events[e].id_cpus);
		free(events[e].id_tids);
	}
}

/* A sparse CPU map (-C 1,3): CPU 1's ring is 0 and CPU 3's 1, as perf
 * numbers its mmaps; the ID_INDEX gives each id its CPU's ring, the one
 * prec_perfdata__write_auxtrace gives that CPU's AUXTRACE records. */
static void test_rings(void)
{
	static const int32_t cpus[4] = { 3, 1, 3, 1 };
	static const int32_t tids[4] = { -1, -1, -1, -1 };
	uint64_t ids[4] = { 7, 8, 9, 10 };
	struct prec_manifest_event ev = { .ids = ids, .id_cpus = (int32_t *)cpus,
					  .id_tids = (int32_t *)tids, .nr_ids = 4 };
	struct prec_manifest m = { .events = &ev, .nr_events = 1 };
	int32_t *ring;
	uint32_t nr;
	uint8_t *buf;
	size_t len;

	CHECK_EQ(prec_perfdata__rings(&m, &ring, &nr), 0);
	CHECK_EQ(nr, 2);
	CHECK(prec_perfdata__ring_of(ring, nr, 0) == PREC_PERFDATA_NO_RING &&
	      prec_perfdata__ring_of(ring, nr, 1) == 0 &&
	      prec_perfdata__ring_of(ring, nr, 2) == PREC_PERFDATA_NO_RING &&
	      prec_perfdata__ring_of(ring, nr, 3) == 1 &&
	      prec_perfdata__ring_of(ring, nr, -1) == PREC_PERFDATA_NO_RING);
	CHECK_EQ(prec_perfdata__build_id_index(&m, (void **)&buf, &len), 0);
	CHECK_EQ(len, 16 + 4 * 32);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(prec_ld64(buf + 16 + 32 * i), ids[i]);
		CHECK_EQ(prec_ld64(buf + 16 + 32 * i + 8), prec_perfdata__ring_of(ring, nr, cpus[i]));
	}
	free(buf);
	free(ring);
	/* no id on a CPU: no ring */
	ev.nr_ids = 0;
	CHECK_EQ(prec_perfdata__rings(&m, &ring, &nr), 0);
	CHECK(prec_perfdata__ring_of(ring, nr, 0) == PREC_PERFDATA_NO_RING &&
	      prec_perfdata__ring_of(ring, nr, -1) == PREC_PERFDATA_NO_RING);
	free(ring);
}

/* A manifest's CPU numbers are its input: ids on CPUs 1 and 2^31 - 2 (a
 * crafted recording) are rings 0 and 1, at the cost of two CPUs. The rings
 * were once a table by CPU number, 8 GiB here: prec merge filled it for a
 * minute, or failed "Cannot allocate memory" under a smaller limit, which
 * this child sets (256 MiB more than it maps). Not under a sanitizer,
 * whose shadow maps terabytes. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

static void test_rings_huge_cpu(void)
{
#ifndef UNDER_SANITIZER
	static const int32_t cpus[2] = { 2147483646, 1 };
	static const int32_t tids[2] = { -1, -1 };
	uint64_t ids[2] = { 7, 8 };
	struct prec_manifest_event ev = { .ids = ids, .id_cpus = (int32_t *)cpus,
					  .id_tids = (int32_t *)tids, .nr_ids = 2 };
	struct prec_manifest m = { .events = &ev, .nr_events = 1 };
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		unsigned long pages = 0;
		FILE *f = fopen("/proc/self/statm", "r");
		struct rlimit rl;
		uint8_t *buf;
		size_t len;
		int ok;

		if (!f || fscanf(f, "%lu", &pages) != 1)
			_exit(2);
		fclose(f);
		rl.rlim_cur = rl.rlim_max = pages * (rlim_t)sysconf(_SC_PAGESIZE) + (256ul << 20);
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			_exit(2);
		ok = prec_perfdata__build_id_index(&m, (void **)&buf, &len) == 0 &&
		     len == 16 + 2 * 32 && prec_ld64(buf + 16 + 8) == 1 &&
		     prec_ld64(buf + 16 + 32 + 8) == 0;
		_exit(ok ? 0 : 1);
	}
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(status, 0);
#endif
}

int main(void)
{
	struct prec_manifest *m;

	test_event_order();
	test_maps();
	test_rings();
	test_rings_huge_cpu();

	if (system("perf --version >/dev/null 2>&1") != 0) {
		printf("perf not installed: skip\n");
		return TEST_SKIP;
	}
	signal(SIGPIPE, SIG_IGN);
	tmp = test_tmpdir("perfdata");
	CHECK(tmp);
	m = make_manifest();
	test_file(m);
	test_dies(m);
	test_pmus(m);
	test_bpf(m);
	test_pipe(m);
	test_pipe_file(m);
	test_aux(m);
	test_epipe(m);
	test_zstd(m);
	test_unflag(m);
	free_manifest(m);
	if (!getenv("KEEP")) test_rmdir(tmp);
	free(tmp);
	printf("ok\n");
	return 0;
}
