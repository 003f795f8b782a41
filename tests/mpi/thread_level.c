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
    CHECK_RC(MPI_Finalize());
    return 0;
}
