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
echo PASS
