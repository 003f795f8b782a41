#!/bin/bash
# Measures the crossovers of the hierarchical collectives across nodes
# (src/coll/hier): runs each collective benchmark of bench/ on emulated
# nodes (tests/net/multinode.sh LAYOUT: ranks of one machine grouped into
# nodes, libfabric between them on loopback) with the flat and the
# hierarchical setting of its switch, interleaved, and prints per size the
# best time of each and the crossover: the smallest size from which the
# hierarchical form wins at every larger size, and whether it wins at the
# smallest.  Run it on a quiet machine: on a loaded one every phase costs
# scheduling round trips of milliseconds (ratios only, noisy).
#
# The switches (all ranks set them alike):
#   alltoall    SMAP_COLL_HIER_ALLTOALL=0 with SMAP_COLL_HIER_ALLTOALL_MAX=0
#               | SMAP_COLL_HIER_ALLTOALL=1 (the flat pairwise schedule
#               against the gateway scheme at every size;
#               src/coll/hier/alltoall.c)
#   others      SMAP_COLL_HIER=0|1 (the whole hierarchy off / on)
#   with XH_RAILS=1 (bcast, allgather): the hierarchy's inter-node phase
#               through one leader per node against rails (every rank of
#               a node carries a piece: SMAP_COLL_HIER_{BCAST,ALLGATHER}_RAILS_MIN=1024G|0,
#               src/coll/hier/rails.c)
#   with XH_RING=1 (allreduce): the leaders' recursive doubling against
#               their ring (SMAP_COLL_HIER_RING_MIN=1024G|0; three nodes
#               or more, src/coll/hier/reduce.c)
#   with XH_RAB=1 (allreduce): the leaders' recursive doubling against
#               Rabenseifner (SMAP_COLL_HIER_RABENSEIFNER_MIN=1024G|0, the
#               ring off); XH_RAB=ring: Rabenseifner against the ring
#
# Environment:
#   BUILD_DIR    smartmap's build tree (default build)
#   XH_LAYOUTS   node layouts (default "2,2"; e.g. "2,2 1,2,3 rr:2,2")
#   XH_REPS      interleaved repetitions, the minimum counts (default 3)
#   XH_BENCH     benchmarks (default "alltoall allgather bcast reduce allreduce")
#   XH_MAX       largest size (default 4M)
#   XH_PROVIDER  libfabric provider (default "default": smartmap's own
#                choice, as make bench-net; e.g. tcp)
#   XH_PROGS     a folder of bench programs already built against smartmap
#                (e.g. bench/work/smartmap from scripts/bench_offline.sh):
#                nothing is compiled
# Output: stdout and bench/results/coll_crossover_hier.txt (XH_OUT).
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) b=$BUILD_DIR ;; *) b=$top/$BUILD_DIR ;; esac
LAYOUTS=${XH_LAYOUTS:-2,2}
REPS=${XH_REPS:-3}
BENCHES=${XH_BENCH:-alltoall allgather bcast reduce allreduce}
MAX=${XH_MAX:-4M}
out=${XH_OUT:-bench/results/coll_crossover_hier.txt}
export MULTINODE_PROVIDER=${XH_PROVIDER:-default}
[ "$MULTINODE_PROVIDER" = default ] || export FI_PROVIDER=$MULTINODE_PROVIDER
PROGS=${XH_PROGS:-}
if [ -z "$PROGS" ] && [ ! -x "$b/bin/mpicc" ]; then
    echo "coll_crossover_hier: $b/bin/mpicc not found: build first (make build)" >&2
    exit 1
fi
if ! command -v mpiexec.hydra >/dev/null; then
    echo "coll_crossover_hier: mpiexec.hydra (Debian's mpich) is not installed" >&2
    exit 77
fi
work=$(mktemp -d /tmp/smap-xh.XXXXXX)
trap 'rm -rf "$work"' EXIT
for p in $BENCHES; do
    if [ -n "$PROGS" ]; then
        cp "$PROGS/$p" "$work/$p" || exit 1
    elif ! "$b/bin/mpicc" -std=gnu11 -O2 -o "$work/$p" "bench/$p.c" bench/common.c; then
        echo "coll_crossover_hier: bench/$p.c does not build" >&2
        exit 1
    fi
done

# The environment of one side: flat or hier, for benchmark $1.
side_env()
{
    case $1 in
    bcast | allgather)
        if [ "${XH_RAILS:-0}" = 1 ]; then
            v=SMAP_COLL_HIER_$(echo "$1" | tr a-z A-Z)_RAILS_MIN
            [ "$2" = 1 ] && echo "$v=0" || echo "$v=1024G"
        else
            echo "SMAP_COLL_HIER=$2"
        fi ;;
    allreduce)
        if [ "${XH_RAB:-0}" = 1 ]; then
            [ "$2" = 1 ] && echo "SMAP_COLL_HIER_RING_MIN=1024G SMAP_COLL_HIER_RABENSEIFNER_MIN=0" ||
                echo "SMAP_COLL_HIER_RING_MIN=1024G SMAP_COLL_HIER_RABENSEIFNER_MIN=1024G"
        elif [ "${XH_RAB:-0}" = ring ]; then
            [ "$2" = 1 ] && echo "SMAP_COLL_HIER_RING_MIN=0" ||
                echo "SMAP_COLL_HIER_RING_MIN=1024G SMAP_COLL_HIER_RABENSEIFNER_MIN=0"
        elif [ "${XH_RING:-0}" = 1 ]; then
            [ "$2" = 1 ] && echo "SMAP_COLL_HIER_RING_MIN=0" || echo "SMAP_COLL_HIER_RING_MIN=1024G"
        else
            echo "SMAP_COLL_HIER=$2"
        fi ;;
    alltoall)   # flat: no gateways even for small blocks (SMAP_COLL_HIER_ALLTOALL_MAX)
        [ "$2" = 1 ] && echo "SMAP_COLL_HIER=1 SMAP_COLL_HIER_ALLTOALL=1" ||
            echo "SMAP_COLL_HIER=1 SMAP_COLL_HIER_ALLTOALL=0 SMAP_COLL_HIER_ALLTOALL_MAX=0" ;;
    *) echo "SMAP_COLL_HIER=$2" ;;
    esac
}

{
echo "# Hierarchical crossovers (scripts/coll_crossover_hier.sh), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# usec per call: best of $REPS interleaved runs (bench/<name> --quick); layout = ranks per emulated node"
echo "# crossover = smallest size from which the second column (hier; rails with XH_RAILS=1, ring with XH_RING=1, rabenseifner with XH_RAB=1, ring with XH_RAB=ring) wins at every larger size"
for lay in $LAYOUTS; do
    for p in $BENCHES; do
        for r in $(seq "$REPS"); do
            for v in 0 1; do
                # shellcheck disable=SC2046
                env $(side_env "$p" "$v") timeout 300 tests/net/multinode.sh "$lay" "$work/$p" \
                    --quick --max-size "$MAX" 2>&1 |
                    sed -nE 's/^RESULT .* size=([0-9]+) .* usec=([0-9.]+).*/\1 \2/p' >>"$work/$p.$v"
            done
        done
        echo
        echo "## $p, layout $lay ($(side_env "$p" 0) against $(side_env "$p" 1))"
        A=flat B=hier
        case $p,${XH_RAILS:-0},${XH_RING:-0},${XH_RAB:-0} in
        bcast,1,* | allgather,1,*) A=leaders B=rails ;;
        allreduce,*,*,1) A=doubling B=rabenseifner ;;
        allreduce,*,*,ring) A=rabenseifner B=ring ;;
        allreduce,*,1,*) A=doubling B=ring ;;
        esac
        printf '%10s %10s %10s %8s\n' bytes $A $B $B/$A
        if [ ! -s "$work/$p.0" ] || [ ! -s "$work/$p.1" ]; then
            echo "no result (a run failed)"
            rm -f "$work/$p.0" "$work/$p.1"
            continue
        fi
        join <(sort -n -k1,1 -k2,2g "$work/$p.0" | awk '!s[$1]++' | sort -k1,1) \
             <(sort -n -k1,1 -k2,2g "$work/$p.1" | awk '!s[$1]++' | sort -k1,1) |
            sort -n | awk -v A=$A -v B=$B '{ printf "%10d %10.1f %10.1f %8.2f\n", $1, $2, $3, $3 / $2;
                             sz[NR]=$1; w[NR]=($3 < $2) }
                END { x = "";
                      for (i = NR; i >= 1 && w[i]; i--) x = sz[i];
                      if (x == "") print "crossover: none (" A " wins at the largest size)";
                      else print "crossover: " B " from " x " bytes";
                      print "smallest size: " (w[1] ? B : A) " wins" }'
        rm -f "$work/$p.0" "$work/$p.1"
    done
done
} | tee "$out"
