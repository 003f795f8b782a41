#!/usr/bin/env bash
# Start-up of a one-node job (MPI_Init + MPI_Finalize) with two builds of
# the library, in alternated launches, so that the machine's drift and
# streaks hit both alike (the paired-launch method of src/net/README.md):
#   scripts/startup_pairs.sh [-s BUILD_DIR] LIBDIR_A LIBDIR_B NP PAIRS
# LIBDIR_A/B hold a libmpi_abi.so.1 (e.g. a copy of an older build's
# lib/; the program's RUNPATH gives way to LD_LIBRARY_PATH); smrun and the
# program come from BUILD_DIR (default build).  Prints each pair and then
# the medians (ms) and how many pairs A and B won.  Example (issue 38: the
# network engine as a plugin):
#   cp -a build/lib/libmpi_abi.so* /tmp/before/   # on the older tree
#   scripts/startup_pairs.sh /tmp/before build/lib 32 10
set -euo pipefail
build=build
if [ "${1:-}" = -s ]; then build=$2; shift 2; fi
[ $# = 4 ] || { sed -n 2,12p "$0"; exit 2; }
a=$1 b=$2 np=$3 pairs=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 0; }\n' \
    >"$work/init_fin.c"
"$build/bin/mpicc" "$work/init_fin.c" -o "$work/init_fin"
# run LIBDIR: one launch's wall time in ms
run() {
    local t0 t1
    t0=$(date +%s%N)
    LD_LIBRARY_PATH=$1 "$build/bin/smrun" -n "$np" "$work/init_fin" >/dev/null 2>&1 ||
        { echo "startup_pairs: a job with $1 failed" >&2; exit 1; }
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000000))
}
run "$a" >/dev/null; run "$b" >/dev/null          # warm the page cache
: >"$work/a"; : >"$work/b"
wa=0 wb=0
for ((i = 0; i < pairs; i++)); do
    if ((i % 2)); then tb=$(run "$b"); ta=$(run "$a"); else ta=$(run "$a"); tb=$(run "$b"); fi
    echo "$ta" >>"$work/a"; echo "$tb" >>"$work/b"
    if ((ta < tb)); then wa=$((wa + 1)); elif ((tb < ta)); then wb=$((wb + 1)); fi
    echo "pair $i: A $ta ms, B $tb ms"
done
median() { sort -n "$1" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
echo "np=$np pairs=$pairs: median A $(median "$work/a") ms, B $(median "$work/b") ms;" \
     "A faster in $wa pairs, B in $wb (load: $(cut -d' ' -f1-3 /proc/loadavg))"
