#!/usr/bin/env bash
# coll_truncate_fatal: under the default error handler a truncating
# MPI_Gather (the root posts fewer elements than a member sends) stops the
# job with a non-zero exit (issue 36: it used to return MPI_SUCCESS, or an
# error of class MPI_SUCCESS that aborted with code 0).
set -u
: "${SMAP_STAGE:?run through ctest}" "${SMAP_TEST_BIN:?run through ctest}"
prog="$SMAP_TEST_BIN/coll_truncate"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/coll_fatal.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"; exit 1; }
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
(cd "$TMP" && timeout 30 "$SMAP_STAGE/bin/smrun" -n 2 "$prog" fatal >"$TMP/out" 2>"$TMP/err")
rc=$?
echo "job exit status: $rc"
[ $rc -ne 0 ] || fail "the job exited 0"
[ $rc -ne 124 ] || fail "the job hung"
grep -q "NOT REACHED rank 0" "$TMP/out" && fail "the root's MPI_Gather returned under MPI_ERRORS_ARE_FATAL"
grep -q "MPI_ERR_TRUNCATE" "$TMP/err" || fail "stderr does not say MPI_ERR_TRUNCATE"
cat "$TMP/err"
echo PASS
