# One rank SIGKILLed from outside while the others wait (one of them even
# ignores SIGTERM, one has a child process): smrun reports it, stops all of
# them (SIGKILL after the grace) within 5 s, exits 137, leaves nothing.
source "$SMAP_SRC/tests/launcher/lib.sh"

start_job -n 3 "$RANKPROG" @2:ignoreterm @0:print:SESS={sess} sessfile \
    "@0:grandchild:$WORK" "ready:$WORK" "waitfile:$NEVER"
wait_ready 3
for i in $(seq 1 300); do [ -e "$WORK/gc.0" ] && break; sleep 0.01; done
[ -e "$WORK/gc.0" ] || fail "grandchild did not start"
pids="$(rank_pid 0) $(rank_pid 1) $(rank_pid 2) $(cat "$WORK/gc.0")"
victim=$(rank_pid 1)
t_kill=$(now_ms)
kill -KILL "$victim"
finish_job
took=$(( $(now_ms) - t_kill ))
expect_rc 137
expect_err "smrun: rank 1 (pid $victim) killed by signal 9 (SIGKILL)"
[ "$took" -lt 5000 ] || fail "job took $took ms to end after the kill"
expect_gone $pids
sess=$(sed -n 's/^SESS=//p' "$WORK/out")
case "$sess" in */smartmap-$UID_-$SMRUN_PID-????????????????) ;; *) fail "unexpected session dir '$sess'" ;; esac
[ -e "$sess" ] && fail "session directory $sess left behind"
expect_clean
echo PASS
