/* SPDX-License-Identifier: MIT */
/* --switch-output's epoch directories (epochs.c): DIR/epoch.NNNNNN made in
 * order under DIR's descriptor, the oldest removed beyond --switch-max-files. */
#ifndef PREC_RECORD_EPOCHS_H
#define PREC_RECORD_EPOCHS_H

#include <stddef.h>
#include <stdint.h>

/* An epoch's directory name: six digits, so that a glob lists them in
 * order (DIR/epoch.*). */
#define PREC_EPOCH_FMT "epoch.%06u"

struct prec_epochs;

/* The epochs of the recording directory open at topfd (borrowed: the
 * caller's for as long as e lives); keep: how many may exist at once, the
 * one being written included, 0 = no limit. Returns 0 or -ENOMEM. */
int prec_epochs__new(struct prec_epochs **out, int topfd, uint32_t keep);
/* Make the next epoch's directory (0700, under topfd, never through a
 * link) and open it. Returns its descriptor (the caller's) with its name
 * in name, or -errno (then nothing of it is left). Main thread. */
int prec_epochs__make(struct prec_epochs *e, char *name, size_t len);
/* Remove the epoch the last successful make() made, and whatever it
 * holds (its start failed after make()), by descriptor. Returns 0 or
 * -errno. */
int prec_epochs__drop_newest(struct prec_epochs *e);
/* Remove the oldest epochs, by descriptor and only if their names still
 * hold the directories made, until at most keep exist. Returns how many
 * were removed; one warning per failure. May block on the file system. */
int prec_epochs__prune(struct prec_epochs *e, const char *top);
/* Epochs made so far (numbered 1..count). */
uint32_t prec_epochs__count(const struct prec_epochs *e);
void prec_epochs__delete(struct prec_epochs *e);

#endif
