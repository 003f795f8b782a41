# MPI_Comm_spawn under Open MPI's mpirun (a PMIx server): the parents'
# root asks through PMIx_Spawn (src/boot/pmix_client.c), the children
# start in a namespace of their own, find the parents' port in their
# environment and connect in MPI_Init.  1 parent -> 2 children and
# 2 parents -> 3 children (p2p both ways with data checks, intercomm bcast
# and allreduce, merge, disconnect: spawn_basic), spawn_multiple with two
# argv sets, wdir, path, soft, arch and a nested spawn (spawn_multi), info
# host and hostfile (spawn_hosts), ports, names through mpirun's data
# server and join (dynproc),
# children as node peers of their parents (spawn_peer), and
# spawns that cannot start (a missing program, a host outside the
# allocation) fail with MPI_ERR_SPAWN on every parent, neither hanging nor
# ending the job.  Nothing is left in /tmp (mpirun's and PMIx's files go to
# this test's TMPDIR, checked empty) nor in /dev/shm.
# Skipped where Open MPI's mpirun or libpmix is missing.
source "$SMAP_SRC/tests/launcher/lib.sh"
source "$SMAP_SRC/tests/pmi/ompi_mpirun.sh"
export OMPI_MCA_btl=self OMPI_MCA_plm_rsh_agent=false             # one host, nothing remote
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
touch "$WORK/start"
BASIC="$SMAP_TEST_BIN/spawn_basic"
MULTI="$SMAP_TEST_BIN/spawn_multi"
PEER="$SMAP_TEST_BIN/spawn_peer"

# nothing of mpirun, PMIx or ours left behind by the last run
expect_tmp_clean() {
    local left
    left=$(ls -A "$TMPDIR")
    [ -z "$left" ] || fail "left in TMPDIR after $1: $left"
    left=$(find /dev/shm -maxdepth 1 -newer "$WORK/start" \( -name '*pmix*' -o -name '*ompi*' \
           -o -name '*orte*' -o -name '*vader*' \) 2>/dev/null)
    [ -z "$left" ] || fail "left in /dev/shm after $1: $left"
}

run_job --oversubscribe -n 1 "$BASIC" 2
expect_rc 0
expect_no_err "wrong"
expect_tmp_clean "1 parent, 2 children"

run_job --oversubscribe -n 2 "$BASIC" 3
expect_rc 0
expect_tmp_clean "2 parents, 3 children"

run_job --oversubscribe -n 1 "$MULTI"
expect_rc 0
expect_tmp_clean "spawn_multiple"

# info host and a relative hostfile (read in the parents' directory)
HOSTS="$SMAP_TEST_BIN/spawn_hosts"
run_job --oversubscribe -n 1 "$HOSTS" 2 "host=$(hostname)"
expect_rc 0
expect_out "child 1 host $(hostname)"
echo "$(hostname) slots=4" >"$WORK/hf"
(cd "$WORK" && run_job --oversubscribe -n 1 "$HOSTS" 3 hostfile=hf && expect_rc 0 &&
    expect_out "child 2 host $(hostname)") || exit 1
rm -f "$WORK/hf"
expect_tmp_clean "info host and hostfile"

# ports, names (mpirun's data server: a second publish and a lookup after
# unpublish are errors), connect/accept between two halves of the job and
# MPI_Comm_join (dynproc); names shared by parents (spawn_hosts)
for np in 2 4; do
    run_job --oversubscribe -n $np "$SMAP_TEST_BIN/dynproc"
    expect_rc 0
done
run_job --oversubscribe -n 2 "$HOSTS" 2
expect_rc 0
expect_out "lookup ok"
expect_tmp_clean "ports and names"

# children on the parents' node are node peers (the MPI_T rendezvous
# counters of spawn_peer prove the shm route), twice in one job
run_job --oversubscribe -n 2 "$PEER" shm 2
expect_rc 0
expect_out "spawn_peer: OK"
expect_tmp_clean "spawn_peer"

run_job --oversubscribe -n 2 "$BASIC" missing
expect_rc 0
for r in 0 1; do
    expect_out "rank $r: spawn failed as it should"
done
grep -q "not found or not executable" "$WORK/out" "$WORK/err" || fail "no reason given for the missing program"
expect_tmp_clean "a missing program"

# A host outside the allocation: Open MPI 4.1's mpirun cannot map the
# children and answers the spawn with an error (every parent:
# MPI_ERR_SPAWN, then MPI_Finalize and exit 0), but mpirun itself then
# never exits (it does the same with Open MPI's own MPI_Comm_spawn and
# this info host), so the test waits for the parents' verdicts and their
# exit, and stops mpirun itself.
start_job --oversubscribe -n 2 "$BASIC" missing smap-no-such-host
for i in $(seq 1 3000); do
    [ "$(grep -c "spawn failed as it should" "$WORK/out")" = 2 ] && break
    kill -0 "$SMRUN_PID" 2>/dev/null || break
    sleep 0.01
done
for r in 0 1; do
    expect_out "rank $r: spawn failed as it should: MPI_Comm_spawn: the launcher refused the spawn"
done
for i in $(seq 1 1000); do
    pgrep -f "$BASIC missing smap-no-such-host" | grep -qv "^$SMRUN_PID\$" || break
    sleep 0.01
done
pgrep -f "$BASIC missing smap-no-such-host" | grep -qv "^$SMRUN_PID\$" &&
    fail "parents left after a refused spawn: $(pgrep -af "$BASIC missing smap-no-such-host")"
kill -TERM "$SMRUN_PID" 2>/dev/null
finish_job
rm -rf "$TMPDIR"/ompi.* 2>/dev/null   # what mpirun would have removed at its exit
expect_tmp_clean "an unknown host"
echo PASS
