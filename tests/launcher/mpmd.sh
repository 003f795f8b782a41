# MPMD: "mpiexec -n 1 ./a first : -n 2 ./b second" (hydra's and Open MPI's
# syntax) used to run one rank with ": -n 2 ./b second" in its argv and
# exit 0.  Each part has its own -n, -env, -x and -wdir; MPI_COMM_WORLD
# spans them all, and MPI_APPNUM is the part's index.
source "$SMAP_SRC/tests/launcher/lib.sh"
P=${MPMD_PROG:?}

run_job -n 1 "$P" first : -n 2 "$P" second
expect_rc 0
expect_out "rank 0 of 3 appnum 0 arg first sum 2"
expect_out "rank 1 of 3 appnum 1 arg second sum 2"
expect_out "rank 2 of 3 appnum 1 arg second sum 2"
[ "$(wc -l < "$WORK/out")" = 3 ] || fail "expected 3 lines: $(cat "$WORK/out")"

# Three parts, a plain program among them; per-part environment and
# working directory; the global -genv reaches every part.
mkdir -p "$WORK/part dir"
run_job -genv ALL_PARTS yes -n 1 "$RANKPROG" env:ONLY_B env:ALL_PARTS \
    : -n 1 -env ONLY_B b "$RANKPROG" "print:b={rank}" env:ONLY_B env:ALL_PARTS \
    : -wdir "$WORK/part dir" sh -c 'echo "pwd=$PWD"'
expect_rc 0
expect_out "ONLY_B unset"; expect_out "ONLY_B=b"; expect_out "b=1"
[ "$(grep -c '^ALL_PARTS=yes$' "$WORK/out")" = 2 ] || fail "-genv did not reach every part"
expect_out "pwd=$WORK/part dir"

# Errors: a part's option that belongs before the first program, a part
# without a program, a missing program in a later part (nothing starts).
run_job -n 1 "$RANKPROG" : -l "$RANKPROG"
expect_rc 2; expect_err "is not one of an MPMD part's"
run_job -n 1 "$RANKPROG" :
expect_rc 2; expect_err "has no program"
run_job -n 1 "$RANKPROG" "print:started" : -n 1 ./no-such-program
expect_rc 127; expect_no_err "started"
grep -q started "$WORK/out" && fail "the first part started although the second cannot"
run_job --host localhost -n 1 "$RANKPROG" : -n 1 "$RANKPROG"
expect_rc 2; expect_err "MPMD (':') across hosts is not supported yet"
echo PASS
