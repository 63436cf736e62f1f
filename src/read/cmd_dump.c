// SPDX-License-Identifier: MIT
// prec dump: placeholder until the read layer lands.
#include "read/read.h"
#include "util/log.h"

int prec_cmd_dump(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("dump: not built yet");
	return 1;
}
