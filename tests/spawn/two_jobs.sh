# Two separately started jobs on one host: a server job (2 ranks) opens a
# port and writes it to a file, a client job (3 ranks) reads it and
# connects; point-to-point both ways, a large message, an allreduce over
# the intercommunicator, disconnect; both exit 0 and leave nothing behind.
# The same between two singletons; a singleton's spawn fails cleanly.
source "$SMAP_SRC/tests/launcher/lib.sh"
PROG="$SMAP_TEST_BIN/dynproc"
export SMRUN_BIND_TO=none
# Both on this node: each job's processes are the other's node peers
# (dynproc checks their control regions are mapped while connected).
DYNPROC_EXPECT_SHM=1 "$SMRUN" -n 2 "$PROG" server "$WORK/port" >"$WORK/s.out" 2>&1 &
S=$!
DYNPROC_EXPECT_SHM=1 "$SMRUN" -n 3 "$PROG" client "$WORK/port" >"$WORK/c.out" 2>&1 &
C=$!
timeout 60 tail --pid=$C -f /dev/null; wait $C; CRC=$?
timeout 60 tail --pid=$S -f /dev/null; wait $S; SRC=$?
[ "$SRC" = 0 ] || fail "server job exited $SRC: $(cat "$WORK/s.out")"
[ "$CRC" = 0 ] || fail "client job exited $CRC: $(cat "$WORK/c.out")"
grep -q '^smap-port:' "$WORK/port" || fail "no port name in the file"
for SMRUN_PID in $S $C; do expect_clean; done

# Two singletons (no launcher) connect through a port too.
rm -f "$WORK/port"
timeout 60 "$PROG" server "$WORK/port" >"$WORK/s1.out" 2>&1 &
S=$!
timeout 60 "$PROG" client "$WORK/port" >"$WORK/c1.out" 2>&1 || fail "singleton client: $(cat "$WORK/c1.out")"
wait $S || fail "singleton server: $(cat "$WORK/s1.out")"
# A singleton cannot spawn: a clear MPI_ERR_SPAWN, not a hang.
timeout 60 "$SMAP_TEST_BIN/spawn_basic" >"$WORK/sp.out" 2>&1
rc=$?
[ $rc = 53 ] || fail "singleton spawn exited $rc, not MPI_ERR_SPAWN's 53"
grep -q "MPI_Comm_spawn: the launcher does not serve PMI-1 spawn" "$WORK/sp.out" ||
    fail "singleton spawn: $(cat "$WORK/sp.out")"
echo PASS
