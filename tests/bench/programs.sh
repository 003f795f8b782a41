#!/usr/bin/env bash
# bench_programs: every program of bench/ builds with the staged mpicc under
# -Wall -Wextra -Werror (they use only standard MPI, so this is also a check
# of mpi.h), option parsing works, and `barrier --quick` runs under
# `smrun -n 2` and prints its RESULT line.  The other benchmarks need
# point-to-point and collectives; scripts/bench.sh runs them.
set -euo pipefail
: "${SMAP_STAGE:?SMAP_STAGE (the build tree) must be set; run through ctest}"
: "${SMAP_SRC:?SMAP_SRC (the repository) must be set; run through ctest}"
BIN=$SMAP_STAGE/bin
SRC=$SMAP_SRC/bench
TMP=$(mktemp -d "${TMPDIR:-/tmp}/smap-bench.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
fail() { echo "FAIL (bench_programs): $*" >&2; exit 1; }

[ -x "$BIN/mpicc" ] || fail "$BIN/mpicc is not built"
[ -x "$BIN/smrun" ] || fail "$BIN/smrun is not built"

flags=(-std=gnu11 -O2 -Wall -Wextra -Werror -I"$SRC")
programs=(latency bw bibw msgrate barrier bcast reduce allreduce allgather alltoall)
pids=()
for p in "${programs[@]}"; do
    "$BIN/mpicc" "${flags[@]}" -o "$TMP/$p" "$SRC/$p.c" "$SRC/common.c" >"$TMP/$p.log" 2>&1 &
    pids+=($!)
done
"$BIN/mpicc" "${flags[@]}" -o "$TMP/info" "$SRC/info.c" >"$TMP/info.log" 2>&1 & pids+=($!)
"$BIN/mpicc" "${flags[@]}" -o "$TMP/probe" "$SRC/probe.c" >"$TMP/probe.log" 2>&1 & pids+=($!)
failed=""
i=0
for p in "${programs[@]}" info probe; do
    if ! wait "${pids[$i]}"; then
        cat "$TMP/$p.log" >&2
        failed+=" $p"
    fi
    i=$((i + 1))
done
[ -z "$failed" ] || fail "did not build with $BIN/mpicc -Werror:$failed"

# Options are parsed the same way under any MPI.
out=$(timeout -k 5 20 "$BIN/smrun" -n 1 "$TMP/latency" --help 2>&1) || fail "latency --help failed: $out"
case $out in *"usage: latency"*"--vary"*) ;; *) fail "latency --help printed: $out" ;; esac
if out=$(timeout -k 5 20 "$BIN/smrun" -n 1 "$TMP/bcast" --no-such-option 2>&1); then
    fail "bcast accepted an unknown option: $out"
fi
case $out in *"unknown option"*) ;; *) fail "bcast --no-such-option printed: $out" ;; esac

# The probe is plain C: it must print one PROBE line (nan with a single CPU).
out=$(timeout -k 5 20 "$TMP/probe" --trials 3 --round-trips 2000) || fail "probe failed: $out"
case $out in PROBE\ one_way_ns=*) ;; *) fail "probe printed: $out" ;; esac

# barrier needs only MPI_Barrier: it runs today.
out=$(timeout -k 5 20 "$BIN/smrun" -n 2 "$TMP/barrier" --quick 2>&1) || fail "smrun -n 2 barrier --quick failed: $out"
printf '%s\n' "$out" | grep -Eq '^RESULT bench=barrier vary=0 np=2 size=0 iters=[0-9]+ usec=[0-9.]+' ||
    fail "barrier printed no RESULT line: $out"
echo "$out" | grep '^RESULT'
echo "PASS bench_programs"
