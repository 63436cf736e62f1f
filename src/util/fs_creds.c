// SPDX-License-Identifier: MIT
// File access as another user: a thread's fsuid, fsgid and groups set by
// raw system calls (glibc's setgroups would change every thread), checked
// after each change (setfsuid and setfsgid say nothing when they fail).
#include "util/fs_creds.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int prec_fs_creds__init(struct prec_fs_creds *c, uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	int n = 64;

	*c = (struct prec_fs_creds){ .uid = uid, .gid = pw ? pw->pw_gid : gid };
	c->nr_own = getgroups(0, NULL);
	c->own = calloc((size_t)(c->nr_own > 0 ? c->nr_own : 1), sizeof(gid_t));
	if (!c->own || c->nr_own < 0 || getgroups(c->nr_own, c->own) != c->nr_own)
		goto fail;
	for (;;) {
		c->groups = calloc((size_t)n, sizeof(gid_t));
		if (!c->groups)
			goto fail;
		c->nr_groups = n;
		if (!pw) {
			c->groups[0] = c->gid;
			c->nr_groups = 1;
			return 0;
		}
		if (getgrouplist(pw->pw_name, c->gid, c->groups, &c->nr_groups) >= 0)
			return 0;
		free(c->groups);
		c->groups = NULL;
		if (c->nr_groups <= n || c->nr_groups > 65536)
			goto fail;
		n = c->nr_groups;
	}
fail:
	prec_fs_creds__exit(c);
	return -ENOMEM;
}

void prec_fs_creds__exit(struct prec_fs_creds *c)
{
	free(c->groups);
	free(c->own);
	c->groups = c->own = NULL;
}

/* This thread's groups, fsgid and fsuid; each checked as set. */
static int set(uid_t uid, gid_t gid, int nr, const gid_t *groups)
{
	if (syscall(SYS_setgroups, (size_t)nr, groups) < 0)
		return -EPERM;
	syscall(SYS_setfsgid, gid);
	if ((gid_t)syscall(SYS_setfsgid, (gid_t)-1) != gid)
		return -EPERM;
	syscall(SYS_setfsuid, uid);
	if ((uid_t)syscall(SYS_setfsuid, (uid_t)-1) != uid)
		return -EPERM;
	return 0;
}

int prec_fs_creds__take(struct prec_fs_creds *c)
{
	int err = set(c->uid, c->gid, c->nr_groups, c->groups);

	if (err)
		prec_fs_creds__restore(c);
	else
		c->taken = true;
	return err;
}

int prec_fs_creds__restore(struct prec_fs_creds *c)
{
	c->taken = false;
	return set(geteuid(), getegid(), c->nr_own, c->own);
}
