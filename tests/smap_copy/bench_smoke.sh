#!/usr/bin/env bash
# smap_copy_bench_smoke: bench/smap_copy with tiny sizes and reps finishes
# under smrun -n 2, prints one well-formed ROW per size (private, stack,
# global and cma always measured; heap too unless ASan keeps it private) and
# a STARTUP line; --startup alone works with 4 ranks; bad options fail.
set -u
fail() { echo "FAIL (smap_copy_bench_smoke): $*" >&2; exit 1; }
prog=$SMAP_TEST_BIN/smap_copy_bench
smrun=$SMAP_STAGE/bin/smrun
asan=0
case $("$SMAP_STAGE/bin/smartmap_info" | grep '^build options:') in *sanitize=ON*) asan=1 ;; esac

out=$(SMRUN_BIND_TO=none timeout -k 5 40 "$smrun" -n 2 "$prog" --min 4K --max 32K --reps 3 2>&1) ||
    fail "smap_copy failed: $out"
echo "$out"
[ "$(grep -c '^ROW ' <<<"$out")" = 4 ] || fail "expected 4 ROW lines (4K..32K)"
num='[0-9]+\.[0-9]+'
for size in 4096 8192 16384 32768; do
    row=$(grep "^ROW size=$size " <<<"$out") || fail "no row for $size"
    [[ $row =~ private=$num\ heap=([^ ]+)\ stack=$num\ global=$num\ cma=$num\ first=([^ ]+)$ ]] ||
        fail "malformed or incomplete row: $row"
    heap=${BASH_REMATCH[1]}
    if [ $asan = 0 ]; then
        [[ $heap =~ ^$num$ ]] || fail "heap not measured: $row"
    else
        [ "$heap" = - ] || fail "ASan: the heap cannot be exposed, yet measured: $row"
    fi
done
grep -Eq "^STARTUP np=2 local=2 init_ms_min=$num init_ms_median=$num init_ms_max=$num$" <<<"$out" ||
    fail "no STARTUP line"

out=$(SMRUN_BIND_TO=none timeout -k 5 40 "$smrun" -n 4 "$prog" --startup 2>&1) || fail "--startup failed: $out"
grep -Eq "^STARTUP np=4 local=4 " <<<"$out" || fail "--startup -n 4: $out"
if grep -q '^ROW' <<<"$out"; then fail "--startup printed rows"; fi

if out=$(timeout -k 5 20 "$smrun" -n 2 "$prog" --bogus 2>&1); then fail "--bogus accepted: $out"; fi
grep -q "unknown option '--bogus'" <<<"$out" || fail "--bogus: $out"
echo "PASS smap_copy_bench_smoke"
