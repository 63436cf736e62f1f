// SPDX-License-Identifier: MIT
// perf record's --kcore: the recording's kcore_dir (kallsyms, modules and
// the code segments of /proc/kcore as an ELF of their own), as perf 6.1's
// record writes it, so that perf report/script read kernel code from it.
//
// perf report and perf script read the kernel's code from
// perf.data/kcore_dir/kcore when the perf.data is perf's directory layout
// (perf.data/data plus kcore_dir/, found through kcore_dir/kallsyms), and
// perf then checks the copy against the recording (kallsyms' _text at the
// kernel map's address, the modules at theirs). So this writes what perf 6.1
// writes: kallsyms and modules copied whole, and kcore an ELF of the code
// segments of /proc/kcore read with libelf (the kernel's _stext to _etext,
// the modules' lowest address to one page past their last symbol, each cut
// to the kcore segment it starts in), packed from the first page after the
// headers, all 0400 in a 0700 directory, by descriptor from the recording's.
// It is copied after the events are open and before they run, as perf's, in
// the recording directory (the manifest's KCORE section says it is there);
// /proc/kallsyms is read again after the copy and a difference (a module
// came or went) fails the recording, as perf's check does. The merge, not
// the recorder, makes the layout (read/kcore_dir.c, merge_output.c): a merge
// into a named file builds FILE.prec-XXXXXX.d with the merged file as data
// and a copy of kcore_dir, and renames it into place whole; the data file
// has no DIR_FORMAT feature, as perf's has none without --threads. A stream
// (-o -, a merge to a pipe) has no directory: prec record --kcore -o - is
// refused (perf fails on it too, "Failed to copy kcore"), and a merge to
// stdout notes that perf report --kallsyms DIR/kcore_dir/kallsyms reads the
// kcore beside that file. The guest suite compares prec's and perf's copies
// in one boot (tests/vm/suite.sh, c_kcore).
#include "record/kcore.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/log.h"

#define PROC_KCORE "/proc/kcore"
#define PROC_KALLSYMS "/proc/kallsyms"
#define PROC_MODULES "/proc/modules"
/* /proc/kallsyms of a kernel with every module loaded stays far below. */
#define TEXT_MAX (256u << 20)
/* The kernel's, the modules', and one per entry trampoline. */
#define SEGS_MAX 64
#define COPY_CHUNK (1u << 20)

/* x86's PTI entry trampoline (kernels 4.15 to 4.19): code outside the
 * kernel's text that perf copies too, one page. */
#define ENTRY_TRAMPOLINE "__entry_SYSCALL_64_trampoline"

struct seg {
	uint64_t addr, len;
	uint64_t off;   /* in /proc/kcore */
	uint64_t rel;   /* in the copy, from its first data page */
	int remaps;     /* index of the segment whose bytes it shares, or -1 */
};

/* What kallsyms and modules say of the code's place, then the segments. */
struct plan {
	uint64_t page;
	uint64_t stext, etext, first_sym, last_sym;
	uint64_t first_mod, first_mod_sym, last_mod_sym;
	uint64_t tramp[SEGS_MAX];
	int nr_tramp;
	struct seg seg[SEGS_MAX];
	int nr;
};

static uint64_t round_down(uint64_t v, uint64_t a) { return v & ~(a - 1); }
static uint64_t round_up(uint64_t v, uint64_t a) { return round_down(v + a - 1, a); }

int prec_kcore__check(void)
{
	int fd = open(PROC_KCORE, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	fd = -errno;
	if (fd == -ENOENT)
		pr_err("option --kcore: %s: not in this kernel (CONFIG_PROC_KCORE)", PROC_KCORE);
	else if (fd == -EACCES || fd == -EPERM)
		pr_err("option --kcore: %s: %s (it needs root, CAP_SYS_RAWIO, as perf's --kcore)",
		       PROC_KCORE, strerror(-fd));
	else
		pr_err("option --kcore: %s: %s", PROC_KCORE, strerror(-fd));
	return fd;
}

/* One kallsyms line: "ADDR TYPE NAME[\t[MODULE]]". Functions only (perf's
 * T/t/W/w); a name with '[' is a module's (or a BPF program's). */
static int plan_symbol(struct plan *p, uint64_t a, char type, const char *name, size_t len)
{
	type = (char)toupper((unsigned char)type);
	if (type != 'T' && type != 'W')
		return 0;
	if (memchr(name, '[', len)) {
		if (!p->first_mod_sym || a < p->first_mod_sym)
			p->first_mod_sym = a;
		if (a > p->last_mod_sym)
			p->last_mod_sym = a;
		return 0;
	}
	if (!p->first_sym || a < p->first_sym)
		p->first_sym = a;
	if (!p->last_sym || a > p->last_sym)
		p->last_sym = a;
	if (len == 6 && !memcmp(name, "_stext", 6))
		p->stext = a;
	else if (len == 6 && !memcmp(name, "_etext", 6))
		p->etext = a;
	else if (len == sizeof(ENTRY_TRAMPOLINE) - 1 && !memcmp(name, ENTRY_TRAMPOLINE, len)) {
		if (p->nr_tramp == SEGS_MAX)
			return -E2BIG;
		p->tramp[p->nr_tramp++] = a;
	}
	return 0;
}

static int parse_kallsyms(struct plan *p, const char *t)
{
	while (*t) {
		const char *eol = strchr(t, '\n'), *name;
		char *end;
		uint64_t a = strtoull(t, &end, 16);
		int err;

		if (!eol)
			eol = t + strlen(t);
		name = end + 3;
		if (end != t && end[0] == ' ' && end[1] && end[2] == ' ' && name <= eol) {
			err = plan_symbol(p, a, end[1], name, (size_t)(eol - name));
			if (err)
				return err;
		}
		t = *eol ? eol + 1 : eol;
	}
	return 0;
}

/* /proc/modules: "NAME SIZE REFS DEPS STATE ADDR[ TAINT]"; the lowest ADDR. */
static void parse_modules(struct plan *p, const char *t)
{
	while (*t) {
		const char *eol = strchr(t, '\n');
		const char *f = t;
		uint64_t a;

		if (!eol)
			eol = t + strlen(t);
		for (int i = 0; i < 5 && f < eol; i++) {
			while (f < eol && *f != ' ')
				f++;
			while (f < eol && *f == ' ')
				f++;
		}
		if (f + 2 < eol && f[0] == '0' && f[1] == 'x') {
			a = strtoull(f + 2, NULL, 16);
			if (a && (!p->first_mod || a < p->first_mod))
				p->first_mod = a;
		}
		t = *eol ? eol + 1 : eol;
	}
}

/* The code's extent from the symbols, rounded to pages as perf rounds
 * them: the kernel's end one page past its last function when _etext is
 * missing, the modules' one page past their last symbol. */
static int plan_extent(struct plan *p)
{
	uint64_t pg = p->page;

	p->stext = round_down(p->stext ? p->stext : p->first_sym, pg);
	if (p->etext)
		p->etext = round_up(p->etext, pg);
	else if (p->last_sym)
		p->etext = round_up(p->last_sym, pg) + pg;
	if (p->first_mod_sym && (!p->first_mod || p->first_mod_sym < p->first_mod))
		p->first_mod = p->first_mod_sym;
	p->first_mod = round_down(p->first_mod, pg);
	if (p->last_mod_sym)
		p->last_mod_sym = round_up(p->last_mod_sym, pg) + pg;
	if (!p->stext || !p->etext)
		return -ENOENT;
	if (p->first_mod && !p->last_mod_sym)
		return -ENOENT;
	return 0;
}

/* [s, e) if s lies in kcore's segment [start, end) at offset off, cut at
 * its end. */
static int add_seg(struct plan *p, uint64_t start, uint64_t end, uint64_t off,
		   uint64_t s, uint64_t e)
{
	if (s < start || s >= end)
		return 0;
	if (p->nr == SEGS_MAX)
		return -E2BIG;
	p->seg[p->nr++] = (struct seg){
		.addr = s, .len = (e < end ? e : end) - s, .off = s - start + off, .remaps = -1,
	};
	return 0;
}

/* Each executable PT_LOAD of /proc/kcore, in its order, gives the kernel's
 * segment, the modules' and the trampolines' that start in it. */
static int plan_segments(struct plan *p, Elf *elf)
{
	size_t n;
	int err = 0;

	if (elf_getphdrnum(elf, &n))
		return -EBADMSG;
	for (size_t i = 0; i < n && !err; i++) {
		GElf_Phdr ph;
		uint64_t len, end;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -EBADMSG;
		len = ph.p_memsz < ph.p_filesz ? ph.p_memsz : ph.p_filesz;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X) || !len)
			continue;
		end = ph.p_vaddr + len;
		err = add_seg(p, ph.p_vaddr, end, ph.p_offset, p->stext, p->etext);
		if (!err)
			err = add_seg(p, ph.p_vaddr, end, ph.p_offset, p->first_mod, p->last_mod_sym);
		/* a trampoline's segment is as long as kcore's, cut at its end */
		for (int t = 0; t < p->nr_tramp && !err; t++) {
			uint64_t s = round_down(p->tramp[t], p->page);

			err = add_seg(p, ph.p_vaddr, end, ph.p_offset, s, s + len);
		}
	}
	return err;
}

/* A segment whose bytes lie inside the kernel's in /proc/kcore shares
 * them in the copy; the others are packed one after another. */
static void plan_layout(struct plan *p)
{
	int k = -1;
	uint64_t rel = 0;

	for (int i = 0; i < p->nr && k < 0; i++)
		if (p->seg[i].addr <= p->stext && p->seg[i].addr + p->seg[i].len - 1 >= p->stext)
			k = i;
	for (int i = 0; k >= 0 && i < p->nr; i++)
		if (i != k && p->seg[i].off >= p->seg[k].off &&
		    p->seg[i].off + p->seg[i].len <= p->seg[k].off + p->seg[k].len)
			p->seg[i].remaps = k;
	for (int i = 0; i < p->nr; i++)
		if (p->seg[i].remaps < 0) {
			p->seg[i].rel = rel;
			rel += p->seg[i].len;
		}
	for (int i = 0; i < p->nr; i++)
		if (p->seg[i].remaps >= 0) {
			const struct seg *ks = &p->seg[p->seg[i].remaps];

			p->seg[i].rel = p->seg[i].off - ks->off + ks->rel;
		}
}

/* A new file of kcore_dir, 0400 as perf makes them. */
static int create_in(int kfd, const char *name)
{
	int fd = openat(kfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0400);

	return fd < 0 ? -errno : fd;
}

static int write_copy(int kfd, const char *name, const char *text, size_t len)
{
	int fd = create_in(kfd, name), err;

	if (fd < 0)
		return fd;
	err = prec_file__write_all(fd, text, len);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* The ELF header and program headers of the copy: /proc/kcore's
 * identity (class, data, machine), no sections, no entry. Returns the
 * offset of the first data page or -errno. */
static int64_t write_headers(Elf *out, const GElf_Ehdr *in, int cls, const struct plan *p)
{
	GElf_Ehdr eh;
	uint64_t data;

	if (!gelf_newehdr(out, cls) || !gelf_getehdr(out, &eh))
		return -EIO;
	memcpy(eh.e_ident, in->e_ident, EI_NIDENT);
	eh.e_type = in->e_type;
	eh.e_machine = in->e_machine;
	eh.e_version = in->e_version;
	eh.e_entry = 0;
	eh.e_shoff = 0;
	eh.e_flags = in->e_flags;
	eh.e_phnum = (GElf_Half)p->nr;
	eh.e_shentsize = eh.e_shnum = eh.e_shstrndx = 0;
	eh.e_ehsize = (GElf_Half)gelf_fsize(out, ELF_T_EHDR, 1, EV_CURRENT);
	eh.e_phoff = eh.e_ehsize;
	eh.e_phentsize = (GElf_Half)gelf_fsize(out, ELF_T_PHDR, 1, EV_CURRENT);
	if (!gelf_update_ehdr(out, &eh) || !gelf_newphdr(out, (size_t)p->nr))
		return -EIO;
	data = round_up(eh.e_ehsize + (uint64_t)eh.e_phentsize * (uint64_t)p->nr, p->page);
	for (int i = 0; i < p->nr; i++) {
		GElf_Phdr ph = {
			.p_type = PT_LOAD, .p_flags = PF_R | PF_W | PF_X,
			.p_offset = data + p->seg[i].rel, .p_vaddr = p->seg[i].addr,
			.p_paddr = 0, .p_filesz = p->seg[i].len, .p_memsz = p->seg[i].len,
			.p_align = p->page,
		};

		if (!gelf_update_phdr(out, i, &ph))
			return -EIO;
	}
	/* libelf writes the headers (and sizes the file to them): the data
	 * is written after, past them. */
	if (elf_update(out, ELF_C_WRITE) < 0)
		return -EIO;
	return (int64_t)data;
}

static int copy_bytes(int from, uint64_t off, int to, uint64_t at, uint64_t len, char *buf)
{
	while (len) {
		size_t n = len < COPY_CHUNK ? (size_t)len : COPY_CHUNK;
		ssize_t r = pread(from, buf, n, (off_t)off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO; /* /proc/kcore ended inside a segment */
		if (prec_file__pwrite_all(to, buf, (size_t)r, at))
			return -EIO;
		off += (uint64_t)r;
		at += (uint64_t)r;
		len -= (uint64_t)r;
	}
	return 0;
}

/* The kcore file: headers, then each segment's bytes. */
static int write_kcore(int kfd, int kcfd, struct plan *p, uint64_t *bytes)
{
	GElf_Ehdr in;
	Elf *ein = NULL, *eout = NULL;
	char *buf = NULL;
	int64_t data;
	int fd = -1, err, cls;

	ein = elf_begin(kcfd, ELF_C_READ, NULL);
	cls = ein ? gelf_getclass(ein) : ELFCLASSNONE;
	if (cls == ELFCLASSNONE || !gelf_getehdr(ein, &in)) {
		err = -EBADMSG;
		goto out;
	}
	err = plan_segments(p, ein);
	if (err)
		goto out;
	plan_layout(p);
	fd = create_in(kfd, "kcore");
	if (fd < 0) {
		err = fd;
		goto out;
	}
	eout = elf_begin(fd, ELF_C_WRITE, NULL);
	data = eout ? write_headers(eout, &in, cls, p) : -EIO;
	err = data < 0 ? (int)data : 0;
	buf = err ? NULL : malloc(COPY_CHUNK);
	if (!err && !buf)
		err = -ENOMEM;
	for (int i = 0; i < p->nr && !err; i++)
		if (p->seg[i].remaps < 0)
			err = copy_bytes(kcfd, p->seg[i].off, fd, (uint64_t)data + p->seg[i].rel,
					 p->seg[i].len, buf);
	if (!err) {
		struct stat st;

		err = fstat(fd, &st) ? -errno : 0;
		*bytes = (uint64_t)st.st_size;
	}
out:
	free(buf);
	if (eout)
		elf_end(eout);
	if (fd >= 0 && close(fd) && !err)
		err = -errno;
	if (ein)
		elf_end(ein);
	return err;
}

static void remove_kcore_dir(int dirfd, int kfd)
{
	static const char *const names[] = { "kcore", "modules", "kallsyms" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlinkat(kfd, names[i], 0);
	unlinkat(dirfd, PREC_KCORE_DIR_NAME, AT_REMOVEDIR);
}

/* What failed, for the one line: the step and its reason. */
static int say(const char *dir, const char *what, int err)
{
	pr_err("%s/%s: %s: %s", dir, PREC_KCORE_DIR_NAME, what, strerror(-err));
	return err;
}

/* /proc/<path> read whole into *buf and written to kfd/name. Returns its
 * length or -errno after one line. */
static ssize_t copy_text(int kfd, const char *dir, const char *path, const char *name,
			 char **buf, size_t *cap)
{
	ssize_t len = prec_file__read_text(path, buf, cap, TEXT_MAX);
	int err;

	if (len < 0) {
		pr_err("%s/%s: reading %s: %s", dir, PREC_KCORE_DIR_NAME, path, strerror((int)-len));
		return len;
	}
	err = write_copy(kfd, name, *buf, (size_t)len);
	if (err) {
		pr_err("%s/%s/%s: %s", dir, PREC_KCORE_DIR_NAME, name, strerror(-err));
		return err;
	}
	return len;
}

int prec_kcore__copy(int dirfd, const char *dir, struct prec_manifest_kcore *facts)
{
	struct plan *p = calloc(1, sizeof(*p));
	char *ks = NULL, *mods = NULL, *again = NULL;
	size_t kcap = 0, mcap = 0, acap = 0;
	ssize_t klen, mlen, alen;

	uint64_t bytes = 0;
	int kfd = -1, kcfd = -1, err;

	if (!p)
		return say(dir, "planning the copy", -ENOMEM);
	p->page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (mkdirat(dirfd, PREC_KCORE_DIR_NAME, 0700)) {
		err = say(dir, "mkdir", -errno);
		goto out;
	}
	kfd = openat(dirfd, PREC_KCORE_DIR_NAME, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (kfd < 0) {
		err = say(dir, "open", -errno);
		unlinkat(dirfd, PREC_KCORE_DIR_NAME, AT_REMOVEDIR);
		goto out;
	}
	klen = copy_text(kfd, dir, PROC_KALLSYMS, "kallsyms", &ks, &kcap);
	mlen = klen < 0 ? klen : copy_text(kfd, dir, PROC_MODULES, "modules", &mods, &mcap);
	if (mlen < 0) {
		err = (int)mlen;
		goto fail;
	}
	err = parse_kallsyms(p, ks);
	if (!err) {
		parse_modules(p, mods);
		err = plan_extent(p);
	}
	if (err) {
		pr_err("%s/%s: %s has no kernel text (_stext, function symbols: hidden by kernel.kptr_restrict?)%s",
		       dir, PREC_KCORE_DIR_NAME, PROC_KALLSYMS, p->first_mod ? " or no module symbols" : "");
		goto fail;
	}
	kcfd = open(PROC_KCORE, O_RDONLY | O_CLOEXEC);
	if (kcfd < 0) {
		err = say(dir, "opening " PROC_KCORE, -errno);
		goto fail;
	}
	elf_version(EV_CURRENT);
	err = write_kcore(kfd, kcfd, p, &bytes);
	if (err) {
		say(dir, "copying " PROC_KCORE, err);
		goto fail;
	}
	/* As perf: modules loaded or unloaded during the copy are seen in
	 * kallsyms, and the copy would not match its own kallsyms. */
	alen = prec_file__read_text(PROC_KALLSYMS, &again, &acap, TEXT_MAX);
	if (alen != klen || memcmp(again, ks, (size_t)klen)) {
		err = -EAGAIN;
		pr_err("%s/%s: %s changed during the copy (a module loaded or unloaded): record again",
		       dir, PREC_KCORE_DIR_NAME, PROC_KALLSYMS);
		goto fail;
	}
	facts->segments = (uint32_t)p->nr;
	facts->bytes = bytes;
	goto out;
fail:
	remove_kcore_dir(dirfd, kfd);
out:
	if (kcfd >= 0)
		close(kcfd);
	if (kfd >= 0)
		close(kfd);
	free(again);
	free(mods);
	free(ks);
	free(p);
	return err;
}
