/* SPDX-License-Identifier: MIT */
/* Opening the directory part of a path a user gave as root, one component
 * at a time, following a symbolic link only if another user could not have
 * planted it: the kernel's fs.protected_symlinks rule, applied whatever
 * that sysctl says. */
#ifndef PREC_UTIL_PATH_H
#define PREC_UTIL_PATH_H

/* Open the directory dir (absolute or relative to the working directory)
 * as an O_PATH|O_DIRECTORY descriptor, usable as the dirfd of the *at()
 * calls. Each component is opened O_NOFOLLOW from its parent's descriptor;
 * a symbolic link is followed only if it belongs to the effective user or
 * to the owner of the directory holding it, or if that directory is not
 * writable by others (a link in /tmp from another user is refused, as a
 * link root put in /var is followed). At most 40 links are followed.
 * Returns the fd or -errno: -EPERM with *why "a symbolic link of another
 * user in a directory others can write" (and *bad set to the component's
 * name, which points into a buffer of this function's own and is valid
 * until the next call from this thread), -ELOOP past 40 links,
 * -ENAMETOOLONG, or what openat returned. Never blocks on a FIFO (O_PATH
 * opens nothing). */
int prec_path__open_dir(const char *dir, const char **why, const char **bad);

#endif
