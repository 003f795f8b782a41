# tools_mpicc_show: what the wrappers add, and that arguments pass intact.
. "$(dirname "$0")/lib.sh"

hello=$SMAP_SRC/examples/hello.c
inc=$STAGE/include
lib=$STAGE/lib

# --- link mode: include dir, rpath, both libraries by full path -------------
out=$("$BIN/mpicc" -show "$hello" -o hello)
expect_contains "$out" "-I$inc" "mpicc -show"
expect_contains "$out" "-Wl,-rpath,$lib" "mpicc -show"
expect_contains "$out" " $lib/libmpi_abi.so" "mpicc -show"
expect_contains "$out" "--no-as-needed $lib/libsmartmap_heap.so" "mpicc -show"
expect_lacks "$out" " -lmpi" "mpicc -show (a -lmpi could find another MPI's library)"
expect_contains "$out" "$hello -o hello" "mpicc -show keeps the arguments"
for alias in -showme --showme -link_info; do
    [ "$("$BIN/mpicc" $alias "$hello" -o hello)" = "$out" ] || fail "mpicc $alias differs from -show"
done
# The heap library before the caller's inputs (it must precede libc),
# libmpi after them (static link order).
case $out in *libsmartmap_heap.so*"$hello"*libmpi_abi.so*) ;;
*) fail "libraries in the wrong place around the inputs: $out" ;; esac
# -compile_info (MPICH): the compile command, no link flags.
out=$("$BIN/mpicc" -compile_info "$hello")
expect_contains "$out" "-I$inc" "mpicc -compile_info"
expect_lacks "$out" "libmpi_abi" "mpicc -compile_info"

# --- no link flags when not linking ------------------------------------------
for flag in -c -S -E -M -MM; do
    out=$("$BIN/mpicc" -show $flag "$hello")
    expect_contains "$out" "-I$inc" "mpicc -show $flag"
    expect_lacks "$out" "libmpi_abi" "mpicc -show $flag"
    expect_lacks "$out" "libsmartmap_heap" "mpicc -show $flag"
    expect_lacks "$out" "-rpath" "mpicc -show $flag"
    expect_lacks "$out" "-L$lib" "mpicc -show $flag"
done
# -MD / -MMD generate dependencies while compiling and linking: still a link.
expect_contains "$("$BIN/mpicc" -show -MD "$hello")" "libmpi_abi.so" "mpicc -show -MD"

# --- showme:* queries -----------------------------------------------------------
[ "$("$BIN/mpicc" --showme:compile)" = "-I$inc" ] || fail "--showme:compile: $("$BIN/mpicc" --showme:compile)"
[ "$("$BIN/mpicc" -showme:compile)" = "-I$inc" ] || fail "-showme:compile (one dash)"
out=$("$BIN/mpicc" --showme:link)
expect_contains "$out" "-L$lib" "--showme:link"
expect_contains "$out" "-Wl,-rpath,$lib" "--showme:link"
expect_contains "$out" "-l:libmpi_abi.so" "--showme:link"
expect_contains "$out" "-l:libsmartmap_heap.so" "--showme:link"
expect_lacks "$out" "-I" "--showme:link"
# Meson's MPI detection keeps only -L, -l, -W and -pthread arguments of
# --showme:link (mesonbuild/dependencies/mpi.py): every word must be one
# (a sanitizer build's runtime flag aside: Meson is not for those builds).
for w in $out; do
    case $w in -L* | -l* | -W* | -fsanitize=*) ;; *) fail "--showme:link word '$w' would be dropped by Meson" ;; esac
done
version=$(sed -n 's/^project(smartmap VERSION \([0-9.]*\).*/\1/p' "$SMAP_SRC/CMakeLists.txt")
[ "$("$BIN/mpicc" --showme:version)" = "$version" ] || fail "--showme:version: $("$BIN/mpicc" --showme:version)"
[ "$("$BIN/mpicc" --showme:incdirs)" = "$inc" ] || fail "--showme:incdirs"
[ "$("$BIN/mpicc" --showme:libdirs)" = "$lib" ] || fail "--showme:libdirs"
# Unknown wrapper options fail, naming the option; compiler options pass.
for bad in --showme:bogus -showme:bogus -showfoo --show-me; do
    if err=$("$BIN/mpicc" $bad "$hello" 2>&1); then fail "$bad was accepted"; fi
    expect_contains "$err" "unknown wrapper option" "mpicc $bad"
    expect_contains "$err" "${bad#-*showme:}" "mpicc $bad names the option"
done
out=$("$BIN/mpicc" -show -fstack-protector -Wshadow -MF dep.d "$hello")
expect_contains "$out" "-fstack-protector -Wshadow -MF dep.d" "compiler options pass through"

# --- the invoked name picks the language; SMAP_CC / SMAP_CXX override -------
for name in smcc mpicc; do
    out=$(SMAP_CC=my-c-compiler SMAP_CXX=my-cxx-compiler "$BIN/$name" -show x.c)
    case $out in "my-c-compiler "*) ;; *) fail "$name does not use SMAP_CC: $out" ;; esac
done
for name in mpicxx mpic++ smc++; do
    out=$(SMAP_CC=my-c-compiler SMAP_CXX=my-cxx-compiler "$BIN/$name" -show x.cpp)
    case $out in "my-cxx-compiler "*) ;; *) fail "$name does not use SMAP_CXX: $out" ;; esac
done
out=$(SMAP_CC="ccache-like gcc" "$BIN/mpicc" -show x.c)
case $out in "ccache-like gcc "*) ;; *) fail "SMAP_CC with arguments: $out" ;; esac
# MPICH's and Open MPI's ways of choosing the compiler: -cc=/-cxx=,
# MPICH_CC/CXX, OMPI_CC/CXX; the command line first, then SMAP_, MPICH_, OMPI_.
for v in MPICH_CC OMPI_CC; do
    out=$(env "$v=cc-from-$v" "$BIN/mpicc" -show x.c)
    case $out in "cc-from-$v "*) ;; *) fail "mpicc ignores $v: $out" ;; esac
done
for v in MPICH_CXX OMPI_CXX; do
    out=$(env "$v=cxx-from-$v" "$BIN/mpicxx" -show x.cpp)
    case $out in "cxx-from-$v "*) ;; *) fail "mpicxx ignores $v: $out" ;; esac
done
out=$(MPICH_CC=b OMPI_CC=c "$BIN/mpicc" -show x.c)
case $out in "b "*) ;; *) fail "MPICH_CC does not win over OMPI_CC: $out" ;; esac
out=$(SMAP_CC=a MPICH_CC=b "$BIN/mpicc" -show -cc=clang-like x.c)
case $out in "clang-like "*) ;; *) fail "-cc= does not win: $out" ;; esac
expect_lacks "$out" "-cc=" "-cc= is a wrapper option, not passed on"
out=$("$BIN/mpicxx" -show -cxx=my-cxx x.cpp)
case $out in "my-cxx "*) ;; *) fail "mpicxx -cxx=: $out" ;; esac
# The ABI-mode names of MPICH >= 4.3 and Open MPI 6 are the same wrappers.
case $("$BIN/mpicc_abi" --showme:command) in *++*) fail "mpicc_abi is not C" ;; esac
[ "$("$BIN/mpicxx_abi" --showme:command)" = "$("$BIN/mpicxx" --showme:command)" ] || fail "mpicxx_abi is not mpicxx"
# Without overrides, mpicxx runs a C++ compiler and mpicc a C compiler.
cxx=$("$BIN/mpicxx" --showme:command)
echo 'int main(){return __cplusplus > 0 ? 0 : 1;}' >"$TMP/lang.cpp"
$cxx -x c++ -fsyntax-only "$TMP/lang.cpp" || fail "mpicxx's compiler '$cxx' is not a C++ compiler"
printf '#ifdef __cplusplus\n#error C++\n#endif\nint main(void){return 0;}\n' >"$TMP/lang.c"
$("$BIN/mpicc" --showme:command) -fsyntax-only "$TMP/lang.c" || fail "mpicc's compiler is not a C compiler"

# A configured compiler that no longer exists falls back to cc / c++.
mkdir -p "$TMP/moved/bin"
sed "s#^conf_cc=.*#conf_cc='/nonexistent/gcc'#; s#^conf_cxx=.*#conf_cxx='/nonexistent/g++'#" \
    "$BIN/smcc" >"$TMP/moved/bin/smcc"
ln -s smcc "$TMP/moved/bin/mpicxx"
[ "$(sh "$TMP/moved/bin/smcc" --showme:command)" = cc ] || fail "no fallback to cc"
[ "$(sh "$TMP/moved/bin/mpicxx" --showme:command)" = c++ ] || fail "no fallback to c++"

# --- --help and --version ------------------------------------------------------------
out=$("$BIN/mpicc" --help)
expect_contains "$out" "SMAP_CC" "mpicc --help"
expect_contains "$out" "-showme" "mpicc --help"
version=$(sed -n 's/^project(smartmap VERSION \([0-9.]*\).*/\1/p' "$SMAP_SRC/CMakeLists.txt")
[ -n "$version" ] || fail "cannot read the project version from CMakeLists.txt"
out=$("$BIN/mpicc" --version)
expect_contains "$(printf '%s\n' "$out" | head -n 1)" "smartmap) $version" "mpicc --version"
[ "$(printf '%s\n' "$out" | wc -l)" -ge 2 ] || fail "mpicc --version lacks the compiler's version: $out"

# --- found through symlinks, absolute and relative ----------------------------------
mkdir -p "$TMP/links/a" "$TMP/links/b"
ln -s "$BIN/mpicc" "$TMP/links/a/mpicc"              # -> stage/bin/mpicc -> smcc
ln -s ../a/mpicc "$TMP/links/b/mpicc"                # relative, two hops more
[ "$("$TMP/links/b/mpicc" --showme:compile)" = "-I$inc" ] || fail "mpicc through symlinks: wrong prefix"
(cd "$TMP/links/b" && [ "$(sh mpicc --showme:incdirs)" = "$inc" ]) || fail "'sh mpicc' from its directory: wrong prefix"

# --- a wrapper whose prefix lacks libmpi_abi.so refuses to link (it must not fall
# back to another MPI's libmpi.so on the system path) but still compiles.
mkdir -p "$TMP/empty/bin" "$TMP/empty/include"
cp "$BIN/smcc" "$TMP/empty/bin/mpicc"
printf 'int main(void){return 0;}\n' >"$TMP/empty/x.c"
if err=$("$TMP/empty/bin/mpicc" "$TMP/empty/x.c" -o "$TMP/empty/x" 2>&1); then
    fail "mpicc linked although its prefix has no libmpi_abi.so"
fi
expect_contains "$err" "libmpi_abi.so is missing" "mpicc without its library"
"$TMP/empty/bin/mpicc" -c "$TMP/empty/x.c" -o "$TMP/empty/x.o" || fail "mpicc -c needs no library but failed"

# --- arguments with spaces and quotes survive, also through -show's quoting ------------
mkdir -p "$TMP/dir with space" "$TMP/inc dir"
cat >"$TMP/dir with space/greeting.c" <<'SRC'
#include <stdio.h>
#include "greeting.h"
int main(void) { printf("%s|%s\n", GREETING, OTHER); return 0; }
SRC
echo '#define OTHER "it'"'"'s here"' >"$TMP/inc dir/greeting.h"
args=('-DGREETING="a  b"' -I "$TMP/inc dir" "$TMP/dir with space/greeting.c" -o "$TMP/dir with space/greet")
"$BIN/mpicc" "${args[@]}" || fail "mpicc with spaces in arguments failed"
out=$("$TMP/dir with space/greet")
[ "$out" = "a  b|it's here" ] || fail "arguments with spaces were mangled: got '$out'"
rm -f "$TMP/dir with space/greet"
# The -show line is a valid shell command for the same compilation.
eval "$("$BIN/mpicc" -show "${args[@]}")" || fail "the -show line does not run: $("$BIN/mpicc" -show "${args[@]}")"
[ "$("$TMP/dir with space/greet")" = "a  b|it's here" ] || fail "the -show line mangles arguments"
# ...and -c mode with spaces in the object's name.
"$BIN/mpicc" -c "${args[@]:0:4}" -o "$TMP/dir with space/greet.o" || fail "mpicc -c with spaces"
[ -s "$TMP/dir with space/greet.o" ] || fail "mpicc -c wrote no object"

echo "PASS tools_mpicc_show"
