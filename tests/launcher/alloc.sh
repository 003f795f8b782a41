# Batch allocations without emulated hosts: the Slurm node list and
# tasks-per-node syntax (read through --display-map, every "node" started
# here by -launcher fork), malformed values (a clear message naming the
# variable, exit 2, nothing started), an allocation of this host only (a
# one-node job of its slots, no srun), and PBS_NODEFILE.  The jobs across
# emulated hosts started through srun: tests/netns/slurm.sh.
source "$SMAP_SRC/tests/launcher/lib.sh"
unset SLURM_JOB_NODELIST SLURM_NODELIST SLURM_TASKS_PER_NODE PBS_NODEFILE

# A srun that must not be called: an all-local job has no agents.
mkdir -p "$WORK/bin"
printf '#!/bin/sh\ntouch "%s/srun.called"\nexit 99\n' "$WORK" >"$WORK/bin/srun"
chmod +x "$WORK/bin/srun"
export PATH="$WORK/bin:$PATH"

slurm() { SLURM_JOB_NODELIST=$1 SLURM_TASKS_PER_NODE=$2 run_job "${@:3}"; }

# Ranges with zero padding, a list inside the brackets, a plain name, two
# bracket groups in one name, repeat counts; -n defaults to the slots (14).
slurm 'node[01-03,07],gpu5,r[1-2]n[8-9]' '2(x3),1,3,1(x4)' --display-map -launcher fork true
expect_rc 0
for m in "host node01: ranks 0-1 (2)" "host node02: ranks 2-3 (2)" "host node03: ranks 4-5 (2)" \
         "host node07: rank 6 (1)" "host gpu5: ranks 7-9 (3)" "host r1n8: rank 10 (1)" \
         "host r1n9: rank 11 (1)" "host r2n8: rank 12 (1)" "host r2n9: rank 13 (1)"; do
    expect_err "smrun: map: $m"
done
[ "$(grep -c 'smrun: map:' "$WORK/err")" = 9 ] || fail "expected 9 hosts in the map"
# -n fills the nodes in order, like a host list.
slurm 'n[9-11]' '2,1(x2)' --display-map -launcher fork -n 3 true
expect_rc 0
expect_err "map: host n9: ranks 0-1 (2)"; expect_err "map: host n10: rank 2 (1)"
expect_no_err "host n11"

# Malformed values: exit 2 before anything starts, the variable named.
bad() {
    slurm "$1" "$2" -launcher fork "$RANKPROG" print:started
    expect_rc 2
    expect_err "$3"
    expect_err "$4"
    grep -q started "$WORK/out" && fail "a rank started with $1 / $2"
    return 0
}
bad 'node[01-' 2 "SLURM_JOB_NODELIST='node[01-'" "without its ']'"
bad 'node]1' 2 "SLURM_JOB_NODELIST" "without its '['"
bad 'node[3-1]' 2 "SLURM_JOB_NODELIST" "goes downwards"
bad 'node[a-b]' 2 "SLURM_JOB_NODELIST" "not N, N-M"
bad 'node[]' 2 "SLURM_JOB_NODELIST" "empty '[]'"
bad 'a,,b' 1 "SLURM_JOB_NODELIST" "empty item"
bad 'n[1-3]' '2(x2)' "SLURM_TASKS_PER_NODE='2(x2)'" "counts 2 nodes, but the node list has 3"
bad 'n[1-2]' '1,1,1' "SLURM_TASKS_PER_NODE" "counts more nodes than the 2"
bad 'n[1-2]' '2(x0)' "SLURM_TASKS_PER_NODE='2(x0)'" "repeat count"
bad 'n[1-2]' '2(x2' "SLURM_TASKS_PER_NODE" "repeat count"
bad 'n[1-2]' 'x' "SLURM_TASKS_PER_NODE='x'" "positive count"
bad 'n[1-2]' '0(x2)' "SLURM_TASKS_PER_NODE" "positive count"
bad 'n1' '1,' "SLURM_TASKS_PER_NODE" "ends with a comma"
SLURM_JOB_NODELIST=n1 run_job "$RANKPROG"
expect_rc 2; expect_err "SLURM_TASKS_PER_NODE is not"

# Every node is this host: a one-node job of its slots, without srun.
slurm "$(hostname)" 3 -l "$RANKPROG" env:SMAP_NODE_NAME
expect_rc 0
[ "$(grep -c 'SMAP_NODE_NAME unset' "$WORK/out")" = 3 ] || fail "expected 3 local ranks"
slurm localhost 4 -n 2 "$RANKPROG" print:x
expect_rc 0
[ "$(grep -c '^x$' "$WORK/out")" = 2 ] || fail "-n 2 did not win over the slots"
[ -e "$WORK/srun.called" ] && fail "srun was called for a job on this host only"

# --host wins over the allocation.
slurm 'n[1-2]' '2(x2)' --host localhost:1 "$RANKPROG" print:x
expect_rc 0
[ "$(grep -c '^x$' "$WORK/out")" = 1 ] || fail "--host did not win over the allocation"

# PBS: one line per slot; a host's lines add up.
printf 'pa\npa\npb\n\npa\n' >"$WORK/nodes"
PBS_NODEFILE="$WORK/nodes" run_job --display-map -launcher fork true
expect_rc 0
expect_err "map: host pa: ranks 0-2 (3)"; expect_err "map: host pb: rank 3 (1)"
PBS_NODEFILE="$WORK/none" run_job true
expect_rc 2; expect_err "PBS_NODEFILE=$WORK/none"
printf "$(hostname)\n$(hostname)\n" >"$WORK/nodes"
PBS_NODEFILE="$WORK/nodes" run_job "$RANKPROG" print:x
expect_rc 0
[ "$(grep -c '^x$' "$WORK/out")" = 2 ] || fail "a local PBS allocation did not give 2 ranks"

# Unknown and unsupported -launcher values.
run_job -launcher lsf true
expect_rc 2; expect_err "-launcher lsf: not supported"
echo PASS
