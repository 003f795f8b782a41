#!/usr/bin/env bash
# bench_spawn.sh — issue 34's bench: time to spawn and connect N children
# (N = 1, 4, 16; 16 is oversubscribed on small machines) from 2 parents,
# smartmap against Open MPI in the same run, rounds interleaved; then
# parent <-> child against parent <-> parent latency and bandwidth on this
# node (bench/spawn.c).  Writes bench/results/spawn-<stamp>.csv and prints
# a table.  Usage: scripts/bench_spawn.sh [ROUNDS]   (default 3)
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
BUILD=${BUILD_DIR:-build}
work=$(mktemp -d "${TMPDIR:-/tmp}/bench_spawn.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$BUILD/bin/mpicc" -O2 -o "$work/spawn_smap" bench/spawn.c
have_ompi=0
if command -v mpicc.openmpi >/dev/null && mpicc.openmpi -O2 -o "$work/spawn_ompi" bench/spawn.c; then
    have_ompi=1
fi
stamp=$(date +%Y-%m-%d-%H%M%S)
csv="bench/results/spawn-$stamp.csv"
mkdir -p bench/results
echo "mpi,round,bench,peer,children,size,usec,mbps" >"$csv"
run() {   # run MPI ROUND ARGS...
    local mpi=$1 round=$2
    shift 2
    local out
    if [ "$mpi" = smartmap ]; then
        out=$(cd "$work" && SMRUN_BIND_TO=none timeout 300 "$OLDPWD/$BUILD/bin/smrun" -n 2 ./spawn_smap "$@")
    else
        out=$(cd "$work" && timeout 300 mpirun.openmpi --allow-run-as-root --oversubscribe \
              --bind-to none -n 2 ./spawn_ompi "$@" 2>/dev/null)
    fi
    echo "$out" | sed -n 's/^RESULT //p' | while read -r line; do
        local b peer ch size us mb
        b=$(sed -n 's/.*bench=\([^ ]*\).*/\1/p' <<<"$line")
        peer=$(sed -n 's/.*peer=\([^ ]*\).*/\1/p' <<<"$line")
        ch=$(sed -n 's/.*children=\([^ ]*\).*/\1/p' <<<"$line")
        size=$(sed -n 's/.* size=\([^ ]*\).*/\1/p' <<<"$line")
        us=$(sed -n 's/.* usec=\([^ ]*\).*/\1/p' <<<"$line")
        mb=$(sed -n 's/.* mbps=\([^ ]*\).*/\1/p' <<<"$line")
        echo "$mpi,$round,$b,$peer,$ch,$size,$us,$mb" >>"$csv"
    done
}
for round in $(seq 1 "$ROUNDS"); do
    for n in 1 4 16; do
        run smartmap "$round" "$n" 2
        [ $have_ompi = 1 ] && run openmpi "$round" "$n" 2
    done
    run smartmap "$round" 1 1 measure
    [ $have_ompi = 1 ] && run openmpi "$round" 1 1 measure
done
python3 - "$csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def med(mpi, bench, **k):
    v = [float(r['usec'] or r['mbps']) if bench != 'spawn_bw' else float(r['mbps'])
         for r in rows if r['mpi'] == mpi and r['bench'] == bench
         and all(r[a] == str(b) for a, b in k.items())]
    return statistics.median(v) if v else float('nan')
print("spawn and connect (2 parents), median ms:   smartmap   openmpi   ratio")
for n in (1, 4, 16):
    s, o = med('smartmap', 'spawn', children=n) / 1e3, med('openmpi', 'spawn', children=n) / 1e3
    print(f"  {n:2d} children                              {s:8.1f}  {o:8.1f}  {s / o:5.2f}")
print("latency us (smartmap: child / parent), openmpi child")
for size in (8, 1024, 65536, 1048576):
    c, p = med('smartmap', 'spawn_lat', peer='child', size=size), med('smartmap', 'spawn_lat', peer='parent', size=size)
    o = med('openmpi', 'spawn_lat', peer='child', size=size)
    print(f"  {size:8d} B  child {c:9.2f}  parent {p:9.2f}  child/parent {c / p:6.2f}   openmpi child {o:9.2f}")
print("bandwidth MB/s (smartmap: child / parent), openmpi child")
for size in (8, 1024, 65536, 1048576):
    c, p = med('smartmap', 'spawn_bw', peer='child', size=size), med('smartmap', 'spawn_bw', peer='parent', size=size)
    o = med('openmpi', 'spawn_bw', peer='child', size=size)
    print(f"  {size:8d} B  child {c:9.1f}  parent {p:9.1f}  parent/child {p / c:6.2f}   openmpi child {o:9.1f}")
PY
echo "csv: $csv"
