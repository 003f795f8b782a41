#!/usr/bin/env bash
# Runs an MPI program as a job of several emulated nodes on this machine:
#   multinode.sh LAYOUT PROGRAM [ARGS...]
# LAYOUT lists the ranks per node, comma-separated ("2,2": 2 nodes x 2
# ranks; "1,2,3": 3 uneven nodes).  Ranks of node k get SMAP_NODE_NAME
# nodeK (src/boot groups ranks by it) and their local rank; MPICH's hydra
# starts them (its MPMD ':' syntax gives each group its own environment).
# Between the emulated nodes the traffic goes through libfabric's tcp
# provider on the loopback interface only (FI_TCP_IFACE=lo).
set -euo pipefail
layout=$1
shift
hydra=$(command -v mpiexec.hydra || true)
if [ -z "$hydra" ]; then
    echo "multinode.sh: mpiexec.hydra (Debian's mpich) is not installed" >&2
    exit 1
fi
export FI_PROVIDER=${FI_PROVIDER:-tcp} FI_TCP_IFACE=lo
# The machine is small and shared: waiting ranks yield early (DESIGN D7).
export SMAP_NODE_CPUS=${SMAP_NODE_CPUS:-1}
args=()
first=0
node=0
IFS=, read -ra counts <<<"$layout"
for n in "${counts[@]}"; do
    [ ${#args[@]} -gt 0 ] && args+=(:)
    # hydra numbers local ranks over the whole host: give the emulated
    # node's own (rank minus the node's first rank) to the early start-up.
    args+=(-n "$n" -env SMAP_NODE_NAME "node$node" -env SMAP_FIRST_RANK "$first"
           bash -c 'SMAP_LOCAL_RANK=$((PMI_RANK - SMAP_FIRST_RANK)) exec "$@"' rank "$@")
    first=$((first + n))
    node=$((node + 1))
done
exec timeout "${MULTINODE_TIMEOUT:-100}" "$hydra" "${args[@]}"
