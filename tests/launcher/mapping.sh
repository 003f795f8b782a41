# --map-by, --rank-by and --bind-to over hwloc topologies that are not
# this machine's (HWLOC_SYNTHETIC: 2 packages x 4 cores x 2 hardware
# threads, one NUMA node and one L3 per package; CPUs 0-15): smrun
# computes and reports each rank's CPUs ("would be bound"), applies
# nothing, and refuses impossible mappings with a clear message.
source "$SMAP_SRC/tests/launcher/lib.sh"
export HWLOC_SYNTHETIC="pack:2 numa:1 l3:1 core:4 pu:2"

cpus() {   # the CPUs reported for rank $1
    sed -n "s/^smrun: rank $1 (pid [0-9]*) on [^:]*: would be bound to CPUs\{0,1\} \([0-9,-]*\) .*/\1/p" "$WORK/err"
}
want() {   # want "OPTIONS" "cpus of rank 0" "of rank 1" ...
    local opts=$1 r=0 c
    shift
    for c in "$@"; do
        [ "$(cpus "$r")" = "$c" ] || fail "$opts: rank $r would be bound to '$(cpus "$r")', expected '$c'"
        r=$((r + 1))
    done
}
job() {   # job N OPTIONS...
    local n=$1
    shift
    run_job -n "$n" --report-bindings "$@" "$RANKPROG"
    expect_rc 0
    expect_err "the topology is not this machine's: not applied"
}

job 4;                                 want "default" 0-1 2-3 4-5 6-7
job 4 --map-by socket;                 want "--map-by socket" 0-1 8-9 2-3 10-11
job 4 --map-by numa --bind-to numa;    want "--map-by numa --bind-to numa" 0-7 8-15 0-7 8-15
job 4 --map-by l3cache --bind-to l3cache; want "--map-by l3cache" 0-7 8-15 0-7 8-15
job 3 --map-by hwthread;               want "--map-by hwthread" 0 1 2
job 2 --bind-to hwthread;              want "--bind-to hwthread" 0 2
job 2 --map-by socket:PE=4;            want "--map-by socket:PE=4" 0-7 8-15
job 2 --map-by core:PE=2 --bind-to hwthread; want "PE=2 hwthread" 0,2 4,6
job 6 --map-by ppr:3:socket;           want "ppr:3:socket" 0-1 2-3 4-5 8-9 10-11 12-13
job 8 --map-by core --rank-by socket; want "--rank-by socket" 0-1 8-9 2-3 10-11
job 4 -map-by socket -rank-by fill;    want "--rank-by fill" 0-1 2-3 8-9 10-11
job 2 --bind-to socket:overload-allowed; want "--bind-to socket" 0-7 0-7
job 2 --map-by ppr:1:node;             want "ppr:1:node (-N 1)" 0-1 2-3
job 2 -bind-to core -map-by slot;      want "hydra's spelling" 0-1 2-3

# More ranks than cores: not bound by default, wrapped when asked.
run_job -n 9 --report-bindings "$RANKPROG"
expect_rc 0
expect_err "rank 8 (pid"
expect_err "not bound (9 ranks, 8 cores)"
job 9 --bind-to core
expect_err "mapping wraps around"
want "wrapped" 0-1 2-3 4-5 6-7 8-9 10-11 12-13 14-15 0-1

# Impossible or malformed: usage errors, nothing starts.
run_job -n 9 --map-by ppr:4:socket "$RANKPROG"
expect_rc 2
expect_err "--map-by ppr:4:socket allows at most 8 ranks on this host"
run_job -n 1 --map-by numa:PE=5 "$RANKPROG"
expect_rc 2
expect_err "this host has fewer than 5 cores per numa"
for bad in "ppr:0:socket" "ppr:2:bogus" "ppr:2:core" "diagonal" "core:PE=0"; do
    run_job -n 1 --map-by "$bad" "$RANKPROG"
    expect_rc 2
    expect_err "--map-by: '$bad'"
done
run_job -n 1 --rank-by none "$RANKPROG"
expect_rc 2
expect_err "--rank-by: 'none' is not a ranking"
echo PASS
