# MPI traffic across emulated hosts: the libfabric transport (src/net) over
# real interfaces of separate network namespaces (tcp provider on each
# host's eth0, addresses in 198.18.0.0/15), jobs started by smrun's agents
# and by MPICH's hydra: the cross-transport rules (net_rules) at 2 hosts x
# 2 ranks and 3 uneven hosts, communicators split and made from groups.  The point-to-point and collective suites
# across hosts are suites.sh's.
NHOSTS=3
source "$SMAP_SRC/tests/netns/lib.sh"
export SMAP_NODE_CPUS=1     # the CI machine's few CPUs are shared by every host

job() {   # job EXPECTED_RC SMRUN_ARGS...
    local want=$1
    shift
    run_job "$@"
    expect_rc "$want"
}

# smrun across hosts: the rules, communicator splits.
job 0 $MH --host h1:2,h2:2 "$NET_RULES"
job 0 $MH --host h1:1,h2:2,h3:3 "$NET_RULES"
job 0 $MH --host h1:2,h2:1 -x SMAP_NET_RMA=0 -x SMAP_NET_CHUNK=8K -x SMAP_NET_EAGER_LIMIT=2K \
    -x SMAP_COPY=bounce "$NET_RULES"
job 0 $MH --host h1:2,h2:2 "$TESTS_BIN/comm/comm_split"
# Communicators from groups that span hosts (MPI_Comm_create_from_group,
# MPI_Intercomm_create_from_groups: refused "on another node" before).
job 0 $MH --host h1:2,h2:1 "$TESTS_BIN/session/session_only"
# The network engine is a plugin loaded by jobs across hosts only
# (src/net/engine.h): here every rank maps it and libfabric, and the ranks
# of a one-host job (h1 alone) map no network library.
job 0 $MH --host h1:1,h2:2 "$TESTS_BIN/net/net_engine" ofi
expect_out "net_engine: 3 ranks OK (libfabric engine mapped)"
job 0 $MH --host h1:2 "$TESTS_BIN/net/net_engine" none
expect_out "net_engine: 2 ranks OK (no network library mapped)"
# A rank's memory across hosts (tcp;ofi_rxm): 18.7 MB resident; 43 MB
# with rxm's 1024 bounce buffers at its default 16 KiB, 77 MB while rxm
# also posted 4096 receive buffers of the eager size (issue 37).
job 0 $MH --host h1:1,h2:1 "$TESTS_BIN/net/net_footprint" 30000
expect_out "net_footprint: rank 0 resident"
# (The p2p and collective suites across hosts, by every launcher: suites.sh.)

# hydra across the same hosts.
if HYDRA=$(command -v mpiexec.hydra); then
    SMRUN=$HYDRA
    job 0 -launcher-exec "$SMAP_NETNS_LAUNCHER" -localhost "$SMAP_NETNS_HEAD" \
        -hosts h1:2,h2:2 -n 4 "$NET_RULES"
fi
echo "transport across emulated hosts: ok"
