# Environment: smrun's is propagated; -x VAR, -x VAR=val and -genv VAR val
# are set in every rank; the PMI wire variables and SMAP_* are set; stale
# PMI_PORT/PMI_ID of an enclosing launcher are removed.
source "$SMAP_SRC/tests/launcher/lib.sh"

export FOO=bar FOO2=exported PMI_PORT=bogus:1 PMI_ID=9 SMAP_SESSION_DIR=/wrong
run_job -n 2 -x BAZ=qux -x FOO2 -genv A "b c" -x FOO=over "$RANKPROG" \
    env:FOO env:FOO2 env:BAZ env:A env:PMI_RANK env:PMI_SIZE env:SMAP_LAUNCHER \
    env:SMAP_SESSION_DIR env:PMI_PORT env:PMI_ID env:SMAP_NODE_CPUS env:HOME
expect_rc 0
count() { [ "$(grep -cxF -- "$1" "$WORK/out")" = "$2" ] || fail "expected '$1' $2 times"; }
count FOO=over 2
count FOO2=exported 2
count BAZ=qux 2
count "A=b c" 2
count PMI_RANK=0 1
count PMI_RANK=1 1
count PMI_SIZE=2 2
count SMAP_LAUNCHER=smrun 2
# The session directory: this launcher's pid, then a random part (D18).
[ "$(grep -cE "^SMAP_SESSION_DIR=/dev/shm/smartmap-$UID_-$SMRUN_PID-[0-9a-f]{16}\$" "$WORK/out")" = 2 ] ||
    fail "SMAP_SESSION_DIR lacks its random part: $(grep SMAP_SESSION_DIR "$WORK/out")"
count "PMI_PORT unset" 2
count "PMI_ID unset" 2
# (nproc would follow OMP_NUM_THREADS; the affinity mask is what counts)
ncpu=$(PMI_RANK=0 "$RANKPROG" affinity | sed 's/.*cpus=//' | tr ',' '\n' | wc -l)
count "SMAP_NODE_CPUS=$ncpu" 2
count "HOME=$HOME" 2

# PMI_FD is an open socket in each rank.
run_job -n 2 sh -c '[ -S /proc/self/fd/$PMI_FD ] && echo sock-$PMI_RANK'
expect_rc 0
expect_out sock-0
expect_out sock-1

# -genvnone (hydra): nothing of smrun's environment, only -genv/-x, -genvlist
# and smrun's own variables (PMI, session, heap preload).
export KEEP_ME=k DROP_ME=d
run_job -n 2 -genvnone -genv G g -x X=x -genvlist KEEP_ME "$RANKPROG" env:DROP_ME env:HOME \
    env:G env:X env:KEEP_ME env:PMI_SIZE env:SMAP_SESSION_DIR env:SMAP_LOCAL_RANK env:LD_PRELOAD
expect_rc 0
count "DROP_ME unset" 2; count "HOME unset" 2
count "G=g" 2; count "X=x" 2; count "KEEP_ME=k" 2; count "PMI_SIZE=2" 2
[ "$(grep -c '^SMAP_SESSION_DIR=/' "$WORK/out")" = 2 ] || fail "-genvnone dropped SMAP_SESSION_DIR"
[ "$(grep -c '^SMAP_LOCAL_RANK=' "$WORK/out")" = 2 ] || fail "-genvnone dropped SMAP_LOCAL_RANK"
heap=$(grep -c '^LD_PRELOAD=.*libsmartmap_heap' "$WORK/out")
run_job -n 2 "$RANKPROG" env:LD_PRELOAD
[ "$(grep -c '^LD_PRELOAD=.*libsmartmap_heap' "$WORK/out")" = "$heap" ] ||
    fail "-genvnone changed the heap preload"
# -genvall after -genvnone: the last one wins.
run_job -genvnone -genvall "$RANKPROG" env:DROP_ME
expect_rc 0; expect_out "DROP_ME=d"
# MPMD: one part's -envnone, the other inherits; -envall undoes a -genvnone.
run_job -n 1 "$RANKPROG" env:DROP_ME : -n 1 -envnone "$RANKPROG" env:DROP_ME
expect_rc 0; count "DROP_ME=d" 1; count "DROP_ME unset" 1
run_job -genvnone -n 1 "$RANKPROG" env:DROP_ME : -envall "$RANKPROG" env:DROP_ME
expect_rc 0; count "DROP_ME=d" 1; count "DROP_ME unset" 1

run_job -x 1BAD "$RANKPROG"
expect_rc 2
expect_err "not a valid variable name"
echo PASS
