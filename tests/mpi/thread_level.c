/* usage: thread_level REQUIRED EXPECTED (single|funneled|serialized|multiple) */
#include <string.h>

#include "smap_test.h"

static int level(const char *s)
{
    if (!strcmp(s, "single")) return MPI_THREAD_SINGLE;
    if (!strcmp(s, "funneled")) return MPI_THREAD_FUNNELED;
    if (!strcmp(s, "serialized")) return MPI_THREAD_SERIALIZED;
    if (!strcmp(s, "multiple")) return MPI_THREAD_MULTIPLE;
    return -1;
}

int main(int argc, char **argv)
{
    CHECK(argc == 3, "usage: %s required expected", argv[0]);
    int provided = -1;
    CHECK_RC(MPI_Init_thread(&argc, &argv, level(argv[1]), &provided));
    CHECK(provided == level(argv[2]), "required %s, provided %d, expected %s", argv[1], provided, argv[2]);
    int queried = -1;
    CHECK_RC(MPI_Query_thread(&queried));
    CHECK(queried == provided, "MPI_Query_thread says %d, MPI_Init_thread provided %d", queried,
          provided);
    /* The level granted works: a message to ourselves and a barrier. */
    int rank, out = 42, in = -1;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_RC(MPI_Sendrecv(&out, 1, MPI_INT, rank, 3, &in, 1, MPI_INT, rank, 3, MPI_COMM_WORLD,
                          MPI_STATUS_IGNORE));
    CHECK(in == 42, "self message carried %d", in);
    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Finalize());
    return 0;
}
