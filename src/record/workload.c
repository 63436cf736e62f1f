// SPDX-License-Identifier: MIT
// The workload: forked early and held before exec on a start pipe, so its
// pid can be given to perf_event_open; exec errors come back on a CLOEXEC
// pipe; exit status reported the way a shell does.
#include "record/cmd_record.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/log.h"

/* Like execvp's search, without running anything: is argv0 a file we
 * could hand to exec? -ENOENT when no PATH entry has it. */
static int find_command(const char *argv0)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!*argv0)
		return -ENOENT;
	if (strchr(argv0, '/'))
		return access(argv0, F_OK) ? -errno : 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchrnul(path, ':');
		int len = (int)(colon - path);
		struct stat st;

		snprintf(buf, sizeof(buf), "%.*s%s%s", len, path, len ? "/" : "", argv0);
		if (!stat(buf, &st) && S_ISREG(st.st_mode))
			return 0;
		path = *colon ? colon + 1 : colon;
	}
	return -ENOENT;
}

/* --user: everything the child needs, looked up before fork. */
struct who {
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int nr_groups;
	char *env[3];          /* HOME=, USER=, LOGNAME= */
};

static void who_exit(struct who *u)
{
	free(u->groups);
	for (int i = 0; i < 3; i++)
		free(u->env[i]);
}

static char *strcat_alloc(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);

	if (s) {
		memcpy(s, a, la);
		memcpy(s + la, b, lb + 1);
	}
	return s;
}

static int who_init(struct who *u, uid_t uid, gid_t gid)
{
	struct passwd *pw = getpwuid(uid);
	int n = 0;

	memset(u, 0, sizeof(*u));
	u->uid = uid;
	u->gid = gid;
	if (!pw)
		return -ENOENT;
	getgrouplist(pw->pw_name, gid, NULL, &n);
	u->groups = calloc((size_t)n + 1, sizeof(*u->groups));
	if (!u->groups)
		return -ENOMEM;
	u->nr_groups = n + 1;
	if (getgrouplist(pw->pw_name, gid, u->groups, &u->nr_groups) < 0)
		u->nr_groups = 0;
	u->env[0] = strcat_alloc("HOME=", pw->pw_dir);
	u->env[1] = strcat_alloc("USER=", pw->pw_name);
	u->env[2] = strcat_alloc("LOGNAME=", pw->pw_name);
	return u->env[0] && u->env[1] && u->env[2] ? 0 : -ENOMEM;
}

/* Groups first, then gid, then uid: after setuid nothing else may
 * change. Returns 0 or the errno to report. */
static int become(const struct who *u)
{
	if (setgroups((size_t)u->nr_groups, u->groups) || setgid(u->gid) ||
	    setuid(u->uid))
		return errno;
	/* The parent is single-threaded until the workload starts. */
	for (int i = 0; i < 3; i++)
		putenv(u->env[i]);
	return 0;
}

static void child(int go, int errfd, char *const argv[], const struct who *u)
{
	sigset_t none;
	char c;
	int e = 0;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	/* EOF without a byte: the recorder gave up; leave quietly. */
	if (read(go, &c, 1) != 1)
		_exit(0);
	close(go);
	if (u)
		e = become(u);
	if (!e) {
		execvp(argv[0], argv);
		e = errno;
	}
	if (write(errfd, &e, sizeof(e)) < 0)
		_exit(127);
	_exit(127);
}

static int spawn(struct prec_workload *w, char *const argv[],
		 const struct who *u)
{
	int go[2], ex[2], err;

	err = find_command(argv[0]);
	if (err < 0)
		return err;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(ex, O_CLOEXEC)) {
		err = -errno;
		goto close_go;
	}
	w->pid = fork();
	if (w->pid < 0) {
		err = -errno;
		goto close_ex;
	}
	if (w->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(go[0], ex[1], argv, u);
	}
	close(go[0]);
	close(ex[1]);
	w->go_fd = go[1];
	w->err_fd = ex[0];
	return 0;
close_ex:
	close(ex[0]);
	close(ex[1]);
close_go:
	close(go[0]);
	close(go[1]);
	return err;
}

int prec_workload__prepare(struct prec_workload *w, char *const argv[])
{
	return prec_workload__prepare_as(w, argv, NULL, 0, 0);
}

int prec_workload__prepare_as(struct prec_workload *w, char *const argv[],
			      const char *user, uid_t uid, gid_t gid)
{
	struct who who;
	int err;

	memset(w, 0, sizeof(*w));
	w->pid = -1;
	w->go_fd = w->err_fd = -1;
	if (!user)
		return spawn(w, argv, NULL);
	err = who_init(&who, uid, gid);
	if (!err)
		err = spawn(w, argv, &who);
	who_exit(&who);
	return err;
}

int prec_workload__start(struct prec_workload *w)
{
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, "g", 1) != 1)
		return -errno;
	close(w->go_fd);
	w->go_fd = -1;
	/* EOF: the exec closed the pipe. A value: the exec failed. */
	do
		n = read(w->err_fd, &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(w->err_fd);
	w->err_fd = -1;
	if (n == (ssize_t)sizeof(e))
		return e > 0 ? -e : -EIO;
	return 0;
}

int prec_workload__reap(struct prec_workload *w, bool wait)
{
	int status;
	pid_t r;

	if (w->pid <= 0 || w->exited)
		return w->exited;
	do
		r = waitpid(w->pid, &status, wait ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == w->pid) {
		w->status = status;
		w->exited = true;
		return 1;
	}
	return 0;
}

int prec_workload__exit_code(const struct prec_workload *w)
{
	if (!w->exited)
		return 0;
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return WEXITSTATUS(w->status);
}

void prec_workload__abort(struct prec_workload *w)
{
	if (!w || w->pid <= 0)
		return;
	if (w->go_fd >= 0) {
		/* Never started: closing the pipe makes it _exit(0). */
		close(w->go_fd);
		w->go_fd = -1;
	} else if (!w->exited) {
		kill(w->pid, SIGTERM);
	}
	if (w->err_fd >= 0) {
		close(w->err_fd);
		w->err_fd = -1;
	}
	prec_workload__reap(w, true);
}
