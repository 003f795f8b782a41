#!/usr/bin/env bash
# Installs the Debian packages a target needs, only those missing.
#   install-deps.sh build   compilers (gfortran: the Fortran bindings, D16), CMake, Python 3
#                           (generator), MPICH's hydra (a test),
#                           Open MPI (mpirun: a test of the PMIx client; libmpi.so:
#                           tools_link_redirect), Meson + Ninja (tools_meson), jemalloc
#                           (vendored into libsmartmap_heap: libjemalloc_pic.a), PMIx headers
#                           (libpmix is dlopen'ed), libfabric and UCX (src/net's two
#                           engines: libfabric-dev, libucx-dev), iproute2 (emulated
#                           hosts in tests/netns), hwloc (smrun's --map-by/--bind-to),
#                           liburing (src/io's nonblocking independent I/O), gdb
#                           and valgrind (launcher.core_dump, launcher.valgrind; valgrind.h
#                           lets smap/config.c ask valgrind)
#   install-deps.sh bench   the above plus MPICH's headers and gnuplot
set -euo pipefail
want=(gcc g++ gfortran make cmake python3 pkg-config mpich libjemalloc-dev libopenmpi-dev openmpi-bin
      meson ninja-build libfabric-dev libucx-dev libpmix-dev libhwloc-dev liburing-dev iproute2 gdb valgrind)
[ "${1:-build}" = bench ] && want+=(libmpich-dev gnuplot-nox)
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
