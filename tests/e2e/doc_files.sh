#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The newcomer documents against the tree (scripts/doc_files.py): every file
# of src/ has a row in docs/design.md's file tables, every file a row names
# exists and its calls column is what the built objects call (nm), and every
# path README.md, HACKING.md, docs/design.md and docs/style.md name exists.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_cmd nm
need_cmd python3
e2e_tmpdir doc-files
"$PREC_TOP/scripts/doc_files.py" "$PREC_TOP" "$PREC_BUILD" >"$tmp/out" 2>&1 || fail_rc "$tmp/out" "doc_files.py"
echo "design.md's tables match the $(find "$PREC_BUILD/src" -name '*.o' | wc -l) objects; the documents' paths exist"
echo "PASS"
