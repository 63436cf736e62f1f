// SPDX-License-Identifier: MIT
// The readers' check of a recording's owner (docs/security.md, "Reading a
// recording").
#include "read/owner.h"
#include "store/store.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool trusted(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

int prec_owner__check(const char *cmd, const char *dir, int dirfd, bool force)
{
	struct passwd pw, *p = NULL;
	const char *what = "directory";
	struct stat st;
	char buf[1024];

	if (force)
		return 0;
	if (fstat(dirfd, &st)) {
		int err = -errno;

		pr_err("%s %s: %s", cmd, dir, strerror(-err));
		return err;
	}
	/* others who may write it could put any file there, or swap the
	 * manifest after the look below */
	if (trusted(st.st_uid) && (st.st_mode & (S_IWGRP | S_IWOTH))) {
		pr_err("%s %s: its directory may be written by other users (mode %04o): not read (-f to read it anyway)",
		       cmd, dir, (unsigned int)(st.st_mode & 07777));
		return -EPERM;
	}
	if (trusted(st.st_uid)) {
		what = "manifest";
		/* the link or FIFO a manifest must not be is the reader's to refuse */
		if (fstatat(dirfd, PREC_MANIFEST_NAME, &st, AT_SYMLINK_NOFOLLOW) ||
		    trusted(st.st_uid))
			return 0;
	}
	if (getpwuid_r(st.st_uid, &pw, buf, sizeof(buf), &p))
		p = NULL;
	pr_err("%s %s: its %s belongs to %s (uid %u), not to root or you: not read (-f to read it anyway)",
	       cmd, dir, what, p ? p->pw_name : "another user", (unsigned int)st.st_uid);
	return -EPERM;
}
