# smrun --name-server shared by two jobs started apart (-nameserver and
# SMRUN_NAMESERVER): one publishes its port under a name, the other looks
# the name up and connects; the name server stops on SIGTERM.
source "$SMAP_SRC/tests/launcher/lib.sh"
PROG="$SMAP_TEST_BIN/dynproc"
export SMRUN_BIND_TO=none
"$SMRUN" --name-server 127.0.0.1 >"$WORK/ns.out" 2>&1 &
NS=$!
for i in $(seq 1 300); do [ -s "$WORK/ns.out" ] && break; sleep 0.01; done
ADDR=$(head -1 "$WORK/ns.out")
[[ "$ADDR" =~ ^127\.0\.0\.1:[0-9]+$ ]] || fail "name server printed '$ADDR'"
NAME="svc-$$-$RANDOM"
"$SMRUN" -nameserver "$ADDR" -n 2 "$PROG" nsserver "$NAME" >"$WORK/s.out" 2>&1 &
S=$!
SMRUN_NAMESERVER="$ADDR" "$SMRUN" -n 2 "$PROG" nsclient "$NAME" >"$WORK/c.out" 2>&1 &
C=$!
timeout 60 tail --pid=$C -f /dev/null; wait $C; CRC=$?
timeout 60 tail --pid=$S -f /dev/null; wait $S; SRC=$?
[ "$SRC" = 0 ] || fail "publishing job exited $SRC: $(cat "$WORK/s.out")"
[ "$CRC" = 0 ] || fail "looking-up job exited $CRC: $(cat "$WORK/c.out")"
kill -TERM $NS
timeout 10 tail --pid=$NS -f /dev/null || fail "the name server did not stop on SIGTERM"
wait $NS; [ $? = 0 ] || fail "the name server exited non-zero"
for SMRUN_PID in $S $C; do expect_clean; done
echo PASS
