// SPDX-License-Identifier: MIT
// The latch and its requests (util/latch.c): an asker waits for exactly
// the answers of the threads it asked, keeps the first error, is never
// woken early, and a thread that exits answers what it was asked (and
// refuses what comes after). Threads answer in random order, many rounds.
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/test.h"
#include "util/latch.h"

#define NTHREADS 8
#define ROUNDS 2000

struct worker {
	struct prec_request req;
	int id;
	int stop;        /* atomic: leave */
	int answered;    /* rounds this thread answered */
	int exit_at;     /* leave at this round without answering, or -1 */
	unsigned int seed;
};

static int round_no;     /* atomic: the round asked */
static int done_in[ROUNDS]; /* answers seen for the round, by the workers */

static void *work(void *arg)
{
	struct worker *w = arg;

	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE)) {
		int r;

		if (!prec_request__asked(&w->req)) {
			sched_yield();
			continue;
		}
		r = __atomic_load_n(&round_no, __ATOMIC_ACQUIRE);
		if (r == w->exit_at)
			break;
		if (rand_r(&w->seed) % 4 == 0)
			usleep(rand_r(&w->seed) % 50);
		__atomic_add_fetch(&done_in[r], 1, __ATOMIC_ACQ_REL);
		w->answered++;
		/* every third round, thread 3 fails */
		prec_request__answer(&w->req, w->id == 3 && r % 3 == 0 ? -EIO : 0);
	}
	prec_request__exit(&w->req);
	return NULL;
}

int main(void)
{
	struct worker w[NTHREADS] = { 0 };
	pthread_t t[NTHREADS];
	struct prec_latch l;
	int gone_round = ROUNDS / 2;

	test_seed();
	for (int i = 0; i < NTHREADS; i++) {
		w[i].id = i;
		w[i].seed = (unsigned int)rand() + (unsigned int)i;
		w[i].exit_at = i == NTHREADS - 1 ? gone_round : -1;
		CHECK_EQ(pthread_create(&t[i], NULL, work, &w[i]), 0);
	}
	for (int r = 0; r < ROUNDS; r++) {
		int asked = 0, err, want;

		__atomic_store_n(&round_no, r, __ATOMIC_RELEASE);
		prec_latch__begin(&l, NTHREADS + 1);
		/* one more than there are threads: not asked after all */
		prec_latch__skip(&l);
		for (int i = 0; i < NTHREADS; i++)
			asked += prec_request__ask(&w[i].req, &l);
		err = prec_latch__wait(&l);
		/* every answer in before the wait returned: none early */
		want = r < gone_round ? NTHREADS : NTHREADS - 1;
		CHECK_EQ(__atomic_load_n(&done_in[r], __ATOMIC_ACQUIRE), want);
		/* the thread gone at gone_round answered its ask with -ENOENT,
		 * and every later ask of it is refused */
		CHECK_EQ(asked, r <= gone_round ? NTHREADS : NTHREADS - 1);
		if (r >= gone_round)
			CHECK(err == -ENOENT || (r % 3 == 0 && err == -EIO));
		else
			CHECK_EQ(err, r % 3 == 0 ? -EIO : 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		__atomic_store_n(&w[i].stop, 1, __ATOMIC_RELEASE);
		pthread_join(t[i], NULL);
	}
	for (int i = 0; i < NTHREADS - 1; i++)
		CHECK_EQ(w[i].answered, ROUNDS);
	CHECK_EQ(w[NTHREADS - 1].answered, gone_round);
	/* a latch with nothing asked returns at once, no error */
	prec_latch__begin(&l, 0);
	CHECK_EQ(prec_latch__wait(&l), 0);
	return 0;
}
