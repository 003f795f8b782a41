#!/usr/bin/env bash
# abi_header_compiles: include/mpi.h compiles warning-free as C (gnu11,
# c99 -pedantic, c11) and C++ (c++11, c++17), with both GCC and Clang when
# available, and the ABI layout asserts of header_layout.c hold. Also the
# generated MPI_/PMPI_ forwarding file compiles in both of its modes (weak
# and, with -DSMAP_NO_WEAK_ALIAS, plain wrappers).
set -u
: "${SMAP_SRC:?run through ctest}"
CC=${CC:-cc}
CXX=${CXX:-c++}
INC="$SMAP_SRC/include"
SRC="$SMAP_SRC/tests/abi/header_layout.c"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/abi_header.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
fails=0
try() { # try DESCRIPTION CMD...
    local what=$1; shift
    if "$@" >"$TMP/log" 2>&1; then
        echo "ok   $what"
    else
        echo "FAIL $what: $*"; sed 's/^/     /' "$TMP/log" | head -15
        fails=$((fails + 1))
    fi
}
W="-Wall -Wextra -Werror"
try "C gnu11"        "$CC"  -std=gnu11 $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
try "C gnu11, extra warnings" "$CC" -std=gnu11 $W -Wstrict-prototypes -Wmissing-prototypes -Wshadow -Wconversion -Wundef -Wcast-qual -Wredundant-decls -I"$INC" -c "$SRC" -o "$TMP/a.o"
try "C c11"          "$CC"  -std=c11 -pedantic $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
try "C c99 pedantic" "$CC"  -std=c99 -pedantic $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
try "C++ c++11"      "$CXX" -x c++ -std=c++11 $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
try "C++ c++17 pedantic" "$CXX" -x c++ -std=c++17 -pedantic $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
for other in clang gcc; do
    command -v "$other" >/dev/null 2>&1 || continue
    try "$other c99 pedantic" "$other" -std=c99 -pedantic $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
done
if command -v clang++ >/dev/null 2>&1; then
    try "clang++ c++11" clang++ -x c++ -std=c++11 $W -I"$INC" -c "$SRC" -o "$TMP/a.o"
fi
# The library's own view of the header (exported declarations) and the
# generated forwarding file in both modes.
ALIASES="$SMAP_SRC/src/binding/gen_pmpi_aliases.c"
LIBFLAGS="-std=gnu11 $W -fPIC -fvisibility=hidden -DSMAP_BUILDING_LIBRARY=1 -I$INC -I$SMAP_SRC/src"
try "aliases, weak"       "$CC" $LIBFLAGS -c "$ALIASES" -o "$TMP/w.o"
try "aliases, no weak"    "$CC" $LIBFLAGS -DSMAP_NO_WEAK_ALIAS -c "$ALIASES" -o "$TMP/s.o"
if [ -f "$TMP/w.o" ] && [ -f "$TMP/s.o" ]; then
    nm "$TMP/w.o" | grep -q ' W MPI_Send$' && echo "ok   MPI_Send is weak" ||
        { echo "FAIL MPI_Send is not a weak symbol in the weak build"; fails=$((fails + 1)); }
    nm "$TMP/s.o" | grep -q ' T MPI_Send$' && echo "ok   MPI_Send is a plain wrapper" ||
        { echo "FAIL MPI_Send is not a strong symbol with -DSMAP_NO_WEAK_ALIAS"; fails=$((fails + 1)); }
fi
[ $fails -eq 0 ] && echo PASS || { echo "FAIL: $fails check(s)"; exit 1; }
