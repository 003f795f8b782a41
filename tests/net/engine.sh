#!/usr/bin/env bash
# The network engine plugin (src/net/engine.h, net/load.c) and its errors,
# with jobs of 2 emulated nodes (SMAP_NODE_NAME per MPMD part of smrun,
# libfabric's tcp on loopback; smrun, not multinode.sh's hydra, because
# hydra may drop the output of ranks that abort at once) and of one node:
#   1. SMAP_NET_ENGINE=ucx: where the UCX engine is built, a job across
#      nodes runs with it (UCX over tcp on loopback), libfabric unmapped;
#      where it is not, the job stops in MPI_Init with a message saying
#      so; a one-node job, which loads no engine, runs either way;
#   2. SMAP_NET_ENGINE=bogus: any job stops with a message naming it;
#   3. the plugin missing beside libmpi_abi.so (a copy of the library in
#      a directory of its own): a job across nodes stops with a message
#      naming the file it looked for and dlerror()'s reason; a one-node
#      job runs;
#   4. a plugin whose own library is missing (as libfabric would be):
#      the message names the plugin and the missing library;
#   5. (UCX built) auto with the libfabric plugin missing: the job runs
#      with UCX, and SMAP_VERBOSE says why;
#   6. libfabric's /proc/kallsyms probe (src/net/kallsyms.c): on a machine
#      with no device in /sys/class/infiniband the engine's first
#      fi_getinfo runs with the file unreadable, and the ranks read less
#      than the file's size by the end of MPI_Init where, with
#      SMAP_NET_OFI_SKIP_KALLSYMS=0, this libfabric reads it all; with a
#      device there the probe runs.
# (Every engine/build combination of the choice: engine_choose.c.)
# Usage: engine.sh  (SMAP_TEST_BIN: the build's tests/net, SMAP_STAGE)
set -uo pipefail
bin=${SMAP_TEST_BIN:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

# across ENV...: a 2-node job of net_engine, which expects the engine
# $want (default ofi) mapped; UCX, when chosen, runs over tcp on loopback.
across() {
    local node=(-env SMAP_LOCAL_RANK 0 -env SMAP_NODE_NAME)
    env FI_PROVIDER=tcp FI_TCP_IFACE=lo FI_NET_IFACE=lo UCX_TLS=tcp UCX_NET_DEVICES=lo "$@" \
        "$SMAP_STAGE/bin/smrun" --timeout 60 -n 1 "${node[@]}" node0 "$bin/net_engine" \
        "${want:-ofi}" : -n 1 "${node[@]}" node1 "$bin/net_engine" "${want:-ofi}" >"$out" 2>&1
}
ucx_built=0
[ -e "$SMAP_STAGE/lib/smartmap/libsmartmap_net_ucx.so" ] && ucx_built=1
# one_node ENV...: a 2-rank job on this node (it expects no network library)
one_node() {
    env "$@" "$SMAP_STAGE/bin/smrun" -n 2 "$bin/net_engine" none >"$out" 2>&1
}
expect() { grep -qF -- "$1" "$out" || fail "$2: the output lacks '$1'"; }

# 1. UCX asked for: it runs where built, stops with a clear message where not
if [ $ucx_built = 1 ]; then
    want=ucx across SMAP_NET_ENGINE=ucx SMAP_VERBOSE=2 || fail "ucx: a job across nodes failed"
    expect "net_engine: 2 ranks OK (UCX engine mapped)" ucx
    expect "network engine ucx (SMAP_NET_ENGINE=ucx) loaded from" ucx
else
    across SMAP_NET_ENGINE=ucx && fail "ucx: a job across nodes ran without its engine"
    expect "SMAP_NET_ENGINE=ucx: the UCX engine is not built into this smartmap" ucx
fi
one_node SMAP_NET_ENGINE=ucx || fail "ucx: a one-node job failed"
expect "no network library mapped" "ucx, one node"

# 2. a word that names no engine
one_node SMAP_NET_ENGINE=bogus && fail "bogus: a job ran"
expect "SMAP_NET_ENGINE" bogus
expect "bogus" bogus

# 3. no plugin beside the library (LD_LIBRARY_PATH wins over the test
# programs' RUNPATH, so they load this copy)
mkdir -p "$work/lib"
cp "$SMAP_STAGE/lib/libmpi_abi.so.1" "$work/lib/"
across LD_LIBRARY_PATH="$work/lib" && fail "no plugin: a job across nodes ran"
expect "cannot load the network engine $work/lib/smartmap/libsmartmap_net_ofi.so: " "no plugin"
expect "cannot open shared object file" "no plugin"
across || fail "the same job with the plugin in place failed"
expect "libfabric engine mapped" "plugin in place"
one_node LD_LIBRARY_PATH="$work/lib" || fail "no plugin: a one-node job failed"

# 4. a plugin that needs a library this machine lacks
mkdir -p "$work/lib/smartmap" "$work/gone"
echo 'int smap_gone(void) { return 0; }' >"$work/gone.c"
echo 'int smap_gone(void); int smap_net_engine_entry(void) { return smap_gone(); }' \
    >"$work/plugin.c"
cc -shared -fPIC -o "$work/gone/libsmap_gone.so" "$work/gone.c" &&
    cc -shared -fPIC -o "$work/lib/smartmap/libsmartmap_net_ofi.so" "$work/plugin.c" \
        -L"$work/gone" -lsmap_gone || fail "cannot build the stand-in plugin"
rm "$work/gone/libsmap_gone.so"
across LD_LIBRARY_PATH="$work/lib" && fail "plugin without its library: a job ran"
expect "cannot load the network engine $work/lib/smartmap/libsmartmap_net_ofi.so: " \
    "plugin without its library"
expect "libsmap_gone.so: cannot open shared object file" "plugin without its library"

# 5. auto, the libfabric plugin missing: UCX stands in, and says why
if [ $ucx_built = 1 ]; then
    rm "$work/lib/smartmap/libsmartmap_net_ofi.so"
    cp "$SMAP_STAGE/lib/smartmap/libsmartmap_net_ucx.so" "$work/lib/smartmap/"
    want=ucx across LD_LIBRARY_PATH="$work/lib" SMAP_VERBOSE=2 ||
        fail "auto with the libfabric plugin missing: the job failed"
    expect "net_engine: 2 ranks OK (UCX engine mapped)" fallback
    expect "network engine ucx (SMAP_NET_ENGINE=auto: " fallback
    expect "the libfabric engine does not load (cannot load the network engine " fallback
    expect "), so UCX) loaded from $work/lib/smartmap/libsmartmap_net_ucx.so" fallback
    # asked for by name, no fallback: libfabric's error alone
    across LD_LIBRARY_PATH="$work/lib" SMAP_NET_ENGINE=ofi && fail "ofi asked, ran without it"
    expect "cannot load the network engine $work/lib/smartmap/libsmartmap_net_ofi.so: " "ofi asked"
fi
# 6. the kallsyms probe (the real library again)
rchar() { sed -n 's/^rank 0 read \([0-9]*\) bytes by the end of MPI_Init$/\1/p' "$out"; }
across SMAP_VERBOSE=2 NET_ENGINE_RCHAR=1 SMAP_NET_OFI_SKIP_KALLSYMS=0 ||
    fail "SMAP_NET_OFI_SKIP_KALLSYMS=0: the job failed"
grep -q "without reading /proc/kallsyms" "$out" && fail "SMAP_NET_OFI_SKIP_KALLSYMS=0: skipped anyway"
read_all=$(rchar)
ksize=$(wc -c </proc/kallsyms)
across SMAP_VERBOSE=2 NET_ENGINE_RCHAR=1 || fail "kallsyms: the job failed"
read_skip=$(rchar)
[ -n "$read_all" ] && [ -n "$read_skip" ] || fail "kallsyms: no rchar line"
if [ -z "$(ls -A /sys/class/infiniband 2>/dev/null)" ]; then
    expect "libfabric initialised without reading /proc/kallsyms (" kallsyms
    if [ "$read_all" -ge "$ksize" ]; then   # this libfabric probes (Debian's 1.17 does)
        grep -q "without reading /proc/kallsyms (0 opens refused" "$out" &&
            fail "kallsyms: libfabric read it with the probe off, but no open was refused"
        [ "$read_skip" -lt "$ksize" ] ||
            fail "kallsyms: rank 0 read $read_skip bytes, /proc/kallsyms is $ksize"
    fi
else
    grep -q "without reading /proc/kallsyms" "$out" && fail "kallsyms: skipped beside an RDMA device"
fi
echo "kallsyms: $ksize bytes; rank 0 read $read_all bytes in MPI_Init with the probe, $read_skip without"
echo PASS
