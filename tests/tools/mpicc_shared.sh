# A shared object built with mpicc -shared (a plugin; mpi4py's extension
# built with smartmap's mpicc) must load with dlopen anywhere: as a
# singleton, under smartmap's mpiexec and under hydra.  It used to need
# libsmartmap_heap.so, whose static TLS cannot be had by dlopen ("cannot
# allocate memory in static TLS block"); the heap is the executable's.
. "$(dirname "$0")/lib.sh"

cat >"$TMP/plugin.c" <<'C'
#include <stddef.h>
#include <mpi.h>
/* 100 * size + rank once an allreduce over WORLD agrees on the size. */
int plugin_run(void)
{
    int rank = -1, size = -1, sum = 0, one = 1;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    return sum == size ? size * 100 + rank : -2;
}
C
"$BIN/mpicc" -shared -fPIC "$TMP/plugin.c" -o "$TMP/plugin.so" || fail "mpicc -shared failed"
needed=$(readelf -d "$TMP/plugin.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\].*/\1/p')
expect_contains "$needed" "libmpi_abi.so.1" "the plugin's dependencies"
expect_lacks "$needed" "libsmartmap_heap" "the plugin's dependencies"
# An executable still gets the allocator (the heap exposed from its start).
"$BIN/mpicc" "$SMAP_SRC/examples/hello.c" -o "$TMP/hello" || fail "mpicc hello.c failed"
expect_contains "$(readelf -d "$TMP/hello")" "libsmartmap_heap.so.1" "an executable's dependencies"

# One write per line: hydra forwards the ranks' output as it comes.
load='import ctypes, os, sys; os.write(1, b"plugin %d\n" % ctypes.CDLL(sys.argv[1]).plugin_run())'
out=$(run_job 60 env -u PMI_FD -u PMI_RANK -u PMI_SIZE python3 -c "$load" "$TMP/plugin.so" 2>&1) ||
    fail "dlopen as a singleton failed: $out"
expect_contains "$out" "plugin 100" "singleton"
out=$(SMAP_PRELOAD=0 run_job 60 "$BIN/mpiexec" -n 2 python3 -c "$load" "$TMP/plugin.so" 2>&1) ||
    fail "dlopen under mpiexec with SMAP_PRELOAD=0 failed: $out"
expect_contains "$out" "plugin 200" "SMAP_PRELOAD=0"; expect_contains "$out" "plugin 201" "SMAP_PRELOAD=0"
out=$(run_job 60 "$BIN/mpiexec" -n 2 python3 -c "$load" "$TMP/plugin.so" 2>&1) ||
    fail "dlopen under mpiexec failed: $out"
expect_contains "$out" "plugin 201" "under mpiexec"
if command -v mpiexec.hydra >/dev/null; then
    out=$(run_job 60 mpiexec.hydra -n 2 python3 -c "$load" "$TMP/plugin.so" 2>&1) ||
        fail "dlopen under hydra failed: $out"
    expect_contains "$out" "plugin 201" "under hydra"
fi
echo "PASS tools_mpicc_shared"
