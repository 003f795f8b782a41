# A spawned child killed by SIGKILL stops the whole job: the nested smrun
# reports its rank's signal (137), the parents' smrun takes that code and
# stops the parents, which wait in MPI_Comm_spawn or later; nothing is left
# in /dev/shm or /tmp.
source "$SMAP_SRC/tests/launcher/lib.sh"
export SMRUN_BIND_TO=none SPAWN_TEST_DIE=1
run_job -n 2 "$SMAP_TEST_BIN/spawn_basic"
expect_rc 137
expect_err "killed by signal 9"
expect_clean
pgrep -f "$SMAP_TEST_BIN/spawn_basic" >/dev/null && fail "spawn_basic processes left"
echo PASS
