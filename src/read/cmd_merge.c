// SPDX-License-Identifier: MIT
// prec merge: placeholder until the read layer lands.
#include "read/read.h"
#include "util/log.h"

int prec_cmd_merge(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("merge: not built yet");
	return 1;
}
