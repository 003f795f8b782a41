# tools_mpicc_show: what the wrappers add, and that arguments pass intact.
. "$(dirname "$0")/lib.sh"

hello=$SMAP_SRC/examples/hello.c
inc=$STAGE/include
lib=$STAGE/lib

# --- link mode: include dir, library dir, rpath and -lmpi --------------------
out=$("$BIN/mpicc" -show "$hello" -o hello)
expect_contains "$out" "-I$inc" "mpicc -show"
expect_contains "$out" "-L$lib" "mpicc -show"
expect_contains "$out" "-Wl,-rpath,$lib" "mpicc -show"
expect_contains "$out" " -lmpi" "mpicc -show"
expect_contains "$out" "$hello -o hello" "mpicc -show keeps the arguments"
for alias in -showme --showme; do
    [ "$("$BIN/mpicc" $alias "$hello" -o hello)" = "$out" ] || fail "mpicc $alias differs from -show"
done
# -lmpi must follow the caller's inputs (static link order).
case $out in *"$hello"*-lmpi*) ;; *) fail "-lmpi comes before the inputs: $out" ;; esac

# --- no link flags when not linking ------------------------------------------
for flag in -c -S -E -M -MM; do
    out=$("$BIN/mpicc" -show $flag "$hello")
    expect_contains "$out" "-I$inc" "mpicc -show $flag"
    expect_lacks "$out" "-lmpi" "mpicc -show $flag"
    expect_lacks "$out" "-rpath" "mpicc -show $flag"
    expect_lacks "$out" "-L$lib" "mpicc -show $flag"
done
# -MD / -MMD generate dependencies while compiling and linking: still a link.
expect_contains "$("$BIN/mpicc" -show -MD "$hello")" "-lmpi" "mpicc -show -MD"

# --- showme:* queries -----------------------------------------------------------
[ "$("$BIN/mpicc" --showme:compile)" = "-I$inc" ] || fail "--showme:compile: $("$BIN/mpicc" --showme:compile)"
[ "$("$BIN/mpicc" -showme:compile)" = "-I$inc" ] || fail "-showme:compile (one dash)"
out=$("$BIN/mpicc" --showme:link)
expect_contains "$out" "-L$lib" "--showme:link"
expect_contains "$out" "-Wl,-rpath,$lib" "--showme:link"
expect_contains "$out" "-lmpi" "--showme:link"
expect_lacks "$out" "-I" "--showme:link"
[ "$("$BIN/mpicc" --showme:incdirs)" = "$inc" ] || fail "--showme:incdirs"
[ "$("$BIN/mpicc" --showme:libdirs)" = "$lib" ] || fail "--showme:libdirs"
if "$BIN/mpicc" --showme:bogus >/dev/null 2>&1; then fail "--showme:bogus was accepted"; fi

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

# --- a wrapper whose prefix lacks libmpi.so refuses to link (it must not fall
# back to another MPI's libmpi.so on the system path) but still compiles.
mkdir -p "$TMP/empty/bin" "$TMP/empty/include"
cp "$BIN/smcc" "$TMP/empty/bin/mpicc"
printf 'int main(void){return 0;}\n' >"$TMP/empty/x.c"
if err=$("$TMP/empty/bin/mpicc" "$TMP/empty/x.c" -o "$TMP/empty/x" 2>&1); then
    fail "mpicc linked although its prefix has no libmpi.so"
fi
expect_contains "$err" "libmpi.so is missing" "mpicc without its library"
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
