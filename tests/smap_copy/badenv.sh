#!/usr/bin/env bash
# smap_copy_badenv: a malformed SMAP_COPY or SMAP_EXPOSE makes MPI_Init fail
# (non-zero exit) with a message naming the variable and the bad value;
# well-formed values start normally (the control that the program works).
set -u
fail() { echo "FAIL (smap_copy_badenv): $*" >&2; exit 1; }
prog=$SMAP_TEST_BIN/init_only
smrun=$SMAP_STAGE/bin/smrun
[ -x "$prog" ] || fail "$prog is not built"

for good in "SMAP_COPY=direct" "SMAP_COPY=cma" "SMAP_COPY=bounce" "SMAP_EXPOSE=heap,stack" "SMAP_EXPOSE=none"; do
    out=$(env "$good" timeout -k 5 30 "$smrun" -n 2 "$prog" 2>&1) || fail "$good: the job failed: $out"
    [ "$(grep -c '^ok local rank' <<<"$out")" = 2 ] || fail "$good: expected 2 ok lines: $out"
done

# expect_bad VAR=VALUE NEEDLE [singleton]
expect_bad() {
    local setting=$1 needle=$2 out rc
    if [ "${3:-}" = singleton ]; then
        out=$(env -u PMI_FD -u PMI_RANK -u PMI_SIZE "$setting" timeout -k 5 30 "$prog" 2>&1)
    else
        out=$(env "$setting" timeout -k 5 30 "$smrun" -n 2 "$prog" 2>&1)
    fi
    rc=$?
    [ $rc -ne 0 ] || fail "$setting ${3:-}: the job exited 0: $out"
    [ $rc -ne 124 ] && [ $rc -ne 137 ] || fail "$setting ${3:-}: the job hung"
    grep -qF -- "$needle" <<<"$out" || fail "$setting ${3:-}: no message with '$needle': $out"
    if grep -q '^ok local rank' <<<"$out"; then fail "$setting: a rank got past MPI_Init: $out"; fi
}
expect_bad SMAP_COPY=foo "SMAP_COPY='foo': expected direct|cma|bounce"
expect_bad SMAP_COPY=Direct "SMAP_COPY='Direct'"
expect_bad SMAP_EXPOSE=foo "SMAP_EXPOSE='foo'"
expect_bad SMAP_EXPOSE=heap,bogus "'bogus' is not one of"
expect_bad SMAP_COPY=foo "SMAP_COPY='foo'" singleton
echo "PASS smap_copy_badenv"
