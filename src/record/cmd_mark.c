// SPDX-License-Identifier: MIT
// `prec mark`: write text to the kernel's trace_marker, where a recorder
// with --markers (markers.c) picks it up as an ftrace:print event.
#include "record/record.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "record/tracefs.h"
#include "store/store.h"
#include "util/cli.h"
#include "util/log.h"

#define MARK_MAX_TEXT 4000u  /* one write: trace_marker splits nothing */

/* With -d: the recording there must be running and capturing markers, or
 * the marker would silently go nowhere. */
static int check_recording(const char *dir)
{
	struct prec_manifest *m = NULL;
	const char *why = NULL;
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	bool markers = false;

	if (dfd < 0) {
		pr_err("mark: %s: %s", dir, strerror(errno));
		return -errno;
	}
	err = prec_manifest__read(&m, dfd, &why);
	close(dfd);
	if (err) {
		pr_err("mark: %s/manifest: %s", dir, why ? why : strerror(-err));
		return err;
	}
	for (uint32_t i = 0; i < m->nr_events; i++)
		markers |= m->events[i].name && !strcmp(m->events[i].name, "ftrace:print");
	err = m->state != PREC_STATE_RECORDING ? -ESRCH : markers ? 0 : -ENOENT;
	prec_manifest__delete(m);
	if (err == -ESRCH)
		pr_err("mark: %s: the recording is not running", dir);
	else if (err)
		pr_err("mark: %s: recording without markers (record with --markers)", dir);
	return err;
}

static int join_args(int argc, char **argv, char *text, size_t cap)
{
	size_t len = 0;

	for (int i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + (i > 0) >= cap)
			return -E2BIG;
		if (i > 0)
			text[len++] = ' ';
		memcpy(text + len, argv[i], n);
		len += n;
	}
	text[len] = 0;
	return (int)len;
}

static int write_marker(const char *text, size_t len)
{
	const char *root = prec_tracefs__root();
	char path[256];
	ssize_t n;
	int fd;

	if (!root) {
		pr_err("mark: tracefs is not mounted");
		return -ENODEV;
	}
	snprintf(path, sizeof(path), "%s/trace_marker", root);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		pr_err("mark: %s: %s", path, strerror(errno));
		return -errno;
	}
	/* One write is one marker: the kernel stamps it here, on this CPU.
	 * EBADF only says the top-level buffer is off; the copies to
	 * instances (the recorder's) are made before that check. */
	n = write(fd, text, len);
	if (n < 0 && errno != EBADF) {
		pr_err("mark: %s: %s", path, strerror(errno));
		close(fd);
		return -EIO;
	}
	close(fd);
	return 0;
}

int prec_cmd_mark(int argc, char **argv)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *dir = NULL;
	char text[MARK_MAX_TEXT + 1];
	int c, len;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+d:h", longs, NULL)) != -1) {
		if (c == 'd') {
			dir = optarg;
		} else if (c == 'h') {
			printf("usage: prec mark [-d DIR] TEXT...\n\n"
			       "  -d, --dir DIR   check that the recording in DIR is running with --markers\n"
			       "  -h, --help      this text\n\n"
			       "Writes TEXT to the kernel's trace_marker: 'prec record --markers' records\n"
			       "it as an ftrace:print event on this CPU, at this moment.\n");
			return 0;
		} else {
			prec_cli__bad_option("mark", argv);
			return 2;
		}
	}
	if (optind >= argc) {
		pr_err("mark: no text (usage: prec mark [-d DIR] TEXT...)");
		return 2;
	}
	len = join_args(argc - optind, argv + optind, text, sizeof(text));
	if (len <= 0) {
		pr_err("mark: text empty or longer than %u bytes", MARK_MAX_TEXT);
		return 2;
	}
	if (dir && check_recording(dir))
		return 1;
	return write_marker(text, (size_t)len) ? 1 : 0;
}
