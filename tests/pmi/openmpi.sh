# Open MPI's mpirun (a PMIx server) starts a smartmap program: the library's
# PMIx client (libpmix opened at run time) gets rank and size, exchanges
# the node layout, fences, and MPI_Abort's code reaches mpirun's exit.
# Skipped where Open MPI's mpirun or libpmix is missing.
source "$SMAP_SRC/tests/launcher/lib.sh"
OMPI=""
for c in mpirun.openmpi orterun; do
    command -v "$c" >/dev/null && OMPI=$(command -v "$c") && break
done
[ -n "$OMPI" ] || { echo "SKIPPED: no Open MPI mpirun"; exit 77; }
ldconfig -p 2>/dev/null | grep -q 'libpmix\.so' || { echo "SKIPPED: no libpmix"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1   # CI runs as root
export OMPI_MCA_btl=self OMPI_MCA_plm_rsh_agent=false             # one host, nothing remote
# Under ASan, LeakSanitizer reports what libpmix itself keeps at exit.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SMAP_SRC/tests/pmi/lsan-libpmix.supp"
SMRUN=$OMPI     # run_job starts $SMRUN

run_job --oversubscribe -n 2 "$HOSTINFO"
expect_rc 0
expect_out "rank 0 of 2 host $(hostname) node_size 2 node_rank 0 got 1"
expect_out "rank 1 of 2 host $(hostname) node_size 2 node_rank 1 got 0"

run_job --oversubscribe -n 3 "$MPI_ABORT_PROG"
expect_rc 7
echo "PASS"
