# Open MPI's mpirun (a PMIx server) starts a smartmap program: the library's
# PMIx client (libpmix opened at run time) gets rank and size, exchanges
# the node layout, fences, and MPI_Abort's code reaches mpirun's exit.
# Skipped where Open MPI's mpirun or libpmix is missing.
source "$SMAP_SRC/tests/launcher/lib.sh"
source "$SMAP_SRC/tests/pmi/ompi_mpirun.sh"
export OMPI_MCA_btl=self OMPI_MCA_plm_rsh_agent=false             # one host, nothing remote

run_job --oversubscribe -n 2 "$HOSTINFO"
expect_rc 0
expect_out "rank 0 of 2 host $(hostname) node_size 2 node_rank 0 got 1"
expect_out "rank 1 of 2 host $(hostname) node_size 2 node_rank 1 got 0"

run_job --oversubscribe -n 3 "$MPI_ABORT_PROG"
expect_rc 7
echo "PASS"
