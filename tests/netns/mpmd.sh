# MPMD across 2 emulated hosts: "mpiexec -n 1 ./a first : -n 2 ./a second
# : ..." places each part's ranks after the previous part's as a one-part
# job would be placed, or on the part's own -host; every rank sees one
# MPI_COMM_WORLD, its part's MPI_APPNUM and argv, on the host placed.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"
P=${MPMD_PROG:?}

run_job $MH --host h1:2,h2:2 -l -n 1 "$P" first : -n 2 "$P" second : -n 1 "$P" third
expect_rc 0
expect_out "[0] rank 0 of 4 appnum 0 arg first sum 4 host h1"
expect_out "[1] rank 1 of 4 appnum 1 arg second sum 4 host h1"
expect_out "[2] rank 2 of 4 appnum 1 arg second sum 4 host h2"
expect_out "[3] rank 3 of 4 appnum 2 arg third sum 4 host h2"

# Per-part hosts (hydra, Open MPI): part 1 on h2 only, parts 0 and 2 on the
# job's host h1.
run_job $MH --host h1 -l -n 2 "$P" a : -n 2 -host h2 "$P" b : -n 1 "$P" c
expect_rc 0
expect_out "[0] rank 0 of 5 appnum 0 arg a sum 4 host h1"
expect_out "[1] rank 1 of 5 appnum 0 arg a sum 4 host h1"
expect_out "[2] rank 2 of 5 appnum 1 arg b sum 4 host h2"
expect_out "[3] rank 3 of 5 appnum 1 arg b sum 4 host h2"
expect_out "[4] rank 4 of 5 appnum 2 arg c sum 4 host h1"
echo PASS
