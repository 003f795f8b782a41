# A program that does not exist: one line, exit 127, nothing forked.
# Not executable (or a directory): 126.  Names without '/' go through PATH.
source "$SMAP_SRC/tests/launcher/lib.sh"
cd "$WORK"

run_job -n 4 ./nonexistent arg
expect_rc 127
[ "$(cat "$WORK/err")" = "smrun: ./nonexistent: No such file or directory" ] ||
    fail "unexpected message"

printf '#!/bin/sh\necho hi\n' > "$WORK/script"
chmod 644 "$WORK/script"
run_job -n 2 ./script
expect_rc 126
[ "$(cat "$WORK/err")" = "smrun: ./script: Permission denied" ] || fail "unexpected message"

mkdir "$WORK/adir"
run_job ./adir
expect_rc 126
expect_err "smrun: ./adir: Is a directory"

run_job -n 2 no-such-program-smrun-test
expect_rc 127
[ "$(cat "$WORK/err")" = "smrun: no-such-program-smrun-test: command not found" ] ||
    fail "unexpected message"

# Found through PATH; a non-executable match earlier in PATH is skipped.
mkdir "$WORK/p1" "$WORK/p2"
cp "$RANKPROG" "$WORK/p2/rankprog"
cp "$WORK/script" "$WORK/p1/rankprog"
SMRUN=env run_job PATH="$WORK/p1:$WORK/p2:$PATH" "$SMRUN" -n 2 rankprog print:found{rank}
expect_rc 0
expect_out found1

# Only a non-executable match: 126.
SMRUN=env run_job PATH="$WORK/p1" "$SMRUN" -n 1 rankprog
expect_rc 126
expect_err "smrun: rankprog: Permission denied"
echo PASS
