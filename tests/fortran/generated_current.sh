#!/usr/bin/env bash
# fortran_generated_current: the committed outputs of scripts/gen_fortran.py
# (mpif.h, the module, the C entry points, the call tests) are what it
# writes from std/ and the hand-written wrappers; and --check can fail: a
# copy with one generated line changed is reported stale.
set -u
: "${SMAP_SRC:?run through ctest}"
PY=${PYTHON:-python3}
gen="$SMAP_SRC/scripts/gen_fortran.py"
"$PY" "$gen" --root "$SMAP_SRC" --check || {
    echo "FAIL: generated Fortran files are stale; run 'make regen' and commit the result"; exit 1; }
echo "ok   generated Fortran files are current"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/fort_gen.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/src/binding" "$TMP/tests/fortran"
cp -r "$SMAP_SRC/std" "$TMP/"
cp -r "$SMAP_SRC/src/binding/fortran" "$TMP/src/binding/"
cp "$SMAP_SRC"/tests/fortran/gen_* "$TMP/tests/fortran/"
"$PY" "$gen" --root "$TMP" --check >/dev/null || { echo "FAIL: the copied tree is not current"; exit 1; }
sed -i 's/PARAMETER (MPI_TAG_UB=.*)/PARAMETER (MPI_TAG_UB=1)/' "$TMP/src/binding/fortran/mpif.h"
if "$PY" "$gen" --root "$TMP" --check >"$TMP/log"; then
    echo "FAIL: --check did not notice a changed mpif.h"; exit 1
fi
grep -q "mpif.h" "$TMP/log" || { echo "FAIL: --check did not name mpif.h"; cat "$TMP/log"; exit 1; }
echo "ok   --check reports a stale mpif.h"
echo PASS
