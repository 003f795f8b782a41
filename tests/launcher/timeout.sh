# --timeout (and MPIEXEC_TIMEOUT): the job is stopped, the message says so,
# smrun exits 124 like timeout(1), even when a rank ignores SIGTERM.
source "$SMAP_SRC/tests/launcher/lib.sh"

start_job --timeout 2 -n 2 "$RANKPROG" "ready:$WORK" "waitfile:$NEVER"
wait_ready 2
finish_job
expect_rc 124
expect_err "smrun: job timed out after 2 s"
expect_within 9
expect_gone $(rank_pid 0) $(rank_pid 1)
expect_clean

run_job --timeout 0.5 -n 2 "$RANKPROG" @1:ignoreterm "waitfile:$NEVER"
expect_rc 124
expect_err "timed out after 0.5 s"
expect_within 8
expect_clean

MPIEXEC_TIMEOUT=1 run_job -n 1 "$RANKPROG" "waitfile:$NEVER"
expect_rc 124
expect_within 8
expect_clean

# A job that ends in time is not affected.
run_job --timeout 30 -n 2 "$RANKPROG" print:ok
expect_rc 0
expect_within 10
echo PASS
