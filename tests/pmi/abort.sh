# PMI abort: smrun stops the job and exits with the code, saying which rank
# aborted (with its message when one is given), even when the aborting
# rank exits right after with the same code (as the library does).
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 3 "$PMI_CLIENT" init @1:abort:5 @1:sleep:20 "@0:sleep:20" "@2:sleep:20"
expect_rc 5
expect_err "smrun: rank 1 called MPI_Abort with code 5"
expect_within 8
expect_clean

run_job -n 2 "$PMI_CLIENT" init "@1:abort:9:custom failure text" @1:sleep:20 @0:sleep:20
expect_rc 9
expect_err "smrun: rank 1 aborted the job with code 9: custom failure text"
expect_within 8
expect_clean

run_job -n 2 "$PMI_CLIENT" init @0:abort:7 @0:exit:7 @1:sleep:20
expect_rc 7
expect_err "smrun: rank 0 called MPI_Abort with code 7"
expect_no_err "exited with code"
expect_within 8
expect_clean

# Codes beyond 255 wrap like exit(), but an abort never reads as success.
run_job -n 1 "$PMI_CLIENT" init @0:abort:300 @0:sleep:20
expect_rc 44
run_job -n 1 "$PMI_CLIENT" init @0:abort:256 @0:sleep:20
expect_rc 1
echo PASS
