# fortran_hosts: the Fortran programs across 2 emulated hosts (network
# namespaces, tests/netns/hosts.sh; skipped where they cannot be made):
# the Jacobi solver on a 2x2 grid split over the hosts (its halos between
# hosts go through src/net), mpi_f08's array sections in Isend/Irecv, and
# sections in collectives and one-sided calls (temporaries copied around
# operations on a target on the other host) at 3 ranks over 2 hosts.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"

run_job $MH --host h1:2,h2:2 -n 4 "${JACOBI:?}"
expect_rc 0
expect_out "PASS fortran_jacobi: 4 ranks"
run_job $MH --host h1:1,h2:1 -n 2 "${F08:?}"
expect_rc 0
expect_out "PASS fortran_f08"
run_job $MH --host h1:2,h2:1 -n 3 "${SECTIONS:?}"
expect_rc 0
expect_out "PASS fortran_sections"
echo PASS
