/* SPDX-License-Identifier: MIT */
/* perf's build-id cache (buildid_cache.c), as `perf record` fills it:
 * DEBUG/NAME/ID/KIND (KIND elf, vdso or kallsyms) and the link
 * DEBUG/.build-id/XX/REST -> ../../NAME/ID, DEBUG being $PERF_BUILDID_DIR,
 * else perf's buildid.dir (~/.perfconfig, /etc/perfconfig), else
 * $HOME/.debug. Every directory is made and opened by descriptor,
 * O_NOFOLLOW, one component at a time below the base, and used only if it
 * belongs to the effective user; every file is written under a temporary
 * name and renamed into place; an entry already there is kept. */
#ifndef PREC_UTIL_BUILDID_CACHE_H
#define PREC_UTIL_BUILDID_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct prec_buildid_cache;

/* Open the cache's base (made 0755 if missing, in a parent that exists
 * and belongs to the effective user or root).
 * The base must belong to the effective user: root with another user's
 * HOME (sudo -E) writes nothing there. A perfconfig is read only if it
 * belongs to the effective user or to root, as perf. Returns 0, -ENOENT
 * (no PERF_BUILDID_DIR, buildid.dir nor absolute HOME: nothing to do),
 * -EPERM or -errno. May block on the file system. */
int prec_buildid_cache__open(struct prec_buildid_cache **out);
void prec_buildid_cache__close(struct prec_buildid_cache *c);

/* Put an entry: NAME is name ("[vdso]", "[kernel.kallsyms]", or an
 * absolute path of plain components, prec_plain_path__ok()), KIND kind,
 * ID id[0, id_len). Its bytes come from fd (a regular file opened for
 * reading, st its fstat), hard-linked when it lies on the cache's file
 * system and has no set-id bit, else copied (by copy_file_range, so a
 * reflink where the file system has them); or, fd < 0, from mem[0, len).
 * A copy is mode 0755 or 0644 as the file's execute bit says when others
 * may read it, 0700/0600 when not (the cache's group is not the
 * file's), never set-id. A copy that the file's size, mtime or ctime
 * changing during it makes doubtful is dropped. Stops (-ETIMEDOUT, the
 * temporary removed) once *stop is nonzero, checked between chunks.
 * Returns 1 (put), 0 (already there), -ENAMETOOLONG, -EPERM (a directory
 * not the user's, a link where one was made) or -errno. */
int prec_buildid_cache__add(struct prec_buildid_cache *c, const char *name,
			    const char *kind, const uint8_t *id, size_t id_len,
			    int fd, const struct stat *st, const void *mem, size_t len,
			    const int *stop);
/* Whether the entry NAME/ID/KIND is there already (looked up without a
 * link followed or anything made). Returns 1 or 0. */
int prec_buildid_cache__has(const struct prec_buildid_cache *c, const char *name,
			    const char *kind, const uint8_t *id, size_t id_len);
/* Bytes copied so far and entries hard-linked (for the caller's totals). */
uint64_t prec_buildid_cache__copied(const struct prec_buildid_cache *c);
uint32_t prec_buildid_cache__linked(const struct prec_buildid_cache *c);

#endif
