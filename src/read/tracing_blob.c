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

static int same_system(const struct prec_manifest_tracepoint *a,
		       const struct prec_manifest_tracepoint *c)
{
	return a->system && c->system && !strcmp(a->system, c->system);
}

/* Index of the first tracepoint of tp's system, to visit each system once
 * in order of first appearance. */
static uint32_t first_of_system(const struct prec_manifest *m, uint32_t i)
{
	for (uint32_t j = 0; j < i; j++)
		if (same_system(&m->tracepoints[j], &m->tracepoints[i]))
			return j;
	return i;
}

static void put_systems(struct prec_bytebuf *b, const struct prec_manifest *m)
{
	uint32_t nr_ftrace = 0, nr_sys = 0;

	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		if (is_ftrace(&m->tracepoints[i]))
			nr_ftrace++;
		else if (m->tracepoints[i].system && first_of_system(m, i) == i)
			nr_sys++;
	}
	prec_bytebuf__put_u32(b, nr_ftrace);
	for (uint32_t i = 0; i < m->nr_tracepoints; i++)
		if (is_ftrace(&m->tracepoints[i]))
			put_file(b, m->tracepoints[i].format);
	prec_bytebuf__put_u32(b, nr_sys);
	for (uint32_t i = 0; i < m->nr_tracepoints; i++) {
		const struct prec_manifest_tracepoint *tp = &m->tracepoints[i];
		uint32_t nr = 0;

		if (is_ftrace(tp) || !tp->system || first_of_system(m, i) != i)
			continue;
		for (uint32_t j = i; j < m->nr_tracepoints; j++)
			nr += same_system(&m->tracepoints[j], tp);
		prec_bytebuf__put(b, tp->system, strlen(tp->system) + 1);
		prec_bytebuf__put_u32(b, nr);
		for (uint32_t j = i; j < m->nr_tracepoints; j++)
			if (same_system(&m->tracepoints[j], tp))
				put_file(b, m->tracepoints[j].format);
	}
}

int prec_tracing_blob(const struct prec_manifest *m, void **buf, size_t *len)
{
	static const uint8_t magic[10] = { 0x17, 0x08, 0x44, 't', 'r', 'a',
					   'c', 'i', 'n', 'g' };
	struct prec_bytebuf b = { 0 };
	long page_size = sysconf(_SC_PAGESIZE);
	uint8_t flags[2] = { 0, (uint8_t)sizeof(long) }; /* little endian */
	size_t n;

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
	put_systems(&b, m);
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
