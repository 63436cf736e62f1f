// SPDX-License-Identifier: MIT
// perf record's -o FILE and -o -: the recording is made in a directory
// as always, and `prec merge` (this binary, in a child: the record layer
// never calls the read layer) turns it into the perf.data perf's users
// expect, at the end or while it runs.
//
// -o FILE records into the directory FILE.prec exactly as -d would; at the
// end, once the final manifest is on disk, an existing FILE that is not
// empty moves to FILE.old (as perf; a device or FIFO such as /dev/null is
// written into, its shards kept under $TMPDIR, never beside it in /dev), and
// `prec merge FILE.prec -o FILE` (-zN for perf's -z) runs as a child; only
// after it exits 0 is FILE.prec removed (by descriptor, checked to be the
// directory this run made), else it stays and the retry command is named.
// With --timestamp-filename the merge makes FILE.<time of the end> instead,
// as perf's, and no FILE moves to FILE.old. -o - starts `prec merge
// --follow` on a directory under $TMPDIR as soon as the
// start manifest exists, the child's stdout being the stream (through a pipe
// and a copier child when stdout is a regular file, which --follow refuses)
// while prec's and the command's stdout go to stderr. The merge runs with
// none of the recorder's threads or memory, and a crash before it leaves a
// directory `prec merge` takes by hand.
//
// --switch-output with -o FILE (or perf.data by default), as perf: FILE.prec
// holds the epochs, and each, once closed, is merged into FILE.<timestamp>
// by the main thread right after its cut (the drainers are already in the
// next epoch) and removed; FILE itself is never written. perf counts its
// files for --switch-max-files, so prec counts the files here, not the
// epochs, and an epoch kept after a failed merge is never pruned.
#include "record/file_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/dirtree.h"
#include "util/log.h"
#include "util/path.h"

static char *str_cat(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

/* The shards of -o - or -o DEVICE: in a directory of their own under
 * $TMPDIR (else /var/tmp), removed after the merge. */
static int shards_in_tmp(struct prec_file_output *fo, struct prec_record_opts *o)
{
	const char *base = getenv("TMPDIR");

	fo->tmpdir = str_cat(base && *base == '/' ? base : "/var/tmp", "/prec-stream.XXXXXX");
	if (!fo->tmpdir || !mkdtemp(fo->tmpdir)) {
		int err = fo->tmpdir ? -errno : -ENOMEM;

		pr_err("option -o %s: a directory for the shards in %s: %s",
		       fo->stream ? "-" : fo->file,
		       base && *base == '/' ? base : "/var/tmp", strerror(-err));
		free(fo->tmpdir);
		fo->tmpdir = NULL;
		return err;
	}
	fo->dir = str_cat(fo->tmpdir, "/rec");
	if (!fo->dir)
		return -ENOMEM;
	o->dir = fo->dir;
	return 0;
}

static int check_old(const char *file);

int prec_file_output__init(struct prec_file_output *fo, struct prec_record_opts *o)
{
	struct stat st;
	int err;

	*fo = (struct prec_file_output){ .stream_fd = -1, .follower = -1, .copier = -1 };
	if (!o->output)
		return 0;
	if (strcmp(o->output, "-")) {
		fo->file = o->output;
		/* A device or FIFO (-o /dev/null): written into as perf does,
		 * never replaced, and nothing made beside it (in /dev). */
		fo->device = !stat(o->output, &st) && !S_ISREG(st.st_mode) &&
			     !S_ISDIR(st.st_mode);
		if (fo->device && o->switch_output) {
			pr_err("option -o %s: --switch-output writes FILE.<timestamp> files; not beside a device or FIFO",
			       o->output);
			return -EINVAL;
		}
		if (fo->device)
			return shards_in_tmp(fo, o);
		/* FILE itself is not written: no FILE.old to move into */
		if (!o->timestamp_filename && !o->switch_output) {
			err = check_old(o->output);
			if (err)
				return err;
		}
		fo->dir = str_cat(o->output, PREC_FILE_OUTPUT_DIR_SUFFIX);
		if (!fo->dir)
			return -ENOMEM;
		o->dir = fo->dir;
		return 0;
	}
	/* perf streams until the first switch, then fails ("Failed to
	 * switch to new file"): the pipe has no file to switch. Said now. */
	if (o->switch_output) {
		if (o->output_piped)
			pr_err("option --switch-output: stdout is a pipe, which gets perf's pipe format without -o (as perf's); that format has no file to switch (perf fails at the first switch): give -o FILE");
		else
			pr_err("option -o -: --switch-output writes a file per switch; the pipe format has none (perf fails at the first switch)");
		return -EINVAL;
	}
	fo->stream = true;
	err = shards_in_tmp(fo, o);
	if (err)
		return err;
	/* The stream keeps stdout; the command and prec write to stderr. */
	fo->stream_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	if (fo->stream_fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
		err = -errno;
		pr_err("option -o -: keeping stdout for the stream: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* prec itself, argv[0] "prec", with out_fd as its stdout (-1: ours). The
 * signals the recorder blocks for its signalfd are unblocked; ^C ignored:
 * the terminal's ^C ends the recording, and the follower or the merge goes
 * on to its end. */
static pid_t spawn_self(char *const argv[], int out_fd)
{
	sigset_t none;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid)
		return pid;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL); /* the recorder ignores it */
	signal(SIGINT, SIG_IGN);
	if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
		_exit(127);
	execv("/proc/self/exe", argv);
	_exit(127);
}

/* A child copying from in to out until in's end, ^C ignored as the
 * follower's; async-signal-safe calls only (the recorder has threads). */
static pid_t spawn_copier(int in, int out, int other_end)
{
	pid_t pid = fork();
	char buf[65536];

	if (pid)
		return pid < 0 ? -errno : pid;
	close(other_end); /* else in never ends */
	signal(SIGINT, SIG_IGN);
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf)), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(n < 0);
		while (w < n) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				_exit(1);
			w += k;
		}
	}
}

/* The exit status of child pid, or -errno. */
static int wait_child(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int prec_file_output__start(struct prec_file_output *fo, const struct prec_record_opts *o,
			    int dirfd)
{
	char *argv[] = { "prec", "merge", "--follow", fo->dir, NULL, NULL, NULL }, level[16];
	struct stat st;
	int out, p[2], n = 4;

	if (!fo->dir)
		return 0;
	/* --switch-output: dirfd is the first epoch's; what is removed at
	 * the end is the directory holding the epochs */
	if (o->switch_output) {
		int top = openat(dirfd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;

		err = top < 0 || fstat(top, &st) < 0 ? -errno : 0;
		if (top >= 0)
			close(top);
		if (err)
			return err;
	} else if (fstat(dirfd, &st) < 0) {
		return -errno;
	}
	fo->dev = st.st_dev;
	fo->ino = st.st_ino;
	fo->made = true;
	if (!fo->stream)
		return 0;
	if (o->compress) { /* perf's -zN, whose pipe output has it too */
		snprintf(level, sizeof(level), "-z%d", prec_record_opts__zstd_level(o));
		argv[n++] = level;
	}
	if (o->quiet) /* no summary from the merge either */
		argv[n++] = "-q";
	out = fo->stream_fd;
	/* perf record -o - > FILE writes the pipe format into FILE; merge
	 * --follow refuses a regular file, so it gets a pipe, copied on. */
	if (fstat(fo->stream_fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if (pipe2(p, O_CLOEXEC) < 0)
			return -errno;
		fo->copier = spawn_copier(p[0], fo->stream_fd, p[1]);
		out = p[1];
	}
	fo->follower = spawn_self(argv, out);
	if (out != fo->stream_fd) {
		close(p[0]);
		close(p[1]);
	}
	if (fo->follower < 0) {
		int err = fo->follower;

		pr_err("option -o -: starting the stream: %s", strerror(-err));
		fo->follower = -1;
		return err;
	}
	return 0;
}

/* FILE, or FILE.<time> as perf's --timestamp-filename names it: the
 * local time to the hundredth of a second. A name this run made is not
 * made again: two switches in one hundredth would make the second file's
 * name the first's, which perf then writes over; prec names it after the
 * next hundredth, so the names stay in the switches' order. */
static char *out_name(struct prec_file_output *fo, const char *file, bool timestamp)
{
	char stamp[32], dt[24];
	struct timeval tv;
	uint64_t h;
	time_t sec;
	struct tm tm;

	if (!timestamp)
		return strdup(file);
	gettimeofday(&tv, NULL);
	h = (uint64_t)tv.tv_sec * 100 + (uint64_t)tv.tv_usec / 10000;
	if (h <= fo->last_stamp)
		h = fo->last_stamp + 1;
	fo->last_stamp = h;
	sec = (time_t)(h / 100);
	localtime_r(&sec, &tm);
	strftime(dt, sizeof(dt), "%Y%m%d%H%M%S", &tm);
	snprintf(stamp, sizeof(stamp), ".%s%02u", dt, (unsigned)(h % 100));
	return str_cat(file, stamp);
}

/* name in dfd as a directory stream, never through a link; NULL with
 * errno when it is none. */
static DIR *open_dir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d && fd >= 0) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return d;
}

/* Whether name (in dfd) is a directory of files alone (no directory,
 * link or other); the first other entry into stranger as name/ENTRY. */
static bool perf_data_dir_files(int dfd, const char *name, char *stranger, size_t len)
{
	DIR *d = open_dir(dfd, name);
	struct dirent *de;
	struct stat st;
	bool ok = d != NULL;

	while (ok && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode)) {
			snprintf(stranger, len, "%s/%s", name, de->d_name);
			ok = false;
		}
	}
	if (d)
		closedir(d);
	return ok;
}

/* Whether name (in dfd) is a directory only perf's own files are in, as
 * perf decides before it removes a FILE.old: data and data.N (its
 * directory layout), and kcore_dir holding files alone (--kcore). The
 * first other entry is copied into stranger (its name, or kcore_dir/NAME).
 * A directory of anything else is the user's: neither perf nor prec
 * removes it. */
static bool perf_data_dir(int dfd, const char *name, char *stranger, size_t len)
{
	DIR *d = open_dir(dfd, name);
	struct dirent *de;
	bool ok = d != NULL;

	snprintf(stranger, len, "%s", d ? "" : strerror(errno));
	while (ok && (de = readdir(d))) {
		const char *n = de->d_name;

		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "data") ||
		    !strncmp(n, "data.", 5))
			continue;
		if (!strcmp(n, "kcore_dir") &&
		    perf_data_dir_files(dirfd(d), n, stranger, len))
			continue;
		if (!stranger[0])
			snprintf(stranger, len, "%s", n);
		ok = false;
	}
	if (d)
		closedir(d);
	return ok;
}

/* FILE.old in the way of the rename: a file the rename replaces, a
 * directory removed (its tree by descriptor) when perf's own, then the
 * rename again. */
static int replace_old(int dfd, const char *base, const char *old)
{
	char stranger[2 * NAME_MAX + 2];
	struct stat st;
	int err = -errno;

	if (err != -ENOTEMPTY && err != -EEXIST && err != -EISDIR && err != -ENOTDIR)
		return err;
	if (fstatat(dfd, old, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return err;
	if (S_ISDIR(st.st_mode) && !perf_data_dir(dfd, old, stranger, sizeof(stranger))) {
		pr_err("option -o: %s is a directory of other files than perf's data (%s): not removed, as perf; move it away",
		       old, stranger);
		return -ENOTEMPTY;
	}
	err = prec_dirtree__remove(dfd, old, st.st_dev, st.st_ino);
	if (!err && renameat(dfd, base, dfd, old) < 0)
		err = -errno;
	return err;
}

/* FILE's directory opened as util/path.h opens one; *base: FILE's name in
 * it. Returns the descriptor or -errno after one line. */
static int open_parent(const char *file, const char **base)
{
	const char *slash = strrchr(file, '/'), *why = NULL, *bad = NULL;
	char *dir;
	int dfd;

	*base = slash ? slash + 1 : file;
	dir = slash ? strndup(file, (size_t)(slash - file) + (slash == file)) : strdup(".");
	if (!dir)
		return -ENOMEM;
	dfd = prec_path__open_dir(dir, &why, &bad);
	free(dir);
	if (dfd < 0)
		pr_err("option -o '%s': its directory: %s%s%s", file,
		       why ? why : strerror(-dfd), bad ? ": " : "", bad ? bad : "");
	return dfd;
}

/* Before recording, as perf checks: when FILE is there and not empty and
 * FILE.old is a directory of other files than perf's, the move at the end
 * could not be made: refused now, not after the recording. */
static int check_old(const char *file)
{
	char stranger[2 * NAME_MAX + 2], *old;
	const char *base;
	struct stat st;
	int dfd = open_parent(file, &base), err = 0;

	if (dfd < 0)
		return dfd;
	old = str_cat(base, ".old");
	if (!old)
		err = -ENOMEM;
	else if (!fstatat(dfd, base, &st, 0) && st.st_size &&
		 !fstatat(dfd, old, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode) &&
		 !perf_data_dir(dfd, old, stranger, sizeof(stranger))) {
		pr_err("option -o '%s': %s.old is a directory of other files than perf's data (%s): it would not be removed to make room, as perf's; move it away",
		       file, file, stranger);
		err = -ENOTEMPTY;
	}
	free(old);
	close(dfd);
	return err;
}

/* As perf: FILE already there and not empty becomes FILE.old (the one
 * before is replaced: a file, or a directory of perf's own, the layout of
 * a --kcore recording), in FILE's directory opened as util/path.h opens
 * one; an empty one is replaced. (A device or FIFO never gets here.) */
static int move_old(const char *file)
{
	const char *base;
	struct stat st;
	char *old;
	int dfd = open_parent(file, &base), err = 0;

	if (dfd < 0)
		return dfd;
	/* Its size as perf reads it (through a symlink, which is what is
	 * renamed); the rename moves the name, whatever it is by then. */
	if (fstatat(dfd, base, &st, 0) == 0 && st.st_size) {
		old = str_cat(base, ".old");
		if (!old)
			err = -ENOMEM;
		else if (renameat(dfd, base, dfd, old) < 0)
			err = replace_old(dfd, base, old);
		if (err)
			pr_err("option -o '%s': moving it to %s.old: %s", file, file, strerror(-err));
		free(old);
	} else if (!fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode) &&
		   !st.st_size && unlinkat(dfd, base, 0)) {
		/* perf writes over an empty one: prec merge makes it anew */
		err = -errno;
		pr_err("option -o '%s': replacing the empty file: %s", file, strerror(-err));
	}
	close(dfd);
	return err;
}

/* `prec merge dir -o name` in a child; quiet: no summary line (each
 * --switch-output file has perf's Dump line instead). Returns its exit
 * status or -errno. Blocks for the merge. ^C ignored, as perf writes its
 * file to the end whatever ^C comes: the one that stops the recording
 * reaches an epoch's merge too, and an impatient second one the last. */
static int run_merge(const struct prec_record_opts *o, const char *dir, const char *name,
		     bool quiet)
{
	char level[16], *argv[] = { "prec", "merge", (char *)dir, "-o", (char *)name,
				    NULL, NULL, NULL };
	int n = 5;
	pid_t pid;

	if (o->compress) {
		snprintf(level, sizeof(level), "-z%d", prec_record_opts__zstd_level(o));
		argv[n++] = level;
	}
	if (quiet)
		argv[n++] = "-q";
	pid = spawn_self(argv, -1);
	return pid < 0 ? pid : wait_child(pid);
}

static int merge_into_file(struct prec_file_output *fo, const struct prec_record_opts *o)
{
	char *name = out_name(fo, fo->file, o->timestamp_filename);
	int rc;

	if (!name)
		return -ENOMEM;
	rc = o->timestamp_filename || fo->device ? 0 : move_old(name);
	/* -q: no summary from the merge either */
	if (!rc)
		rc = run_merge(o, fo->dir, name, o->quiet);
	if (rc)
		pr_err("-o %s: merging %s failed (%s): the recording is kept there; `prec merge %s -o %s` retries",
		       name, fo->dir, rc < 0 ? strerror(-rc) : "prec merge's error above",
		       fo->dir, name);
	free(name);
	return rc;
}

static void remove_dir(struct prec_file_output *fo)
{
	const char *slash, *base, *why = NULL, *bad = NULL;
	char *parent;
	int dfd, err;

	/* -o - and -o DEVICE: the directory made for them, rec inside */
	const char *top = fo->tmpdir ? fo->tmpdir : fo->dir;

	slash = strrchr(top, '/');
	base = slash ? slash + 1 : top;
	parent = slash ? strndup(top, (size_t)(slash - top) + (slash == top)) : strdup(".");
	if (!parent)
		return;
	dfd = prec_path__open_dir(parent, &why, &bad);
	free(parent);
	if (dfd < 0)
		return;
	if (fo->tmpdir) {
		struct stat st;

		err = fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) ? -errno :
		      prec_dirtree__remove(dfd, base, st.st_dev, st.st_ino);
	} else {
		err = prec_dirtree__remove(dfd, base, fo->dev, fo->ino);
	}
	if (err)
		pr_warn("%s: removing the shards after the merge: %s", top, strerror(-err));
	close(dfd);
}

/* --switch-max-files N: as perf, the oldest of the files written is
 * removed once there are more than N. */
static void keep_newest(struct prec_file_output *fo, const struct prec_record_opts *o,
			char *name)
{
	const char *base;
	char *oldest;
	int dfd;

	if (!o->switch_max_files) {
		free(name);
		return;
	}
	if (fo->nr_files < o->switch_max_files) {
		if (fo->nr_files == fo->cap_files) {
			/* doubled, at most the number kept: one growth a
			 * switch at most, never per record */
			uint32_t cap = fo->cap_files ? fo->cap_files * 2 : 16;
			char **files;

			if (cap > o->switch_max_files || cap < fo->cap_files)
				cap = o->switch_max_files;
			files = realloc(fo->files, cap * sizeof(*files));
			if (!files) {
				pr_warn("%s: not counted for --switch-max-files %u (no memory): it is kept",
					name, o->switch_max_files);
				free(name);
				return;
			}
			fo->files = files;
			fo->cap_files = cap;
		}
		fo->files[fo->nr_files++] = name;
		return;
	}
	oldest = fo->files[0];
	memmove(fo->files, fo->files + 1, (fo->nr_files - 1) * sizeof(*fo->files));
	fo->files[fo->nr_files - 1] = name;
	dfd = open_parent(oldest, &base);
	if (dfd >= 0 && unlinkat(dfd, base, 0) && errno != ENOENT)
		pr_warn("%s: removing it (--switch-max-files %u): %s", oldest,
			o->switch_max_files, strerror(errno));
	if (dfd >= 0)
		close(dfd);
	free(oldest);
}

/* The epoch directory epoch (in fo->dir, made by this run) removed by
 * descriptor. Returns 0 or -errno. */
static int remove_epoch(struct prec_file_output *fo, const char *epoch)
{
	const char *slash = strrchr(epoch, '/'), *why = NULL, *bad = NULL;
	struct stat st;
	int dfd = prec_path__open_dir(fo->dir, &why, &bad), err;

	if (dfd < 0)
		return dfd;
	err = fstatat(dfd, slash ? slash + 1 : epoch, &st, AT_SYMLINK_NOFOLLOW) ? -errno :
	      prec_dirtree__remove(dfd, slash ? slash + 1 : epoch, st.st_dev, st.st_ino);
	close(dfd);
	return err;
}

int prec_file_output__epoch(struct prec_file_output *fo, const struct prec_record_opts *o,
			    const char *epoch)
{
	/* The switch's time, as perf names the file it closes by it. */
	char *name = fo->file ? out_name(fo, fo->file, true) : NULL;
	int rc, err;

	if (!fo->file || !o->switch_output)
		return 0;
	if (!name)
		return -ENOMEM;
	rc = run_merge(o, epoch, name, true);
	if (rc) {
		pr_err("%s: merging it into %s failed (%s): the epoch is kept there; `prec merge %s -o %s` retries",
		       epoch, name, rc < 0 ? strerror(-rc) : "prec merge's error above", epoch, name);
		fo->epoch_failed = true;
		free(name);
		return rc < 0 ? rc : -EIO;
	}
	if (!o->quiet && prec_log__tty_ready(STDERR_FILENO, 200))
		fprintf(stderr, "[ perf record: Dump %s ]\n", name);
	err = o->keep_shards ? 0 : remove_epoch(fo, epoch);
	if (err)
		pr_warn("%s: removing it after its merge: %s", epoch, strerror(-err));
	keep_newest(fo, o, name);
	return 0;
}

int prec_file_output__finish(struct prec_file_output *fo, const struct prec_record_opts *o,
			     bool recorded)
{
	int rc = 0;

	if (!fo->dir)
		return 0;
	if (fo->stream) {
		if (fo->follower > 0) {
			rc = wait_child(fo->follower);
			fo->follower = -1;
		} else {
			rc = fo->follower_rc; /* reaped early, or never started: 0 */
		}
		if (fo->copier > 0) {
			int crc = wait_child(fo->copier);

			fo->copier = -1;
			rc = rc ? rc : crc;
		}
		if (rc)
			pr_err("-o -: the stream ended with an error (prec merge --follow exited %d); the recording is kept in %s",
			       rc, fo->dir);
	} else if (recorded && o->switch_output) {
		/* each epoch merged at its cut, the last one before this */
		rc = fo->epoch_failed;
		if (rc)
			pr_err("-o %s: an epoch could not be merged: kept in %s (named above)",
			       fo->file, fo->dir);
	} else if (recorded) {
		rc = merge_into_file(fo, o);
	}
	if (!rc && fo->made && recorded && !o->keep_shards)
		remove_dir(fo);
	else if (!rc && o->keep_shards)
		pr_info("the recording is kept in %s (--keep-shards)", fo->dir);
	return rc ? 1 : 0;
}

bool prec_file_output__stream_ended(struct prec_file_output *fo, int *sig)
{
	int status;

	*sig = 0;
	if (fo->follower <= 0 || waitpid(fo->follower, &status, WNOHANG) != fo->follower)
		return false;
	fo->follower = -1;
	*sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
	fo->follower_rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + *sig;
	/* an exit 0 before the recording's end is no stream either */
	if (!fo->follower_rc)
		fo->follower_rc = 1;
	return true;
}

void prec_file_output__exit(struct prec_file_output *fo)
{
	if (!fo)
		return;
	if (fo->follower > 0) {
		kill(fo->follower, SIGTERM);
		wait_child(fo->follower);
	}
	if (fo->copier > 0)
		wait_child(fo->copier);
	if (fo->stream_fd >= 0)
		close(fo->stream_fd);
	/* No recording made in it (refused before it began: an unknown
	 * event, a command not found): the directory made for the shards
	 * is empty; each refused `prec record ... | cmd` left one in
	 * $TMPDIR. */
	if (!fo->made && fo->tmpdir)
		rmdir(fo->tmpdir);
	free(fo->dir);
	free(fo->tmpdir);
	for (uint32_t i = 0; i < fo->nr_files; i++)
		free(fo->files[i]);
	free(fo->files);
	*fo = (struct prec_file_output){ .stream_fd = -1, .follower = -1, .copier = -1 };
}
