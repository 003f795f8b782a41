# MPICH's hydra (mpiexec.hydra) starts a smartmap program across emulated
# hosts: its proxies come through hostexec (-launcher-exec) and call back to
# the bridge address (-localhost); the ranks speak PMI-1 to their proxy and
# tell nodes apart by host name.  Skipped where hydra is not installed.
NHOSTS=3
source "$SMAP_SRC/tests/netns/lib.sh"
HYDRA=$(command -v mpiexec.hydra) || { echo "SKIPPED: no mpiexec.hydra"; exit 77; }
HY="-launcher-exec $SMAP_NETNS_LAUNCHER -localhost $SMAP_NETNS_HEAD"
SMRUN=$HYDRA    # run_job starts $SMRUN

run_job $HY -hosts h1:2,h2:2 -n 4 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 2 0" "1 h1 2 1" "2 h2 2 0" "3 h2 2 1"
expect_ring "0 2" "2 2"

run_job $HY -hosts h1:1,h2:2,h3:3 -n 6 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 h1 1 0" "1 h2 2 0" "2 h2 2 1" "3 h3 3 0" "4 h3 3 1" "5 h3 3 2"
expect_ring "0 1" "1 2" "3 3"

# Two hydra "hosts" on one machine: two nodes (PMI_process_mapping), not
# one node of the same host name.
run_job -launcher-exec "$HERE_LAUNCHER" -localhost 127.0.0.1 -hosts a:2,b:2 -n 4 -l "$HOSTINFO"
expect_rc 0
expect_layout "0 $(hostname) 2 0" "1 $(hostname) 2 1" "2 $(hostname) 2 0" "3 $(hostname) 2 1"
expect_ring "0 2" "2 2"

# MPI_Abort on the second host stops the job with a non-zero code.
run_job $HY -hosts h1:2,h2:2 -n 4 "$HOSTINFO" abort:2 "wait:$NEVER"
[ "$RC" -ne 0 ] || fail "hydra exited 0 after MPI_Abort"
expect_within 15
echo "PASS"
