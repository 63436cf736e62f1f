// SPDX-License-Identifier: MIT
// The workload: forked early and held before exec on a start pipe, so its
// pid can be given to perf_event_open; exec errors come back on a CLOEXEC
// pipe; exit status reported the way a shell does. Named perf-exec until
// its exec, as perf names its command. Run as another user, it
// gets a session and an environment of its own, nothing of root's.

#include "record/workload.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* --user: everything the child needs, prepared before fork so that the
 * child neither looks anything up nor allocates. */
struct who {
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	int nr_groups;
	char **envp;           /* NULL-terminated, every string ours */
};

static void who_exit(struct who *u)
{
	free(u->groups);
	for (char **e = u->envp; e && *e; e++)
		free(*e);
	free(u->envp);
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

/* The password entry of user (by name, as --user named it, so USER is
 * that name when two share the uid), else of uid, in *buf (grown as
 * needed; the caller frees it). 0, -ENOENT or -errno. */
static int lookup(struct passwd *pw, char **buf, const char *user, uid_t uid)
{
	long max = sysconf(_SC_GETPW_R_SIZE_MAX);
	size_t size = max > 0 ? (size_t)max : 4096;
	struct passwd *res = NULL;
	int e;

	for (;;) {
		char *b = realloc(*buf, size);

		if (!b)
			return -ENOMEM;
		*buf = b;
		e = getpwnam_r(user, pw, b, size, &res);
		if (!e && (!res || res->pw_uid != uid))
			e = getpwuid_r(uid, pw, b, size, &res);
		if (e != ERANGE || size >= (1u << 20))
			break;
		size *= 2;
	}
	if (e)
		return -e;
	return res ? 0 : -ENOENT;
}

/* The caller's variables a command run as another user keeps, the ones
 * of sudo's env_reset list a terminal, a locale and the search path need.
 * Everything else of root's (a token, LD_LIBRARY_PATH, a proxy) is not
 * the other user's to see or be steered by. Names only: a value can only
 * mislead the command itself, which runs with the user's rights. */
static bool kept(const char *var)
{
	static const char *const names[] = {
		"TERM", "COLORTERM", "PATH", "LANG", "TZ", "DISPLAY",
	};
	size_t len = strcspn(var, "=");

	if (!var[len])
		return false;
	if (len > 3 && !strncmp(var, "LC_", 3))
		return true;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && !memcmp(var, names[i], len))
			return true;
	return false;
}

/* The command's environment: HOME, USER, LOGNAME and SHELL of pw, then
 * the kept variables of ours. 0 or -ENOMEM (u->envp then holds what was
 * made, for who_exit). */
static int who_env(struct who *u, const struct passwd *pw)
{
	const char *set[][2] = {
		{ "HOME=", pw->pw_dir },
		{ "USER=", pw->pw_name },
		{ "LOGNAME=", pw->pw_name },
		/* passwd(5): an empty shell field means /bin/sh */
		{ "SHELL=", pw->pw_shell && *pw->pw_shell ? pw->pw_shell : "/bin/sh" },
	};
	size_t nset = sizeof(set) / sizeof(set[0]), n = nset, i = 0;

	for (char **e = environ; e && *e; e++)
		n++;
	u->envp = calloc(n + 1, sizeof(*u->envp));
	if (!u->envp)
		return -ENOMEM;
	/* Each string checked as made: the array never has a hole. */
	for (size_t k = 0; k < nset; k++) {
		u->envp[i] = strcat_alloc(set[k][0], set[k][1]);
		if (!u->envp[i++])
			return -ENOMEM;
	}
	for (char **e = environ; e && *e && i < n; e++) {
		if (!kept(*e))
			continue;
		u->envp[i] = strdup(*e);
		if (!u->envp[i++])
			return -ENOMEM;
	}
	return 0;
}

static int who_init(struct who *u, const char *user, uid_t uid, gid_t gid)
{
	struct passwd pw;
	char *buf = NULL;
	int n = 0, err;

	memset(u, 0, sizeof(*u));
	u->uid = uid;
	u->gid = gid;
	err = lookup(&pw, &buf, user, uid);
	if (err)
		goto free_buf;
	getgrouplist(pw.pw_name, gid, NULL, &n);
	u->groups = calloc((size_t)n + 1, sizeof(*u->groups));
	if (!u->groups) {
		err = -ENOMEM;
		goto free_buf;
	}
	u->nr_groups = n + 1;
	if (getgrouplist(pw.pw_name, gid, u->groups, &u->nr_groups) < 0)
		u->nr_groups = 0;
	err = who_env(u, &pw);
free_buf:
	free(buf);
	return err;
}

/* A session of its own first: root's terminal is then not the command's
 * controlling terminal, so it can neither push input into it (TIOCSTI,
 * typed into root's shell once prec exits) nor open /dev/tty; it keeps
 * the standard streams prec was given. Then groups, gid, uid: after
 * setuid nothing else may change. Returns 0 or the errno to report. */
static int become(const struct who *u)
{
	/* Only root names another user; anyone else names themselves, and
	 * may not set groups (EPERM) but keeps their own. */
	if (setsid() < 0 ||
	    (geteuid() == 0 && setgroups((size_t)u->nr_groups, u->groups)) ||
	    setgid(u->gid) || setuid(u->uid))
		return errno;
	return 0;
}

static void child(int go, int errfd, char *const argv[], const struct who *u,
		  pid_t parent)
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
	/* prec killed with SIGKILL cannot stop the command: the kernel does.
	 * The signal follows the thread that forked (prec's main thread,
	 * which lives until prec exits) and a change of credentials clears
	 * it, hence set after become(); a prec that died before the prctl
	 * shows as a new parent. */
	if (!e && prctl(PR_SET_PDEATHSIG, SIGKILL))
		e = errno;
	if (!e && getppid() != parent)
		_exit(127);
	if (!e) {
		if (u)
			execvpe(argv[0], argv, u->envp);
		else
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
	pid_t parent = getpid();
	char own[16] = "";
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
	/* The child is born with the name of the thread that forks: named
	 * so for the fork, it is perf's "perf-exec" until its exec, in /proc
	 * (the side band's COMM) and in its samples, before the parent runs
	 * on. perf renames its child so that its samples are not taken for
	 * the recorder's own (--exclude-perf); "perf-exec" rather than a
	 * name of prec's because scripts and converters that read perf's
	 * files leave that name out, and prec's files are perf's
	 * (docs/events.md). */
	prctl(PR_GET_NAME, own);
	prctl(PR_SET_NAME, PREC_WORKLOAD_COMM);
	w->pid = fork();
	if (w->pid != 0)
		prctl(PR_SET_NAME, own);
	if (w->pid < 0) {
		err = -errno;
		goto close_ex;
	}
	if (w->pid == 0) {
		close(go[1]);
		close(ex[0]);
		child(go[0], ex[1], argv, u, parent);
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
	err = who_init(&who, user, uid, gid);
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

int prec_workload__exited(const struct prec_workload *w)
{
	siginfo_t si;
	int r;

	if (w->pid <= 0 || w->exited)
		return w->exited;
	memset(&si, 0, sizeof(si));
	do
		r = waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT);
	while (r < 0 && errno == EINTR);
	return r == 0 && si.si_pid == w->pid;
}

int prec_workload__exit_code(const struct prec_workload *w)
{
	if (!w->exited)
		return 0;
	if (WIFSIGNALED(w->status))
		return 128 + WTERMSIG(w->status);
	return WEXITSTATUS(w->status);
}

int prec_workload__term_signal(const struct prec_workload *w)
{
	return w->exited && WIFSIGNALED(w->status) ? WTERMSIG(w->status) : 0;
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
