// SPDX-License-Identifier: MIT
// The vDSO: found in this process (its [vdso] mapping, which is where
// getauxval(AT_SYSINFO_EHDR) says), its build-id read from the image in
// place, the image saved as the recording's vdso.so.
#include "record/vdso.h"
#include "util/buildid.h"
#include "store/store.h"
#include "util/file.h"
#include "util/log.h"

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

/* v's build-id into m, once, where prec_vdso__find() found it (found 0);
 * no vDSO or no build-id is nothing to add (0). */
static int add_found(struct prec_manifest *m, const struct prec_vdso *v, int found)
{
	struct prec_manifest_buildid b = { .cpumode = PERF_RECORD_MISC_USER, .pid = -1,
					   .path = (char *)PREC_VDSO_MAP };

	if (found) {
		pr_debug("vdso: %s", strerror(-found));
		return found == -ENOMEM ? found : 0;
	}
	memcpy(b.id, v->id, v->id_size);
	b.size = v->id_size;
	return prec_manifest__add_buildid(m, &b);
}

int prec_vdso__add_buildid(struct prec_manifest *m)
{
	struct prec_vdso v;

	return add_found(m, &v, prec_vdso__find(&v));
}

int prec_vdso__save(int dirfd, struct prec_manifest *add_to)
{
	struct prec_vdso v;
	int fd, ret = prec_vdso__find(&v);

	if (add_to) {
		int err = add_found(add_to, &v, ret);

		if (ret || err)
			return err;
	}
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
