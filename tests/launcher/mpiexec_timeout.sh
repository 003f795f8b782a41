# mpiexec (smrun under its MPI name) honours MPIEXEC_TIMEOUT as hydra does:
# the job is stopped after that many seconds, the exit code is 124, an
# explicit --timeout wins over the variable, and a bad value is refused.
source "$SMAP_SRC/tests/launcher/lib.sh"
SMRUN="$SMAP_STAGE/bin/mpiexec"
[ -x "$SMRUN" ] || fail "no mpiexec in $SMAP_STAGE/bin"

MPIEXEC_TIMEOUT=1 run_job -n 2 "$RANKPROG" "waitfile:$NEVER"
expect_rc 124
expect_err "timed out after 1 s"
expect_within 8
expect_clean

MPIEXEC_TIMEOUT=30 run_job --timeout 1 -n 1 "$RANKPROG" "waitfile:$NEVER"
expect_rc 124
expect_err "timed out after 1 s"
expect_within 8

MPIEXEC_TIMEOUT=abc run_job -n 1 "$RANKPROG" print:ok
[ "$RC" != 0 ] || fail "MPIEXEC_TIMEOUT=abc accepted"
expect_err "MPIEXEC_TIMEOUT"

MPIEXEC_TIMEOUT=30 run_job -n 2 "$RANKPROG" print:ok
expect_rc 0
expect_within 10
echo PASS
