# Failures across 2 emulated hosts stop the whole job, everywhere, fast,
# with the exit-code rules of one node, and leave no file behind: a rank on
# the second host killed with SIGKILL, MPI_Abort there, its agent killed,
# SIGINT to mpiexec, a rank's exit code.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"

all_pids() { cat "$WORK"/ready.* 2>/dev/null; }

# kill -9 of rank 3 (second host): 137, every rank gone within 2 s.
start_job $MH --host h1:2,h2:2 "$RANKPROG" print:sess={sess} sessfile "ready:$WORK" "waitfile:$NEVER"
wait_ready 4
pids=$(all_pids)
T0=$(now_ms)
kill -KILL "$(rank_pid 3)"
finish_job
expect_rc 137
expect_err "rank 3 (pid $(rank_pid 3)) killed by signal 9 (SIGKILL)"
expect_within 3
expect_gone $pids
expect_sessions_gone

# MPI_Abort(7) by rank 2 on the second host: 7 from the head, all gone.
run_job $MH --host h1:2,h2:2 -l "$HOSTINFO" abort:2 "wait:$NEVER"
expect_rc 7
expect_err "rank 2 called MPI_Abort with code 7"
expect_within 10
expect_sessions_gone

# The second host's agent killed: the job stops (its ranks die with it,
# the first host's ranks are stopped), mpiexec fails.
start_job $MH --host h1:2,h2:2 "$RANKPROG" print:sess={sess} "ready:$WORK" "waitfile:$NEVER"
wait_ready 4
pids=$(all_pids)
agent=$(awk '{print $4}' "/proc/$(rank_pid 3)/stat")
[ "$agent" != "$(awk '{print $4}' "/proc/$(rank_pid 0)/stat")" ] || fail "ranks 0 and 3 share an agent"
T0=$(now_ms)
kill -KILL "$agent"
finish_job
[ "$RC" -ne 0 ] || fail "exit code 0 after the agent was killed"
expect_err "host h2"
expect_within 4
expect_gone $pids
# The killed agent could not clean up; the next job on that host sweeps it.
stale=$(grep -h "^sess=" "$WORK/out" | sed 's/^sess=//' | sort -u)
run_job $MH --host h2 "$RANKPROG"
expect_rc 0
for s in $stale; do [ -e "$s" ] && fail "stale $s was not swept"; done

# SIGINT to mpiexec: 130, every rank on every host gone.
start_job $MH --host h1,h2:2 "$RANKPROG" print:sess={sess} "ready:$WORK" "waitfile:$NEVER"
wait_ready 3
pids=$(all_pids)
kill -INT "$SMRUN_PID"
finish_job
expect_rc 130
expect_err "caught SIGINT"
expect_gone $pids
expect_sessions_gone

# A failure on the first host while the second is fine: its code.
run_job $MH --host h1,h2 "$RANKPROG" @0:sleep:0.3 @0:exit:5
expect_rc 5
expect_err "rank 0 (pid"
# --timeout across hosts: 124, every host's ranks gone.
# (Long enough for a loaded machine to start both hosts' ranks first.)
start_job $MH --timeout 8 --host h1,h2 "$RANKPROG" eprint:sess={sess} "ready:$WORK" "waitfile:$NEVER"
wait_ready 2
pids=$(all_pids)
finish_job
expect_rc 124
expect_err "job timed out after 8 s"
expect_gone $pids
expect_sessions_gone

# stdin reaches rank 0 (on the first host) whole; the others read nothing.
seq 1 5000 >"$WORK/in"
STDIN="$WORK/in" run_job $MH --host h1,h2:2 -l "$RANKPROG" stdin
expect_rc 0
expect_out "[0] rank 0 stdin bytes=$(wc -c <"$WORK/in") "
expect_out "[1] rank 1 stdin bytes=0 "
expect_out "[2] rank 2 stdin bytes=0 "
echo "PASS"
