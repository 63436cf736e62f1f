// SPDX-License-Identifier: MIT
// The judge of prec's libpfm4 encodings: each argument encoded by libpfm4
// itself (linked, not through prec's loader), with
// pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT) and user+kernel as the
// default privilege levels, as perf's --pfm-events asks; printed in perf's
// -vv attr layout (prec's printer) so a test compares it with prec's dump.
//   pfm_encode EVENT...: one attr block each; exit 1 on the first libpfm4
//   refuses (its message on stderr), 77 when libpfm4 does not initialize.
#include <stdio.h>
#include <string.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>

#include "record/attr_text.h"

int main(int argc, char **argv)
{
	if (pfm_initialize() != PFM_SUCCESS)
		return 77;
	for (int i = 1; i < argc; i++) {
		struct perf_event_attr a;
		pfm_perf_encode_arg_t arg;
		int ret;

		memset(&a, 0, sizeof(a));
		memset(&arg, 0, sizeof(arg));
		a.size = PERF_ATTR_SIZE_VER7;
		arg.attr = &a;
		arg.size = sizeof(arg);
		ret = pfm_get_os_event_encoding(argv[i], PFM_PLM0 | PFM_PLM3,
						PFM_OS_PERF_EVENT_EXT, &arg);
		if (ret != PFM_SUCCESS) {
			fprintf(stderr, "pfm_encode: %s: %s\n", argv[i], pfm_strerror(ret));
			return 1;
		}
		a.size = PERF_ATTR_SIZE_VER7;
		prec_attr__fprintf(stdout, &a);
	}
	return 0;
}
