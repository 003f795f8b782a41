#!/usr/bin/env bash
# abi_generated_current: the committed outputs of scripts/gen_mpi.py
# (include/mpi.h, src/binding/gen_*.c, docs/STATUS.md) are what the script
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
mkdir -p "$TMP/include" "$TMP/src/binding" "$TMP/docs"
cp "$SMAP_SRC/include/mpi.h" "$TMP/include/"
cp "$SMAP_SRC"/src/binding/*.c "$TMP/src/binding/"
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
printf 'int PMPI_Register_datarep(const char *d, MPI_Datarep_conversion_function *r, MPI_Datarep_conversion_function *w, MPI_Datarep_extent_function *e, void *x)\n{\n    (void)d, (void)r, (void)w, (void)e, (void)x;\n    return 0;\n}\n' \
    >"$TMP/src/binding/zz_abi_test.c"
if "$PY" "$gen" --root "$TMP" --std "$STD" --check >"$TMP/log"; then
    echo "FAIL: --check did not notice a new hand-written PMPI_Register_datarep"; exit 1
fi
grep -q "gen_unsupported.c" "$TMP/log" || { echo "FAIL: --check did not name the stubs"; cat "$TMP/log"; exit 1; }
echo "ok   --check reports stubs made stale by a new hand-written function"
echo PASS
