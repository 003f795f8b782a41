# tools_install: `cmake --install` into a fresh prefix gives the documented
# layout, and the installed wrappers, pkg-config file and launcher work there.
. "$(dirname "$0")/lib.sh"

prefix=$TMP/prefix
cmake --install "$STAGE" --prefix "$prefix" >"$TMP/install.log" 2>&1 ||
    { cat "$TMP/install.log" >&2; fail "cmake --install failed"; }

# --- programs and headers -------------------------------------------------------
for p in smrun mpiexec mpirun smcc mpicc mpicxx mpic++ mpicc_abi mpicxx_abi smartmap_info; do
    [ -x "$prefix/bin/$p" ] || fail "bin/$p is missing or not executable"
done
for h in mpi.h smartmap.h; do
    [ -f "$prefix/include/$h" ] || fail "include/$h is missing"
done

# --- the libraries: libmpi_abi.so.1 (MPI 5.0's name), libmpi.so a link to it ---
so=$(find "$prefix" -name libmpi_abi.so -print -quit)
[ -n "$so" ] || fail "no libmpi_abi.so under the prefix"
libdir=$(dirname "$so")
case ${libdir#"$prefix"/} in lib | lib64 | lib/*) ;; *) fail "libmpi_abi.so in an odd place: $libdir" ;; esac
[ -L "$so" ] || fail "$so is not a symlink (the development name must link to the soname)"
[ -e "$libdir/libmpi_abi.so.1" ] || fail "$libdir/libmpi_abi.so.1 (the soname) is missing"
[ "$(readlink -f "$so")" = "$(readlink -f "$libdir/libmpi_abi.so.1")" ] ||
    fail "libmpi_abi.so and libmpi_abi.so.1 are not the same library"
soname=$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = libmpi_abi.so.1 ] || fail "SONAME is '$soname', want libmpi_abi.so.1"
[ -L "$libdir/libmpi.so" ] || fail "$libdir/libmpi.so (the conventional name) is missing or not a link"
[ "$(readlink -f "$libdir/libmpi.so")" = "$(readlink -f "$so")" ] ||
    fail "libmpi.so is not the same library as libmpi_abi.so"
[ -e "$libdir/libsmartmap_heap.so.1" ] && [ -L "$libdir/libsmartmap_heap.so" ] ||
    fail "libsmartmap_heap.so(.1) is missing from $libdir"
# The network engine: a plugin in the private lib/smartmap/ (DESIGN D9),
# which alone needs libfabric; the library and the programs do not.
plugin=$libdir/smartmap/libsmartmap_net_ofi.so
[ -f "$plugin" ] || fail "the network engine plugin $plugin is missing"
readelf -d "$plugin" | grep -q 'NEEDED.*\[libfabric\.so' || fail "$plugin does not need libfabric"
! readelf -d "$so" | grep -q 'NEEDED.*fabric' || fail "libmpi_abi.so needs libfabric itself"

# --- pkg-config -----------------------------------------------------------------------
real_libdir=$(cd -P "$libdir" && pwd -P)
real_incdir=$(cd -P "$prefix/include" && pwd -P)
pc=$libdir/pkgconfig/smartmap.pc
[ -f "$pc" ] || fail "$pc is missing"
flags=$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs smartmap) ||
    fail "pkg-config --cflags --libs smartmap failed"
expect_contains "$flags" "/libmpi_abi.so" "pkg-config flags"
expect_contains "$flags" "/libsmartmap_heap.so" "pkg-config flags"
# The names users try for "the MPI" give the same flags.
for name in mpi mpi-c mpi-cxx; do
    [ -f "$libdir/pkgconfig/$name.pc" ] || fail "$name.pc is missing"
    [ "$(PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --cflags --libs "$name")" = "$flags" ] ||
        fail "pkg-config $name differs from smartmap"
done
# Every directory named must be the installed one: a wrong -L would silently
# link another MPI's libmpi.so from the system path.
for f in $flags; do
    case $f in
    -I*) [ "$(readlink -f "${f#-I}")" = "$real_incdir" ] || fail "pkg-config: $f is not $real_incdir" ;;
    -L*) [ "$(readlink -f "${f#-L}")" = "$real_libdir" ] || fail "pkg-config: $f is not $real_libdir" ;;
    /*.so) [ "$(readlink -f "$(dirname "$f")")" = "$real_libdir" ] || fail "pkg-config: $f is not in $real_libdir" ;;
    -Wl,-rpath,*) [ "$(readlink -f "${f#-Wl,-rpath,}")" = "$real_libdir" ] ||
        fail "pkg-config: $f is not $real_libdir" ;;
    esac
done
# shellcheck disable=SC2086  # the flags are meant to split into words
cc "$SMAP_SRC/examples/hello.c" -o "$TMP/hello_pc" $flags || fail "cannot build hello.c with the pkg-config flags: $flags"
readelf -d "$TMP/hello_pc" | grep 'NEEDED.*\[libmpi_abi\.so\.1\]' >/dev/null ||
    fail "a program built with the pkg-config flags does not need libmpi_abi.so.1"

# runpath_of PROGRAM — its DT_RUNPATH (or DT_RPATH), one directory per line.
runpath_of() { readelf -d "$1" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\].*/\2/p' | tr ':' '\n'; }

# --- the installed wrapper and launcher ---------------------------------------------
mpicc=$prefix/bin/mpicc
[ "$("$mpicc" --showme:incdirs)" = "$real_incdir" ] ||
    fail "installed mpicc points elsewhere: $("$mpicc" --showme:incdirs)"
[ "$("$mpicc" --showme:libdirs)" = "$real_libdir" ] ||
    fail "installed mpicc's library dir is $("$mpicc" --showme:libdirs), libmpi_abi.so is in $libdir"
"$mpicc" "$SMAP_SRC/examples/hello.c" -o "$TMP/hello" || fail "installed mpicc could not build hello.c"
readelf -d "$TMP/hello" | grep 'NEEDED.*\[libmpi_abi\.so\.1\]' >/dev/null || fail "hello from the installed mpicc does not need libmpi_abi.so.1"
found=no
while IFS= read -r d; do
    [ -n "$d" ] || continue
    [ "$(readlink -f "$d")" = "$real_libdir" ] && found=yes
    case $d in "$STAGE"/*) fail "hello from the installed mpicc has the build tree in its RUNPATH: $d" ;; esac
done <<<"$(runpath_of "$TMP/hello")"
[ $found = yes ] || fail "RUNPATH of hello from the installed mpicc lacks $real_libdir: $(runpath_of "$TMP/hello")"
"$prefix/bin/mpicxx" -std=c++17 "$(dirname "$0")/mpicxx_prog.cpp" -o "$TMP/prog" ||
    fail "installed mpicxx could not build a C++ program"

info=$("$prefix/bin/smartmap_info")
expect_contains "$info" "install prefix:       $(cd -P "$prefix" && pwd -P)" "installed smartmap_info"
expect_contains "$info" "engine plugin:        $(cd -P "$libdir" && pwd -P)/smartmap/libsmartmap_net_ofi.so (loads)" \
    "installed smartmap_info"

out=$(cd "$TMP" && run_job 60 "$prefix/bin/mpiexec" -n 2 ./hello) || fail "installed mpiexec -n 2 ./hello failed: $out"
expect_hello_lines "$out" 2
echo "PASS tools_install"
