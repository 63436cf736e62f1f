// SPDX-License-Identifier: MIT
// The recorder's lock on its recording directory: held for as long as a
// recorder writes there, so a reader following the recording can tell a
// recorder still running from one that died (docs/format.md, "Liveness").
#include "store/store.h"

#include <errno.h>
#include <sys/file.h>

int prec_writer_lock__take(int dirfd)
{
	return flock(dirfd, LOCK_EX | LOCK_NB) ? -errno : 0;
}

int prec_writer_lock__held(int dirfd)
{
	if (!flock(dirfd, LOCK_SH | LOCK_NB)) {
		flock(dirfd, LOCK_UN);
		return 0;
	}
	return errno == EWOULDBLOCK ? 1 : -errno;
}
