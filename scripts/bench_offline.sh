#!/usr/bin/env bash
# scripts/bench_offline.sh — `make bench`'s node part on a machine that cannot
# install packages (a compute node with no route to a mirror, a lent
# benchmark machine), with the programs and the peers built here.
#
#   scripts/bench_offline.sh pack FILE.tar.xz
#       On a machine where `make bench` works (Debian, packages installed):
#       builds smartmap and the bench programs of all three MPIs
#       (BENCH_BUILD=only), then packs them with every run-time file they
#       need that is not the C library: smartmap's build/bin and build/lib,
#       Open MPI's launcher, components and help files, MPICH's hydra, UCX's
#       and PMIx's plug-ins, iproute2's ip (the emulated hosts of
#       BENCH_NET=1, where the kernel has network namespaces, veth and
#       bridges), and the shared libraries all of those load.
#   scripts/bench_offline.sh unpack FILE.tar.xz DIR
#       On the other machine, in a checkout of the same tree: puts build/
#       (less its objects: `ctest` runs there too) and bench/work/ back in the tree and the run-time files under DIR, and
#       prints the environment (as shell exports) that makes the peers find
#       them: eval "$(scripts/bench_offline.sh unpack b.tar.xz /tmp/rt)"
#       then BENCH_BUILD=0 scripts/bench.sh (any BENCH_* settings).
#
# The run needs the same x86-64 C library or a newer one.  Absolute paths of
# the build tree (rpath, mpicc -show) are those of the packing tree: unpack
# links that path to this tree when it is free, and LD_LIBRARY_PATH covers
# the libraries either way.  Nothing is written outside the tree, DIR and
# that one link.
set -euo pipefail
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$top"

die() { echo "bench_offline: $*" >&2; exit 2; }

# The C library's own objects come from the target machine.
is_libc() {
    case ${1##*/} in
        libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libresolv.so*|ld-linux*|libutil.so*|linux-vdso*) return 0 ;;
    esac
    return 1
}

# ELF files the runs execute or load (dlopen included: components, plug-ins).
elf_roots() {
    local f
    for f in build/bin/* build/lib/*.so* bench/work/*/* /usr/bin/orterun /usr/bin/orted "$(command -v ip)" \
             /usr/bin/ompi_info /usr/bin/mpiexec.hydra /usr/bin/hydra_pmi_proxy /usr/bin/mpichversion \
             /usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/*.so \
             /usr/lib/x86_64-linux-gnu/pmix2/lib/pmix/*.so \
             /usr/lib/x86_64-linux-gnu/ucx/*.so.0 \
             /usr/lib/x86_64-linux-gnu/libfabric.so.1 \
             /usr/lib/x86_64-linux-gnu/libfabric/*.so; do
        [ -e "$f" ] || continue
        head -c 4 "$f" 2>/dev/null | grep -q ELF && echo "$f"
    done
}

pack() {
    local out=$1 lib
    [ -n "$out" ] || die "pack needs a file name"
    case $out in /*) ;; *) out=$top/$out ;; esac
    BENCH_BUILD=only scripts/bench.sh || die "BENCH_BUILD=only failed (bench/work/*/build.log)"
    stage=$(mktemp -d)   # global: the EXIT trap removes it
    trap 'rm -rf "$stage"' EXIT
    mkdir -p "$stage/rt/lib" "$stage/rt/bin" "$stage/rt/root"
    # Shared libraries: the closure of every root, by the loader's own answer.
    elf_roots | while read -r f; do
        ldd "$f" 2>/dev/null | awk '/=> \// {print $3}'
    done | sort -u | while read -r lib; do
        is_libc "$lib" && continue
        case $lib in "$top"/*) continue ;; esac   # smartmap's own: in build/lib
        cp -L "$lib" "$stage/rt/lib/"
    done
    # libfabric and the UCX transports are loaded by name, not linked.
    cp -L /usr/lib/x86_64-linux-gnu/libfabric.so.1 "$stage/rt/lib/"
    # Trees whose paths the peers compute from their install prefix.
    local d
    for d in /usr/lib/x86_64-linux-gnu/openmpi /usr/share/openmpi /etc/openmpi \
             /usr/lib/x86_64-linux-gnu/pmix2 /usr/lib/x86_64-linux-gnu/ucx \
             /usr/lib/x86_64-linux-gnu/libfabric; do
        [ -d "$d" ] || continue
        mkdir -p "$stage/rt/root$(dirname "$d")"
        cp -a "$d" "$stage/rt/root$(dirname "$d")/"
    done
    for f in orterun orted ompi_info mpiexec.hydra hydra_pmi_proxy mpichversion; do
        [ -e /usr/bin/$f ] && cp -L /usr/bin/$f "$stage/rt/bin/"
    done
    # Open MPI's rsh launcher starts orted from its prefix's bin/.
    mkdir -p "$stage/rt/root/usr/bin"
    cp -L /usr/bin/orted /usr/bin/orterun "$stage/rt/root/usr/bin/"
    # iproute2's ip: the inter-node part's emulated hosts (BENCH_NET=1).
    local ipbin
    ipbin=$(command -v ip || true)
    [ -n "$ipbin" ] && cp -L "$ipbin" "$stage/rt/bin/ip"
    ln -s orterun "$stage/rt/bin/mpiexec.openmpi"
    ln -s mpiexec.hydra "$stage/rt/bin/mpiexec.mpich"
    echo "$top" >"$stage/rt/packed_tree"
    tar -C "$stage" -cf - rt | xz -T0 -6 >"$out.rt.tmp"
    # The whole build tree less objects: ctest runs there too.
    tar --exclude='*.o' --exclude='CMakeFiles' -cf - build bench/work/smartmap bench/work/openmpi \
        bench/work/mpich bench/work/probe bench/work/compiler.txt bench/work/built_on.txt | xz -T0 -6 >"$out.tree.tmp"
    tar -C "$(dirname "$out")" -cf "$out" --transform "s|.*\.rt\.tmp$|rt.tar.xz|;s|.*\.tree\.tmp$|tree.tar.xz|" \
        "$(basename "$out").rt.tmp" "$(basename "$out").tree.tmp"
    rm -f "$out.rt.tmp" "$out.tree.tmp"
    echo "bench_offline: packed $(du -h "$out" | cut -f1) into $out" >&2
}

unpack() {
    local in=$1 dir=$2 packed
    [ -f "$in" ] || die "no such bundle: $in"
    [ -n "$dir" ] || die "unpack needs a directory for the run-time files"
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    tar -xOf "$in" tree.tar.xz | xz -d | tar -C "$top" -xf -
    tar -xOf "$in" rt.tar.xz | xz -d | tar -C "$dir" -xf -
    packed=$(cat "$dir/rt/packed_tree")
    if [ "$packed" != "$top" ] && [ ! -e "$packed" ]; then
        mkdir -p "$(dirname "$packed")" && ln -s "$top" "$packed"
    fi
    local r=$dir/rt/root
    cat <<EOF
export PATH="$dir/rt/bin:\$PATH"
export LD_LIBRARY_PATH="$top/build/lib:$dir/rt/lib:$r/usr/lib/x86_64-linux-gnu/pmix2/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$r/usr"
export PMIX_INSTALL_PREFIX="$r/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_MCA_mca_base_component_path="$r/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
export OMPI_MCA_mca_base_component_path="$r/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3"
export OMPI_MCA_mca_base_param_files="$r/etc/openmpi/openmpi-mca-params.conf"
export UCX_MODULE_DIR="$r/usr/lib/x86_64-linux-gnu/ucx"
export FI_PROVIDER_PATH="$r/usr/lib/x86_64-linux-gnu/libfabric"
EOF
}

case ${1:-} in
    pack) pack "${2:-}" ;;
    unpack) unpack "${2:-}" "${3:-}" ;;
    *) echo "usage: $0 pack FILE.tar.xz | unpack FILE.tar.xz DIR" >&2; exit 2 ;;
esac
