# Pitfall §3.6: a non-dumpable rank (setuid programs, changed credentials,
# prctl(PR_SET_DUMPABLE, 0)) refuses /proc/<pid>/fd and pidfd_getfd to other
# processes without CAP_SYS_PTRACE.  SMAP_ATTACH=auto must see it (from the
# published flags) and use SCM_RIGHTS; forced proc/pidfd must fail with a
# clear message.  Root holds CAP_SYS_PTRACE and would pass anyway, so the
# unprivileged cases run as nobody when we are root.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 3 -x SMAP_VERBOSE=3 "$RW_PROG" nondumpable
expect_rc 0
expect_out "rw ok: 3 ranks"
n=$(grep -c "attached 2 node peers by socket in" "$WORK/err")
[ "$n" = 3 ] || fail "$n of 3 ranks report attaching by socket"
expect_clean

AS=()
if [ "$(id -u)" = 0 ]; then
    AS=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all)
fi
run_as() {   # run_as ARGS...: smrun as the unprivileged user, 60 s cap
    timeout 60 "${AS[@]}" "$SMRUN" "$@" </dev/null >"$WORK/out" 2>"$WORK/err"
    RC=$?
    [ "$RC" != 124 ] || fail "smrun hung"
}

run_as -n 3 -x SMAP_VERBOSE=3 "$RW_PROG" nondumpable
expect_rc 0
expect_out "rw ok: 3 ranks"
expect_err "attached 2 node peers by socket in"

run_as -n 2 -x SMAP_VERBOSE=3 "$RW_PROG"   # all dumpable, one uid: /proc works unprivileged
expect_rc 0
expect_err "attached 1 node peers by proc in"

for mode in proc pidfd; do
    run_as -n 3 -x SMAP_ATTACH=$mode "$RW_PROG" nondumpable
    [ "$RC" != 0 ] || fail "SMAP_ATTACH=$mode attached a non-dumpable rank without privileges"
    expect_err "SMAP_ATTACH=$mode: cannot get local rank 0's (rank 0, pid"
    expect_no_err "rw ok"
done
echo PASS
