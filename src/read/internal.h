/* SPDX-License-Identifier: MIT */
/* Private interfaces of src/read, one header per object; this one brings
 * them all: the merge iterator shared by merge, dump and info, and the
 * perf.data writer that turns the merged stream into a file perf reads. */
#ifndef PREC_READ_INTERNAL_H
#define PREC_READ_INTERNAL_H

#include "read/merge.h"
#include "read/merge_output.h"
#include "read/out_writer.h"
#include "read/perfdata.h"
#include "read/perfdata_features.h"
#include "read/tracing_blob.h"

#endif
