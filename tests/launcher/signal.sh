# A rank killed by a signal: exit 128+signal, the message names the rank
# and the signal, the other ranks are stopped, nothing is left.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 3 "$RANKPROG" @1:segv "waitfile:$NEVER"
expect_rc 139
expect_err "smrun: rank 1 (pid "
expect_err "killed by signal 11 (SIGSEGV)"
expect_within 10
expect_clean

run_job -n 2 "$RANKPROG" @0:selfkill:6 "waitfile:$NEVER"
expect_rc 134
expect_err "rank 0 (pid"
expect_err "killed by signal 6 (SIGABRT)"
expect_clean
echo PASS
