// SPDX-License-Identifier: MIT
// The tracing-data blob perf needs to decode tracepoint samples
// (perf.data-file-format.txt, HEADER_TRACING_DATA): header_page,
// header_event, the format text of every recorded tracepoint grouped by
// system, printk formats and saved cmdlines.
#include "read/internal.h"
#include "read/bytebuf.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Used only when a manifest lacks the tracefs header files: the x86_64 /
 * arm64 layout (every kernel since 2.6.3x), and perf itself only takes the
 * long size from header_page and skips header_event. */
static const char header_event_default[] =
	"# compressed entry header\n"
	"\ttype_len    :    5 bits\n"
	"\ttime_delta  :   27 bits\n"
	"\tarray       :   32 bits\n"
	"\n"
	"\tpadding     : type == 29\n"
	"\ttime_extend : type == 30\n"
	"\ttime_stamp : type == 31\n"
	"\tdata max type_len  == 28\n";

/* u64 size + text, the framing of header files and format files. */
static void put_file(struct prec_bytebuf *b, const char *text)
{
	size_t n = text ? strlen(text) : 0;

	prec_bytebuf__put_u64(b, n);
	prec_bytebuf__put(b, text, n);
}

static void put_header_files(struct prec_bytebuf *b, const struct prec_manifest *m,
			     long page_size)
{
	char page[512];

	prec_bytebuf__put(b, "header_page", 12);
	if (m->header_page && *m->header_page) {
		put_file(b, m->header_page);
	} else {
		snprintf(page, sizeof(page),
			 "\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n"
			 "\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n"
			 "\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n"
			 "\tfield: char data;\toffset:16;\tsize:%ld;\tsigned:0;\n",
			 page_size - 16);
		put_file(b, page);
	}
	prec_bytebuf__put(b, "header_event", 13);
	put_file(b, m->header_event && *m->header_event ? m->header_event :
							  header_event_default);
}

static int is_ftrace(const struct prec_manifest_tracepoint *tp)
{
	return tp->system && !strcmp(tp->system, "ftrace");
}

/* A tracepoint of a system's (not ftrace's), by system then by position. */
struct tp_ref {
	const char *system;
	uint32_t i;
};

static int cmp_ref(const void *a, const void *b)
{
	const struct tp_ref *x = a, *y = b;
	int c = strcmp(x->system, y->system);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static int cmp_first(const void *a, const void *b, void *refs)
{
	const struct tp_ref *r = refs;
	uint32_t x = r[*(const uint32_t *)a].i, y = r[*(const uint32_t *)b].i;

	return (x > y) - (x < y);
}

/* The ftrace formats, then each system once, in order of its first
 * tracepoint, with its formats in order: the tracepoints sorted by system
 * (a manifest may list a million of them; a scan of the earlier ones for
 * each took hours). */
static int put_systems(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	struct tp_ref *refs = malloc(((size_t)m->nr_tracepoints + 1) * sizeof(*refs));
	uint32_t *first = malloc(((size_t)m->nr_tracepoints + 1) * sizeof(*first));
	uint32_t nr_ftrace = 0, nr = 0, nr_sys = 0;

	if (!refs || !first) {
		free(refs);
		free(first);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		if (is_ftrace(&m->tracepoints[i]))
			nr_ftrace++;
		else if (m->tracepoints[i].system)
			refs[nr++] = (struct tp_ref){ m->tracepoints[i].system, i };
	}
	qsort(refs, nr, sizeof(*refs), cmp_ref);
	for (uint32_t k = 0; k < nr; k++)
		if (!k || strcmp(refs[k].system, refs[k - 1].system))
			first[nr_sys++] = k;
	qsort_r(first, nr_sys, sizeof(*first), cmp_first, refs);
	prec_bytebuf__put_u32(b, nr_ftrace);
	for (uint32_t i = 0; i < m->nr_tracepoints; i++)
		if (is_ftrace(&m->tracepoints[i]))
			put_file(b, m->tracepoints[i].format);
	prec_bytebuf__put_u32(b, nr_sys);
	for (uint32_t g = 0; g < nr_sys; g++) {
		uint32_t k = first[g], n = 0;
		const char *sys = refs[k].system;

		while (k + n < nr && !strcmp(refs[k + n].system, sys))
			n++;
		prec_bytebuf__put(b, sys, strlen(sys) + 1);
		prec_bytebuf__put_u32(b, n);
		for (uint32_t j = k; j < k + n; j++)
			put_file(b, m->tracepoints[refs[j].i].format);
	}
	free(refs);
	free(first);
	return 0;
}

int prec_tracing_blob(const struct prec_manifest *m, void **buf, size_t *len)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					   'c', 'i', 'n', 'g' };
	struct prec_bytebuf b = { 0 };
	long page_size = sysconf(_SC_PAGESIZE);
	uint8_t flags[2] = { 0, (uint8_t)sizeof(long) }; /* little endian */
	size_t n;
	int err;

	*buf = NULL;
	*len = 0;
	if (!m->nr_tracepoints)
		return 0;
	if (page_size <= 16)
		page_size = 4096;
	prec_bytebuf__put(&b, magic, sizeof(magic));
	prec_bytebuf__put(&b, "0.6", 4);
	prec_bytebuf__put(&b, flags, sizeof(flags));
	prec_bytebuf__put_u32(&b, (uint32_t)page_size);
	put_header_files(&b, m, page_size);
	err = put_systems(&b, m);
	if (err) {
		free(b.p);
		return err;
	}
	prec_bytebuf__put_u32(&b, 0); /* kallsyms: perf resolves symbols itself */
	n = m->printk_formats ? strlen(m->printk_formats) : 0;
	prec_bytebuf__put_u32(&b, (uint32_t)n);
	prec_bytebuf__put(&b, m->printk_formats, n);
	put_file(&b, m->saved_cmdlines);
	if (b.err) {
		free(b.p);
		return b.err;
	}
	*buf = b.p;
	*len = b.len;
	return 0;
}
