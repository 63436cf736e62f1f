// SPDX-License-Identifier: MIT
// Where `prec merge` writes: stdout (or a /dev/fd name for one of the fds
// prec was given), a FIFO or device of its own written in place, or a
// regular file (new, or replacing a file or symlink with -f) written as a
// temp file beside it and renamed over the name only once the merge is
// whole. Everything by descriptor: the output's directory is opened once,
// its last component never followed, a special file checked on the inode
// that is then opened.
#include "read/internal.h"
#include "read/kcore_dir.h"
#include "util/dirtree.h"
#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define TEMP_SUFFIX ".prec-XXXXXX"
#define TEMP_TRIES  100

/* A merge stopped by SIGINT, SIGTERM or SIGHUP removes its temp file on the
 * way out (SIGKILL cannot be caught: that one stays, FILE.prec-XXXXXX). The
 * handler only reads this copy of the name and the directory's fd, and
 * unlinkat, sigaction and raise are async-signal-safe. */
static char sig_tmp[NAME_MAX + 1];
static int sig_dirfd = -1;
static volatile sig_atomic_t sig_armed;
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_FATAL (sizeof(fatal_signals) / sizeof(fatal_signals[0]))

static void on_fatal_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	if (sig_armed)
		unlinkat(sig_dirfd, sig_tmp, 0);
	sigaction(sig, &dfl, NULL);
	raise(sig); /* delivered, and fatal, once the handler returns */
}

/* Signals the user set to be ignored (nohup) stay ignored. */
static void arm_signals(int dirfd, const char *tmp)
{
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	if (strlen(tmp) >= sizeof(sig_tmp))
		return;
	memcpy(sig_tmp, tmp, strlen(tmp) + 1);
	sig_dirfd = dirfd;
	sig_armed = 1;
	for (size_t i = 0; i < NR_FATAL; i++) {
		struct sigaction old;

		if (sigaction(fatal_signals[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_DFL)
			sigaction(fatal_signals[i], &sa, NULL);
	}
}

/* The command its messages name, and what it writes: `prec archive` uses
 * this output too (open_as). One output per process, as the signal
 * handler's copy of the temp name. */
static const char *who = "merge", *what_kind = "perf.data";
/* open_layout(): a directory at the name is replaced with -f too. */
static bool dir_layout;

static int fail(const char *name, const char *what, int err)
{
	pr_err("%s %s: %s: %s", who, name, what, strerror(-err));
	return err;
}

static int refuse_existing(const char *name)
{
	pr_err("%s %s: output exists (use -f to overwrite)", who, name);
	return -EEXIST;
}

static const char *kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO: return "a FIFO";
	case S_IFSOCK: return "a socket";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFLNK: return "a symbolic link";
	case S_IFDIR: return "a directory";
	default: return "a special file";
	}
}

/* Another user's FIFO would read the whole recording, their socket or
 * device take its bytes: they may have planted it where we were told to
 * write. */
static int refuse_owner(const char *name, const struct stat *st)
{
	struct passwd *pw = getpwuid(st->st_uid);

	if (pw)
		pr_err("%s %s: %s of user %s (uid %u): refused", who, name,
		       kind(st->st_mode), pw->pw_name, (unsigned)st->st_uid);
	else
		pr_err("%s %s: %s of uid %u: refused", who, name, kind(st->st_mode),
		       (unsigned)st->st_uid);
	return -EPERM;
}

/* The descriptor NAME spells (/dev/stdout, /dev/stderr, /dev/fd/N,
 * /proc/self/fd/N: `-o >(perf script -i -)`), or -1. */
static int spelt_fd(const char *name)
{
	static const char *const dirs[] = { "/dev/fd/", "/proc/self/fd/" };

	if (!strcmp(name, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(name, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		const char *p = name + strlen(dirs[i]);
		long n = 0;

		if (strncmp(name, dirs[i], strlen(dirs[i])) || !*p)
			continue;
		for (; *p >= '0' && *p <= '9' && n < INT_MAX / 10; p++)
			n = n * 10 + (*p - '0');
		if (!*p)
			return (int)n;
	}
	return -1;
}

/* Written through fd n itself, which whoever ran prec opened, once NAME is
 * seen to resolve to that very file (an O_PATH open neither opens a device
 * nor waits on a FIFO). A name that does not is refused, never treated as
 * a symlink to replace. */
static int open_spelt(struct prec_merge_output *o, const char *name, int n)
{
	struct stat want, got;
	int fd = open(name, O_PATH | O_CLOEXEC);
	bool same = fd >= 0 && fstat(fd, &got) == 0 && fstat(n, &want) == 0 &&
		    got.st_dev == want.st_dev && got.st_ino == want.st_ino;

	if (fd >= 0)
		close(fd);
	if (!same) {
		pr_err("%s %s: not the open descriptor %d: refused", who, name, n);
		return -EPERM;
	}
	if (n == STDOUT_FILENO) {
		o->fd = n;
		return 0;
	}
	o->fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
	return o->fd < 0 ? fail(name, "cannot open output", -errno) : 0;
}

/* The output's directory, opened once: every later step is relative to it. */
static int open_dir(struct prec_merge_output *o, const char *name)
{
	const char *slash = strrchr(name, '/');
	const char *why = NULL, *bad = NULL;
	char *dir;

	if (!slash)
		dir = strdup(".");
	else if (slash == name)
		dir = strdup("/");
	else
		dir = strndup(name, (size_t)(slash - name));
	o->base = strdup(slash ? slash + 1 : name);
	if (!dir || !o->base) {
		free(dir);
		return fail(name, "cannot open output", -ENOMEM);
	}
	o->dirfd = prec_path__open_dir(dir, &why, &bad);
	free(dir);
	if (o->dirfd == -EPERM && bad) {
		pr_err("%s %s: %s: %s, not followed", who, name, bad, why);
		return -EPERM;
	}
	return o->dirfd < 0 ? fail(name, "cannot create output", o->dirfd) : 0;
}

/* tmp's trailing XXXXXX made random until a name is free; created 0600,
 * O_EXCL, in dirfd only. Returns the fd or -errno. */
static int create_temp(int dirfd, char *tmp)
{
	char *x = tmp + strlen(tmp) - 6;

	for (int i = 0; i < TEMP_TRIES; i++) {
		int fd;

		if (prec_file__random_name(x, 6))
			return -EAGAIN;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
				       O_NOCTTY | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

/* A regular file's result: BASE.prec-XXXXXX (or .prec-XXXXXX where that
 * would pass NAME_MAX) beside it, renamed over BASE at the end; over
 * whatever BASE is then, the name is replaced, never written through. */
static int open_temp(struct prec_merge_output *o, const char *name)
{
	size_t len = strlen(o->base);
	sigset_t fatal, old;
	int fd;

	if (len + sizeof(TEMP_SUFFIX) - 1 > NAME_MAX)
		len = 0;
	o->tmp = malloc(len + sizeof(TEMP_SUFFIX));
	if (!o->tmp)
		return fail(name, "cannot create output", -ENOMEM);
	memcpy(o->tmp, o->base, len);
	memcpy(o->tmp + len, TEMP_SUFFIX, sizeof(TEMP_SUFFIX));
	/* Blocked from before the file exists until the handlers know its
	 * name: a signal in between would leave it behind. */
	sigemptyset(&fatal);
	for (size_t i = 0; i < NR_FATAL; i++)
		sigaddset(&fatal, fatal_signals[i]);
	sigprocmask(SIG_BLOCK, &fatal, &old);
	fd = create_temp(o->dirfd, o->tmp);
	if (fd >= 0)
		arm_signals(o->dirfd, o->tmp);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return fail(name, "cannot create output", fd);
	}
	o->fd = fd;
	return 0;
}

static bool is_dev_null(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 && minor(st->st_rdev) == 3;
}

/* A FIFO, socket or character device holds nothing -f would guard and is
 * written in place, but only if it is ours (or /dev/null). It is opened
 * through the O_PATH descriptor it was checked on (/proc/self/fd), so what
 * opens is that inode, whatever the name holds by then; a device with
 * O_NONBLOCK (no wait on a carrier), our own FIFO waiting for its reader. */
static int open_special(struct prec_merge_output *o, const char *name, int pathfd,
			const struct stat *st)
{
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC, fl;

	if (st->st_uid != geteuid() && !is_dev_null(st))
		return refuse_owner(name, st);
	if (!S_ISFIFO(st->st_mode))
		flags |= O_NONBLOCK;
	o->fd = prec_file__reopen(pathfd, st, flags);
	if (o->fd == -ESTALE) {
		o->fd = -1;
		pr_err("%s %s: changed while being opened: refused", who, name);
		return -EPERM;
	}
	if (o->fd < 0) {
		int err = o->fd;

		o->fd = -1;
		return fail(name, "cannot open output", err);
	}
	fl = fcntl(o->fd, F_GETFL);
	if ((flags & O_NONBLOCK) && (fl < 0 || fcntl(o->fd, F_SETFL, fl & ~O_NONBLOCK) < 0))
		return fail(name, "cannot open output", -errno);
	return 0;
}

static int open_named(struct prec_merge_output *o, const char *name)
{
	int n = spelt_fd(name), fd, err;
	struct stat st;

	if (n >= 0)
		return open_spelt(o, name, n);
	err = open_dir(o, name);
	if (err)
		return err;
	if (!*o->base)
		return fail(name, "cannot open output", -EISDIR);
	fd = openat(o->dirfd, o->base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)
		return open_temp(o, name);
	if (fd < 0 || fstat(fd, &st) < 0) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return fail(name, "cannot open output", err);
	}
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		err = o->force ? open_temp(o, name) : refuse_existing(name);
		break;
	case S_IFLNK: /* -f replaces the link; its target is never written */
		if (o->force) {
			err = open_temp(o, name);
			break;
		}
		pr_err("%s %s: a symbolic link: refused (-f replaces the link, never its target)",
		       who, name);
		err = -EEXIST;
		break;
	case S_IFDIR:
		if (dir_layout) {
			err = o->force ? open_temp(o, name) : refuse_existing(name);
			break;
		}
		err = fail(name, "cannot open output", -EISDIR);
		break;
	case S_IFBLK:
		pr_err("%s %s: a block device: refused", who, name);
		err = -EPERM;
		break;
	default:
		err = open_special(o, name, fd, &st);
	}
	close(fd);
	return err;
}

/* Whether st is the file dirfd/name (followed as a reader opens it). */
static bool same_file(const struct stat *st, int dirfd, const char *name)
{
	struct stat f;

	return name && fstatat(dirfd, name, &f, 0) == 0 &&
	       f.st_dev == st->st_dev && f.st_ino == st->st_ino;
}

/* Is name one of a recording's own files, or one its recorder makes: the
 * manifest and manifest.* (its temporary, its reserve), any shard
 * (*.shard) and *.shard.* (segment files, carry.shard.tmp), vdso.so? */
static bool recording_name(const char *name)
{
	if (!strcmp(name, PREC_MANIFEST_NAME) || !strcmp(name, PREC_VDSO_NAME) ||
	    !strncmp(name, PREC_MANIFEST_NAME ".", sizeof(PREC_MANIFEST_NAME)))
		return true;
	for (const char *s = strstr(name, ".shard"); s; s = strstr(s + 1, ".shard"))
		if (!s[6] || s[6] == '.')
			return true;
	return false;
}

/* A file of the recording (by recording_name) in dirfd that is st. */
static const char *file_of(int dirfd, const struct stat *st)
{
	static __thread char hit[NAME_MAX + 1];
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	const char *found = NULL;
	struct dirent *e;
	DIR *d = fd < 0 ? NULL : fdopendir(fd);

	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while (!found && (e = readdir(d)))
		if (e->d_ino == st->st_ino && recording_name(e->d_name) &&
		    same_file(st, dirfd, e->d_name)) {
			snprintf(hit, sizeof(hit), "%s", e->d_name);
			found = hit;
		}
	closedir(d);
	return found;
}

/* name's last component, if the directory holding it is dirfd's. */
static const char *base_in(const char *name, int dirfd)
{
	const char *slash = strrchr(name, '/');
	struct stat d, here;
	char *dir;
	int r;

	if (!slash)
		dir = strdup(".");
	else
		dir = strndup(name, slash == name ? 1 : (size_t)(slash - name));
	r = dir ? stat(dir, &here) : -1;
	free(dir);
	if (r < 0 || fstat(dirfd, &d) < 0 || d.st_dev != here.st_dev || d.st_ino != here.st_ino)
		return NULL;
	return slash ? slash + 1 : name;
}

int prec_merge_output__check_target(const char *name, const char *dir, int dirfd,
				    const struct prec_manifest *m)
{
	bool named = name && strcmp(name, "-");
	const char *hit = NULL;
	struct stat st;
	int r;

	/* By inode, so a symlink, a hard link or a path spelt another way
	 * is caught too ... */
	if (named)
		r = stat(name, &st);
	else
		r = fstat(STDOUT_FILENO, &st); /* prec merge DIR >>DIR/cpu000.shard */
	if (r == 0 && S_ISREG(st.st_mode)) {
		if (same_file(&st, dirfd, PREC_MANIFEST_NAME))
			hit = PREC_MANIFEST_NAME;
		for (uint32_t i = 0; i < m->nr_shards && !hit; i++)
			if (same_file(&st, dirfd, m->shards[i].name))
				hit = m->shards[i].name;
		if (!hit)
			hit = file_of(dirfd, &st);
	}
	/* ... and by name in the recording's directory, there or not yet: a
	 * new cpu000.shard.7 would be read as a segment file */
	if (!hit && named) {
		hit = base_in(name, dirfd);
		if (hit && !recording_name(hit))
			hit = NULL;
	}
	if (!hit)
		return 0;
	pr_err("%s %s: output is %s/%s of the recording being read (never written, even with -f)",
	       who, named ? name : "stdout", dir, hit);
	return -EINVAL;
}

/* A pipe's default 64 KiB makes the writer and the reader (perf, cat)
 * take turns every 64 KiB: give it the size of the writer's flushes, or
 * as much of it as the system allows (fs.pipe-max-size). */
static void grow_pipe(int fd)
{
	for (int size = PREC_PERFDATA_FLUSH_BYTES; size >= (64 << 10); size /= 2)
		if (fcntl(fd, F_SETPIPE_SZ, size) >= 0)
			return;
}

/* Undo a half-made output: the temp file, fds, names. */
static void release(struct prec_merge_output *o)
{
	if (o->fd != STDOUT_FILENO && o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->tmp)
		unlinkat(o->dirfd, o->tmp, 0);
	sig_armed = 0;
	if (o->dirfd >= 0)
		close(o->dirfd);
	o->dirfd = -1;
	free(o->tmp);
	free(o->base);
	o->tmp = o->base = NULL;
}

int prec_merge_output__open_as(struct prec_merge_output *o, const char *cmd,
			       const char *kind_of_data, const char *name, bool force)
{
	who = cmd;
	what_kind = kind_of_data;
	return prec_merge_output__open(o, name, force);
}

int prec_merge_output__open(struct prec_merge_output *o, const char *name,
			    bool force)
{
	struct stat st;
	int fl, err;

	*o = (struct prec_merge_output){ .fd = STDOUT_FILENO, .dirfd = -1, .force = force,
					 .layout_from = -1 };
	if (name && strcmp(name, "-")) {
		o->name = name;
		o->fd = -1;
		err = open_named(o, name);
		if (err) {
			release(o);
			return err;
		}
	}
	if (isatty(o->fd)) {
		pr_err("%s %s: refusing to write %s to a terminal (use -o FILE or a pipe)",
		       who, o->name ? o->name : "stdout", what_kind);
		release(o);
		return -EINVAL;
	}
	fl = fcntl(o->fd, F_GETFL);
	o->mode = PREC_PERFDATA_PIPE;
	if (fstat(o->fd, &st) < 0)
		return 0;
	if (S_ISFIFO(st.st_mode))
		grow_pipe(o->fd);
	if (S_ISREG(st.st_mode) && fl >= 0 && !(fl & O_APPEND) &&
	    lseek(o->fd, 0, SEEK_CUR) == 0)
		o->mode = PREC_PERFDATA_FILE;
	return 0;
}

/* Into place without replacing anything (no -f): renameat2's NOREPLACE, or
 * link + unlink where the filesystem lacks it. With -f the name is
 * replaced, whatever it is by then (a symlink stays unfollowed). */
static int put_in_place(const struct prec_merge_output *o)
{
	if (o->force)
		return renameat(o->dirfd, o->tmp, o->dirfd, o->base) < 0 ? -errno : 0;
	if (renameat2(o->dirfd, o->tmp, o->dirfd, o->base, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL)
		return -errno;
	if (linkat(o->dirfd, o->tmp, o->dirfd, o->base, 0) < 0)
		return -errno;
	unlinkat(o->dirfd, o->tmp, 0);
	return 0;
}

int prec_merge_output__open_layout(struct prec_merge_output *o, const char *name,
				   bool force, int recfd, uint64_t kcore_bytes)
{
	int err;

	dir_layout = true;
	err = prec_merge_output__open(o, name, force);
	dir_layout = false;
	if (!err && o->tmp) {
		o->layout_from = recfd;
		o->kcore_bytes = kcore_bytes;
	}
	return err;
}

/* The directory tmpdir into place as the name: without -f never over
 * anything; with -f exchanged with what is there, which is then removed
 * (a file, a symlink itself, or a directory tree walked by descriptor). */
static int put_dir_in_place(const struct prec_merge_output *o, const char *tmpdir)
{
	struct stat st;
	int err;

	if (renameat2(o->dirfd, tmpdir, o->dirfd, o->base, RENAME_NOREPLACE) == 0)
		return 0;
	err = -errno;
	if (err == -EINVAL && fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
		return renameat(o->dirfd, tmpdir, o->dirfd, o->base) < 0 ? -errno : 0;
	if ((err != -EEXIST && err != -EINVAL) || !o->force)
		return err == -EINVAL ? -EEXIST : err;
	if (fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (renameat2(o->dirfd, tmpdir, o->dirfd, o->base, RENAME_EXCHANGE) < 0)
		return -errno;
	/* the old output now under tmpdir */
	err = prec_dirtree__remove(o->dirfd, tmpdir, st.st_dev, st.st_ino);
	if (err)
		pr_warn("%s %s: the output it replaced is left as %s: %s", who, o->name, tmpdir,
			strerror(-err));
	return 0;
}

/* perf's directory layout from the whole temp file: NAME.prec-XXXXXX.d
 * with the file as data and the recording's kcore_dir, then into place. */
static int finish_layout(struct prec_merge_output *o)
{
	const char *what = NULL;
	uint64_t got = 0;
	struct stat st;
	char *tmpdir;
	int dfd = -1, err;

	if (asprintf(&tmpdir, "%s.d", o->tmp) < 0)
		return fail(o->name, "cannot create output", -ENOMEM);
	if (mkdirat(o->dirfd, tmpdir, 0700) < 0) {
		err = fail(o->name, "cannot create output", -errno);
		free(tmpdir);
		return err;
	}
	dfd = openat(o->dirfd, tmpdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = dfd < 0 || fstat(dfd, &st) ? -errno : 0;
	if (err && dfd >= 0)
		close(dfd);
	if (err) {
		unlinkat(o->dirfd, tmpdir, AT_REMOVEDIR);
		free(tmpdir);
		return fail(o->name, "cannot create output", err);
	}
	err = renameat(o->dirfd, o->tmp, dfd, PREC_PERF_DIR_DATA) < 0 ? -errno : 0;
	if (err) {
		fail(o->name, "cannot create output", err);
	} else {
		sig_armed = 0;
		free(o->tmp);
		o->tmp = NULL;
		err = prec_kcore_dir__copy(o->layout_from, dfd, o->kcore_bytes, &what, &got);
		if (err == -EBADMSG)
			pr_err("%s %s: the recording's %s/kcore: %llu bytes, the manifest says %llu",
			       who, o->name, PREC_KCORE_DIR, (unsigned long long)got,
			       (unsigned long long)o->kcore_bytes);
		else if (err)
			pr_err("%s %s: copying the recording's %s%s%s: %s", who, o->name,
			       PREC_KCORE_DIR, what ? "/" : "", what ? what : "", strerror(-err));
	}
	if (!err) {
		err = put_dir_in_place(o, tmpdir);
		if (err == -EEXIST)
			refuse_existing(o->name);
		else if (err)
			pr_err("%s %s: cannot rename %s into place: %s", who, o->name, tmpdir,
			       strerror(-err));
	}
	close(dfd);
	if (err)
		prec_dirtree__remove(o->dirfd, tmpdir, st.st_dev, st.st_ino);
	free(tmpdir);
	return err;
}

int prec_merge_output__finish(struct prec_merge_output *o, bool keep)
{
	int err = 0;

	if (o->fd != STDOUT_FILENO && o->fd >= 0 && close(o->fd) < 0 && keep)
		err = fail(o->name, "close", -errno);
	o->fd = -1;
	if (o->tmp && keep && !err && o->layout_from >= 0) {
		err = finish_layout(o);
	} else if (o->tmp && keep && !err) {
		err = put_in_place(o);
		if (err == -EEXIST)
			refuse_existing(o->name);
		else if (err)
			pr_err("%s %s: cannot rename %s into place: %s", who, o->name,
			       o->tmp, strerror(-err));
		if (!err) {
			free(o->tmp);
			o->tmp = NULL;
		}
	}
	release(o);
	return err;
}
