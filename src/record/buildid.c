// SPDX-License-Identifier: MIT
// Build-ids: the NT_GNU_BUILD_ID note of an ELF file (libelf, section and
// segment notes), of the running kernel (/sys/kernel/notes) and of modules.
// Every input is untrusted: sizes are checked before any byte is used.
#include "record/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif
#define BUILDID_MAX 20
/* /sys/kernel/notes holds a handful of notes; a bigger file is not one. */
#define NOTES_MAX (64u * 1024u)

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static bool elf_ok;

static void elf_init(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

/* One note's verdict: length, -ENOENT (not a GNU build-id) or -EINVAL. */
static int take_note(uint32_t type, const void *name, size_t namesz,
		     const void *desc, size_t descsz, uint8_t id[20])
{
	if (type != NT_GNU_BUILD_ID || namesz != 4 || memcmp(name, "GNU", 4))
		return -ENOENT;
	if (descsz < 1 || descsz > BUILDID_MAX)
		return -EINVAL;
	memcpy(id, desc, descsz);
	return (int)descsz;
}

/* Walk the notes of one libelf data block. */
static int scan_elf_notes(Elf_Data *data, uint8_t id[20])
{
	size_t off = 0, name_off, desc_off, next;
	GElf_Nhdr nh;

	while (data && off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *base = data->d_buf;
		int ret = take_note(nh.n_type, base + name_off, nh.n_namesz,
				    base + desc_off, nh.n_descsz, id);

		if (ret != -ENOENT)
			return ret;
		off = next;
	}
	return -ENOENT;
}

static int scan_sections(Elf *elf, uint8_t id[20])
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		int ret;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		ret = scan_elf_notes(elf_getdata(scn, NULL), id);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

/* Stripped-of-section-headers files still have PT_NOTE segments. */
static int scan_segments(Elf *elf, uint8_t id[20])
{
	size_t n;

	if (elf_getphdrnum(elf, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		int ret;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		/* rawchunk checks the range against the file size. */
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz,
					 ph.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		ret = scan_elf_notes(d, id);
		if (ret != -ENOENT)
			return ret;
	}
	return -ENOENT;
}

int prec_buildid__read_elf(const char *path, uint8_t id[20])
{
	struct stat st;
	Elf *elf;
	int fd, ret;

	pthread_once(&elf_once, elf_init);
	if (!elf_ok)
		return -ENOSYS;
	/* O_NONBLOCK: a FIFO at a mapped path must not hang the scan. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -ENOEXEC;
		goto out_close;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		ret = -ENOEXEC;
		goto out_end;
	}
	ret = scan_sections(elf, id);
	if (ret == -ENOENT)
		ret = scan_segments(elf, id);
out_end:
	elf_end(elf);
out_close:
	close(fd);
	return ret;
}

static uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static size_t align4(size_t v)
{
	return (v + 3) & ~(size_t)3;
}

/* Raw note stream (u32 namesz, descsz, type; name and desc each padded to
 * 4), as /sys/kernel/notes and module notes files expose it. */
static int scan_raw_notes(const uint8_t *buf, size_t len, uint8_t id[20])
{
	size_t off = 0;

	while (len - off >= 12) {
		size_t namesz = get_u32(buf + off), descsz = get_u32(buf + off + 4);
		uint32_t type = get_u32(buf + off + 8);
		size_t name = off + 12, desc;
		int ret;

		if (namesz > len - name || align4(namesz) > len - name)
			return -ENOENT;
		desc = name + align4(namesz);
		if (descsz > len - desc)
			return -ENOENT;
		ret = take_note(type, buf + name, namesz, buf + desc, descsz, id);
		if (ret != -ENOENT)
			return ret;
		if (align4(descsz) > len - desc)
			return -ENOENT;
		off = desc + align4(descsz);
	}
	return -ENOENT;
}

static int read_notes_file(const char *path, uint8_t id[20])
{
	size_t len = 0;
	uint8_t *buf;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(NOTES_MAX);
	if (!buf) {
		ret = -ENOMEM;
		goto out_close;
	}
	/* sysfs binary attributes may report any size: read until EOF. */
	while (len < NOTES_MAX) {
		ssize_t n = read(fd, buf + len, NOTES_MAX - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	ret = scan_raw_notes(buf, len, id);
out_free:
	free(buf);
out_close:
	close(fd);
	return ret;
}

int prec_buildid__read_kernel(uint8_t id[20])
{
	return read_notes_file("/sys/kernel/notes", id);
}

int prec_buildid__read_module(const char *module, uint8_t id[20])
{
	char path[512];

	if (!module || !*module || strchr(module, '/') || strstr(module, ".."))
		return -EINVAL;
	if (snprintf(path, sizeof(path), "/sys/module/%s/notes/.note.gnu.build-id",
		     module) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_notes_file(path, id);
}
