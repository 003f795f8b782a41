# Clean-up: a rank that created a file in $SMAP_SESSION_DIR and was
# SIGKILLed leaves nothing; smrun itself SIGKILLed takes its ranks with it
# (PR_SET_PDEATHSIG) and the next smrun sweeps its stale directory, but
# never the directory of a launcher that is still alive.
source "$SMAP_SRC/tests/launcher/lib.sh"

run_job -n 2 "$RANKPROG" @0:print:SESS={sess} sessfile "ready:$WORK" \
    "@1:waitfile:$WORK/ready.0" @1:selfkill:9 "waitfile:$NEVER"
expect_rc 137
sess=$(sed -n 's/^SESS=//p' "$WORK/out")
[ -n "$sess" ] || fail "no session dir printed"
[ -e "$sess" ] && fail "$sess left behind"
expect_clean

# smrun SIGKILLed: its ranks die, its directory stays (nobody could remove it).
start_job -n 2 "$RANKPROG" @0:print:SESS={sess} sessfile "ready:$WORK" "waitfile:$NEVER"
wait_ready 2
pids="$(rank_pid 0) $(rank_pid 1)"
kill -KILL "$SMRUN_PID"
finish_job
expect_gone $pids
sess=$(sed -n 's/^SESS=//p' "$WORK/out")
[ -n "$sess" ] || fail "no session dir printed"
# $sess is stale now.  (Another test's smrun running at the same time may
# already have swept it, which is right too.)

# Stale entries of another dead launcher (a directory and a sibling file),
# and the entry of a live process (this shell) that must survive.
true & fake=$!; wait $fake
base=$(dirname "$sess")
mkdir -p "$base/smartmap-$UID_-$fake/sub"
touch "$base/smartmap-$UID_-$fake/sub/f" "$base/smartmap-$UID_-$fake-rank0"
mkdir "$base/smartmap-$UID_-$$"
trap 'rm -rf "$WORK" "$base/smartmap-$UID_-$$"' EXIT

run_job -n 1 "$RANKPROG"
expect_rc 0
for e in "$sess" "$base/smartmap-$UID_-$fake" "$base/smartmap-$UID_-$fake-rank0"; do
    [ -e "$e" ] && fail "stale $e was not swept"
done
[ -d "$base/smartmap-$UID_-$$" ] || fail "the directory of a live process was swept"
expect_clean

# /dev/shm unusable (mounted read-only in a private mount namespace, where
# we are allowed to make one): the session directory goes to $TMPDIR and is
# removed from there.
if unshare -m true 2>/dev/null; then
    mkdir "$WORK/tmp"
    SMRUN=env run_job TMPDIR="$WORK/tmp" unshare -m sh -c \
        'mount -t tmpfs -o ro none /dev/shm && exec "$@"' sh \
        "$SMRUN" -n 2 "$RANKPROG" sessfile print:SESS={sess}
    expect_rc 0
    expect_out "SESS=$WORK/tmp/smartmap-$UID_-"
    [ -z "$(ls -A "$WORK/tmp")" ] || fail "left in TMPDIR: $(ls -A "$WORK/tmp")"
else
    echo "(no mount namespace here: /dev/shm fallback not tested)"
fi
echo PASS
