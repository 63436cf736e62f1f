// SPDX-License-Identifier: MIT
// --switch-output's epochs: one directory per epoch under the recording's
// directory, made in order, and the oldest removed by descriptor once more
// than --switch-max-files exist.
#include "record/epochs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/dirtree.h"
#include "util/log.h"

/* An epoch still on disk: its number and the directory made for it. */
struct epoch {
	uint32_t n;
	dev_t dev;
	ino_t ino;
};

struct prec_epochs {
	int topfd;
	uint32_t keep, made;
	struct epoch *live;     /* oldest first */
	uint32_t nr, cap;
};

int prec_epochs__new(struct prec_epochs **out, int topfd, uint32_t keep)
{
	struct prec_epochs *e = calloc(1, sizeof(*e));

	*out = e;
	if (!e)
		return -ENOMEM;
	e->topfd = topfd;
	e->keep = keep;
	return 0;
}

static int note(struct prec_epochs *e, uint32_t n, const struct stat *st)
{
	struct epoch *l;

	if (e->nr == e->cap) {
		uint32_t cap = e->cap ? 2 * e->cap : 16;

		l = realloc(e->live, cap * sizeof(*l));
		if (!l)
			return -ENOMEM;
		e->live = l;
		e->cap = cap;
	}
	e->live[e->nr++] = (struct epoch){ .n = n, .dev = st->st_dev, .ino = st->st_ino };
	return 0;
}

int prec_epochs__make(struct prec_epochs *e, char *name, size_t len)
{
	uint32_t n = e->made + 1;
	struct stat st;
	int fd, err;

	snprintf(name, len, PREC_EPOCH_FMT, n);
	if (mkdirat(e->topfd, name, 0700))
		return -errno;
	e->made = n;
	/* Our own 0700 directory holds it: no one else can swap it, but
	 * the descriptor is what the epoch is written through all the same. */
	fd = openat(e->topfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = fd < 0 ? -errno : fstat(fd, &st) ? -errno : note(e, n, &st);
	if (!err)
		return fd;
	if (fd >= 0)
		close(fd);
	unlinkat(e->topfd, name, AT_REMOVEDIR); /* empty, and ours */
	return err;
}

static int remove_one(struct prec_epochs *e, const struct epoch *ep)
{
	char name[32];

	snprintf(name, sizeof(name), PREC_EPOCH_FMT, ep->n);
	return prec_dirtree__remove(e->topfd, name, ep->dev, ep->ino);
}

int prec_epochs__drop_newest(struct prec_epochs *e)
{
	if (!e->nr || e->live[e->nr - 1].n != e->made)
		return 0;
	e->nr--;
	return remove_one(e, &e->live[e->nr]);
}

int prec_epochs__prune(struct prec_epochs *e, const char *top)
{
	uint32_t drop, i;
	int err;

	if (!e->keep || e->nr <= e->keep)
		return 0;
	drop = e->nr - e->keep;
	for (i = 0; i < drop; i++) {
		err = remove_one(e, &e->live[i]);
		if (err)
			pr_warn("%s/" PREC_EPOCH_FMT ": removing it (--switch-max-files %u): %s",
				top, e->live[i].n, e->keep, strerror(-err));
	}
	memmove(e->live, e->live + drop, (e->nr - drop) * sizeof(*e->live));
	e->nr -= drop;
	return (int)drop;
}

uint32_t prec_epochs__count(const struct prec_epochs *e)
{
	return e ? e->made : 0;
}

void prec_epochs__delete(struct prec_epochs *e)
{
	if (!e)
		return;
	free(e->live);
	free(e);
}
