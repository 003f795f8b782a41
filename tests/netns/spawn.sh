# Dynamic processes across 2 emulated hosts (src/spawn, DESIGN D17):
# parents on both hosts spawn children (started by the agent of the
# spawning rank's host); a server job on h1 and a client job on h2,
# started apart, connect through a port; nothing is left behind.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"
export SMAP_NODE_CPUS=1

run_job $MH --host h1:2,h2:1 "$SPAWN_BASIC"
expect_rc 0
expect_clean

"$SMRUN" $MH --host h1:2 "$DYNPROC" server "$WORK/port" >"$WORK/s.out" 2>&1 &
S=$!
"$SMRUN" $MH --host h2:3 "$DYNPROC" client "$WORK/port" >"$WORK/c.out" 2>&1 &
C=$!
timeout 90 tail --pid=$C -f /dev/null; wait $C; CRC=$?
timeout 90 tail --pid=$S -f /dev/null; wait $S; SRC=$?
[ "$SRC" = 0 ] || fail "server job (h1) exited $SRC: $(cat "$WORK/s.out")"
[ "$CRC" = 0 ] || fail "client job (h2) exited $CRC: $(cat "$WORK/c.out")"
grep -q '^smap-port:198\.18\.0\.11:' "$WORK/port" || fail "the port is not h1's: $(cat "$WORK/port")"
for SMRUN_PID in $S $C; do expect_clean; done
echo "dynamic processes across emulated hosts: ok"
