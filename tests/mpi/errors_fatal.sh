#!/usr/bin/env bash
# An MPI error under MPI_ERRORS_ARE_FATAL (the default) or MPI_ERRORS_ABORT
# stops the whole job with a non-zero exit and a message naming the function.
set -u
prog="$SMAP_TEST_BIN/fatal_error"
fail() { echo "FAIL: $*"; exit 1; }
for mode in default fatal abort; do
    out=$(timeout 30 "$SMAP_STAGE/bin/smrun" -n 3 "$prog" "$mode" 2>&1); rc=$?
    echo "--- mode $mode: exit $rc"; echo "$out"
    [ $rc -ne 0 ] || fail "$mode: job exited 0"
    [ $rc -ne 124 ] || fail "$mode: job hung"
    grep -q "MPI_Comm_size" <<<"$out" || fail "$mode: message does not name MPI_Comm_size"
    grep -q "size is NULL" <<<"$out" || fail "$mode: message does not name the argument"
    grep -q "NOT REACHED" <<<"$out" && fail "$mode: a rank went on after the error"
    want=MPI_ERRORS_ARE_FATAL; [ $mode = abort ] && want=MPI_ERRORS_ABORT
    grep -q "$want" <<<"$out" || fail "$mode: message does not name $want"
done
echo PASS
