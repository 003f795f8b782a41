# tools_mpicc_hello: the staged mpicc builds examples/hello.c and smrun -n 4 runs it.
. "$(dirname "$0")/lib.sh"

"$BIN/mpicc" "$SMAP_SRC/examples/hello.c" -o "$TMP/hello" || fail "mpicc could not build hello.c"
# The program must load smartmap's libmpi, not another MPI's from the system.
lib=$(ldd "$TMP/hello" | awk '$1 ~ /^libmpi_abi\.so/ { print $3 }')
[ "$(readlink -f "$lib")" = "$(readlink -f "$STAGE/lib/libmpi_abi.so.1")" ] ||
    fail "hello loads libmpi from '$lib', not from $STAGE/lib"
# The allocator library comes first among the needed libraries (after the
# sanitizer runtimes of a sanitizer build, which must come first).
first=$(readelf -d "$TMP/hello" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p' |
        sed '/^lib[a-z]*san\.so/d' | sed -n 1p)
[ "$first" = libsmartmap_heap.so.1 ] || fail "hello's first DT_NEEDED is '$first', not libsmartmap_heap.so.1"
[ -x "$BIN/smrun" ] || fail "$BIN/smrun is not built"
out=$(cd "$TMP" && run_job 60 "$BIN/smrun" -n 4 ./hello) || fail "smrun -n 4 ./hello failed: $out"
expect_hello_lines "$out" 4
echo "PASS tools_mpicc_hello"
