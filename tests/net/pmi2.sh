#!/usr/bin/env bash
# The PMI-2 wire protocol client (src/boot/pmi2.c) against MPICH's hydra,
# whose proxy serves PMI-1 and PMI-2 on the same PMI_FD:
#   1. forced (SMAP_PMI=2), a job of 2 emulated nodes (2 ranks + 1):
#      every rank says it spoke PMI-2, the job's cross-node traffic (its
#      addresses and region descriptions went through kvs-put/kvs-fence/
#      kvs-get, the node layout through info-getjobattr) works;
#   2. auto: PMI_JOBID set (as srun --mpi=pmi2 does) selects PMI-2;
#   3. forced under smrun, which serves PMI-1 only: a clear error, the job
#      fails (never a hang);
#   4. MPI_Finalize still waits for a late rank (hydra's kvs-fence is no
#      barrier: src/boot/pmi2.c builds one), 2 emulated nodes (2 ranks + 1).
# Usage: pmi2.sh  (SMAP_TEST_BIN: the build's tests/net)
set -uo pipefail
bin=${SMAP_TEST_BIN:?}
here=$(cd "$(dirname "$0")" && pwd)
smrun=$bin/../../bin/smrun
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

SMAP_PMI=2 SMAP_VERBOSE=2 MULTINODE_TIMEOUT=90 \
    bash "$here/multinode.sh" 2,1 "$bin/net_rules" >"$out" 2>&1 || fail "forced PMI-2 job failed"
n=$(grep -c "boot: PMI-2 wire protocol" "$out")
[ "$n" = 3 ] || fail "$n of 3 ranks report PMI-2"
grep -q "net_rules: 3 ranks OK" "$out" || fail "net_rules did not pass"

PMI_JOBID=pmi2-test SMAP_VERBOSE=2 MULTINODE_TIMEOUT=90 \
    bash "$here/multinode.sh" 1,1 "$bin/net_cancel" >"$out" 2>&1 || fail "auto PMI-2 job failed"
n=$(grep -c "boot: PMI-2 wire protocol" "$out")
[ "$n" = 2 ] || fail "PMI_JOBID set: $n of 2 ranks chose PMI-2"

SMAP_PMI=2 timeout 60 "$smrun" -n 2 "$bin/net_cancel" >"$out" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "PMI-2 forced under smrun: exit $rc"
grep -q "does not speak PMI-2" "$out" || fail "no clear message for a PMI-1-only launcher"
SMAP_PMI=2 MULTINODE_TIMEOUT=60 \
    bash "$here/multinode.sh" 2,1 "$bin/finalize_late" >"$out" 2>&1 || fail "finalize_late under PMI-2 failed"
n=$(grep -c "finalize_late: rank [0-9]* ok" "$out")
[ "$n" = 3 ] || fail "$n of 3 ranks passed finalize_late"
echo "pmi2: ok"
