#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
#   install-deps.sh build   compilers, CMake, Python 3 (generator), MPICH's hydra (a test),
#                           Open MPI's libmpi.so (tools_link_redirect), Meson + Ninja (tools_meson),
#                           jemalloc (vendored into libsmartmap_heap: libjemalloc_pic.a)
#   install-deps.sh bench   the above plus Open MPI, MPICH and gnuplot
set -euo pipefail
want=(gcc g++ make cmake python3 pkg-config mpich libjemalloc-dev libopenmpi-dev meson ninja-build libfabric-dev)
[ "${1:-build}" = bench ] && want+=(openmpi-bin libopenmpi-dev libmpich-dev gnuplot-nox)
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
