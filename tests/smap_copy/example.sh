#!/usr/bin/env bash
# smap_copy_example: examples/remote_sum under smrun -n 4 prints one
# "correct" line per rank, reading in place where memory is exposed, and
# still right by copy when SMAP_EXPOSE switches exposure off.
set -u
fail() { echo "FAIL (smap_copy_example): $*" >&2; exit 1; }
prog=$SMAP_TEST_BIN/remote_sum
run() { timeout -k 5 25 "$SMAP_STAGE/bin/smrun" -n 4 "$prog" 2>&1; }
asan=0
case $("$SMAP_STAGE/bin/smartmap_info" | grep '^build options:') in *sanitize=ON*) asan=1 ;; esac

out=$(SMRUN_BIND_TO=none run) || fail "remote_sum failed: $out"
echo "$out"
[ "$(grep -c ': correct$' <<<"$out")" = 4 ] || fail "expected 4 correct lines"
[ "$(grep -c "global array sums to [0-9]* (in place)" <<<"$out")" = 4 ] || fail "globals not read in place"
if [ $asan = 0 ]; then
    [ "$(grep -c "heap array to [0-9]* (in place)" <<<"$out")" = 4 ] || fail "heap not read in place"
else
    [ "$(grep -c "heap array to [0-9]* (by copy)" <<<"$out")" = 4 ] || fail "ASan: heap must be copied"
fi

out=$(SMAP_EXPOSE=none SMRUN_BIND_TO=none run) || fail "remote_sum with SMAP_EXPOSE=none failed: $out"
[ "$(grep -c ': correct$' <<<"$out")" = 4 ] || fail "SMAP_EXPOSE=none: expected 4 correct lines: $out"
[ "$(grep -c "(by copy), its heap array to [0-9]* (by copy)" <<<"$out")" = 4 ] ||
    fail "SMAP_EXPOSE=none: everything must be read by copy: $out"
echo "PASS smap_copy_example"
