# MPMD: "mpiexec -n 1 ./a first : -n 2 ./b second" (hydra's and Open MPI's
# syntax) used to run one rank with ": -n 2 ./b second" in its argv and
# exit 0.  Each part has its own -n, -env, -x and -wdir; MPI_COMM_WORLD
# spans them all, and MPI_APPNUM is the part's index.
source "$SMAP_SRC/tests/launcher/lib.sh"
P=${MPMD_PROG:?}

run_job -n 1 "$P" first : -n 2 "$P" second
expect_rc 0
expect_out "rank 0 of 3 appnum 0 arg first sum 2"
expect_out "rank 1 of 3 appnum 1 arg second sum 2"
expect_out "rank 2 of 3 appnum 1 arg second sum 2"
[ "$(wc -l < "$WORK/out")" = 3 ] || fail "expected 3 lines: $(cat "$WORK/out")"

# Three parts, a plain program among them; per-part environment and
# working directory; the global -genv reaches every part.
mkdir -p "$WORK/part dir"
run_job -genv ALL_PARTS yes -n 1 "$RANKPROG" env:ONLY_B env:ALL_PARTS \
    : -n 1 -env ONLY_B b "$RANKPROG" "print:b={rank}" env:ONLY_B env:ALL_PARTS \
    : -wdir "$WORK/part dir" sh -c 'echo "pwd=$PWD"'
expect_rc 0
expect_out "ONLY_B unset"; expect_out "ONLY_B=b"; expect_out "b=1"
[ "$(grep -c '^ALL_PARTS=yes$' "$WORK/out")" = 2 ] || fail "-genv did not reach every part"
expect_out "pwd=$WORK/part dir"

# Errors: a part's option that belongs before the first program, a part
# without a program, a missing program in a later part (nothing starts).
run_job -n 1 "$RANKPROG" : -l "$RANKPROG"
expect_rc 2; expect_err "is not one of an MPMD part's"
run_job -n 1 "$RANKPROG" :
expect_rc 2; expect_err "has no program"
run_job -n 1 "$RANKPROG" "print:started" : -n 1 ./no-such-program
expect_rc 127; expect_no_err "started"
grep -q started "$WORK/out" && fail "the first part started although the second cannot"

# Across hosts (agents of this machine): each part's ranks continue the
# placement, a part may name its own hosts (-host), and its -env and
# -wdir reach its ranks on every host.
HERE="$WORK/here"
printf '#!/bin/sh\nwhile [ "${1#-}" != "$1" ]; do shift; done\nshift\nexec sh -c "$*"\n' >"$HERE"
chmod +x "$HERE"
MH="--launcher $HERE --head-addr 127.0.0.1"
run_job $MH --host a:1,b:2 -l -n 2 "$RANKPROG" env:SMAP_NODE_NAME env:ONLY_B \
    : -n 1 -env ONLY_B b -wdir "$WORK/part dir" sh -c 'echo "node=$SMAP_NODE_NAME pwd=$PWD ONLY_B=$ONLY_B"'
expect_rc 0
expect_out "[0] SMAP_NODE_NAME=a"; expect_out "[1] SMAP_NODE_NAME=b"; expect_out "[1] ONLY_B unset"
expect_out "[2] node=b pwd=$WORK/part dir ONLY_B=b"
run_job $MH --display-map -n 2 "$RANKPROG" : -n 3 -host c:2,d "$RANKPROG" : -n 1 "$RANKPROG"
expect_rc 0
expect_err "map: host localhost: ranks 0-1,5 (3)"
expect_err "map: host c: ranks 2-3 (2)"; expect_err "map: host d: rank 4 (1)"
run_job $MH --host a -n 1 "$RANKPROG" : -host 'c;x' "$RANKPROG"
expect_rc 2; expect_err "an MPMD part's -host: 'c;x' is not a valid host name"
run_job $MH --host a -n 1 "$RANKPROG" print:started : -n 1 "$WORK/no-such-program"
expect_rc 127
echo PASS
