# tools_link_redirect: a -L of the user's cannot put another MPI's library in
# smartmap's place.  Python's build (and many Makefiles) pass
# -L/usr/lib/<triplet>, where Debian's Open MPI has its libmpi.so; mpicc
# links smartmap's libraries by full path, so the program still loads
# smartmap and runs.  Open MPI's development package is installed by
# scripts/install-deps.sh build: without it this test would prove nothing,
# so it fails rather than skip.
. "$(dirname "$0")/lib.sh"

triplet=$(cc -print-multiarch 2>/dev/null || true)
sysdir=/usr/lib/${triplet:-x86_64-linux-gnu}
[ -e "$sysdir/libmpi.so" ] ||
    fail "$sysdir/libmpi.so (Open MPI's, package libopenmpi-dev) is missing: run scripts/install-deps.sh build"
echo "the decoy: $sysdir/libmpi.so -> $(readlink -f "$sysdir/libmpi.so")"

for prefix in "$STAGE" "$TMP/prefix"; do
    [ "$prefix" = "$STAGE" ] || install_into "$prefix"
    "$prefix/bin/mpicc" "$SMAP_SRC/examples/hello.c" -L"$sysdir" -o "$TMP/hello" ||
        fail "mpicc hello.c -L$sysdir failed ($prefix)"
    expect_smartmap_program "$TMP/hello" "$prefix"
    # The same with the user's -lmpi-free link of an object file, -L last.
    "$prefix/bin/mpicc" -c "$SMAP_SRC/examples/hello.c" -o "$TMP/hello.o"
    "$prefix/bin/mpicc" "$TMP/hello.o" -o "$TMP/hello2" -L"$sysdir" || fail "mpicc hello.o -L$sysdir failed"
    expect_smartmap_program "$TMP/hello2" "$prefix"
    out=$(cd "$TMP" && run_job 60 "$prefix/bin/mpiexec" -n 2 ./hello) || fail "mpiexec -n 2 ./hello failed: $out"
    expect_hello_lines "$out" 2
    # Old Makefiles' LIBS=-lmpi (and MPICH's, Open MPI's other names): the
    # linker used to take Open MPI's libmpi.so and the program crashed.
    "$prefix/bin/mpicc" "$SMAP_SRC/examples/hello.c" -o "$TMP/hello3" -lmpi ||
        fail "mpicc hello.c -lmpi failed ($prefix)"
    expect_smartmap_program "$TMP/hello3" "$prefix"
    out=$(cd "$TMP" && run_job 60 "$prefix/bin/mpiexec" -n 2 ./hello3) || fail "hello3 (-lmpi) failed: $out"
    expect_hello_lines "$out" 2
    "$prefix/bin/mpicc" "$TMP/hello.o" -o "$TMP/hello4" -L"$sysdir" -l mpi -lmpich -lmpi_abi -lm ||
        fail "mpicc hello.o -l mpi -lmpich -lmpi_abi -lm failed"
    expect_smartmap_program "$TMP/hello4" "$prefix"
    cmd=$("$prefix/bin/mpicc" -show x.o -lmpi -lm -lmpifort)
    expect_lacks "$cmd" "-lmpi " "mpicc -show x.o -lmpi -lm -lmpifort"
    expect_lacks "$cmd" "-lmpifort" "mpicc -show x.o -lmpi -lm -lmpifort"
    expect_contains "$cmd" "-lm " "mpicc -show keeps the other libraries"
done
echo "PASS tools_link_redirect"
