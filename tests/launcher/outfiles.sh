# Per-rank output files: Open MPI's --output-filename DIR (DIR/1/rank.N/
# stdout and stderr, N zero-padded; copied to the terminal unless :nocopy;
# :nojobid drops the 1/) and hydra's -outfile-pattern/-errfile-pattern (%r
# %h %p %g %t %%; files only).  Files get the user's umask; an unwritable
# place or a bad pattern is reported before any rank starts.
source "$SMAP_SRC/tests/launcher/lib.sh"
cd "$WORK"
umask 027

run_job -n 11 -l --output-filename ofn "$RANKPROG" "print:hi{rank}" "eprint:err{rank}"
expect_rc 0
for r in 00 03 10; do
    [ "$(cat "ofn/1/rank.$r/stdout")" = "hi$((10#$r))" ] || fail "ofn/1/rank.$r/stdout: $(cat "ofn/1/rank.$r/stdout")"
    [ "$(cat "ofn/1/rank.$r/stderr")" = "err$((10#$r))" ] || fail "ofn/1/rank.$r/stderr"
done
[ "$(stat -c %a ofn/1/rank.03/stdout)" = 640 ] || fail "mode $(stat -c %a ofn/1/rank.03/stdout), umask 027"
[ "$(ls ofn/1 | wc -l)" = 11 ] || fail "expected 11 rank directories"
expect_out "[3] hi3"; expect_err "[3] err3"      # copied to the terminal, tagged there

run_job -n 2 --output-filename "$WORK/ofn2:nocopy,NOJOBID" "$RANKPROG" "print:hi{rank}" partial:end
expect_rc 0
[ "$(cat ofn2/rank.1/stdout)" = "hi1
end" ] || fail "ofn2/rank.1/stdout: $(cat ofn2/rank.1/stdout)"
[ -s "$WORK/out" ] && fail ":nocopy still wrote to the terminal"

# -wdir does not move a relative DIR: it is taken from where smrun started.
mkdir -p elsewhere
run_job -wdir elsewhere --output-filename rel "$RANKPROG" print:x
expect_rc 0
[ -e rel/1/rank.0/stdout ] && [ ! -e elsewhere/rel ] || fail "a relative DIR followed -wdir"

# hydra's patterns; ranks sharing a file add whole lines; nothing on the terminal.
run_job -n 3 -l -outfile-pattern 'o.%r.%h.%p.%g.%%' -errfile-pattern all.err \
    "$RANKPROG" "print:hi{rank}" "eprint:e{rank}"
expect_rc 0
for r in 0 1 2; do
    [ "$(cat "o.$r.$(hostname).0.0.%")" = "hi$r" ] || fail "o.$r...: $(ls)"
done
[ "$(sort all.err | tr '\n' ' ')" = "e0 e1 e2 " ] || fail "all.err: $(cat all.err)"
[ -s "$WORK/out" ] || [ -s "$WORK/err" ] && fail "pattern output reached the terminal"

# Across hosts (two agents of this machine): %h and %p are each host's.
printf '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\nshift\nexec sh -c "$*"\n' >here
chmod +x here
run_job --launcher "$WORK/here" --head-addr 127.0.0.1 --host a:1,b:2 \
    -outfile-pattern "$WORK/p.%h.%p.%r" "$RANKPROG" "print:hi{rank}"
expect_rc 0
[ "$(cat p.a.0.0)" = hi0 ] && [ "$(cat p.b.1.1)" = hi1 ] && [ "$(cat p.b.1.2)" = hi2 ] ||
    fail "across hosts: $(ls p.*)"

# Errors, before any rank starts.
touch plain
run_job --output-filename plain/sub "$RANKPROG" print:started
expect_rc 1; expect_err "cannot create the directories of $WORK/plain/sub/1/rank.0/stdout"
run_job -n 2 -errfile-pattern "$WORK/none/e.%r" "$RANKPROG" print:started
expect_rc 1; expect_err "cannot create $WORK/none/e.0 (rank 0's stderr)"
run_job --launcher "$WORK/here" --head-addr 127.0.0.1 --host a:1,b:1 \
    -outfile-pattern "$WORK/none/o.%r" "$RANKPROG" print:started
expect_rc 1; expect_err "cannot create $WORK/none/o.0"
grep -q started "$WORK/out" && fail "a rank started"
run_job -outfile-pattern 'x%q' true
expect_rc 2; expect_err "unknown specifier '%q'"
run_job -errfile-pattern 'x%' true
expect_rc 2; expect_err "a '%' at the end"
run_job --output-filename d:bogus true
expect_rc 2; expect_err "unknown directive 'bogus'"
run_job --output-filename d -outfile-pattern p true
expect_rc 2; expect_err "use one or the other"
echo PASS
