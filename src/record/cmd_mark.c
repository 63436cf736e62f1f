// SPDX-License-Identifier: MIT
// prec mark: placeholder until user markers land.
#include "record/record.h"
#include "util/log.h"

int prec_cmd_mark(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("mark: not built yet");
	return 1;
}
