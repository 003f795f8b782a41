# Spawn across 2 emulated hosts (tools/smrun/dynamic.c, DESIGN D17):
# children go round-robin over the job's hosts (the nested smrun is the
# head of a job over them), info host and hostfile send them elsewhere,
# MPI_UNIVERSE_SIZE is the hosts' slots, and the job has one name table
# (published on h1, found on h2).  Modest sizes and smrun's own --timeout,
# so that it stays well under the 40 s watchdog beside other heavy tests.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"
export SMAP_NODE_CPUS=1

expect_children() {   # expect_children HOST...: child i ran on the i-th HOST
    local i=0 h
    for h in "$@"; do
        grep -q "^child $i host $h\$" "$WORK/out" || fail "child $i is not on $h"
        i=$((i + 1))
    done
    [ "$(grep -c '^child ' "$WORK/out")" = "$#" ] || fail "not $# children"
}

# Parents on h1 and h2 (4 slots): 4 children, one per host in turn.
run_job $MH --timeout 30 --host h1:2,h2:2 -n 2 --map-by node "$SPAWN_HOSTS" 4
expect_rc 0
expect_out "universe 4"
expect_children h1 h2 h1 h2
expect_out "lookup ok"      # published by rank 0 on h1, found by rank 1 on h2
expect_clean

# info host: both children on h2.
run_job $MH --timeout 30 --host h1:1,h2:1 "$SPAWN_HOSTS" 2 host=h2
expect_rc 0
expect_out "universe 2"
expect_children h2 h2
expect_clean

# info hostfile: its hosts in its order (h2 first), not the job's (h1
# first) nor the spawning rank's host (h1).
printf 'h2 slots=1   # a comment\nh1\n' >"$WORK/hf"
run_job $MH --timeout 30 --host h1:1,h2:1 "$SPAWN_HOSTS" 3 "hostfile=$WORK/hf"
expect_rc 0
expect_children h2 h1 h2
expect_clean
# A relative hostfile is the spawning rank's file (its working directory),
# not one in the launcher's: the parents chdir to a directory of their own.
mkdir -p "$WORK/rel"
printf 'h2\nh1\n' >"$WORK/rel/hf2"
SPAWN_HOSTS_CHDIR="$WORK/rel" run_job $MH --timeout 30 --host h1:1,h2:1 "$SPAWN_HOSTS" 2 "hostfile=hf2"
expect_rc 0
expect_children h2 h1
expect_clean
# A child killed on the other host (child 1 of 3 goes to h2) stops the
# whole job with its signal's code, and nothing of it is left anywhere.
PROG="$WORK/spawn_basic_killed"
ln -s "$SPAWN_BASIC" "$PROG"
SPAWN_TEST_DIE=1 run_job $MH --timeout 30 --host h1:1,h2:1 -n 1 "$PROG" 3
expect_rc 137
expect_err "killed by signal 9"
expect_clean
for i in $(seq 1 300); do pgrep -f "$PROG" >/dev/null || break; sleep 0.01; done
pgrep -f "$PROG" >/dev/null && fail "processes of the job left: $(pgrep -af "$PROG")"
echo "spawn across emulated hosts: ok"
