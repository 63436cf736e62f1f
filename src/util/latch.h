/* SPDX-License-Identifier: MIT */
/* One thread asks several others to do something and sleeps until every
 * one has answered: a latch counts the answers still due (a futex word)
 * and keeps the first error; a request is one asked thread's side of it,
 * which also answers for a thread that has exited. The drainers' enable,
 * cut, start and stop all go through these. */
#ifndef PREC_UTIL_LATCH_H
#define PREC_UTIL_LATCH_H

#include <stdbool.h>

struct prec_latch {
	int pending; /* answers due, plus one for the asker until wait() */
	int err;     /* the first error an answer gave, 0 if none */
};

/* About to ask n threads: answers are due from each, and the asker holds
 * one more until it waits, so no answer can bring the count to 0 before
 * every thread is asked. */
void prec_latch__begin(struct prec_latch *l, int n);
/* One of the n is not asked after all (or cannot be): no answer due. */
void prec_latch__skip(struct prec_latch *l);
/* An answer: the last one wakes the asker. Any thread. */
void prec_latch__count_down(struct prec_latch *l);
/* Keep err if it is the first error. Any thread. */
void prec_latch__fail(struct prec_latch *l, int err);
/* Every thread asked: drop the asker's count and sleep until the last
 * answer. Returns the first error, 0 if none. */
int prec_latch__wait(struct prec_latch *l);

/* One asked thread's side: IDLE, ASKED by the asker, back to IDLE by the
 * thread's answer, or EXITED for good when the thread leaves. */
struct prec_request {
	int state;               /* atomic */
	struct prec_latch *latch; /* the asker's, set by ask() */
};

/* The asker: IDLE -> ASKED, counted on l. False when the thread has
 * exited (l then gets -ENOENT and no answer is due): the caller need not
 * wake it. */
bool prec_request__ask(struct prec_request *r, struct prec_latch *l);
/* The asked thread: is there a request to answer? */
bool prec_request__asked(const struct prec_request *r);
/* The asked thread: done (err 0) or failed; back to IDLE, one answer. */
void prec_request__answer(struct prec_request *r, int err);
/* The asked thread is leaving: a request it has not answered is answered
 * with -ENOENT, and any later ask() is refused. */
void prec_request__exit(struct prec_request *r);

#endif
