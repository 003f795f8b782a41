# SMAP_ATTACH=$PEERS_MODE forced: the job must attach that way (the debug
# log says how) and every rank reads and writes its neighbour's heap,
# globals and stack.  PEERS_MODE=bogus: MPI_Init fails with a clear message.
source "$SMAP_SRC/tests/launcher/lib.sh"

if [ "$PEERS_MODE" = bogus ]; then
    run_job -n 2 -x SMAP_ATTACH=bogus "$RW_PROG"
    [ "$RC" != 0 ] || fail "a bad SMAP_ATTACH was accepted"
    expect_err "SMAP_ATTACH='bogus' is not one of auto|proc|pidfd|socket"
    expect_clean
    echo PASS
    exit 0
fi
for np in 2 3; do
    run_job -n $np -x SMAP_VERBOSE=3 -x SMAP_ATTACH="$PEERS_MODE" "$RW_PROG"
    expect_rc 0
    expect_out "rw ok: $np ranks"
    n=$(grep -c "attached $((np - 1)) node peers by $PEERS_MODE in" "$WORK/err")
    [ "$n" = "$np" ] || fail "$n of $np ranks report attaching by $PEERS_MODE"
    expect_clean
done
if [ "$PEERS_MODE" = socket ]; then
    # Each rank's socket name is random (D18: a local user cannot take the
    # names of a job in advance): 16 hex digits, different per rank and run.
    run_job -n 2 -x SMAP_VERBOSE=3 -x SMAP_ATTACH=socket "$RW_PROG"
    expect_rc 0
    names=$(sed -n 's/.*attach socket @\(smartmap\.[0-9a-f]\{16\}\)$/\1/p' "$WORK/err" | sort -u)
    [ "$(echo "$names" | grep -c .)" = 2 ] || fail "expected 2 random socket names, got '$names'"
    first=$names
    run_job -n 2 -x SMAP_VERBOSE=3 -x SMAP_ATTACH=socket "$RW_PROG"
    expect_rc 0
    again=$(sed -n 's/.*attach socket @\(smartmap\.[0-9a-f]\{16\}\)$/\1/p' "$WORK/err" | sort -u)
    [ -n "$again" ] && [ -z "$(comm -12 <(echo "$first") <(echo "$again"))" ] ||
        fail "the socket names repeat between runs: '$first' / '$again'"
fi
echo PASS
