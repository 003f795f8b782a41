# tools_mpicc_hello: the staged mpicc builds examples/hello.c and smrun -n 4 runs it.
. "$(dirname "$0")/lib.sh"

"$BIN/mpicc" "$SMAP_SRC/examples/hello.c" -o "$TMP/hello" || fail "mpicc could not build hello.c"
# The program must load smartmap's libmpi, not another MPI's from the system.
lib=$(ldd "$TMP/hello" | awk '$1 ~ /^libmpi\.so/ { print $3 }')
[ "$(readlink -f "$lib")" = "$(readlink -f "$STAGE/lib/libmpi.so.1")" ] ||
    fail "hello loads libmpi from '$lib', not from $STAGE/lib"
[ -x "$BIN/smrun" ] || fail "$BIN/smrun is not built"
out=$(cd "$TMP" && run_job 60 "$BIN/smrun" -n 4 ./hello) || fail "smrun -n 4 ./hello failed: $out"
expect_hello_lines "$out" 4
echo "PASS tools_mpicc_hello"
