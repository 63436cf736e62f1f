// SPDX-License-Identifier: MIT
// The vDSO: found in this process (its [vdso] mapping, which is where
// getauxval(AT_SYSINFO_EHDR) says), its build-id read from the image in
// place, the image saved as the recording's vdso.so and put in perf's
// build-id cache.
#include "record/vdso.h"
#include "util/buildid.h"
#include "store/store.h"
#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

/* /proc/self/maps of the recorder: a few dozen lines. */
#define MAPS_MAX (1u << 20)

/* The [vdso] line's range, if it starts at base. */
static int find_range(uintptr_t base, uintptr_t *end)
{
	char *buf = NULL, *line, *next;
	size_t cap = 0;
	ssize_t n = prec_file__read_text("/proc/self/maps", &buf, &cap, MAPS_MAX);
	int ret = -ENOENT;

	for (line = n > 0 ? buf : NULL; line && *line; line = next) {
		uintmax_t lo, hi;
		int name = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%jx-%jx %*s %*s %*s %*s %n", &lo, &hi, &name) < 2 || !name ||
		    strcmp(line + name, PREC_VDSO_MAP))
			continue;
		if (lo == base && hi > lo) {
			*end = (uintptr_t)hi;
			ret = 0;
		}
		break;
	}
	free(buf);
	return n < 0 ? (int)n : ret;
}

int prec_vdso__find(struct prec_vdso *v)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR), end = 0;
	uint8_t id[20];
	int ret;

	memset(v, 0, sizeof(*v));
	if (!base)
		return -ENOENT;
	ret = find_range(base, &end);
	if (ret)
		return ret;
	v->image = (const uint8_t *)base;
	v->len = end - base;
	ret = prec_buildid__read_image(v->image, v->len, id);
	if (ret < 0)
		return ret;
	memcpy(v->id, id, (size_t)ret);
	v->id_size = (uint8_t)ret;
	return 0;
}

int prec_vdso__add_buildid(struct prec_manifest *m)
{
	struct prec_manifest_buildid b = { .cpumode = PERF_RECORD_MISC_USER, .pid = -1,
					   .path = (char *)PREC_VDSO_MAP };
	struct prec_vdso v;
	int ret = prec_vdso__find(&v);

	if (ret) {
		pr_debug("vdso: %s", strerror(-ret));
		return ret == -ENOMEM ? ret : 0;
	}
	memcpy(b.id, v.id, v.id_size);
	b.size = v.id_size;
	return prec_manifest__add_buildid(m, &b);
}

int prec_vdso__save(int dirfd)
{
	struct prec_vdso v;
	int fd, ret = prec_vdso__find(&v);

	if (ret)
		return ret;
	fd = openat(dirfd, PREC_VDSO_NAME, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	ret = prec_file__write_all(fd, v.image, v.len);
	if (close(fd) && !ret)
		ret = -errno;
	if (ret)
		unlinkat(dirfd, PREC_VDSO_NAME, 0);
	return ret;
}

/* Open (creating it 0755 if missing) the directory name below dirfd, with
 * no link followed, and only if it belongs to the effective user. */
static int own_subdir(int dirfd, const char *name)
{
	struct stat st;
	int fd;

	if (mkdirat(dirfd, name, 0755) && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* The cache's base directory as a descriptor: $PERF_BUILDID_DIR as it is
 * (perf's own override), else .debug in $HOME; both must be the user's. */
static int open_cache(void)
{
	const char *dir = getenv("PERF_BUILDID_DIR"), *why, *bad;
	struct stat st;
	int base, fd;

	if (dir && *dir) {
		fd = prec_path__open_dir(dir, &why, &bad);
		if (fd < 0)
			return fd;
		if (fstat(fd, &st) || st.st_uid != geteuid()) {
			close(fd);
			return -EPERM;
		}
		return fd;
	}
	dir = getenv("HOME");
	if (!dir || *dir != '/')
		return -ENOENT;
	base = prec_path__open_dir(dir, &why, &bad);
	if (base < 0)
		return base;
	fd = -EPERM;
	if (!fstat(base, &st) && st.st_uid == geteuid())
		fd = own_subdir(base, ".debug");
	close(base);
	return fd;
}

/* Write the image as dirfd/vdso, whole or not at all: a temporary name,
 * then a rename, so a reader never sees half an image. */
static int cache_image(int dirfd, const struct prec_vdso *v)
{
	char tmp[32];
	int fd, ret;

	snprintf(tmp, sizeof(tmp), ".vdso.%d", (int)getpid());
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ret = prec_file__write_all(fd, v->image, v->len);
	if (close(fd) && !ret)
		ret = -errno;
	if (!ret && renameat(dirfd, tmp, dirfd, "vdso"))
		ret = -errno;
	if (ret)
		unlinkat(dirfd, tmp, 0);
	return ret;
}

int prec_vdso__cache(void)
{
	struct prec_vdso v;
	char hex[2 * sizeof(v.id) + 1], link[sizeof(hex) + 16], sub[3];
	int ret = prec_vdso__find(&v), base, vdir = -1, idir = -1, bdir = -1, xdir = -1;

	if (ret == -ENOENT || ret == -ENODATA)
		return 0;
	if (ret)
		return ret;
	for (unsigned i = 0; i < v.id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", v.id[i]);
	base = open_cache();
	if (base == -ENOENT)
		return 0;
	if (base < 0)
		return base;
	ret = vdir = own_subdir(base, PREC_VDSO_MAP);
	if (vdir >= 0)
		ret = idir = own_subdir(vdir, hex);
	if (idir >= 0) {
		ret = 0;
		if (faccessat(idir, "vdso", F_OK, AT_SYMLINK_NOFOLLOW))
			ret = cache_image(idir, &v);
	}
	if (!ret)
		ret = bdir = own_subdir(base, ".build-id");
	if (bdir >= 0) {
		memcpy(sub, hex, 2);
		sub[2] = 0;
		ret = xdir = own_subdir(bdir, sub);
	}
	if (xdir >= 0) {
		snprintf(link, sizeof(link), "../../%s/%s", PREC_VDSO_MAP, hex);
		ret = symlinkat(link, xdir, hex + 2) && errno != EEXIST ? -errno : 0;
	}
	for (int *fd = (int[]){ xdir, bdir, idir, vdir, base }, i = 0; i < 5; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	return ret;
}
