#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
#   install-deps.sh build   compilers, CMake, Python 3 (generator), MPICH's hydra (a test),
#                           jemalloc (vendored into libmpi: libjemalloc_pic.a), PMIx headers
#                           (the PMIx client; libpmix is dlopen'ed), Open MPI's mpirun (a
#                           test of that client), iproute2 (emulated hosts in tests/netns)
#   install-deps.sh bench   the above plus Open MPI, MPICH and gnuplot
set -euo pipefail
want=(gcc g++ make cmake python3 pkg-config mpich libjemalloc-dev libpmix-dev openmpi-bin iproute2)
[ "${1:-build}" = bench ] && want+=(libopenmpi-dev libmpich-dev gnuplot-nox)
missing=()
for p in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "smartmap: installing missing packages: ${missing[*]}"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >/dev/null || true
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
