#!/usr/bin/env bash
# bench_offline: the pieces of scripts/bench_offline.sh and BENCH_BUILD that
# a run on another machine relies on, without packing the peers (that
# builds every program three times):
#   - bench.sh refuses a bad BENCH_BUILD, and BENCH_BUILD=0 runs the
#     programs found in bench/work (here: smartmap's barrier and info,
#     built with the staged mpicc), names the compiler recorded by
#     BENCH_BUILD=only and reports the programs it lacks;
#   - bench_offline.sh unpack puts a bundle's tree into the checkout and its
#     run-time files under DIR, links the packing tree's path to this one
#     when that path is free, and prints the environment that finds them;
#   - bad arguments get a usage message and exit 2.
# Everything happens in a copy of scripts/ and bench/ under a temporary
# directory: the source tree is not written.
set -euo pipefail
: "${SMAP_STAGE:?SMAP_STAGE (the build tree) must be set; run through ctest}"
: "${SMAP_SRC:?SMAP_SRC (the repository) must be set; run through ctest}"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/smap-offline.XXXXXX")
trap 'rm -rf -- "$TMP"' EXIT
fail() { echo "FAIL (bench_offline): $*" >&2; exit 1; }

tree=$TMP/tree
mkdir -p "$tree/bench/work/smartmap"
cp -r "$SMAP_SRC/scripts" "$tree/"
cp "$SMAP_SRC"/bench/*.c "$SMAP_SRC"/bench/*.h "$SMAP_SRC/bench/report.py" "$tree/bench/"
cp "$SMAP_SRC/CMakeLists.txt" "$tree/"   # bench.sh reads the version there

# --- BENCH_BUILD
if out=$(cd "$tree" && BENCH_BUILD=maybe scripts/bench.sh 2>&1); then
    fail "BENCH_BUILD=maybe was accepted: $out"
fi
case $out in *"BENCH_BUILD must be 1, 0 or only"*) ;; *) fail "BENCH_BUILD=maybe printed: $out" ;; esac

w=$tree/bench/work/smartmap
"$SMAP_STAGE/bin/mpicc" -std=gnu11 -O2 -I"$tree/bench" -o "$w/barrier" \
    "$tree/bench/barrier.c" "$tree/bench/common.c" || fail "barrier does not build"
"$SMAP_STAGE/bin/mpicc" -std=gnu11 -O2 -o "$w/info" "$tree/bench/info.c" || fail "info does not build"
echo "cc (Elsewhere 1.0) 1.0" >"$tree/bench/work/compiler.txt"
echo "Some OS, 64 CPUs" >"$tree/bench/work/built_on.txt"
out=$(cd "$tree" && BENCH_BUILD=0 BENCH_MPIS=smartmap BENCH_FILTER='^barrier$' QUICK=1 BENCH_REPS=1 \
      BUILD_DIR="$SMAP_STAGE" BENCH_RESULTS="$TMP/res" BENCH_GIT_DESCRIBE=abc1234 \
      timeout -k 5 120 scripts/bench.sh 2>&1) || fail "BENCH_BUILD=0 run failed: $out"
sum=$TMP/res/SUMMARY.md
[ -f "$sum" ] || fail "no SUMMARY.md: $out"
grep -q 'cc (Elsewhere 1.0) 1.0 (programs built by BENCH_BUILD=only on Some OS, 64 CPUs)' "$sum" ||
    fail "SUMMARY.md does not name the recorded compiler"
grep -q 'git abc1234' "$sum" || fail "SUMMARY.md does not name BENCH_GIT_DESCRIBE's commit"
grep -Eq '^\| 0 \| [0-9.]+ ' "$sum" || fail "no barrier result in SUMMARY.md: $(grep -A3 '### barrier' "$sum")"
grep -q 'missing: .*/latency' "$tree/bench/work/smartmap/build.log" ||
    fail "the programs BENCH_BUILD=0 lacks are not listed in build.log"

# --- unpack
if out=$("$tree/scripts/bench_offline.sh" 2>&1); then fail "no arguments accepted: $out"; fi
case $out in *usage:*) ;; *) fail "no arguments printed: $out" ;; esac
if out=$("$tree/scripts/bench_offline.sh" unpack "$TMP/none.tar" "$TMP/rt" 2>&1); then
    fail "a missing bundle was accepted: $out"
fi
case $out in *"no such bundle"*) ;; *) fail "a missing bundle printed: $out" ;; esac

# A bundle as pack lays it out: tree.tar.xz and rt.tar.xz in one tar.
b=$TMP/b
packed=$TMP/packed-tree-path    # free: unpack links it to $tree
mkdir -p "$b/t/build/lib" "$b/r/rt/lib" "$b/r/rt/bin"
echo lib >"$b/t/build/lib/marker"
echo x >"$b/r/rt/bin/mpiexec.hydra"
echo "$packed" >"$b/r/rt/packed_tree"
tar -C "$b/t" -cf - build | xz >"$b/tree.tar.xz"
tar -C "$b/r" -cf - rt | xz >"$b/rt.tar.xz"
tar -C "$b" -cf "$TMP/bundle.tar" tree.tar.xz rt.tar.xz
env=$("$tree/scripts/bench_offline.sh" unpack "$TMP/bundle.tar" "$TMP/rt") || fail "unpack failed: $env"
[ -f "$tree/build/lib/marker" ] || fail "unpack did not put build/ into the tree"
[ -f "$TMP/rt/rt/bin/mpiexec.hydra" ] || fail "unpack did not put the run-time files under DIR"
[ "$(readlink "$packed")" = "$tree" ] || fail "the packing tree's path is not linked to the tree"
for v in PATH LD_LIBRARY_PATH OPAL_PREFIX PMIX_INSTALL_PREFIX UCX_MODULE_DIR; do
    grep -q "^export $v=" <<<"$env" || fail "unpack printed no $v: $env"
done
(eval "$env"; case ":$PATH:" in *":$TMP/rt/rt/bin:"*) ;; *) exit 1 ;; esac) ||
    fail "the printed PATH does not lead to the run-time files"
echo "PASS bench_offline"
