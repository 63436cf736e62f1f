// SPDX-License-Identifier: MIT
// prec_proc__*: /proc/PID/status parsed in one place (Tgid, PPid, no VmPeak
// for a kernel thread), and the tgid of a thread read by descriptor.
#include "util/proc.h"
#include "../lib/test.h"

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static pid_t thread_tid;
static int go[2], done[2];

/* Stays alive until main has read its tgid. */
static void *thread_main(void *arg)
{
	char c = 0;

	(void)arg;
	thread_tid = (pid_t)syscall(SYS_gettid);
	CHECK(write(go[1], &c, 1) == 1);
	CHECK(read(done[0], &c, 1) == 1);
	return NULL;
}

int main(void)
{
	struct prec_proc_status st;
	pthread_t th;

	CHECK_EQ(prec_proc__parse_status("Name:\tsh\nUmask:\t0022\nState:\tS (sleeping)\n"
					  "Tgid:\t42\nNgid:\t0\nPid:\t43\nPPid:\t7\n"
					  "VmPeak:\t  1000 kB\n", &st), 0);
	CHECK_EQ(st.tgid, 42);
	CHECK_EQ(st.ppid, 7);
	CHECK(!st.kthread);
	CHECK_EQ(prec_proc__parse_status("Name:\tkworker/0:1\nTgid:\t9\nPPid:\t2\n", &st), 0);
	CHECK(st.kthread && st.tgid == 9 && st.ppid == 2);
	/* No Tgid line (or a name that only looks like one): no thread group. */
	CHECK_EQ(prec_proc__parse_status("Name:\tTgid: 5\nPPid:\t1\n", &st), -ESRCH);
	CHECK_EQ(prec_proc__parse_status("", &st), -ESRCH);
	CHECK_EQ(prec_proc__parse_status("Name:\tx\nTgid:\t0\n", &st), -ESRCH);

	/* This process, and a thread of it: the thread's tgid is ours. */
	CHECK_EQ(prec_proc__tgid(getpid()), getpid());
	CHECK(!pipe(go) && !pipe(done));
	CHECK(!pthread_create(&th, NULL, thread_main, NULL));
	{
		char c = 0;

		CHECK(read(go[0], &c, 1) == 1);
		CHECK(thread_tid > 0 && thread_tid != getpid());
		CHECK_EQ(prec_proc__tgid(thread_tid), getpid());
		CHECK(write(done[1], &c, 1) == 1);
	}
	CHECK(!pthread_join(th, NULL));
	CHECK_EQ(prec_proc__tgid(0x7ffffffe), -ESRCH);
	printf("proc: status fields parsed, tgid of this process read\n");
	return 0;
}
