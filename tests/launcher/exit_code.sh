# Exit codes: all ranks 0 -> 0; a rank's non-zero code is smrun's, the
# other ranks are stopped promptly, the first failure decides, the failure
# is reported once, and nothing is left in /dev/shm.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 3 "$RANKPROG" print:hello{rank}
expect_rc 0
expect_out hello0; expect_out hello2
[ -s "$WORK/err" ] && fail "stderr not empty on success"
expect_clean

run_job -n 4 "$RANKPROG" @2:exit:7 "waitfile:$NEVER"
expect_rc 7
expect_err "smrun: rank 2 (pid "
expect_err ") exited with code 7"
[ "$(grep -c '^smrun:' "$WORK/err")" = 1 ] || fail "expected exactly one smrun message"
expect_within 10
expect_clean

# Rank 1 ignores SIGTERM and exits 5 after rank 0 exited 3: 3 wins.
run_job -n 2 "$RANKPROG" @1:ignoreterm "ready:$WORK" @0:exit:3 \
    "@1:waitfile:$WORK/ready.0" @1:sleep:0.2 @1:exit:5
expect_rc 3
expect_err "rank 0 (pid"
expect_no_err "exited with code 5"
expect_clean

# The conventional names are the same launcher.
for alias in mpiexec mpirun; do
    SMRUN="$SMAP_STAGE/bin/$alias" run_job -np 2 "$RANKPROG" @1:exit:4
    expect_rc 4
    expect_clean
done
echo PASS
