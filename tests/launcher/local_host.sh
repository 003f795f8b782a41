# A job "across hosts" whose only host is this machine by its own name or
# address (mpiexec -hosts $(hostname) ...) starts its agent directly, as
# hydra and Open MPI do; it used to go through ssh and fail.  The launcher
# here is `false`: any host that went through it would fail the job.
source "$SMAP_SRC/tests/launcher/lib.sh"

long=$(hostname)
short=${long%%.*}
for host in "$long" "$short" 127.0.0.1 localhost; do
    run_job --launcher false -hosts "$host:2" -n 2 "$RANKPROG" "print:on {rank}"
    expect_rc 0
    expect_out "on 0"; expect_out "on 1"
done
# An address of one of this machine's interfaces, when it has one besides
# loopback.
addr=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
if [ -n "$addr" ]; then
    run_job --launcher false --host "$addr" "$RANKPROG" "print:by address"
    expect_rc 0; expect_out "by address"
fi
# Any other name still goes through the launcher.
run_job --launcher false -hosts "not-$short.invalid" "$RANKPROG" "print:never"
[ "$RC" != 0 ] || fail "a foreign host name did not go through the launcher"
echo PASS
