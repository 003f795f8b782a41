#!/usr/bin/env bash
# Runs an MPI program as a job of several emulated nodes on this machine:
#   multinode.sh LAYOUT PROGRAM [ARGS...]
# LAYOUT lists the ranks per node, comma-separated ("2,2": 2 nodes x 2
# ranks; "1,2,3": 3 uneven nodes; "rr:2,2": the same with the ranks placed
# round-robin, rank 0 on node0, rank 1 on node1, rank 2 on node0 ...).  Ranks of node k get SMAP_NODE_NAME
# nodeK (src/boot groups ranks by it) and their local rank; MPICH's hydra
# starts them (its MPMD ':' syntax gives each group its own environment).
# Between the emulated nodes the traffic goes through libfabric's tcp
# provider (FI_PROVIDER when set, MULTINODE_PROVIDER=default: smartmap's
# default choice) on the loopback interface only (FI_TCP_IFACE=lo,
# FI_NET_IFACE=lo).
set -euo pipefail
layout=$1
shift
hydra=$(command -v mpiexec.hydra || true)
if [ -z "$hydra" ]; then
    echo "multinode.sh: mpiexec.hydra (Debian's mpich) is not installed" >&2
    exit 1
fi
# MULTINODE_PROVIDER=default leaves FI_PROVIDER unset: smartmap's own
# choice (net, else tcp;ofi_rxm) on loopback.
if [ "${MULTINODE_PROVIDER:-}" = default ]; then
    unset FI_PROVIDER
else
    export FI_PROVIDER=${FI_PROVIDER:-tcp}
fi
export FI_TCP_IFACE=lo FI_NET_IFACE=lo
# libfabric 1.17's net provider leaks a few blocks of its own (sanitizer
# builds): suppressed for the jobs that may pick it.
case ${FI_PROVIDER:-net} in
*net*)
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$here/lsan-libfabric-net.supp" ;;
esac
# UCX's libraries, dlopen'ed with the engine, have thread-local storage:
# GCC 12's LeakSanitizer then reads a bogus dynamic TLS range at exit
# ("DTLS 8 at 0x...1ab-0x24...", "Tracer caught signal 11") and the rank
# fails; not tracking __tls_get_addr avoids it (sanitizer builds only).
if [ "${SMAP_NET_ENGINE:-}" = ucx ]; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}intercept_tls_get_addr=0"
fi
# The machine is small and shared: waiting ranks yield early (DESIGN D7).
export SMAP_NODE_CPUS=${SMAP_NODE_CPUS:-1}
args=()
# "rr:2,2": the same nodes, ranks dealt round-robin over the nodes that
# still have room (--map-by node): every rank is a segment of its own.
rr=0
if [ "${layout#rr:}" != "$layout" ]; then
    rr=1
    layout=${layout#rr:}
fi
IFS=, read -ra counts <<<"$layout"
if [ $rr = 1 ]; then
    left=("${counts[@]}")
    placed=()
    total=0
    for n in "${counts[@]}"; do
        total=$((total + n))
        placed+=(0)
    done
    node=0
    for ((r = 0; r < total; r++)); do
        while [ "${left[$node]}" -eq 0 ]; do node=$(((node + 1) % ${#counts[@]})); done
        [ ${#args[@]} -gt 0 ] && args+=(:)
        args+=(-n 1 -env SMAP_NODE_NAME "node$node" -env SMAP_LOCAL_RANK "${placed[$node]}"
               "$@")
        left[$node]=$((left[$node] - 1))
        placed[$node]=$((placed[$node] + 1))
        node=$(((node + 1) % ${#counts[@]}))
    done
else
    first=0
    node=0
    for n in "${counts[@]}"; do
        [ ${#args[@]} -gt 0 ] && args+=(:)
        # hydra numbers local ranks over the whole host: give the emulated
        # node's own (rank minus the node's first rank) to the early start-up.
        args+=(-n "$n" -env SMAP_NODE_NAME "node$node" -env SMAP_FIRST_RANK "$first"
               bash -c 'SMAP_LOCAL_RANK=$((PMI_RANK - SMAP_FIRST_RANK)) exec "$@"' rank "$@")
        first=$((first + n))
        node=$((node + 1))
    done
fi
exec timeout -k 5 "${MULTINODE_TIMEOUT:-100}" "$hydra" "${args[@]}"
