// SPDX-License-Identifier: MIT
// perf's build-id cache written by descriptor: its base found as perf
// finds it, each entry's directories made and opened one component at a
// time (O_NOFOLLOW, the effective user's), the file linked or copied under
// a temporary name, then its .build-id link.
#include "util/buildid_cache.h"
#include "util/file.h"
#include "util/path.h"
#include "util/perfconfig.h"
#include "util/plain_path.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A copy goes in chunks this big, the stop flag looked at between them. */
#define COPY_CHUNK (8u << 20)

struct prec_buildid_cache {
	int base;              /* the cache's top, O_DIRECTORY */
	dev_t dev;             /* its file system: a hard link stays on it */
	uint64_t copied;
	uint32_t linked;
};

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
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) || st.st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* dir, the user's own, made (its last component) if missing, in a
 * directory of the user's or root's. */
static int open_base(const char *dir)
{
	const char *why, *bad, *slash;
	char parent[PATH_MAX];
	struct stat st;
	int fd, pfd;

	fd = prec_path__open_dir(dir, &why, &bad);
	if (fd >= 0) {
		pfd = fd;
		fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		close(pfd);
		if (fd < 0)
			return -errno;
		if (fstat(fd, &st) || st.st_uid != geteuid()) {
			close(fd);
			return -EPERM;
		}
		return fd;
	}
	if (fd != -ENOENT)
		return fd;
	slash = strrchr(dir, '/');
	if (!slash || !slash[1] || (size_t)(slash - dir) >= sizeof(parent))
		return -ENOENT;
	memcpy(parent, dir, (size_t)(slash - dir));
	parent[slash - dir] = '\0';
	pfd = prec_path__open_dir(parent[0] ? parent : "/", &why, &bad);
	if (pfd < 0)
		return pfd;
	/* Made only in a directory of ours or root's: never in another
	 * user's HOME (sudo -E), where that user would own what root made. */
	if (fstat(pfd, &st) || (st.st_uid != geteuid() && st.st_uid != 0))
		fd = -EPERM;
	else
		fd = own_subdir(pfd, slash + 1);
	close(pfd);
	return fd;
}

/* Where the cache is, as perf decides: its --buildid-dir (here
 * PERF_BUILDID_DIR), buildid.dir of the user's perfconfig, else the
 * system's, else $HOME/.debug. */
static int cache_dir(char *out, size_t n)
{
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	const struct prec_perfconfig_item *dir;
	struct prec_perfconfig conf;
	int err;

	if (env && *env)
		return snprintf(out, n, "%s", env) < (int)n ? 0 : -ENAMETOOLONG;
	err = prec_perfconfig__read(&conf);
	if (err)
		return err;
	dir = prec_perfconfig__get(&conf, "buildid.dir");
	if (dir && *dir->value)
		err = dir->value[0] != '/' ? -ENOENT :
		      snprintf(out, n, "%s", dir->value) < (int)n ? 0 : -ENAMETOOLONG;
	else if (!home || home[0] != '/')
		err = -ENOENT;
	else
		err = snprintf(out, n, "%s/.debug", home) < (int)n ? 0 : -ENAMETOOLONG;
	prec_perfconfig__exit(&conf);
	return err;
}

int prec_buildid_cache__open(struct prec_buildid_cache **out)
{
	struct prec_buildid_cache *c;
	char dir[PATH_MAX];
	struct stat st;
	int ret = cache_dir(dir, sizeof(dir)), fd;

	if (ret)
		return ret;
	fd = open_base(dir);
	if (fd < 0)
		return fd;
	c = calloc(1, sizeof(*c));
	if (!c || fstat(fd, &st)) {
		ret = c ? -errno : -ENOMEM;
		free(c);
		close(fd);
		return ret;
	}
	c->base = fd;
	c->dev = st.st_dev;
	*out = c;
	return 0;
}

void prec_buildid_cache__close(struct prec_buildid_cache *c)
{
	if (!c)
		return;
	close(c->base);
	free(c);
}

uint64_t prec_buildid_cache__copied(const struct prec_buildid_cache *c)
{
	return c->copied;
}

uint32_t prec_buildid_cache__linked(const struct prec_buildid_cache *c)
{
	return c->linked;
}

static bool name_ok(const char *name)
{
	if (name[0] == '/')
		return prec_plain_path__ok(name);
	return name[0] && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
	       strlen(name) <= NAME_MAX;
}

static void hex_of(const uint8_t *id, size_t len, char *hex)
{
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * len] = '\0';
}

int prec_buildid_cache__has(const struct prec_buildid_cache *c, const char *name,
			    const char *kind, const uint8_t *id, size_t id_len)
{
	char comp[NAME_MAX + 1], hex[41];
	const char *p = name + (name[0] == '/');
	int dir = c->base, next, ret = 0;
	bool last = false;

	if (!id_len || id_len > 20 || !name_ok(name))
		return 0;
	hex_of(id, id_len, hex);
	while (!last) {
		size_t n = strcspn(p, "/");

		if (!*p) {
			p = hex;
			n = strlen(hex);
			last = true;
		}
		if (!n || n > NAME_MAX)
			break;
		memcpy(comp, p, n);
		comp[n] = '\0';
		next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (dir != c->base)
			close(dir);
		dir = next;
		if (dir < 0)
			return 0;
		p += n + (p[n] == '/');
	}
	if (last)
		ret = !faccessat(dir, kind, F_OK, AT_SYMLINK_NOFOLLOW);
	if (dir != c->base)
		close(dir);
	return ret;
}

/* DEBUG/NAME/HEX, each component made and opened in turn. */
static int entry_dir(struct prec_buildid_cache *c, const char *name, const char *hex)
{
	char comp[NAME_MAX + 1];
	const char *p = name;
	int dir = dup(c->base), next;

	if (dir < 0)
		return -errno;
	if (*p == '/')
		p++;
	while (*p) {
		size_t n = strcspn(p, "/");

		memcpy(comp, p, n);
		comp[n] = '\0';
		next = own_subdir(dir, comp);
		close(dir);
		if (next < 0)
			return next;
		dir = next;
		p += n + (p[n] == '/');
	}
	next = own_subdir(dir, hex);
	close(dir);
	return next;
}

/* The copy's mode: the file's read and execute bits for its owner, and
 * for everyone only when everyone may read it (the copy's group is the
 * cache's, not the file's); never a set-id bit. */
static mode_t copy_mode(const struct stat *st)
{
	mode_t m = (st->st_mode & S_IXUSR) ? 0755 : 0644;

	return (st->st_mode & S_IROTH) ? m : (m & 0700);
}

/* in's bytes at [off, end) to the same offsets of out. */
static int copy_extent(struct prec_buildid_cache *c, int in, int out, uint64_t off,
		       uint64_t end, bool *plain, const int *stop)
{
	char buf[1 << 16];

	while (off < end) {
		size_t n = end - off > COPY_CHUNK ? COPY_CHUNK : (size_t)(end - off);
		loff_t io = (loff_t)off, oo = (loff_t)off;
		ssize_t k = -1;

		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED))
			return -ETIMEDOUT;
		if (!*plain) {
			k = copy_file_range(in, &io, out, &oo, n, 0);
			if (k < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP))
				*plain = true;
		}
		if (*plain) {
			k = pread(in, buf, n < sizeof(buf) ? n : sizeof(buf), (off_t)off);
			int e = k > 0 ? prec_file__pwrite_all(out, buf, (size_t)k, off) : 0;

			if (e)
				return e;
		}
		if (k < 0)
			return errno == EAGAIN ? -EIO : -errno;
		if (k == 0)
			return -ESTALE; /* shorter than it was */
		off += (uint64_t)k;
		c->copied += (uint64_t)k;
	}
	return 0;
}

/* The first size bytes of in into out, in's holes (SEEK_DATA / SEEK_HOLE)
 * left holes: a workload's ELF may be a few pages and a 4 GiB hole, which
 * a plain copy wrote out whole into root's cache (on tmpfs, 36 KiB made
 * 874 MB in the stop's 5 s). */
static int copy_range(struct prec_buildid_cache *c, int in, int out, uint64_t size,
		      const int *stop)
{
	bool plain = false;
	uint64_t off = 0;
	int ret = 0;

	while (!ret && off < size) {
		off_t data = lseek(in, (off_t)off, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break; /* a hole to the end (a shorter file: unchanged() says) */
		hole = data < 0 ? -1 : lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			return errno == EAGAIN ? -EIO : -errno;
		if ((uint64_t)hole > size)
			hole = (off_t)size;
		if (hole <= data)
			return -ESTALE;
		ret = copy_extent(c, in, out, (uint64_t)data, (uint64_t)hole, &plain, stop);
		off = (uint64_t)hole;
	}
	if (!ret && ftruncate(out, (off_t)size))
		ret = -errno;
	return ret;
}

static bool unchanged(int fd, const struct stat *a)
{
	struct stat b;

	return !fstat(fd, &b) && a->st_size == b.st_size &&
	       a->st_mtim.tv_sec == b.st_mtim.tv_sec && a->st_mtim.tv_nsec == b.st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b.st_ctim.tv_sec && a->st_ctim.tv_nsec == b.st_ctim.tv_nsec;
}

/* A file to copy into, in dir: unnamed (O_TMPFILE), so that a recorder
 * that exits mid-copy (the stop does not wait for its worker past its
 * deadline) leaves nothing behind, or where the file system has none a
 * temporary of a random name into tmp (O_EXCL, O_NOFOLLOW). */
static int copy_target(int dir, const char *kind, char tmp[32])
{
	size_t k;
	int out = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);

	tmp[0] = '\0';
	if (out >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return out < 0 ? -errno : out;
	k = (size_t)snprintf(tmp, 32, ".%s.", kind);
	if (k + 9 > 32 || prec_file__random_name(tmp + k, 8))
		return -EINVAL;
	tmp[k + 8] = '\0';
	out = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	return out < 0 ? -errno : out;
}

/* out (unnamed, or tmp) named dir/kind unless an entry came meanwhile:
 * 1, 0 (one was there) or -errno. out is closed. */
static int name_copy(int dir, const char *kind, int out, const char *tmp)
{
	char proc[32];
	int ret = 1;

	if (!tmp[0]) {
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", out);
		if (linkat(AT_FDCWD, proc, dir, kind, AT_SYMLINK_FOLLOW))
			ret = errno == EEXIST ? 0 : -errno;
		if (close(out) && ret == 1) {
			ret = -errno;
			unlinkat(dir, kind, 0);
		}
		return ret;
	}
	if (close(out))
		ret = -errno;
	else if (renameat2(dir, tmp, dir, kind, RENAME_NOREPLACE))
		ret = errno == EEXIST ? 0 : -errno;
	if (ret <= 0)
		unlinkat(dir, tmp, 0);
	return ret;
}

/* dir/kind written whole or not at all. */
static int put_copy(struct prec_buildid_cache *c, int dir, const char *kind, int fd,
		    const struct stat *st, const void *mem, size_t len,
		    const int *stop)
{
	char tmp[32];
	int out = copy_target(dir, kind, tmp), ret;

	if (out < 0)
		return out;
	if (fd >= 0) {
		ret = copy_range(c, fd, out, (uint64_t)st->st_size, stop);
		if (!ret && !unchanged(fd, st))
			ret = -ESTALE;
		if (!ret && fchmod(out, copy_mode(st)))
			ret = -errno;
	} else {
		ret = prec_file__write_all(out, mem, len);
		if (!ret && fchmod(out, 0644))
			ret = -errno;
	}
	if (!ret)
		return name_copy(dir, kind, out, tmp);
	close(out);
	if (tmp[0])
		unlinkat(dir, tmp, 0);
	return ret;
}

/* The file itself under a second name: no bytes to copy. Only on the
 * cache's file system, and never a set-id file (its old version would
 * stay runnable from the cache after an upgrade). Returns 1 or 0 (copy it
 * instead). */
static int put_link(struct prec_buildid_cache *c, int dir, const char *kind, int fd,
		    const struct stat *st)
{
	char proc[32];

	if (st->st_dev != c->dev || (st->st_mode & (S_ISUID | S_ISGID)))
		return 0;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, dir, kind, AT_SYMLINK_FOLLOW))
		return errno == EEXIST ? -EEXIST : 0;
	c->linked++;
	return 1;
}

/* DEBUG/.build-id/XX/REST -> ../../NAME/HEX (an existing link kept). */
static int put_id_link(struct prec_buildid_cache *c, const char *name, const char *hex)
{
	char target[PATH_MAX], sub[3] = { hex[0], hex[1], 0 };
	int bdir, xdir, ret;

	if ((size_t)snprintf(target, sizeof(target), "../../%s/%s",
			     name + (name[0] == '/'), hex) >= sizeof(target))
		return -ENAMETOOLONG;
	bdir = own_subdir(c->base, ".build-id");
	if (bdir < 0)
		return bdir;
	xdir = own_subdir(bdir, sub);
	close(bdir);
	if (xdir < 0)
		return xdir;
	ret = symlinkat(target, xdir, hex + 2) && errno != EEXIST ? -errno : 0;
	close(xdir);
	return ret;
}

int prec_buildid_cache__add(struct prec_buildid_cache *c, const char *name,
			    const char *kind, const uint8_t *id, size_t id_len,
			    int fd, const struct stat *st, const void *mem, size_t len,
			    const int *stop)
{
	char hex[41];
	int dir, ret = 0;

	if (!id_len || id_len > 20 || !name_ok(name))
		return -EINVAL;
	if (strlen(name) + 48 >= PATH_MAX)
		return -ENAMETOOLONG;
	hex_of(id, id_len, hex);
	dir = entry_dir(c, name, hex);
	if (dir < 0)
		return dir;
	if (faccessat(dir, kind, F_OK, AT_SYMLINK_NOFOLLOW)) {
		if (fd >= 0)
			ret = put_link(c, dir, kind, fd, st);
		if (ret == -EEXIST)
			ret = 0;
		else if (!ret)
			ret = put_copy(c, dir, kind, fd, st, mem, len, stop);
	}
	close(dir);
	if (ret >= 0) {
		int e = put_id_link(c, name, hex);

		ret = e ? e : ret;
	}
	return ret;
}
