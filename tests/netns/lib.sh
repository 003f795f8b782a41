# Helpers of the tests across emulated hosts (sourced, bash).  A test script
# sets NHOSTS and sources this file: unless it already runs inside a set of
# emulated hosts, the script is run again by "hosts.sh run $NHOSTS", which
# exits 77 (skipped) where namespaces cannot be made.  Then it has
# tests/launcher/lib.sh (run_job, start_job/finish_job, expect_*) and:
#   MH         the smrun options that reach the hosts (--launcher, --head-addr)
#   HOSTINFO   tests/netns/hostinfo.c    RANKPROG  tests/launcher/rankprog.c
#   expect_layout LINE...  each "R HOST NODE_SIZE NODE_RANK" is in the output
#   expect_sessions_gone   no session directory that a rank printed remains
if [ -z "${SMAP_NETNS_ID:-}" ]; then
    exec "$SMAP_SRC/tests/netns/hosts.sh" run "$NHOSTS" bash "$0" "$@"
fi
source "$SMAP_SRC/tests/launcher/lib.sh"
export SMRUN_BIND_TO=none      # several jobs share the test machine's few CPUs
MH="--launcher $SMAP_NETNS_LAUNCHER --head-addr $SMAP_NETNS_HEAD"

expect_layout() {
    local l r host ns nr
    for l in "$@"; do
        read -r r host ns nr <<<"$l"
        grep -q "^\[$r\] rank $r of [0-9]* host $host node_size $ns node_rank $nr got " "$WORK/out" ||
            fail "rank $r: expected host $host node_size $ns node_rank $nr"
    done
}

# Each rank of hostinfo/rankprog printed its session directory as sess=DIR.
expect_sessions_gone() {
    local s e n=0
    for s in $(sed -n 's/^\(\[[0-9]*\] \)\{0,1\}sess=//p' "$WORK/out" "$WORK/err" | sort -u); do
        n=$((n + 1))
        for e in "$s" "$s"[-.]*; do
            [ -e "$e" ] && fail "left behind: $e"
        done
    done
    [ "$n" -gt 0 ] || fail "no session directory was printed"
}

# The node ring of hostinfo: every rank got its ring predecessor's rank.
expect_ring() {
    local r first ns nr
    for r in "$@"; do
        read -r first ns <<<"$r"
        for nr in $(seq 0 $((ns - 1))); do
            local me=$((first + nr)) prev=$((first + (nr + ns - 1) % ns))
            grep -q "^\[$me\] rank $me .* node_rank $nr got $prev\$" "$WORK/out" ||
                fail "rank $me did not get $prev from its node's ring"
        done
    done
}

# $HERE_LAUNCHER: a "remote shell" that runs the command right here,
# whatever the host: two hosts of one machine, same host name, same
# /dev/shm -- still two nodes, because the placement says so.
HERE_LAUNCHER="$WORK/here"
cat >"$HERE_LAUNCHER" <<'SH'
#!/bin/sh
# like "ssh [-x] HOST CMD...", but here
while [ "${1#-}" != "$1" ]; do shift; done
shift
exec sh -c "$*"
SH
chmod +x "$HERE_LAUNCHER"
