#!/usr/bin/env bash
# abi_unsupported_fatal: under the default error handler an unimplemented
# function (MPI_Comm_join) stops the job with a non-zero exit and a message
# on stderr naming the function.
set -u
: "${SMAP_STAGE:?run through ctest}" "${SMAP_TEST_BIN:?run through ctest}"
prog="$SMAP_TEST_BIN/abi_unsupported_fatal"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/abi_fatal.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"; exit 1; }
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
[ -x "$SMAP_STAGE/bin/smrun" ] || { echo "FAIL: $SMAP_STAGE/bin/smrun is not built"; exit 1; }
(cd "$TMP" && timeout 60 "$SMAP_STAGE/bin/smrun" -n 1 "$prog" >"$TMP/out" 2>"$TMP/err")
rc=$?
echo "job exit status: $rc"
[ $rc -ne 0 ] || fail "the job exited 0"
[ $rc -ne 124 ] || fail "the job hung"
grep -q "NOT REACHED" "$TMP/out" && fail "MPI_Comm_join returned under MPI_ERRORS_ARE_FATAL"
grep -q "MPI_Comm_join" "$TMP/err" || fail "stderr does not name MPI_Comm_join"
cat "$TMP/err"
echo PASS
