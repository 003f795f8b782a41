#!/bin/bash
# The exposed main stack keeps the RLIMIT_STACK semantics: recursion to
# 7 MiB of 8 MiB works, and unbounded recursion dies with SIGSEGV (smrun
# exits 139) at the same depth, within 1 MiB, as with an unexposed stack.
set -u
prog="$SMAP_TEST_BIN/expose_recurse"
smrun="$SMAP_STAGE/bin/smrun"
# ASan would catch the overflow itself and exit 1; the test is about the
# kernel's behaviour.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}handle_segv=0:detect_leaks=0"
ulimit -S -s 8192
ulimit -c 0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$smrun" -n 2 "$prog" limit 7 || { echo "FAIL: recursion to 7 MiB failed"; exit 1; }

# Unlimited: the exposed stack is capped at 256 MiB (the unexposed one
# would grow further), so 100 MiB must work.
if [ "$(ulimit -H -s)" = unlimited ]; then
    (ulimit -S -s unlimited; "$smrun" -n 2 "$prog" limit 100 > /dev/null) ||
        { echo "FAIL: recursion to 100 MiB with ulimit -s unlimited failed"; exit 1; }
else
    echo "note: hard stack limit is $(ulimit -H -s): the unlimited case is not run"
fi

deepest() { grep -o 'depth [0-9]*' "$1" | awk '{ if ($2 > m) m = $2 } END { print m + 0 }'; }
for mode in all none; do
    SMAP_EXPOSE=$mode "$smrun" -n 2 "$prog" overflow 0 > "$tmp/$mode.out" 2> "$tmp/$mode.err"
    rc=$?
    if [ "$rc" != 139 ]; then
        echo "FAIL: SMAP_EXPOSE=$mode: smrun exited $rc, expected 139 (SIGSEGV)"
        cat "$tmp/$mode.err"
        exit 1
    fi
    grep -q -i 'signal 11\|SIGSEGV\|Segmentation' "$tmp/$mode.err" ||
        { echo "FAIL: smrun did not report SIGSEGV:"; cat "$tmp/$mode.err"; exit 1; }
done
a=$(deepest "$tmp/all.out"); n=$(deepest "$tmp/none.out")
echo "deepest MiB reached: exposed $a, unexposed $n"
if [ "$a" -lt 6 ] || [ $((a - n)) -gt 1 ] || [ $((n - a)) -gt 1 ]; then
    echo "FAIL: overflow depth differs by more than 1 MiB (or is too small)"
    exit 1
fi
echo ok
