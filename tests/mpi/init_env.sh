#!/usr/bin/env bash
# Start-up behaviour that depends on the environment: singleton start (no
# launcher), the provided thread level (MULTIPLE by default, capped by
# SMAP_THREAD_LEVEL), and malformed
# tunables failing MPI_Init with a message naming the variable.
set -u
fail() { echo "FAIL: $*"; exit 1; }
bin="$SMAP_TEST_BIN"

# Singleton: run the program directly, without smrun.
env -u PMI_FD -u PMI_RANK -u PMI_SIZE timeout 30 "$bin/init_basic" 1 || fail "singleton start"
env -u PMI_FD timeout 30 "$bin/thread_level" multiple multiple || fail "default thread level is not multiple"
env -u PMI_FD timeout 30 "$bin/thread_level" serialized serialized || fail "required serialized must give serialized"
timeout 30 "$SMAP_STAGE/bin/smrun" -n 2 "$bin/thread_level" multiple multiple || fail "MULTIPLE not granted under smrun"
SMAP_THREAD_LEVEL=serialized timeout 30 "$bin/thread_level" multiple serialized || fail "SMAP_THREAD_LEVEL=serialized not honoured"
SMAP_THREAD_LEVEL=funneled timeout 30 "$bin/thread_level" multiple funneled || fail "SMAP_THREAD_LEVEL=funneled not honoured"
SMAP_THREAD_LEVEL=funneled timeout 30 "$bin/thread_level" single single || fail "required single must give single"

out=$(SMAP_THREAD_LEVEL=lots timeout 30 "$bin/thread_level" single single 2>&1) && fail "bad SMAP_THREAD_LEVEL accepted"
grep -q "SMAP_THREAD_LEVEL='lots'" <<<"$out" || fail "no message naming SMAP_THREAD_LEVEL: $out"
out=$(SMAP_VERBOSE=loud timeout 30 "$SMAP_STAGE/bin/smrun" -n 2 "$bin/thread_level" single single 2>&1) && fail "bad SMAP_VERBOSE accepted"
grep -q "SMAP_VERBOSE='loud'" <<<"$out" || fail "no message naming SMAP_VERBOSE: $out"

# Well-formed but out of range (each used to be accepted silently; the
# heap then quietly kept its default slot for SMAP_HEAP_SLOT=3M).
for bad in SMAP_HEAP_SLOT=3M SMAP_HEAP_SLOT=1500M SMAP_EAGER_LIMIT=100000 SMAP_VERBOSE=99 \
           SMAP_BARRIER_FLAT_MAX=-5 SMAP_COLL_HIER_CHUNK=0 SMAP_COLL_ALGO=fastest; do
    out=$(env "$bad" timeout 30 "$SMAP_STAGE/bin/smrun" -n 2 "$bin/thread_level" single single 2>&1) &&
        fail "$bad accepted"
    grep -q "${bad%%=*}='${bad#*=}' is \(out of range\|not one of\)" <<<"$out" ||
        fail "no message naming $bad: $out"
done
out=$(SMAP_HEAP_SLOT=3M timeout 30 "$bin/thread_level" single single 2>&1) && fail "singleton: SMAP_HEAP_SLOT=3M accepted"
grep -q "expected a multiple of 1G from 1G to 16T" <<<"$out" || fail "no range in the message: $out"
SMAP_HEAP_SLOT=2G SMAP_EAGER_LIMIT=8160 SMAP_VERBOSE=0 SMAP_COLL_ALGO=inline \
    timeout 30 "$SMAP_STAGE/bin/smrun" -n 2 "$bin/thread_level" single single || fail "values in range refused"
# A low soft open-file limit (login shells, CI runners): attaching 8 node
# peers used to fail in MPI_Init with "Too many open files" below ~64.
(ulimit -Sn 32 && timeout 60 "$SMAP_STAGE/bin/smrun" -n 8 "$bin/init_basic" 8) ||
    fail "8 ranks under a soft open-file limit of 32"
echo PASS
