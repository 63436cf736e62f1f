// SPDX-License-Identifier: MIT
// Fuzz target: the build-id reader of mapped ELF files (prec_buildid__read_fd),
// fed a memfd holding the input. Byte 0 shapes the file, the rest is its
// content; the file's verdict is checked against the bytes it holds.
#include "fuzz_common.h"

#include <sys/mman.h>

#include "util/buildid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Byte 0. Bits 0-1, the file's size: the content exactly, 1 TiB, the
 * largest offset a file may have, or the content plus 4 KiB of zeros (the
 * sizes past the content are a hole: offsets past EOF, and headers that
 * point far out, read zeros instead of ending the read). */
#define FZ_B_SIZE 0x03
/* Bit 2: the content again at FZ_B_COPY_AT, so that a block read from 0
 * meets real notes where its 64 KiB cap cuts it. */
#define FZ_B_COPY 0x04
#define FZ_B_COPY_AT (60u * 1024u)
/* Bit 3: the ident made valid (magic, class ELF64 if bit 4, byte order
 * big-endian if bit 5), so that mutations land behind it. */
#define FZ_B_IDENT 0x08
#define FZ_B_64 0x10
#define FZ_B_MSB 0x20

/* The note header a build-id's bytes follow: what scan_notes() took them
 * from (namesz 4, descsz, type 3, "GNU\0"; desc at name + 4 whatever the
 * alignment). */
static void note_head(uint8_t h[16], bool msb, uint32_t descsz)
{
	const uint32_t w[3] = { 4, descsz, 3 };

	for (int i = 0; i < 3; i++)
		for (int b = 0; b < 4; b++)
			h[4 * i + b] = (uint8_t)(w[i] >> (msb ? 24 - 8 * b : 8 * b));
	memcpy(h + 12, "GNU", 4);
}

static uint32_t get32(const uint8_t *p, bool msb)
{
	return msb ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
		   : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* Whether the file holds a GNU build-id note header whose length is out
 * of 1..20: the only thing -EINVAL may answer. */
static bool has_bad_len_note(const uint8_t *f, size_t n, bool msb)
{
	for (size_t i = 0; i + 16 <= n; i++) {
		uint32_t d;

		if (f[i + 12] != 'G' || memcmp(f + i + 12, "GNU", 4) ||
		    get32(f + i, msb) != 4 || get32(f + i + 8, msb) != 3)
			continue;
		d = get32(f + i + 4, msb);
		if (d == 0 || d > 20)
			return true;
	}
	return false;
}

static bool has(const uint8_t *f, size_t n, const uint8_t *pat, size_t m)
{
	for (size_t i = 0; i + m <= n; i++)
		if (f[i] == pat[0] && !memcmp(f + i, pat, m))
			return true;
	return false;
}

static int memfd(void)
{
	static int fd = -1;

	if (fd < 0)
		fd = memfd_create("prec-fuzz-buildid", MFD_CLOEXEC);
	if (fd < 0)
		__builtin_trap();
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t sizes[] = { 0, 1ull << 40, INT64_MAX, 4096 };
	int fd = memfd(), ret;
	unsigned int ctl;
	size_t len, end, seen;
	uint64_t fsize;
	uint8_t *f, *id, pat[36];
	bool msb, elf;

	fz_quiet();
	if (size < 1)
		return 0;
	ctl = data[0];
	data++;
	len = size - 1;
	/* The file's bytes up to its last written one, and 64 zeros after:
	 * every note header (type 3, "GNU") starts in written bytes, so a
	 * note found anywhere lies inside f. */
	end = ctl & FZ_B_COPY ? FZ_B_COPY_AT + len : len;
	f = calloc(1, end + 64);
	if (!f)
		__builtin_trap();
	memcpy(f, data, len);
	if (ctl & FZ_B_COPY)
		memcpy(f + FZ_B_COPY_AT, data, len);
	if (ctl & FZ_B_IDENT && end >= 6) {
		memcpy(f, "\177ELF", 4);
		f[4] = ctl & FZ_B_64 ? 2 : 1;
		f[5] = ctl & FZ_B_MSB ? 2 : 1;
	}
	fsize = (ctl & FZ_B_SIZE) == 3 ? end + sizes[3] : sizes[ctl & FZ_B_SIZE];
	if (fsize < end)
		fsize = end;
	if ((end && pwrite(fd, f, end, 0) != (ssize_t)end) || ftruncate(fd, (off_t)end) ||
	    ftruncate(fd, (off_t)fsize))
		__builtin_trap();
	seen = fsize < end + 64 ? (size_t)fsize : end + 64;

	/* exactly 20 bytes: ASan sees a write past the id */
	id = malloc(20);
	if (!id)
		__builtin_trap();
	ret = prec_buildid__read_fd(fd, id);

	msb = f[5] == 2;
	elf = fsize >= 52 && !memcmp(f, "\177ELF", 4) && (f[4] == 1 || f[4] == 2) &&
	      (f[5] == 1 || f[5] == 2) && (f[4] == 1 || fsize >= 64);
	if ((ret == -ENOEXEC) != !elf)
		__builtin_trap();
	if (ret >= 1 && ret <= 20) {
		/* The id, behind its note header, as the file holds it: bytes
		 * read from anywhere else (a stale buffer, past what pread
		 * returned) would not match. */
		note_head(pat, msb, (uint32_t)ret);
		memcpy(pat + 16, id, (size_t)ret);
		if (!has(f, seen, pat, 16 + (size_t)ret))
			__builtin_trap();
	} else if (ret == -EINVAL) {
		if (!has_bad_len_note(f, seen, msb))
			__builtin_trap();
	} else if (ret != -ENODATA && ret != -ENOEXEC && ret != -ENOMEM) {
		/* A memfd's reads do not fail. */
		__builtin_trap();
	}
	free(id);
	free(f);
	return 0;
}
