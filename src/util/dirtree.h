/* SPDX-License-Identifier: MIT */
/* Removing a directory tree by descriptor, never through a symlink: safe as
 * root on a tree that other users can write into while it is removed. */
#ifndef PREC_UTIL_DIRTREE_H
#define PREC_UTIL_DIRTREE_H

#include <sys/types.h>

/* Directories deeper than this below the top are left in place (-ELOOP). */
#define PREC_DIRTREE_MAX_DEPTH 32

/* Remove dirfd/name and everything below it. name must still be the file
 * of device dev and inode ino (from an fstat of it taken when it was
 * known to be the right one), else nothing is removed (-ESTALE). A
 * non-directory is unlinked (a symlink itself, never its target). A
 * directory is walked by descriptor: each subdirectory is opened with
 * openat(O_NOFOLLOW|O_DIRECTORY) relative to its parent's descriptor and
 * checked to be the inode that was listed, every name is unlinked with
 * unlinkat relative to its directory's descriptor, and no path is ever
 * built: a subdirectory swapped for a symlink mid-walk is unlinked as a
 * link, and the walk stays in the directories it opened. Subdirectories on
 * another device than the top (a mount) or deeper than
 * PREC_DIRTREE_MAX_DEPTH are not entered. Removes what it can and returns
 * 0, or the first -errno of the last attempt (-EXDEV, -ELOOP, -EAGAIN when
 * the tree kept changing under the walk, or the failed call's). May block
 * on the file system; any thread. */
int prec_dirtree__remove(int dirfd, const char *name, dev_t dev, ino_t ino);

#endif
