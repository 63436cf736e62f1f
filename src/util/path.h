/* SPDX-License-Identifier: MIT */
/* Opening the directory part of a path a user gave as root, one component
 * at a time, following a symbolic link only if another user could not have
 * planted it: stricter than the kernel's fs.protected_symlinks rule (which
 * trusts a directory's owner), applied whatever that sysctl says. */
#ifndef PREC_UTIL_PATH_H
#define PREC_UTIL_PATH_H

/* Open the directory dir (absolute or relative to the working directory)
 * as an O_PATH|O_DIRECTORY descriptor, usable as the dirfd of the *at()
 * calls. Each component is opened O_NOFOLLOW from its parent's descriptor;
 * in a directory that another user may write (theirs, or one whose group
 * or others may write: /tmp), a symbolic link is followed only if it
 * belongs to root or to the effective user and has one name (a link in
 * /tmp or in ~user from that user is refused, as a link root put in /var
 * is followed). At most 40 links are followed. Returns the fd or -errno:
 * -EPERM with *why saying which of the two (and *bad set to the
 * component's name, which points into a buffer of this function's own and
 * is valid until the next call from this thread), -ELOOP past 40 links,
 * -ENAMETOOLONG, or what openat returned. Never blocks on a FIFO (O_PATH
 * opens nothing). */
int prec_path__open_dir(const char *dir, const char **why, const char **bad);

#endif
