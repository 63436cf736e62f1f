// SPDX-License-Identifier: MIT
// BPF programs loaded before the recording started, announced as the kernel
// announces a new one: a PERF_RECORD_KSYMBOL per JITed function and a
// PERF_RECORD_BPF_EVENT (PROG_LOAD) per program, so that samples in them
// resolve as they do in perf record's files; and, as perf record keeps
// them for its BPF_PROG_INFO and BPF_BTF features, each program's info and
// arrays (the JITed code perf annotate reads among them) and the BTF
// objects they name, into the manifest: those loaded at the start, and
// those loaded during the recording as it looks for them (the kernel
// announces these in the rings).

#include "record/bpf_synth.h"

#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/bpf_info.h"
#include "store/bpf_prog.h"
#include "store/store.h"
#include "util/btf.h"
#include "util/bytes.h"
#include "util/log.h"

#define KSYM_TYPE_BPF 1     /* PERF_RECORD_KSYMBOL_TYPE_BPF */
#define BPF_EVENT_LOAD 1    /* PERF_BPF_EVENT_PROG_LOAD */
#define TAG_SIZE 8
#define NAME_LEN 256        /* perf's KSYM_NAME_LEN: a longer name is cut */

struct ksym_body {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	char name[NAME_LEN];
};

struct bpf_event_body {
	uint16_t type, flags;
	uint32_t id;
	uint8_t tag[TAG_SIZE];
};
_Static_assert(sizeof(struct bpf_event_body) == 16, "PERF_RECORD_BPF_EVENT body");

/* The arrays a program's functions are announced from: their addresses,
 * lengths, tags, and BTF func info (whose names). */
#define NAMING_ARRAYS                                                          \
	((1u << PREC_BPF_JITED_KSYMS) | (1u << PREC_BPF_JITED_FUNC_LENS) |     \
	 (1u << PREC_BPF_FUNC_INFO) | (1u << PREC_BPF_PROG_TAGS))

/* A program's record (store/bpf_prog.h) as its functions are read from it,
 * and its BTF when its functions are named by it. */
struct prog {
	const uint8_t *info, *data;
	uint32_t nr;              /* JITed functions */
	const uint8_t *btf;       /* NULL: named without BTF */
	uint32_t btf_size;
};

/* What the walk left out of the manifest, for one warning at its end, and
 * the bytes it may fill the manifest's BPF sections up to. */
struct left_out {
	uint32_t progs, btfs, unread;
	uint64_t cap;
	bool full;            /* one was left out for want of room */
};

/* Whether m has room for size more bytes of BPF info (else lo is full). */
static bool room(struct prec_manifest *m, struct left_out *lo, uint64_t size)
{
	lo->full |= m->bpf_bytes + size > lo->cap;
	return m->bpf_bytes + size <= lo->cap;
}

static uint32_t info32(const struct prog *p, size_t off)
{
	return prec_ld32(p->info + off);
}

/* Element k of array i of p (inside data: bpf_info.c built the record so). */
static const uint8_t *elem(const struct prog *p, int i, uint32_t k)
{
	return p->data + prec_ld64(p->info + prec_bpf_arrays[i].addr_off) +
	       (size_t)k * prec_bpf_prog__elem_size(p->info, i);
}

/* Whether p's functions are named by its BTF, as perf's (and the kernel's)
 * are: a BTF object and a function info of at least its type id per
 * function. */
static bool named_by_btf(const struct prog *p)
{
	return info32(p, offsetof(struct bpf_prog_info, btf_id)) &&
	       info32(p, offsetof(struct bpf_prog_info, nr_func_info)) == p->nr &&
	       info32(p, offsetof(struct bpf_prog_info, func_info_rec_size)) >=
		       sizeof(struct bpf_func_info);
}

/* The name perf gives function i: bpf_prog_<tag>_<name>, the name its BTF
 * gives it, else the program's name when it is one function (none if it
 * has none) or F for each of several. */
static void func_name(char *buf, size_t size, const struct prog *p, uint32_t i)
{
	const uint8_t *tag = elem(p, PREC_BPF_PROG_TAGS, i);
	char prog_name[BPF_OBJ_NAME_LEN + 1] = { 0 };
	const char *short_name = NULL;
	size_t l;

	l = (size_t)snprintf(buf, size, "bpf_prog_");
	for (int k = 0; k < TAG_SIZE && l < size; k++)
		l += (size_t)snprintf(buf + l, size - l, "%02x", tag[k]);
	if (p->btf)
		short_name = prec_btf__type_name(p->btf, p->btf_size,
						 prec_ld32(elem(p, PREC_BPF_FUNC_INFO, i) +
							   offsetof(struct bpf_func_info, type_id)));
	if (!short_name && p->nr == 1) {
		memcpy(prog_name, p->info + offsetof(struct bpf_prog_info, name), BPF_OBJ_NAME_LEN);
		short_name = prog_name[0] ? prog_name : NULL;
	} else if (!short_name) {
		short_name = "F";
	}
	if (short_name && l < size)
		snprintf(buf + l, size - l, "_%s", short_name);
}

static int announce(const struct prog *p, prec_rec_sink sink, void *ctx, bool events)
{
	struct bpf_event_body ev = { .type = BPF_EVENT_LOAD,
				     .id = info32(p, offsetof(struct bpf_prog_info, id)) };
	struct ksym_body k;
	int err = 0;

	for (uint32_t i = 0; i < p->nr && !err; i++) {
		memset(&k, 0, sizeof(k));
		k.addr = prec_ld64(elem(p, PREC_BPF_JITED_KSYMS, i));
		k.len = prec_ld32(elem(p, PREC_BPF_JITED_FUNC_LENS, i));
		k.ksym_type = KSYM_TYPE_BPF;
		func_name(k.name, sizeof(k.name), p, i);
		/* the name NUL-terminated and padded to 8 */
		err = sink(ctx, PERF_RECORD_KSYMBOL, &k,
			   offsetof(struct ksym_body, name) +
			   ((strlen(k.name) + 1 + 7) & ~(size_t)7));
	}
	if (err || !events)
		return err;
	memcpy(ev.tag, p->info + offsetof(struct bpf_prog_info, tag), TAG_SIZE);
	return sink(ctx, PERF_RECORD_BPF_EVENT, &ev, sizeof(ev));
}

/* p's BTF for its names: m's copy, else read and (room permitting) added
 * to m; *own is what the caller frees. A BTF that cannot be read leaves
 * the names without it. */
static void find_btf(struct prog *p, struct prec_manifest *m, uint8_t **own,
		     struct left_out *lo)
{
	uint32_t id = info32(p, offsetof(struct bpf_prog_info, btf_id));
	const struct prec_manifest_btf *have = m ? prec_manifest__find_btf(m, id) : NULL;
	int err;

	*own = NULL;
	if (have) {
		p->btf = have->data;
		p->btf_size = have->size;
		return;
	}
	err = prec_bpf_info__read_btf(id, PREC_MANIFEST_BTF_MAX, own, &p->btf_size);
	if (err) {
		pr_debug("sideband: BTF %u: %s", id, strerror(-err));
		lo->btfs++;
		return;
	}
	p->btf = *own;
	if (m && (!room(m, lo, p->btf_size) ||
		  prec_manifest__add_btf(m, id, *own, p->btf_size)))
		lo->btfs++;
}

/* Program fd: its records to sink, its info (with events: as perf's
 * --no-bpf-event, without it neither its BPF_EVENT nor its info) and BTF
 * to m. Returns 1 when it was announced, 0 when it was not (not JITed,
 * unreadable: perf skips those too), or the sink's -errno. */
static int one_prog(int fd, prec_rec_sink sink, void *ctx, struct prec_manifest *m,
		    bool events, struct left_out *lo)
{
	struct prog p = { 0 };
	uint8_t *rec, *btf = NULL;
	size_t len;
	int err = prec_bpf_info__read_prog(fd, PREC_BPF_ARRAYS_RECORDED,
					   PREC_MANIFEST_BPF_DATA_MAX, &rec, &len);
	bool whole = !err;

	/* Past the bound: left out of the manifest, but its functions still
	 * announced, from the few arrays that name them. */
	if (err == -E2BIG) {
		lo->progs++;
		err = prec_bpf_info__read_prog(fd, NAMING_ARRAYS, PREC_MANIFEST_BPF_DATA_MAX,
					       &rec, &len);
	}
	if (err) {
		pr_debug("sideband: a BPF program's info: %s", strerror(-err));
		lo->unread++;
		return 0;
	}
	p.info = rec + PREC_BPF_PROG_HDR;
	p.data = p.info + prec_ld32(rec);
	p.nr = info32(&p, offsetof(struct bpf_prog_info, nr_jited_ksyms));
	/* perf's conditions: JITed, a length and a tag per function */
	if (!p.nr || p.nr != info32(&p, offsetof(struct bpf_prog_info, nr_jited_func_lens)) ||
	    p.nr != info32(&p, offsetof(struct bpf_prog_info, nr_prog_tags))) {
		free(rec);
		return 0;
	}
	if (named_by_btf(&p))
		find_btf(&p, m, &btf, lo);
	err = announce(&p, sink, ctx, events);
	if (!err && whole && m && events && (!room(m, lo, len) ||
			  prec_manifest__add_bpf_prog(m, rec, len)))
		lo->progs++;
	free(btf);
	free(rec);
	return err ? err : 1;
}

/* A prec_rec_sink that drops the records: the late programs' are in the
 * rings already. */
static int no_sink(void *ctx, uint32_t type, const void *body, size_t len)
{
	(void)ctx, (void)type, (void)body, (void)len;
	return 0;
}

/* The programs loaded since m's walk last looked (ids only grow) and
 * loaded still, into m up to its late cap; lo counts the ones left out.
 * Returns the number added, or -EPERM: not ours to see. */
static int add_loaded_since(struct prec_manifest *m, struct left_out *lo)
{
	uint32_t id = m->bpf_seen_id;
	int n = 0, err;

	if (!m->bpf_late_cap)
		m->bpf_late_cap = m->bpf_bytes + PREC_BPF_LATE_BYTES;
	lo->cap = m->bpf_late_cap;
	while ((err = prec_bpf_info__next_prog(&id)) == 0) {
		uint32_t had = m->nr_bpf_progs;
		int fd = prec_bpf_info__prog_fd(id);

		if (fd < 0)
			continue; /* unloaded meanwhile */
		one_prog(fd, no_sink, NULL, m, true, lo);
		close(fd);
		n += m->nr_bpf_progs > had;
	}
	m->bpf_seen_id = id;
	return n ? n : err == -EPERM ? err : 0;
}

int prec_bpf_synth__watch(struct prec_manifest *m, struct prec_bpf_left *left)
{
	struct left_out lo = { 0 };
	int n = add_loaded_since(m, &lo);

	if (n > 0)
		pr_debug("watch: %d BPF programs loaded", n);
	left->progs += lo.progs;
	left->btfs += lo.btfs;
	return lo.full ? -ENOSPC : n;
}

int prec_bpf_synth__loaded_since(struct prec_manifest *m, const struct prec_bpf_left *left)
{
	struct left_out lo = { 0 };
	int n = add_loaded_since(m, &lo);

	lo.progs += left ? left->progs : 0;
	lo.btfs += left ? left->btfs : 0;
	pr_debug("close: %d BPF programs loaded during the recording", n > 0 ? n : 0);
	if (lo.progs || lo.btfs)
		pr_warn("%u BPF programs loaded during the recording (and %u BTF objects) left out of the manifest over its %u KiB for them: perf annotate and perf report --header cannot show them",
			lo.progs, lo.btfs, PREC_BPF_LATE_BYTES >> 10);
	return n;
}

int prec_bpf_synth__programs(prec_rec_sink sink, void *ctx, struct prec_manifest *m,
			     bool events)
{
	struct left_out lo = { .cap = UINT64_MAX };
	uint32_t id = 0;
	int n = 0, err = 0;

	/* -ENOENT: done; -EPERM: not ours to see */
	while (!err && prec_bpf_info__next_prog(&id) == 0) {
		int fd = prec_bpf_info__prog_fd(id);

		if (fd < 0)
			continue; /* unloaded meanwhile */
		err = one_prog(fd, sink, ctx, m, events, &lo);
		close(fd);
		n += err > 0;
		err = err < 0 ? err : 0;
	}
	if (m) {
		m->bpf_seen_id = id;
		m->bpf_late_cap = m->bpf_bytes + PREC_BPF_LATE_BYTES;
	}
	pr_debug("sideband: %d BPF programs", n);
	if (!err && (lo.progs || lo.btfs))
		pr_warn("sideband: %u BPF programs' info and %u BTF objects left out of the manifest over its bounds (%u of each, %u MiB in all, %u MiB of arrays a program, %u MiB a BTF object): perf annotate and perf report --header cannot show them",
			lo.progs, lo.btfs, PREC_MANIFEST_BPF_MAX, PREC_MANIFEST_BPF_BYTES_MAX >> 20,
			PREC_MANIFEST_BPF_DATA_MAX >> 20, PREC_MANIFEST_BTF_MAX >> 20);
	if (lo.unread)
		pr_debug("sideband: %u BPF programs unread", lo.unread);
	return err ? err : n;
}
