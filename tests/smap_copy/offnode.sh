#!/usr/bin/env bash
# smap_copy_mpix_offnode: two ranks on two emulated nodes (SMAP_NODE_NAME
# differs per rank): MPIX_Comm_remote_ptr gives a NULL view for the other
# node's rank and still succeeds.
set -u
fail() { echo "FAIL (smap_copy_mpix_offnode): $*" >&2; exit 1; }
prog=$SMAP_TEST_BIN/smap_copy_mpix_prog
# The two "nodes" talk through libfabric on loopback only: provider and
# interface always named (the tests' rule; net, the default, also leaks a
# few libfabric blocks that a sanitizer build would report).
export FI_PROVIDER=tcp FI_TCP_IFACE=lo FI_NET_IFACE=lo
out=$(timeout -k 5 25 "$SMAP_STAGE/bin/smrun" -n 2 \
      sh -c 'SMAP_NODE_NAME=node$PMI_RANK exec "$0" offnode' "$prog" 2>&1) || fail "job failed: $out"
grep -q "PASS smap_copy_mpix offnode" <<<"$out" || fail "no PASS line: $out"
echo "$out"
