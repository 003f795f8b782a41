# MPI-IO across 2 emulated hosts x 2 ranks (src/io): one file in a
# directory both hosts see stands in for a shared file system.  The files'
# communicators span nodes, so the shared file pointer is the one-sided
# counter on rank 0 (src/io/shared.c: fetch-and-add through src/rma over
# the hosts' own interfaces), chosen by the placement even though the
# emulated hosts share /dev/shm: io_shared checks write_shared,
# read_shared, ordered and seek_shared byte by byte; io_coll and
# io_nonblock the collective and nonblocking forms; io_nbcoll nonblocking
# collectives progressing through MPI_Test with the ranks out of step.
NHOSTS=2
source "$SMAP_SRC/tests/netns/lib.sh"
export SMAP_NODE_CPUS=1     # the CI machine's few CPUs are shared by every host
T=${TESTS_BIN:?}

for prog in io_shared io_coll io_nonblock io_nbcoll; do
    run_job $MH --host h1:2,h2:2 "$T/io/$prog"
    expect_rc 0
done
# uneven: rank 0 alone on its host, the counter's fetch-and-adds all remote
run_job $MH --host h1:1,h2:2 "$T/io/io_shared"
expect_rc 0
echo PASS
