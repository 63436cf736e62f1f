// SPDX-License-Identifier: MIT
// BPF programs loaded before the recording started, announced as the kernel
// announces a new one: a PERF_RECORD_KSYMBOL per JITed function and a
// PERF_RECORD_BPF_EVENT (PROG_LOAD) per program, read with the bpf() syscall,
// so that samples in them resolve as they do in perf record's files.

#include "record/bpf_synth.h"

#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/log.h"

#define KSYM_TYPE_BPF 1     /* PERF_RECORD_KSYMBOL_TYPE_BPF */
#define BPF_EVENT_LOAD 1    /* PERF_BPF_EVENT_PROG_LOAD */
#define MAX_FUNCS 256       /* a program with more gets its first 256 */
#define TAG_SIZE 8

struct ksym_body {
	uint64_t addr;
	uint32_t len;
	uint16_t ksym_type, flags;
	char name[64];      /* "bpf_prog_" 16 hex "_" name: 42 at most */
};

struct bpf_event_body {
	uint16_t type, flags;
	uint32_t id;
	uint8_t tag[TAG_SIZE];
};
_Static_assert(sizeof(struct bpf_event_body) == 16, "PERF_RECORD_BPF_EVENT body");

/* One program's JITed functions: addresses, lengths and tags. */
struct funcs {
	uint64_t addr[MAX_FUNCS];
	uint32_t len[MAX_FUNCS];
	uint8_t tag[MAX_FUNCS][TAG_SIZE];
	uint32_t nr;
};

/* The call's result (an fd for GET_FD_BY_ID, else 0) or -errno. */
static int sys_bpf(int cmd, union bpf_attr *a)
{
	long r = syscall(SYS_bpf, cmd, a, sizeof(*a));

	return r < 0 ? -errno : (int)r;
}

static int prog_info(int fd, struct bpf_prog_info *info)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.info.bpf_fd = (uint32_t)fd;
	a.info.info_len = sizeof(*info);
	a.info.info = (uint64_t)(uintptr_t)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &a);
}

/* The program's info, with its functions in f (none if not JITed). */
static int read_prog(int fd, struct bpf_prog_info *info, struct funcs *f)
{
	uint32_t n;
	int err;

	memset(info, 0, sizeof(*info));
	err = prog_info(fd, info);
	if (err)
		return err;
	n = info->nr_jited_ksyms < MAX_FUNCS ? info->nr_jited_ksyms : MAX_FUNCS;
	if (n > info->nr_jited_func_lens)
		n = info->nr_jited_func_lens;
	memset(info, 0, sizeof(*info));
	memset(f->tag, 0, sizeof(f->tag));
	info->nr_jited_ksyms = n;
	info->jited_ksyms = (uint64_t)(uintptr_t)f->addr;
	info->nr_jited_func_lens = n;
	info->jited_func_lens = (uint64_t)(uintptr_t)f->len;
	info->nr_prog_tags = n;
	info->prog_tags = (uint64_t)(uintptr_t)f->tag;
	err = prog_info(fd, info);
	f->nr = err ? 0 : n;
	return err;
}

/* The kernel's name for function i when the program has no BTF (perf names
 * them the same): bpf_prog_<tag>_<name>, or _F for a program's subprograms. */
static void func_name(char *buf, size_t size, const struct bpf_prog_info *info,
		      const struct funcs *f, uint32_t i)
{
	const uint8_t *tag = f->tag[i];
	static const uint8_t zero[TAG_SIZE];
	size_t l;

	if (!memcmp(tag, zero, TAG_SIZE))
		tag = info->tag;
	l = (size_t)snprintf(buf, size, "bpf_prog_");
	for (int k = 0; k < TAG_SIZE && l < size; k++)
		l += (size_t)snprintf(buf + l, size - l, "%02x", tag[k]);
	if (f->nr == 1 && info->name[0])
		snprintf(buf + l, size - l, "_%.*s", (int)sizeof(info->name), info->name);
	else if (f->nr > 1)
		snprintf(buf + l, size - l, "_F");
}

static int announce(const struct bpf_prog_info *info, const struct funcs *f,
		    prec_rec_sink sink, void *ctx)
{
	struct bpf_event_body ev = { .type = BPF_EVENT_LOAD, .id = info->id };
	int err = 0;

	for (uint32_t i = 0; i < f->nr && !err; i++) {
		struct ksym_body k = { .addr = f->addr[i], .len = f->len[i],
				       .ksym_type = KSYM_TYPE_BPF };

		func_name(k.name, sizeof(k.name), info, f, i);
		/* the name NUL-terminated and padded to 8 */
		err = sink(ctx, PERF_RECORD_KSYMBOL, &k,
			   offsetof(struct ksym_body, name) +
			   ((strlen(k.name) + 1 + 7) & ~(size_t)7));
	}
	memcpy(ev.tag, info->tag, TAG_SIZE);
	return err ? err : sink(ctx, PERF_RECORD_BPF_EVENT, &ev, sizeof(ev));
}

int prec_bpf_synth__programs(prec_rec_sink sink, void *ctx)
{
	struct funcs *f = malloc(sizeof(*f));
	struct bpf_prog_info info;
	union bpf_attr a;
	uint32_t id = 0;
	int n = 0, err = 0;

	if (!f)
		return -ENOMEM;
	for (;;) {
		int fd;

		memset(&a, 0, sizeof(a));
		a.start_id = id;
		if (sys_bpf(BPF_PROG_GET_NEXT_ID, &a) < 0)
			break; /* ENOENT: done; EPERM: not ours to see */
		id = a.next_id;
		memset(&a, 0, sizeof(a));
		a.prog_id = id;
		fd = sys_bpf(BPF_PROG_GET_FD_BY_ID, &a);
		if (fd < 0)
			continue; /* unloaded meanwhile */
		if (read_prog(fd, &info, f) == 0 && f->nr) {
			err = announce(&info, f, sink, ctx);
			n++;
		}
		close(fd);
		if (err)
			break;
	}
	free(f);
	pr_debug("sideband: %d BPF programs", n);
	return err ? err : n;
}
