# A real MPI program calling MPI_Abort(MPI_COMM_WORLD, 7): smrun exits 7,
# says which rank aborted, stops the others, leaves nothing.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 2 "$MPI_ABORT_PROG"
expect_rc 7
expect_err "smrun: rank 0 "
expect_within 15
expect_clean
echo PASS
