#!/usr/bin/env bash
# abi_generated_current: the committed outputs of scripts/gen_mpi.py
# (include/mpi.h, src/binding/gen_*.c, src/binding/gen/*.c, docs/STATUS.md) are what the script
# writes from std/ (the MPI Forum's JSON in the repository) and the current hand-written
# src/binding files. Then, to show the check can fail, a copy of the tree
# with one generated line changed must be reported stale.
set -u
: "${SMAP_SRC:?run through ctest}"
PY=${PYTHON:-python3}
STD=${SMAP_MPI_STANDARD:-$SMAP_SRC/std}
gen="$SMAP_SRC/scripts/gen_mpi.py"
"$PY" "$gen" --root "$SMAP_SRC" --std "$STD" --check || {
    echo "FAIL: generated files are stale; run 'make regen' and commit the result"; exit 1; }
echo "ok   generated files are current"

TMP=$(mktemp -d "${TMPDIR:-/tmp}/abi_gen.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/include" "$TMP/src/binding/gen" "$TMP/docs"
cp "$SMAP_SRC/include/mpi.h" "$TMP/include/"
cp "$SMAP_SRC"/src/binding/*.c "$TMP/src/binding/"
cp "$SMAP_SRC"/src/binding/gen/*.c "$TMP/src/binding/gen/"
cp "$SMAP_SRC/docs/STATUS.md" "$TMP/docs/"
"$PY" "$gen" --root "$TMP" --std "$STD" --check >/dev/null ||
    { echo "FAIL: the copied tree is not current"; exit 1; }
sed -i 's/^#define MPI_ERR_ABI .*/#define MPI_ERR_ABI 99/' "$TMP/include/mpi.h"
if "$PY" "$gen" --root "$TMP" --std "$STD" --check >"$TMP/log"; then
    echo "FAIL: --check did not notice a changed mpi.h"; exit 1
fi
grep -q "include/mpi.h" "$TMP/log" || { echo "FAIL: --check did not name mpi.h"; cat "$TMP/log"; exit 1; }
echo "ok   --check reports a stale mpi.h"
cp "$SMAP_SRC/include/mpi.h" "$TMP/include/"
# A function whose hand-written definition goes away (here MPI_Init_thread,
# renamed in the copy) makes the committed stubs stale, and the generator
# then writes its stub: MPI_ERR_UNSUPPORTED_OPERATION with its name, in C
# that compiles against the tree's headers.
f=$(grep -l '^int PMPI_Init_thread(' "$TMP"/src/binding/*.c | head -n 1)
[ -n "$f" ] || { echo "FAIL: no hand-written PMPI_Init_thread to hide"; exit 1; }
sed -i 's/^int PMPI_Init_thread(/int hidden_Init_thread(/' "$f"
if "$PY" "$gen" --root "$TMP" --std "$STD" --check >"$TMP/log"; then
    echo "FAIL: --check did not notice PMPI_Init_thread losing its definition"; exit 1
fi
grep -q "gen_unsupported.c" "$TMP/log" || { echo "FAIL: --check did not name the stubs"; cat "$TMP/log"; exit 1; }
echo "ok   --check reports stubs made stale by a function losing its definition"
"$PY" "$gen" --root "$TMP" --std "$STD" >"$TMP/log" 2>&1 || { echo "FAIL: the generator failed"; cat "$TMP/log"; exit 1; }
stub=$TMP/src/binding/gen_unsupported.c
grep -q '^int PMPI_Init_thread(' "$stub" || { echo "FAIL: no stub for PMPI_Init_thread"; exit 1; }
grep -q 'smap_err_unsupported([^,]*, "MPI_Init_thread")' "$stub" ||
    { echo "FAIL: the stub does not raise MPI_ERR_UNSUPPORTED_OPERATION naming MPI_Init_thread"; exit 1; }
${CC:-cc} -std=gnu11 -Wall -Wextra -Werror -fsyntax-only -I"$SMAP_SRC/include" -I"$SMAP_SRC/src" \
    -I"${SMAP_STAGE:-$SMAP_SRC/build}/include" "$stub" 2>"$TMP/log" ||
    { echo "FAIL: the generated stub does not compile"; cat "$TMP/log"; exit 1; }
echo "ok   the generator writes a stub that compiles for a function without a definition"
echo PASS
