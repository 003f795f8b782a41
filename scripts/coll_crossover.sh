#!/bin/bash
# Measures the crossovers of src/coll/select.c: runs each collective
# benchmark of bench/ with SMAP_COLL_ALGO=inline and =direct, interleaved,
# and prints per size the best time of each and the crossover — the
# smallest size from which DIRECT is faster at every larger size — next to
# the table's current value.  Run it on a quiet machine.
#
# Environment:
#   BUILD_DIR   smartmap's build tree (default build)
#   XO_NPS      rank counts (default "2 4")
#   XO_REPS     interleaved repetitions, the minimum counts (default 5)
#   XO_BENCH    benchmarks (default "bcast bcast-vary allgather alltoall reduce
#               reduce-vary allreduce allreduce-vary"); NAME-vary runs bench/NAME.c with --vary (the
#               data change every call, as in a real program: a DIRECT pull
#               of an unchanged buffer hits the reader's cache, which
#               flatters DIRECT)
#   XO_MAX      largest size (default 256K)
#   XO_PROGS    a folder of bench programs already built against smartmap
#               (e.g. bench/work/smartmap after scripts/bench_offline.sh
#               unpack): nothing is compiled
#   XO_OUT      the output file (default bench/results/coll_crossover.txt)
# Output: stdout and XO_OUT.
set -uo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top" || exit 1
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) b=$BUILD_DIR ;; *) b=$top/$BUILD_DIR ;; esac
NPS=${XO_NPS:-2 4}
REPS=${XO_REPS:-5}
BENCHES=${XO_BENCH:-bcast bcast-vary allgather alltoall reduce reduce-vary allreduce allreduce-vary}
MAX=${XO_MAX:-256K}
PROGS=${XO_PROGS:-}
if [ -z "$PROGS" ] && [ ! -x "$b/bin/mpicc" ]; then
    echo "coll_crossover: $b/bin/mpicc not found: build first (make build)" >&2
    exit 1
fi
work=$(mktemp -d /tmp/smap-xo.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=${XO_OUT:-bench/results/coll_crossover.txt}
for p in $BENCHES; do
    src=${p%-vary}
    [ -x "$work/$src" ] && continue
    if [ -n "$PROGS" ]; then
        cp "$PROGS/$src" "$work/$src" || exit 1
        continue
    fi
    if ! "$b/bin/mpicc" -std=gnu11 -O2 -o "$work/$src" "bench/$src.c" bench/common.c; then
        echo "coll_crossover: bench/$src.c does not build" >&2
        exit 1
    fi
done
{
echo "# Collective crossovers (scripts/coll_crossover.sh), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs"
echo "# usec: best of $REPS interleaved runs; crossover = smallest size from which direct wins at every larger size"
for np in $NPS; do
    for p in $BENCHES; do
        src=${p%-vary} args=()
        [ "$src" != "$p" ] && args=(--vary)
        for r in $(seq "$REPS"); do
            for a in inline direct; do
                SMAP_COLL_ALGO=$a "$b/bin/mpiexec" -n "$np" "$work/$src" --max-size "$MAX" "${args[@]}" 2>&1 |
                    sed -nE 's/^RESULT .* size=([0-9]+) .* usec=([0-9.]+).*/\1 \2/p' >>"$work/$p.$np.$a"
            done
        done
        echo
        echo "## $p, $np ranks"
        printf '%10s %10s %10s\n' bytes inline direct
        join <(sort -n -k1,1 -k2,2g "$work/$p.$np.inline" | awk '!s[$1]++' | sort -k1,1) \
             <(sort -n -k1,1 -k2,2g "$work/$p.$np.direct" | awk '!s[$1]++' | sort -k1,1) |
            sort -n | awk '{ printf "%10d %10.2f %10.2f\n", $1, $2, $3; sz[NR]=$1; w[NR]=($3 < $2) }
                END { x = "";
                      for (i = NR; i >= 1 && w[i]; i--) x = sz[i];
                      if (x == "") print "crossover: none (inline wins at the largest size)";
                      else print "crossover: direct from " x " bytes" }'
    done
done
} | tee "$out"
