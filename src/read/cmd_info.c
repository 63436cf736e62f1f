// SPDX-License-Identifier: MIT
// prec info: placeholder until the read layer lands.
#include "read/read.h"
#include "util/log.h"

int prec_cmd_info(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("info: not built yet");
	return 1;
}
