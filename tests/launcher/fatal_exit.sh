# A job aborted by MPI_ERRORS_ARE_FATAL never exits 0, whatever the error's
# code (issue 36: a class-0 code made mpiexec exit 0); only the program's
# own MPI_Abort(comm, 0) may.
source "$SMAP_SRC/tests/launcher/lib.sh"

for what in success user256 truncate; do
    run_job -n 2 "$FATAL_EXIT_PROG" "$what"
    [ "$RC" != 0 ] || fail "case $what: the job exited 0 after a fatal error"
    [ "$RC" -lt 124 ] || fail "case $what: exit code $RC (killed or timed out, not aborted)"
    expect_no_err "did not abort"
    expect_err "MPI_ERRORS_ARE_FATAL"
    expect_within 15
    expect_clean
done
run_job -n 2 "$FATAL_EXIT_PROG" abort0
expect_rc 0
expect_err "MPI_Abort(MPI_COMM_WORLD, 0)"
expect_clean
echo PASS
