# tools_meson: Meson finds an installed smartmap.  dependency('mpi') asks
# pkg-config for Open MPI's ompi-c first, then the wrapper on PATH
# (mpicc --showme:version, --showme:compile, --showme:link, as
# mesonbuild/dependencies/mpi.py does); dependency('mpi-c') is a plain
# pkg-config lookup of smartmap's mpi-c.pc.  Open MPI's own .pc files are
# kept out of sight (PKG_CONFIG_LIBDIR), as on a machine without them.
. "$(dirname "$0")/lib.sh"

command -v meson >/dev/null || fail "meson is missing: run scripts/install-deps.sh build"
prefix=$TMP/prefix
install_into "$prefix"
proj=$TMP/proj
mkdir -p "$proj"
cp "$SMAP_SRC/examples/hello.c" "$proj/"
cat >"$proj/meson.build" <<'MESON'
project('meson_mpi_test', 'c')
mpi = dependency('mpi', language: 'c')
message('smartmap-test: mpi found, version ' + mpi.version())
executable('hello', 'hello.c', dependencies: mpi)
executable('hello_pc', 'hello.c', dependencies: dependency('mpi-c'))
MESON
export PATH=$prefix/bin:$PATH PKG_CONFIG_LIBDIR=$prefix/lib/pkgconfig
meson setup "$proj/build" "$proj" >"$TMP/meson.log" 2>&1 ||
    { cat "$TMP/meson.log" >&2; fail "meson setup with dependency('mpi') failed"; }
grep -q "Run-time dependency MPI for c found: YES" "$TMP/meson.log" || { cat "$TMP/meson.log" >&2; fail "meson did not find mpi"; }
version=$(sed -n 's/^project(smartmap VERSION \([0-9.]*\).*/\1/p' "$SMAP_SRC/CMakeLists.txt")
grep -q "smartmap-test: mpi found, version $version" "$TMP/meson.log" ||
    { cat "$TMP/meson.log" >&2; fail "meson's mpi is not smartmap $version"; }
ninja -C "$proj/build" >"$TMP/ninja.log" 2>&1 || { cat "$TMP/ninja.log" >&2; fail "ninja failed"; }
for p in hello hello_pc; do
    expect_smartmap_program "$proj/build/$p" "$prefix"
    out=$(cd "$TMP" && run_job 60 "$prefix/bin/mpiexec" -n 2 "$proj/build/$p") || fail "mpiexec -n 2 $p failed: $out"
    expect_hello_lines "$out" 2
done
echo "PASS tools_meson"
