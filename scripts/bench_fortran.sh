#!/usr/bin/env bash
# make bench-fortran: the Fortran bindings' cost (issue 33).  8-byte latency
# (MPI_Send/MPI_Recv ping-pong) and 8-byte MPI_Allreduce, each from C
# (bench/latency.c, bench/allreduce.c), from `use mpi` and from `use
# mpi_f08` (bench/f_latency.F90, bench/f_allreduce.F90), built with
# smartmap's wrappers and with Debian's Open MPI and MPICH ones, 2 ranks on
# this node, run interleaved (every program of every MPI once per round,
# the MPIs' order rotating), BENCH_ROUNDS rounds.  Medians, then the ratios
# the issue asks for: each MPI's Fortran over its C, and smartmap's Fortran
# over the best peer's; and the layer's own cost per call (MPI_Send to
# MPI_PROC_NULL, best of many: readable on a loaded machine, where the
# 2-rank figures are noise).  Writes bench/results/fortran.txt (and .csv).
#   BENCH_ROUNDS (7), BENCH_LAT_ITERS (20000), BENCH_RED_ITERS (5000),
#   BUILD_DIR (build), BENCH_MPIS ("smartmap openmpi mpich")
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
case $BUILD_DIR in /*) build=$BUILD_DIR ;; *) build=$top/$BUILD_DIR ;; esac
ROUNDS=${BENCH_ROUNDS:-7}
LAT=${BENCH_LAT_ITERS:-20000}
RED=${BENCH_RED_ITERS:-5000}
MPIS=${BENCH_MPIS:-smartmap openmpi mpich}
work=$top/bench/work/fortran
out=$top/bench/results/fortran
mkdir -p "$work" "$top/bench/results"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

declare -A CC FC RUN
CC[smartmap]=$build/bin/mpicc FC[smartmap]=$build/bin/mpifort RUN[smartmap]="$build/bin/mpiexec -n 2"
CC[openmpi]=mpicc.openmpi FC[openmpi]=mpifort.openmpi RUN[openmpi]="mpiexec.openmpi -n 2 --bind-to core"
CC[mpich]=mpicc.mpich FC[mpich]=mpifort.mpich RUN[mpich]="mpiexec.mpich -n 2 -bind-to core"
[ -x "$build/bin/mpifort" ] || { echo "bench-fortran: $build/bin/mpifort missing (smartmap built without Fortran?)" >&2; exit 1; }

PROGS="c_latency usempi_latency f08_latency c_allreduce usempi_allreduce f08_allreduce c_overhead usempi_overhead f08_overhead"
for m in $MPIS; do
    d=$work/$m
    mkdir -p "$d"
    ${CC[$m]} -O2 -o "$d/c_latency" "$top/bench/latency.c" "$top/bench/common.c" -lm
    ${CC[$m]} -O2 -o "$d/c_allreduce" "$top/bench/allreduce.c" "$top/bench/common.c" -lm
    ${CC[$m]} -O2 -o "$d/c_overhead" "$top/bench/c_overhead.c"
    (cd "$d" && ${FC[$m]} -O2 -cpp -o usempi_latency "$top/bench/f_latency.F90" &&
        ${FC[$m]} -O2 -cpp -DF08 -o f08_latency "$top/bench/f_latency.F90" &&
        ${FC[$m]} -O2 -cpp -o usempi_allreduce "$top/bench/f_allreduce.F90" &&
        ${FC[$m]} -O2 -cpp -DF08 -o f08_allreduce "$top/bench/f_allreduce.F90" &&
        ${FC[$m]} -O2 -cpp -o usempi_overhead "$top/bench/f_overhead.F90" &&
        ${FC[$m]} -O2 -cpp -DF08 -o f08_overhead "$top/bench/f_overhead.F90")
done

args_of() {
    case $1 in
    c_latency) echo "--min-size 8 --max-size 8 --iters $LAT" ;;
    c_allreduce) echo "--min-size 8 --max-size 8 --iters $RED" ;;
    *_latency) echo "$LAT" ;;
    *_allreduce) echo "$RED" ;;
    *) ;;
    esac
}

csv=$out.csv
echo "round,mpi,program,usec" >"$csv"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
read -r -a order <<<"$MPIS"
for ((r = 1; r <= ROUNDS; r++)); do
    for p in $PROGS; do
        for m in "${order[@]}"; do
            # shellcheck disable=SC2046
            run=${RUN[$m]}
            case $p in *_overhead) run=${run/-n 2/-n 1} ;; esac   # one rank, no partner
            line=$(cd "$work/$m" && timeout 120 $run "./$p" $(args_of "$p") 2>/dev/null |
                   grep '^RESULT' | grep -E ' size=8 ') || { echo "bench-fortran: $m $p failed" >&2; exit 1; }
            usec=$(sed -n 's/.* usec=\([0-9.]*\).*/\1/p' <<<"$line")
            echo "$r,$m,$p,$usec" >>"$csv"
        done
    done
    order=("${order[@]:1}" "${order[0]}")   # rotate who goes first
done

load_end=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$csv" "$out.txt" "$ROUNDS" "$MPIS" "$load_start" "$load_end" "$(nproc)" <<'PY'
import csv, statistics, sys, datetime
rows = list(csv.DictReader(open(sys.argv[1])))
mpis = sys.argv[4].split()
med = {}
for r in rows:
    med.setdefault((r["mpi"], r["program"]), []).append(float(r["usec"]))
med = {k: statistics.median(v) for k, v in med.items()}
out = []
w = out.append
w("# Fortran bindings: 8-byte latency and allreduce, 2 ranks on one node")
w("# %s; %s rounds interleaved (the MPIs' order rotating); medians in usec"
  % (datetime.date.today().isoformat(), sys.argv[3]))
w("# (scripts/bench_fortran.sh, `make bench-fortran`; the CSV has every run)")
w("# load average %s at the start, %s at the end, on %s CPUs:"
  % (sys.argv[5], sys.argv[6], sys.argv[7]))
w("# with more runnable processes than CPUs the 2-rank figures measure the")
w("# scheduler, not the MPI;")
w("# the per-call cost (last table, best of many) is the one to read then.")
w("")
for what in ("latency", "allreduce", "overhead"):
    if what == "overhead":
        w("## binding cost per call: MPI_Send of 8 B to MPI_PROC_NULL, best of 20 x 200000, 1 rank")
        w("## (usec per call; the Fortran minus C column is the Fortran layer's own cost in ns)")
        w("%-10s %10s %10s %10s %14s %14s" % ("mpi", "C", "use mpi", "mpi_f08", "usempi-C (ns)", "f08-C (ns)"))
        for m in mpis:
            c, u, f = (med[(m, "%s_%s" % (k, what))] for k in ("c", "usempi", "f08"))
            w("%-10s %10.4f %10.4f %10.4f %14.1f %14.1f" % (m, c, u, f, (u - c) * 1e3, (f - c) * 1e3))
        w("")
        continue
    w("## %s, 8 B" % what)
    w("%-10s %10s %10s %10s %12s %12s" % ("mpi", "C", "use mpi", "mpi_f08", "usempi/C", "f08/C"))
    for m in mpis:
        c, u, f = (med[(m, "%s_%s" % (k, what))] for k in ("c", "usempi", "f08"))
        w("%-10s %10.3f %10.3f %10.3f %12.3f %12.3f" % (m, c, u, f, u / c, f / c))
    peers = [m for m in mpis if m != "smartmap"]
    if "smartmap" in mpis and peers:
        for k, name in (("usempi", "use mpi"), ("f08", "mpi_f08")):
            best = min(peers, key=lambda m: med[(m, "%s_%s" % (k, what))])
            s = med[("smartmap", "%s_%s" % (k, what))]
            b = med[(best, "%s_%s" % (k, what))]
            w("smartmap %s / best peer's (%s): %.3f" % (name, best, s / b))
    w("")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
PY
