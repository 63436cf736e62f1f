// SPDX-License-Identifier: MIT
// libpfm4 (Debian's libpfm4), loaded with dlopen on first use: event names
// of its PMU tables to perf_event_attr words, as perf's --pfm-events takes
// them, and the vendor names of -e that perf 6.1 reads from its JSON tables.
// Loaded, not linked: the loader would relocate its tables at every prec
// start (merge, info, mark too; bench/results/libpfm_load.md) for a feature
// few recordings use, and prec runs where it is not installed.
// docs/events.md says which names come from where.
#include "record/pfm.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#include <perfmon/pfmlib_perf_event.h>

/* The soname of Debian's libpfm4 package (4.x keeps its ABI). */
#define PFM_SONAME "libpfm.so.4"

static struct {
	int state;            /* 0 not tried, 1 ready, else the -errno */
	__typeof__(pfm_initialize) *initialize;
	__typeof__(pfm_get_os_event_encoding) *encode;
	__typeof__(pfm_get_event_info) *event_info;
	__typeof__(pfm_strerror) *strerror;
} lib;

/* Load and initialize libpfm4 once. Returns 0, -ENOSYS or -EIO. */
static int load(void)
{
	void *h;

	if (lib.state)
		return lib.state == 1 ? 0 : lib.state;
	lib.state = -ENOSYS;
	h = dlopen(PFM_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return lib.state;
	/* dlsym's void * to function pointers: POSIX makes this work */
	*(void **)&lib.initialize = dlsym(h, "pfm_initialize");
	*(void **)&lib.encode = dlsym(h, "pfm_get_os_event_encoding");
	*(void **)&lib.event_info = dlsym(h, "pfm_get_event_info");
	*(void **)&lib.strerror = dlsym(h, "pfm_strerror");
	if (!lib.initialize || !lib.encode || !lib.event_info || !lib.strerror)
		return lib.state;
	lib.state = lib.initialize() == PFM_SUCCESS ? 1 : -EIO;
	return lib.state == 1 ? 0 : lib.state;
}

/* Whether the event at libpfm4's index idx belongs to a table of scope. */
static bool in_scope(int idx, enum prec_pfm_scope scope)
{
	pfm_event_info_t info;

	if (scope == PREC_PFM_ANY)
		return true;
	memset(&info, 0, sizeof(info));
	info.size = sizeof(info);
	if (lib.event_info(idx, PFM_OS_PERF_EVENT_EXT, &info) != PFM_SUCCESS)
		return false;
	return info.pmu != PFM_PMU_PERF_EVENT && info.pmu != PFM_PMU_PERF_EVENT_RAW;
}

int prec_pfm__encode(const char *text, enum prec_pfm_scope scope,
		     struct perf_event_attr *a, const char **why)
{
	pfm_perf_encode_arg_t arg;
	uint32_t size = a->size;
	int err = load(), ret;

	if (err) {
		*why = err == -ENOSYS ? "libpfm4 is not installed (" PFM_SONAME ")" :
		       "libpfm4 did not initialize";
		return err;
	}
	memset(a, 0, sizeof(*a));
	a->size = size;
	memset(&arg, 0, sizeof(arg));
	arg.attr = a;
	arg.size = sizeof(arg);
	ret = lib.encode(text, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (ret == PFM_SUCCESS && in_scope(arg.idx, scope))
		return 0;
	memset(a, 0, sizeof(*a));
	a->size = size;
	if (ret == PFM_SUCCESS || ret == PFM_ERR_NOTFOUND) {
		*why = "no such event in libpfm4's tables of this machine's PMUs";
		return -ENOENT;
	}
	*why = lib.strerror(ret); /* libpfm4's words, as perf shows them */
	return -EINVAL;
}
