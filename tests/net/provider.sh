#!/usr/bin/env bash
# The provider choice of src/net/ofi.c with real traffic between 2
# emulated nodes (multinode.sh, loopback):
#   1. FI_PROVIDER unset: smartmap picks libfabric's net provider (native
#      reliable datagrams over TCP) where this libfabric has it, else
#      tcp;ofi_rxm -- and then FI_PROVIDER=net must indeed fail to open;
#      with it: eager and RDMA-read rendezvous, many chunks (net_rules),
#      one-sided writes (delivery complete) and reads in many pieces
#      (net_rma_rdma), the 64K socket eager limit;
#   2. FI_PROVIDER='tcp;ofi_rxm' still wins over the default: the same
#      programs over rxm.
# Usage: provider.sh  (SMAP_TEST_BIN: the build's tests/net)
set -uo pipefail
bin=${SMAP_TEST_BIN:?}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fail() { echo "FAIL: $*"; cat "$out"; exit 1; }

# job LAYOUT PROGRAM ENV...: runs it, the log in $out
job() {
    local layout=$1 prog=$2
    shift 2
    env "$@" SMAP_VERBOSE=2 MULTINODE_TIMEOUT=90 \
        bash "$here/multinode.sh" "$layout" "$bin/$prog" >"$out" 2>&1
}
# picked N: the provider every one of N ranks reports (one name, or "")
picked() {
    local names
    names=$(sed -n 's/.*inter-node transport: libfabric \([^,]*\), .*/\1/p' "$out" | sort -u)
    [ "$(grep -c "inter-node transport: libfabric" "$out")" = "$1" ] || return 0
    [ "$(echo "$names" | wc -l)" = 1 ] && echo "$names"
}

# 1. the default
job 2,1 net_rules MULTINODE_PROVIDER=default || fail "default provider: net_rules failed"
grep -q "net_rules: 3 ranks OK" "$out" || fail "default provider: net_rules did not pass"
prov=$(picked 3)
case $prov in
net) ;;
"tcp;ofi_rxm")
    # only when this libfabric has no net provider
    job 1,1 net_cancel FI_PROVIDER=net &&
        fail "default picked tcp;ofi_rxm although FI_PROVIDER=net works"
    echo "provider: this libfabric has no net provider; default tcp;ofi_rxm" ;;
*) fail "default provider: ranks report '$prov'" ;;
esac
grep -q "eager 65536 bytes" "$out" || fail "default provider $prov: eager limit is not 64K"
job 2,1 net_rma_rdma MULTINODE_PROVIDER=default SMAP_NET_CHUNK=4K ||
    fail "default provider: net_rma_rdma failed"
[ "$(picked 3)" = "$prov" ] || fail "net_rma_rdma ran over '$(picked 3)', not $prov"
grep -q "one-sided by RDMA write/read" "$out" || fail "$prov: one-sided writes not by RDMA"

# 2. FI_PROVIDER wins
job 2,1 net_rules FI_PROVIDER='tcp;ofi_rxm' || fail "FI_PROVIDER=tcp;ofi_rxm: net_rules failed"
grep -q "net_rules: 3 ranks OK" "$out" || fail "tcp;ofi_rxm: net_rules did not pass"
[ "$(picked 3)" = "tcp;ofi_rxm" ] || fail "FI_PROVIDER=tcp;ofi_rxm: ranks report '$(picked 3)'"
job 2,1 net_rma_rdma FI_PROVIDER='tcp;ofi_rxm' SMAP_NET_CHUNK=4K ||
    fail "FI_PROVIDER=tcp;ofi_rxm: net_rma_rdma failed"
[ "$(picked 3)" = "tcp;ofi_rxm" ] || fail "FI_PROVIDER=tcp;ofi_rxm: net_rma_rdma over '$(picked 3)'"
echo "provider: default $prov, FI_PROVIDER=tcp;ofi_rxm honoured: ok"
