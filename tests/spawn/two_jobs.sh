# Two separately started jobs on one host: a server job (2 ranks) opens a
# port and writes it to a file, a client job (3 ranks) reads it and
# connects; point-to-point both ways, a large message, an allreduce over
# the intercommunicator, disconnect; both exit 0 and leave nothing behind.
source "$SMAP_SRC/tests/launcher/lib.sh"
PROG="$SMAP_TEST_BIN/dynproc"
export SMRUN_BIND_TO=none
"$SMRUN" -n 2 "$PROG" server "$WORK/port" >"$WORK/s.out" 2>&1 &
S=$!
"$SMRUN" -n 3 "$PROG" client "$WORK/port" >"$WORK/c.out" 2>&1 &
C=$!
timeout 60 tail --pid=$C -f /dev/null; wait $C; CRC=$?
timeout 60 tail --pid=$S -f /dev/null; wait $S; SRC=$?
[ "$SRC" = 0 ] || fail "server job exited $SRC: $(cat "$WORK/s.out")"
[ "$CRC" = 0 ] || fail "client job exited $CRC: $(cat "$WORK/c.out")"
grep -q '^smap-port:' "$WORK/port" || fail "no port name in the file"
for SMRUN_PID in $S $C; do expect_clean; done
echo PASS
