# Sourced by the tests that start smartmap programs with Open MPI's mpirun
# (a PMIx server; the library's PMIx client, src/boot/pmix_client.c):
# finds mpirun (OMPI), skips the test (77) where it or libpmix is missing,
# lets mpirun run as root (CI does), keeps LeakSanitizer quiet about what
# libpmix itself holds at exit, and makes run_job start mpirun (SMRUN).
OMPI=""
for c in mpirun.openmpi orterun; do
    command -v "$c" >/dev/null && OMPI=$(command -v "$c") && break
done
[ -n "$OMPI" ] || { echo "SKIPPED: no Open MPI mpirun"; exit 77; }
ldconfig -p 2>/dev/null | grep -q 'libpmix\.so' || { echo "SKIPPED: no libpmix"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SMAP_SRC/tests/pmi/lsan-libpmix.supp"
SMRUN=$OMPI     # run_job starts $SMRUN
