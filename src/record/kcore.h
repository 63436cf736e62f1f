/* SPDX-License-Identifier: MIT */
/* perf record's --kcore: the kernel's text and the modules' out of
 * /proc/kcore as a new ELF, with /proc/kallsyms and /proc/modules, in the
 * recording's kcore_dir, laid out as perf 6.1 lays it (kcore.c). */
#ifndef PREC_RECORD_KCORE_H
#define PREC_RECORD_KCORE_H

#include "store/store.h"

#define PREC_KCORE_DIR_NAME PREC_MANIFEST_KCORE_DIR

/* Whether /proc/kcore opens for reading, perf's test before it records
 * (it needs CAP_SYS_RAWIO, and a kernel built with CONFIG_PROC_KCORE).
 * Returns 0, or -errno after one line naming /proc/kcore. Main thread,
 * before anything is created. */
int prec_kcore__check(void);

/* Make dirfd/kcore_dir (0700) and write kallsyms, modules (copies, 0400)
 * and kcore (0400): an ELF with one PT_LOAD per code segment (the
 * kernel's text, _stext.._etext; the modules', lowest module address to
 * the highest module symbol, each page-rounded, in /proc/kcore's order),
 * whose bytes are /proc/kcore's at those addresses, packed one after the
 * other from the first page past the headers. /proc/kallsyms is read
 * again at the end: a module loaded or unloaded meanwhile fails the copy
 * (-EAGAIN). dir names dirfd in messages. Sets *facts (segments, bytes of
 * kcore). Returns 0, or -errno after one line; a failed copy leaves no
 * kcore_dir. Blocks on /proc/kcore (tens of MiB); main thread, before the
 * events are enabled. */
int prec_kcore__copy(int dirfd, const char *dir, struct prec_manifest_kcore *facts);

#endif
