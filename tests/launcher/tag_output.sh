# -l: every line of rank r, stdout and stderr, starts with "[r] "; lines of
# two ranks writing at once never mix (the ranks flush mid-line on purpose);
# a last line without newline is printed at exit.  Without -l lines are
# forwarded whole too.
source "$SMAP_SRC/tests/launcher/lib.sh"
N=400

check_stream() {   # file kind(out|err) tagged(1|0) [tails expected(1)]
    awk -v kind="$2" -v tagged="$3" -v tails="${4:-0}" -v n="$N" '
        {
            line = $0; r = -1
            if (tagged) {
                if (!match(line, /^\[[0-9]+\] /)) { print "untagged: " line; bad = 1; next }
                r = substr(line, 2, RLENGTH - 3); line = substr(line, RLENGTH + 1)
            }
            if (line ~ /^tail[0-9]+$/) { tail[substr(line, 5)]++; if (tagged && substr(line, 5) != r) { print "wrong tag: " $0; bad = 1 }; next }
            if (line !~ ("^" kind " rank=[0-9]+ line=[0-9]+ [xy]+ end$")) { print "mixed: " $0; bad = 1; next }
            split(line, f, /[ =]/); rank = f[3]; i = f[5]
            if (tagged && rank != r) { print "wrong tag: " $0; bad = 1 }
            if (i != next_[rank] + 0) { print "out of order: " $0; bad = 1 }
            next_[rank] = i + 1
        }
        END {
            for (k = 0; k < 2; k++) if (next_[k] != n) { print kind " rank " k ": " next_[k] " lines"; bad = 1 }
            if (tails && (tail[0] != 1 || tail[1] != 1)) { print "partial last lines missing"; bad = 1 }
            exit bad
        }' "$1" || fail "$2 output of -l=$3 is wrong"
}

run_job -l -n 2 "$RANKPROG" lines:$N partial:tail{rank}
expect_rc 0
check_stream "$WORK/out" out 1 1
check_stream "$WORK/err" err 1

run_job --tag-output -n 2 "$RANKPROG" lines:$N
expect_rc 0
check_stream "$WORK/out" out 1

run_job -n 2 "$RANKPROG" lines:$N
expect_rc 0
check_stream "$WORK/out" out 0
check_stream "$WORK/err" err 0

# A huge line without newline (3 MB per rank) arrives complete.
run_job -l -n 2 sh -c 'head -c 3000000 /dev/zero | tr "\0" a'
expect_rc 0
[ "$(tr -cd a < "$WORK/out" | wc -c)" = 6000000 ] || fail "bytes lost in a long line"
echo PASS
