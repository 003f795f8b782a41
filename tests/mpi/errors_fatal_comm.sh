#!/usr/bin/env bash
# Issue 36: the message of MPI_ERRORS_ARE_FATAL names the communicator the
# program made: its MPI_Comm_set_name name, else how it was made and from
# which parent ("a communicator made by MPI_Comm_dup from MPI_COMM_WORLD").
set -u
prog="$SMAP_TEST_BIN/fatal_comm"
fail() { echo "FAIL: $*"; exit 1; }
check() {
    local mode=$1 want=$2 out rc
    out=$(timeout 30 "$SMAP_STAGE/bin/smrun" -n 2 "$prog" "$mode" 2>&1); rc=$?
    echo "--- mode $mode: exit $rc"; echo "$out"
    [ $rc -ne 0 ] || fail "$mode: job exited 0"
    [ $rc -ne 124 ] || fail "$mode: job hung"
    grep -q "NOT REACHED" <<<"$out" && fail "$mode: a rank went on after the error"
    grep -qF "MPI_ERRORS_ARE_FATAL is the error handler of $want: " <<<"$out" ||
        fail "$mode: message does not name the communicator as '$want'"
}
check dup "a communicator made by MPI_Comm_dup from MPI_COMM_WORLD"
check named "solver_comm"
check nested "a communicator made by MPI_Comm_dup from a communicator made by MPI_Comm_split from MPI_COMM_WORLD"
echo PASS
