/* SPDX-License-Identifier: MIT */
/* The summary of a finished recording (summary.c). */
#ifndef PREC_RECORD_SUMMARY_H
#define PREC_RECORD_SUMMARY_H

#include "record/session.h"

/* The totals line (and the epochs line) on stderr; for a recording that
 * lost records, one line per CPU that did, with why when the drainer's
 * wait for the disk says so, and what to change. */
void prec_summary__print(const struct prec_session_report *r);

#endif
