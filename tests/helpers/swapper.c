// SPDX-License-Identifier: MIT
// Test helper, the attacker of tests/e2e/attack_dirs.sh: wait on inotify
// for a sequence of events in a watched directory (what root's removal or
// mkdir does there), then swap two names at once with renameat2
// RENAME_EXCHANGE (a directory of the tree and a symlink to a victim).
// Usage: swapper [-t SECS] [-v] WATCH EVENT[:NAME]... -- A B
//   EVENT: create, delete, open, access, moved_from, moved_to; NAME, if
//   given, must be the event's name. The events must come in that order
//   (others in between are ignored). A's and B's parent directories are
//   opened at the start, so they are still found after a rename above.
// -T BYTES: instead of the swap, truncate A to BYTES (B is not used: give
// -), as a user does to the file root's prec archive is copying
// (tests/e2e/attack_archive.sh).
// Prints "ready" once the watch is set, then "swapped" (exit 0) or why not
// (exit 1; 2 for a usage error). -v prints every event seen on stderr.
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

struct want {
	uint32_t mask;
	const char *name;
};

static const struct {
	const char *s;
	uint32_t mask;
} kinds[] = {
	{ "create", IN_CREATE },	{ "delete", IN_DELETE },
	{ "open", IN_OPEN },		{ "access", IN_ACCESS },
	{ "moved_from", IN_MOVED_FROM }, { "moved_to", IN_MOVED_TO },
};

static int parse_want(char *arg, struct want *w)
{
	char *colon = strchr(arg, ':');

	if (colon)
		*colon = '\0';
	w->name = colon ? colon + 1 : NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(arg, kinds[i].s)) {
			w->mask = kinds[i].mask;
			return 0;
		}
	fprintf(stderr, "swapper: unknown event '%s'\n", arg);
	return -1;
}

/* The parent of path, opened, and its last component in *base. */
static int open_parent(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	int fd;

	*base = slash ? slash + 1 : path;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) ? (int)(slash - path) : 1, path);
	fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "swapper: %s: %s\n", dir, strerror(errno));
	return fd;
}

static bool matches(const struct inotify_event *ev, const struct want *w)
{
	return (ev->mask & w->mask) && (!w->name || (ev->len && !strcmp(ev->name, w->name)));
}

int main(int argc, char **argv)
{
	struct want wants[16];
	int nr = 0, at = 0, ifd, afd, bfd, timeout_s = 60, opt;
	uint32_t all = 0;
	bool verbose = false;
	long long trunc_to = -1;
	const char *abase, *bbase;
	char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));

	while ((opt = getopt(argc, argv, "+t:vT:")) != -1) {
		if (opt == 't')
			timeout_s = atoi(optarg);
		else if (opt == 'T')
			trunc_to = atoll(optarg);
		else if (opt == 'v')
			verbose = true;
		else
			return 2;
	}
	if (argc - optind < 5)
		goto usage;
	for (int i = optind + 1; i < argc && strcmp(argv[i], "--"); i++) {
		if (nr == 16 || parse_want(argv[i], &wants[nr++]))
			return 2;
	}
	if (!nr || optind + 1 + nr + 3 != argc || strcmp(argv[optind + 1 + nr], "--"))
		goto usage;
	afd = open_parent(argv[argc - 2], &abase);
	bfd = open_parent(argv[argc - 1], &bbase);
	ifd = inotify_init1(IN_CLOEXEC);
	if (afd < 0 || bfd < 0 || ifd < 0)
		return 1;
	for (int i = 0; i < nr; i++)
		all |= wants[i].mask;
	if (inotify_add_watch(ifd, argv[optind], all) < 0) {
		fprintf(stderr, "swapper: watching %s: %s\n", argv[optind], strerror(errno));
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (at < nr) {
		struct pollfd p = { .fd = ifd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, timeout_s * 1000) <= 0) {
			printf("no swap: event %d of %d not seen in %d s\n", at + 1, nr, timeout_s);
			return 1;
		}
		n = read(ifd, buf, sizeof(buf));
		if (n <= 0)
			return 1;
		for (char *q = buf; q < buf + n && at < nr;) {
			const struct inotify_event *ev = (const struct inotify_event *)q;

			if (verbose)
				fprintf(stderr, "swapper: event %#x %s\n", ev->mask, ev->len ? ev->name : "");
			if (matches(ev, &wants[at]))
				at++;
			q += sizeof(*ev) + ev->len;
		}
	}
	if (trunc_to >= 0) {
		int fd = openat(afd, abase, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);

		if (fd < 0 || ftruncate(fd, (off_t)trunc_to)) {
			printf("no truncation of %s: %s\n", argv[argc - 2], strerror(errno));
			return 1;
		}
		close(fd);
	} else if (renameat2(afd, abase, bfd, bbase, RENAME_EXCHANGE)) {
		printf("no swap: exchanging %s and %s: %s\n", argv[argc - 2], argv[argc - 1],
		       strerror(errno));
		return 1;
	}
	printf("swapped\n");
	return 0;
usage:
	fprintf(stderr, "usage: swapper [-t SECS] [-v] [-T BYTES] WATCH EVENT[:NAME]... -- A B\n");
	return 2;
}
