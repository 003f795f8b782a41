#!/usr/bin/env bash
# bench_smap.sh — the SMARTMAP microbenchmarks (docs/SMARTMAP.md), written to
# bench/results/smap_copy.txt:
#   1. bench/smap_copy under `smrun -n 2`: memcpy from a peer's heap, stack and
#      global buffers vs private memcpy, process_vm_readv, first copy; 4 KiB
#      to 64 MiB, medians;
#   2. MPI_Init time per rank for 2, 4 and 8 ranks (bench/smap_copy --startup,
#      REPS jobs each, the median job shown);
#   3. the whole start-up cost of exposure per rank: wall time of jobs of N
#      no-op ranks (tests/smap_copy/init_only) with SMAP_EXPOSE=all minus
#      SMAP_EXPOSE=none, divided by N (medians of REPS jobs);
#   4. fork() cost in a rank against its populated heap size
#      (bench/smap_fork under `smrun -n 2`).
# Builds nothing: run `make build` first (the programs are test targets).
# Environment: BUILD_DIR (default build), REPS (default 9), OUT (default
# bench/results/smap_copy.txt), SMAP_COPY_ARGS (extra options for the table).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
REPS=${REPS:-9}
OUT=${OUT:-bench/results/smap_copy.txt}
smrun=$BUILD_DIR/bin/smrun
bench=$BUILD_DIR/tests/smap_copy/smap_copy_bench
noop=$BUILD_DIR/tests/smap_copy/init_only
forkb=$BUILD_DIR/tests/smap_fork/smap_fork_bench
for f in "$smrun" "$bench" "$noop" "$forkb"; do
    [ -x "$f" ] || { echo "bench_smap.sh: $f is not built (run make build)" >&2; exit 1; }
done
export SMRUN_BIND_TO=${SMRUN_BIND_TO:-core}
mkdir -p "$(dirname "$OUT")"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
now_ms() { date +%s.%N | awk '{ printf "%.3f\n", $1 * 1000 }'; }

{
    echo "# SMARTMAP microbenchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -r), $(nproc) CPUs"
    echo "# shmem THP: $(cat /sys/kernel/mm/transparent_hugepage/shmem_enabled 2>/dev/null || echo n/a)"
    echo
    echo "## 1. Copy bandwidth from a peer (smrun -n 2 smap_copy ${SMAP_COPY_ARGS:-})"
    # shellcheck disable=SC2086
    "$smrun" -n 2 "$bench" ${SMAP_COPY_ARGS:-}
    echo
    echo "## 2. MPI_Init wall time per rank (ms; median over the ranks of one job; $REPS jobs)"
    printf '%-4s %12s %12s %12s\n' np "median_job" "min_job" "max_job"
    for np in 2 4 8; do
        vals=$(for ((i = 0; i < REPS; i++)); do
            "$smrun" -n "$np" "$bench" --startup | sed -n 's/.*init_ms_median=\([0-9.]*\).*/\1/p'
        done)
        printf '%-4s %12s %12s %12s\n' "$np" "$(median <<<"$vals")" \
            "$(sort -g <<<"$vals" | head -n 1)" "$(sort -g <<<"$vals" | tail -n 1)"
    done
    echo
    echo "## 3. Start-up cost of exposure per rank (ms): job wall time, SMAP_EXPOSE=all minus none, / np"
    printf '%-4s %12s %12s %14s\n' np "all_ms" "none_ms" "per_rank_ms"
    for np in 2 4 8; do
        declare -A t=()
        for mode in all none; do
            vals=$(for ((i = 0; i < REPS; i++)); do
                a=$(now_ms)
                SMAP_EXPOSE=$mode "$smrun" -n "$np" "$noop" >/dev/null
                b=$(now_ms)
                awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f\n", b - a }'
            done)
            t[$mode]=$(median <<<"$vals")
        done
        printf '%-4s %12s %12s %14s\n' "$np" "${t[all]}" "${t[none]}" \
            "$(awk -v a="${t[all]}" -v n="${t[none]}" -v p="$np" 'BEGIN { printf "%.3f", (a - n) / p }')"
        unset t
    done
    echo
    echo "## 4. fork() in a rank vs populated heap size (smrun -n 2 smap_fork)"
    "$smrun" -n 2 "$forkb"
} | tee "$OUT"
echo "bench_smap.sh: wrote $OUT" >&2
