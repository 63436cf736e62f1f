#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The newcomer documents against the tree (scripts/doc_files.py): every file
# of src/ has a row in docs/design.md's file tables, every file a row names
# exists and its calls column is what the built objects call (nm), and every
# path README.md, HACKING.md, docs/design.md and docs/style.md name exists;
# whatever the build directory's path, stale objects in it left out.
set -u
# shellcheck source=tests/lib/e2e.sh
. "$(dirname "$0")/../lib/e2e.sh"
need_cmd nm
need_cmd python3
e2e_tmpdir doc-files
"$PREC_TOP/scripts/doc_files.py" "$PREC_TOP" "$PREC_BUILD" >"$tmp/out" 2>&1 || fail_rc "$tmp/out" "doc_files.py"
# The same objects in a build directory whose path holds a /src/ (a tree
# cloned under ~/src), beside a stale one: util/size.o's copy as
# util/zz_gone.o, an object whose source is gone (renamed or deleted, its
# object left in the build): the objects are named from BUILD/src down,
# and only those of the tree's sources count. Before, every row said "no
# object for src/..." there, and a stale object's symbols were taken for
# the calls of the files that call util/size.c.
b=$tmp/src/build
mkdir -p "$b" || fail "mkdir $b"
(cd "$PREC_BUILD" && cp --parents src/*.o src/*/*.o "$b/") || fail "copying the objects"
cp "$b/src/util/size.o" "$b/src/util/zz_gone.o" || fail "copying util/size.o"
"$PREC_TOP/scripts/doc_files.py" "$PREC_TOP" "$b" >"$tmp/out2" 2>&1 ||
	fail_rc "$tmp/out2" "doc_files.py, BUILD $b with a stale object"
echo "design.md's tables match the $(find "$PREC_BUILD/src" -name '*.o' | wc -l) objects; the documents' paths exist"
echo "PASS"
