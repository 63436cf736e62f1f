// SPDX-License-Identifier: MIT
// `prec record --control`: the command channel (fifo:CTL[,ACK] or
// fd:CTL[,ACK], as perf record's), its line parser and acks.
#include "record/control_channel.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/log.h"
#include "util/path.h"

#define CTL_LINE 256
#define CTL_READS 64   /* reads of the buffer's size in one call */

struct prec_control {
	int ctl_fd, ack_fd;
	bool own_fds;           /* fifo: opened here, closed here */
	char *name;             /* "fifo:PATH" or "fd:N", for messages */
	char buf[CTL_LINE];
	size_t len;
	bool discard;           /* in a line too long: dropped up to its end */
	bool eof;               /* writer gone or read failed: not polled */
};

static const char *const commands[] = {
	[PREC_CTL_ENABLE] = "enable",
	[PREC_CTL_DISABLE] = "disable",
	[PREC_CTL_SNAPSHOT] = "snapshot",
	[PREC_CTL_STOP] = "stop",
	[PREC_CTL_PING] = "ping",
	[PREC_CTL_SWITCH] = "switch",
};

/* "fifo:A[,B]" / "fd:N[,M]" split into its kind and the two names. */
static int split_spec(const char *spec, bool *is_fd, char *a, char *b,
		      size_t cap)
{
	const char *p, *comma;
	size_t n;

	if (!strncmp(spec, "fifo:", 5)) {
		*is_fd = false;
		p = spec + 5;
	} else if (!strncmp(spec, "fd:", 3)) {
		*is_fd = true;
		p = spec + 3;
	} else {
		return -EINVAL;
	}
	comma = strchr(p, ',');
	n = comma ? (size_t)(comma - p) : strlen(p);
	if (!n || n >= cap || (comma && (!comma[1] || strlen(comma + 1) >= cap)))
		return -EINVAL;
	memcpy(a, p, n);
	a[n] = 0;
	b[0] = 0;
	if (comma)
		strcpy(b, comma + 1);
	return 0;
}

static int parse_fd(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > INT_MAX)
		return -EINVAL;
	return fcntl((int)v, F_GETFD) < 0 ? -EBADF : (int)v;
}

int prec_control__check_spec(const char *spec)
{
	char a[PATH_MAX], b[PATH_MAX];
	bool is_fd;

	return split_spec(spec, &is_fd, a, b, sizeof(a));
}

/* O_RDWR: opening never blocks on the other end, and the fifo never
 * reports EOF (nor POLLHUP) when a writer goes away. The path is often in
 * a directory others can write (/tmp): a symbolic link is refused (it could
 * lead root to anyone's fifo, or open a device), and so is a fifo that
 * someone else owns (they would hold a channel into the recorder). */
/* The FIFO at path, looked at before anything opens it: the directory part
 * by prec_path__open_dir() (no link another user planted), the name itself
 * O_PATH|O_NOFOLLOW (opens nothing: no device acts, no FIFO is joined), and
 * only a FIFO of the effective user is then opened, through that same
 * descriptor, O_RDWR so that writers may come and go. */
static int open_fifo(const char *path, const char *what)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	const char *why = NULL, *bad = NULL;
	char dir[PATH_MAX];
	struct stat st;
	int dirfd, pfd, fd, err;

	size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);

	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, n ? path : ".", n ? n : 1);
	dir[n ? n : 1] = '\0';
	dirfd = prec_path__open_dir(dir, &why, &bad);
	if (dirfd < 0) {
		if (dirfd == -EPERM && bad)
			pr_err("control %s fifo %s: %s: %s, not followed", what, path, bad, why);
		else
			pr_err("control %s fifo %s: %s", what, path, strerror(-dirfd));
		return dirfd;
	}
	pfd = openat(dirfd, base, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	err = pfd < 0 ? -errno : 0;
	close(dirfd);
	if (err) {
		pr_err("control %s fifo %s: %s (create it with mkfifo)", what, path,
		       strerror(-err));
		return err;
	}
	if (fstat(pfd, &st)) {
		err = -errno;
		pr_err("control %s fifo %s: fstat: %s", what, path, strerror(-err));
	} else if (S_ISLNK(st.st_mode)) {
		pr_err("control %s fifo %s: a symbolic link: refused", what, path);
		err = -ELOOP;
	} else if (!S_ISFIFO(st.st_mode)) {
		pr_err("control %s fifo %s: not a fifo", what, path);
		err = -EINVAL;
	} else if (st.st_uid != geteuid()) {
		pr_err("control %s fifo %s: owned by uid %u, not by uid %u: refused",
		       what, path, (unsigned int)st.st_uid, (unsigned int)geteuid());
		err = -EPERM;
	}
	if (err) {
		close(pfd);
		return err;
	}
	fd = prec_file__reopen(pfd, &st, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	if (fd < 0)
		pr_err("control %s fifo %s: open: %s", what, path, strerror(-fd));
	return fd;
}

static int open_ends(struct prec_control *c, bool is_fd, const char *a,
		     const char *b)
{
	if (is_fd) {
		c->ctl_fd = parse_fd(a);
		c->ack_fd = *b ? parse_fd(b) : -1;
		if (c->ctl_fd < 0 || (*b && c->ack_fd < 0)) {
			pr_err("control fd:%s%s%s: not an open file descriptor", a,
			       *b ? "," : "", b);
			return -EBADF;
		}
		return fcntl(c->ctl_fd, F_SETFL, fcntl(c->ctl_fd, F_GETFL) | O_NONBLOCK)
			       ? -errno : 0;
	}
	c->own_fds = true;
	c->ctl_fd = open_fifo(a, "command");
	if (c->ctl_fd < 0)
		return c->ctl_fd;
	if (*b) {
		c->ack_fd = open_fifo(b, "ack");
		if (c->ack_fd < 0)
			return c->ack_fd;
	}
	return 0;
}

int prec_control__open(struct prec_control **out, const char *spec)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct prec_control *c;
	bool is_fd;
	int err;

	*out = NULL;
	if (split_spec(spec, &is_fd, a, b, sizeof(a))) {
		pr_err("option --control '%s': expected fifo:CTL[,ACK] or fd:CTL[,ACK]", spec);
		return -EINVAL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->ctl_fd = c->ack_fd = -1;
	if (asprintf(&c->name, "%s:%s", is_fd ? "fd" : "fifo", a) < 0) {
		free(c);
		return -ENOMEM;
	}
	err = open_ends(c, is_fd, a, b);
	if (err) {
		prec_control__close(c);
		return err;
	}
	*out = c;
	return 0;
}

int prec_control__fd(const struct prec_control *c)
{
	return c && !c->eof ? c->ctl_fd : -1;
}

/* Where the first line in the buffer ends ('\n', or '\0' as perf's tools
 * send), or len if it does not end there yet. */
static size_t line_end(const char *buf, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n' || buf[i] == '\0')
			return i;
	return len;
}

/* The next command out of the buffer: a PREC_CTL_* value, 0 when no whole
 * line is left, -EINVAL for an unknown one. A line longer than the buffer
 * is dropped to its end, never read as two commands. */
static int take_line(struct prec_control *c)
{
	char line[CTL_LINE];

	for (;;) {
		size_t n = line_end(c->buf, c->len);
		int cmd;

		if (n == c->len) {
			if (c->len == sizeof(c->buf)) {
				if (!c->discard)
					pr_warn("control %s: command longer than %d bytes: dropped",
						c->name, CTL_LINE - 1);
				c->discard = true;
				c->len = 0;
			}
			return 0;
		}
		memcpy(line, c->buf, n);
		line[n] = 0;
		memmove(c->buf, c->buf + n + 1, c->len - n - 1);
		c->len -= n + 1;
		if (c->discard) {
			c->discard = false; /* the overlong line's tail */
			continue;
		}
		cmd = prec_control__parse(line);
		if (cmd)
			return cmd;
	}
}

/* The command end gives no more: stop polling it (a pipe whose writer has
 * gone stays readable forever). */
static void end_channel(struct prec_control *c)
{
	c->eof = true;
	/* a final unterminated line still counts, unless it was too long */
	if (c->len && !c->discard && c->len < sizeof(c->buf))
		c->buf[c->len++] = '\n';
	else
		c->len = 0;
	c->discard = false;
}

int prec_control__parse(const char *line)
{
	size_t n;

	while (isspace((unsigned char)*line))
		line++;
	n = strlen(line);
	while (n && isspace((unsigned char)line[n - 1]))
		n--;
	if (!n)
		return 0;
	for (size_t i = 1; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (commands[i] && strlen(commands[i]) == n && !strncmp(line, commands[i], n))
			return (int)i;
	pr_warn("control: unknown command '%.*s' (enable, disable, snapshot, switch, stop, ping)",
		(int)n, line);
	return -EINVAL;
}

int prec_control__next(struct prec_control *c)
{
	/* A writer that never pauses (or fd:N on /dev/zero) yields the main
	 * loop now and then: signals and the drainers' errors come first. */
	for (unsigned int reads = 0;; reads++) {
		int cmd = take_line(c), err;
		ssize_t n;

		if (cmd)
			return cmd;
		if (c->eof || reads == CTL_READS)
			return 0;
		n = read(c->ctl_fd, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n < 0) {
			err = -errno;
			pr_warn("control %s: read: %s: no longer read", c->name, strerror(-err));
			c->len = 0; /* the partial line goes too */
			end_channel(c);
			return err;
		}
		if (n == 0) {
			pr_debug("control %s: the writer closed it: no longer polled", c->name);
			end_channel(c);
			continue;
		}
		c->len += (size_t)n;
	}
}

bool prec_control__has_line(const struct prec_control *c)
{
	return line_end(c->buf, c->len) != c->len;
}

int prec_control__ack(struct prec_control *c)
{
	static const char ack[] = "ack\n";

	if (!c || c->ack_fd < 0)
		return 0;
	if (write(c->ack_fd, ack, sizeof(ack) - 1) != (ssize_t)sizeof(ack) - 1)
		return -errno;
	return 0;
}

const char *prec_control__name(int cmd)
{
	if (cmd <= 0 || cmd >= (int)(sizeof(commands) / sizeof(commands[0])))
		return "?";
	return commands[cmd];
}

void prec_control__close(struct prec_control *c)
{
	if (!c)
		return;
	if (c->own_fds && c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->own_fds && c->ack_fd >= 0)
		close(c->ack_fd);
	free(c->name);
	free(c);
}
