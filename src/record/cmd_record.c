// SPDX-License-Identifier: MIT
// prec record: placeholder until the recording pipeline lands.
#include "record/record.h"
#include "util/log.h"

int prec_cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pr_err("record: not built yet");
	return 1;
}
