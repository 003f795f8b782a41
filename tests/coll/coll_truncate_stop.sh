#!/usr/bin/env bash
# coll_truncate_stop: ranks whose collectives took different steps (here:
# rank 0 roots a bcast and leaves for MPI_Finalize while the others wait
# in two barriers for a step it never publishes) stop the job with a
# message naming the collective, within the timeout, instead of hanging
# (issue 36, DESIGN.md D18: "or the job stops").
set -u
: "${SMAP_STAGE:?run through ctest}" "${SMAP_TEST_BIN:?run through ctest}"
prog="$SMAP_TEST_BIN/coll_truncate"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/coll_stop.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
[ -x "$prog" ] || { echo "FAIL: $prog is not built"; exit 1; }
for np in 2 3; do
    (cd "$TMP" && timeout 30 "$SMAP_STAGE/bin/smrun" -n $np "$prog" diverge >"$TMP/out" 2>"$TMP/err")
    rc=$?
    echo "np $np: job exit status $rc"
    fail() { echo "FAIL (np $np): $*"; echo "--- stdout"; cat "$TMP/out"; echo "--- stderr"; cat "$TMP/err"; exit 1; }
    [ $rc -ne 124 ] || fail "the job hung"
    [ $rc -ne 0 ] || fail "the job exited 0"
    grep -q "MPI_Barrier: rank [0-9]* of the communicator waits for rank 0's step" "$TMP/err" ||
        fail "stderr does not name the waiting collective and the peer"
    grep -q "left for MPI_Finalize" "$TMP/err" || fail "stderr does not say where rank 0 went"
    grep -q "took different paths through the collective" "$TMP/err" || fail "no reason given"
    cat "$TMP/err"
done
echo PASS
