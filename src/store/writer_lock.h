/* SPDX-License-Identifier: MIT */
/* The recorder's lock on its directory, which readers ask about
 * (writer_lock.c). */
#ifndef PREC_STORE_WRITER_LOCK_H
#define PREC_STORE_WRITER_LOCK_H

/* The writer's lock (writer_lock.c)                                        */

/* The recorder: hold flock(LOCK_EX) on the recording directory dirfd until
 * the descriptor (and every copy a fork made) is closed, the process's end
 * included, however it ends. Taken before the start manifest is written.
 * Returns 0 or -errno (a file system without flock: readers cannot tell). */
int prec_writer_lock__take(int dirfd);

/* A reader: does a recorder hold dirfd's lock? 1 yes, 0 no (none runs:
 * it finished or died), -errno when the file system cannot say. Never
 * blocks; takes no lock that outlives the call. */
int prec_writer_lock__held(int dirfd);

#endif
