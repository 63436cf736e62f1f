/* SPDX-License-Identifier: MIT */
/* Build-ids (buildid.c): of mapped files, the kernel and its modules. */
#ifndef PREC_UTIL_BUILDID_H
#define PREC_UTIL_BUILDID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapped file whose build-id is wanted: the path its MMAP2 record or
 * /proc/PID/maps line named and the identity (device, inode) it gave. */
struct prec_buildid_req {
	const char *path;
	int32_t pid;           /* > 0: a path that is missing or names another
				* file here is looked up under /proc/PID/root */
	uint32_t maj, min;
	uint64_t ino;
	/* map_end > 0 (with pid): the mapping's range, whose
	 * /proc/PID/map_files entry names the mapped file for as long as it
	 * is mapped, deleted or renamed since */
	uint64_t map_start, map_end;
	int ret;               /* out (resolve): read_mapped's return */
	uint8_t id[20];        /* out (resolve) */
};

/* The name (comm) of the processes buildid_workers.c reads files in,
 * theirs from birth (their creator takes it for the fork): record's
 * --exclude-perf filters them by it, as they may start after its filter
 * of thread ids is set. */
#define PREC_BUILDID_THREAD_NAME "prec-bid"

/* NT_GNU_BUILD_ID of the regular file open at fd, read with pread into
 * bounded buffers (no mapping: a truncated file cannot SIGBUS us). Returns
 * the id length (1..20), -ENODATA (no build-id note), -ENOEXEC (not a
 * regular ELF file), -EINVAL (a build-id longer than 20 bytes) or -errno
 * (read failed). Blocks as long as the file's reads do. */
int prec_buildid__read_fd(int fd, uint8_t id[20]);
/* NT_GNU_BUILD_ID of the ELF image img[0, len) in memory (the vDSO), every
 * header and note checked to lie inside it. Returns as read_fd. */
int prec_buildid__read_image(const uint8_t *img, size_t len, uint8_t id[20]);
/* r->path's build-id if the path (or, with r->pid, /proc/PID/root + path,
 * then /proc/PID/map_files/START-END) still names the regular file
 * r->maj:r->min, r->ino; -ESTALE when it
 * names anything else (a replaced file, a symlink, a FIFO, a device, a
 * file of the same name in another namespace). Opens nothing but that
 * inode (O_PATH lookup, then the checked inode by /proc/self/fd). Other
 * returns as read_fd. Blocks as long as the file system does: callers on
 * a path that must end use buildid_workers.c. */
int prec_buildid__read_mapped(const struct prec_buildid_req *r, uint8_t id[20]);
/* Whether a read_mapped() return means the mapped file could not be read
 * (its path names another file, the read failed or did not answer in
 * time), as opposed to read and found with no usable note, or deleted
 * (-ENOENT): what the manifest's buildids_unread counts. */
bool prec_buildid__unread(int ret);
/* Running kernel's id from /sys/kernel/notes; a module's from
 * /sys/module/NAME/notes/.note.gnu.build-id. Returns the id length,
 * -ENODATA (no note), -EINVAL or -errno. */
int prec_buildid__read_kernel(uint8_t id[20]);
int prec_buildid__read_module(const char *module, uint8_t id[20]);

#endif
