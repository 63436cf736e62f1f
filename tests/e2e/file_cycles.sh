#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# No two files of src/ call each other in a circle (STYLE.md): the built
# objects' symbols give who calls whom; scripts/file_cycles.py prints each
# circle with the symbols on its edges.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_cmd nm
need_cmd python3
e2e_tmpdir file-cycles
"$PREC_TOP/scripts/file_cycles.py" "$PREC_BUILD" >"$tmp/out" 2>&1 || fail_rc "$tmp/out" "file_cycles.py"
echo "no file of src/ in a call circle ($(ls "$PREC_BUILD"/src/*/*.o | wc -l) objects)"
echo "PASS"
