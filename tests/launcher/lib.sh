# Helpers shared by the launcher and PMI tests (sourced, bash).
#
# Environment (from smap_add_script_test and the test's ENV):
#   SMAP_STAGE  build tree root (bin/smrun)      RANKPROG   tests/launcher/rankprog.c
#   PMI_CLIENT  tests/pmi/pmi_client.c
#
# run_job ARGS...   runs "smrun ARGS..." in the background with stdin from
#                   $STDIN (default /dev/null), stdout/stderr into $WORK/out and
#                   $WORK/err, under a watchdog; sets RC, SMRUN_PID, ELAPSED_MS.
# start_job ARGS... / finish_job  the same in two halves, for tests that act on
#                   the running job (signals, kill) in between.
set -u
ulimit -S -c 0                    # crashing ranks must not write cores (soft: segv_core.sh and core_dump.sh raise it)

SMRUN="$SMAP_STAGE/bin/smrun"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/smrun-test.XXXXXX")
NEVER="$WORK/never"               # a file nobody creates: "wait forever" (30 s cap)
trap '[ -n "${SMRUN_TEST_KEEP:-}" ] || rm -rf "$WORK"' EXIT   # SMRUN_TEST_KEEP=1 keeps it for debugging
UID_=$(id -u)

fail() {
    echo "FAIL: $*" >&2
    echo "--- smrun stdout:" >&2; head -c 4000 "$WORK/out" >&2 2>/dev/null
    echo "--- smrun stderr:" >&2; head -c 4000 "$WORK/err" >&2 2>/dev/null
    exit 1
}

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

start_job() {
    rm -f "$WORK"/ready.* "$WORK"/gc.* "$WORK/watchdog.fired"
    T0=$(now_ms)
    "$SMRUN" "$@" <"${STDIN:-/dev/null}" >"$WORK/out" 2>"$WORK/err" &
    SMRUN_PID=$!
    # The watchdog kills a hung smrun after 40 s; its sleep is killed with it.
    (
        sleep 40 & s=$!
        trap 'kill $s 2>/dev/null; exit 0' TERM
        wait $s
        touch "$WORK/watchdog.fired"
        kill -KILL "$SMRUN_PID" 2>/dev/null
    ) >/dev/null 2>&1 &
    WATCHDOG=$!
}

finish_job() {
    { wait "$SMRUN_PID"; } 2>/dev/null   # no "Killed" job notice
    RC=$?
    ELAPSED_MS=$(( $(now_ms) - T0 ))
    kill "$WATCHDOG" 2>/dev/null
    wait "$WATCHDOG" 2>/dev/null
    [ -e "$WORK/watchdog.fired" ] && fail "smrun hung (killed by the watchdog)"
    return 0
}

run_job() {
    start_job "$@"
    finish_job
}

# wait_ready N: waits (at most 30 s) until ranks 0..N-1 wrote $WORK/ready.<r>.
wait_ready() {
    local i
    for i in $(seq 1 3000); do
        local n=$(ls "$WORK" | grep -c '^ready\.[0-9]*$')
        [ "$n" -ge "$1" ] && return 0
        kill -0 "$SMRUN_PID" 2>/dev/null || fail "smrun exited before $1 ranks were ready"
        sleep 0.01
    done
    fail "ranks not ready after 30 s"
}

rank_pid() { cat "$WORK/ready.$1"; }

expect_rc() { [ "$RC" = "$1" ] || fail "exit code $RC, expected $1"; }
expect_err() { grep -qF -- "$1" "$WORK/err" || fail "stderr lacks '$1'"; }
expect_no_err() { ! grep -qF -- "$1" "$WORK/err" || fail "stderr has '$1'"; }
expect_out() { grep -qF -- "$1" "$WORK/out" || fail "stdout lacks '$1'"; }
expect_within() { [ "$ELAPSED_MS" -lt $(( $1 * 1000 )) ] || fail "took $ELAPSED_MS ms, more than $1 s"; }

# expect_gone PID...: each process has disappeared (within 3 s).
expect_gone() {
    local p i
    for p in "$@"; do
        for i in $(seq 1 300); do
            kill -0 "$p" 2>/dev/null || continue 2
            sleep 0.01
        done
        fail "process $p still exists"
    done
}

# expect_clean: nothing named after this smrun is left in any session base.
expect_clean() {
    local base e
    for base in /dev/shm "${TMPDIR:-/tmp}" /tmp; do
        for e in "$base/smartmap-$UID_-$SMRUN_PID" "$base/smartmap-$UID_-$SMRUN_PID"[-.]*; do
            [ -e "$e" ] && fail "left behind: $e"
        done
    done
    return 0
}
