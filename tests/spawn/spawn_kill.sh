# A spawned child killed by SIGKILL stops the whole job: the nested smrun
# reports its rank's signal (137), the parents' smrun takes that code and
# stops the parents, which wait in MPI_Comm_spawn or later; nothing is left
# in /dev/shm or /tmp.
source "$SMAP_SRC/tests/launcher/lib.sh"
export SMRUN_BIND_TO=none SPAWN_TEST_DIE=1
# through a link of this test's own: the children are spawned by that
# name too, so that the check below sees no other test's processes
PROG="$WORK/spawn_basic_killed"
ln -s "$SMAP_TEST_BIN/spawn_basic" "$PROG"
run_job -n 2 "$PROG"
expect_rc 137
expect_err "killed by signal 9"
expect_clean
for i in $(seq 1 300); do pgrep -f "$PROG" >/dev/null || break; sleep 0.01; done
pgrep -f "$PROG" >/dev/null && fail "processes of the job left: $(pgrep -af "$PROG")"
echo PASS
