/* SPDX-License-Identifier: MIT */
/* File access as another user (fs_creds.c): root's calling thread takes a
 * user's file-system identity (fsuid, fsgid, supplementary groups), so
 * that the kernel itself (modes, ACLs, every directory's search right)
 * decides what that user could open, then takes its own back. */
#ifndef PREC_UTIL_FS_CREDS_H
#define PREC_UTIL_FS_CREDS_H

#include <stdbool.h>
#include <sys/types.h>

struct prec_fs_creds {
	uid_t uid;
	gid_t gid;
	int nr_groups, nr_own;
	gid_t *groups;         /* uid's groups (its passwd entry's, else gid) */
	gid_t *own;            /* the caller's, to take back */
	bool taken;
};

/* The identity of uid (primary group gid when uid has no passwd entry).
 * Returns 0 or -ENOMEM. */
int prec_fs_creds__init(struct prec_fs_creds *c, uid_t uid, gid_t gid);
/* Frees c's lists (after restore). */
void prec_fs_creds__exit(struct prec_fs_creds *c);
/* The calling thread (only it: raw system calls, not glibc's wrappers
 * that change every thread) takes c's identity for file access. Needs
 * CAP_SETUID and CAP_SETGID. Returns 0 or -EPERM (nothing changed). */
int prec_fs_creds__take(struct prec_fs_creds *c);
/* Back to the caller's own identity. Returns 0 or -EPERM. */
int prec_fs_creds__restore(struct prec_fs_creds *c);

#endif
