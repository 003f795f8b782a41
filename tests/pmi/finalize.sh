# Finalize is not required: ranks that exit 0 without it (or without ever
# speaking PMI, or after closing the socket) make a successful job.  But a
# rank that exits while the others wait in a PMI barrier it never joined
# would hang the job forever: that is reported and the job fails.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 2 "$PMI_CLIENT" init @0:finalize @1:exit:0
expect_rc 0
expect_clean

run_job -n 2 "$PMI_CLIENT" init close sleep:0.1
expect_rc 0

run_job -n 3 "$RANKPROG" print:no-pmi
expect_rc 0

run_job -n 2 "$PMI_CLIENT" init @0:exit:0 @1:barrier
expect_rc 1
expect_err "smrun: rank 0 (pid "
expect_err "exited without joining the PMI barrier"
expect_within 8
expect_clean

# The same when the barrier is entered after the other rank already left.
run_job -n 2 "$PMI_CLIENT" init @0:exit:0 @1:sleep:0.5 @1:barrier
expect_rc 1
expect_err "exited without joining the PMI barrier"
expect_within 8
echo PASS
