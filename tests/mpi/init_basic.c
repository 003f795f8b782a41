/* The life-cycle and environment functions: usage: init_basic EXPECTED_SIZE */
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "smap_test.h"

static void *thread_main_flag(void *arg)
{
    int *flag = arg;
    CHECK_RC(MPI_Is_thread_main(flag));
    return NULL;
}

int main(int argc, char **argv)
{
    int flag = -1, provided = -1, rank = -1, size = -1;
    CHECK(argc == 2, "usage: %s expected_size", argv[0]);
    CHECK_RC(MPI_Initialized(&flag));
    CHECK(flag == 0, "MPI_Initialized before MPI_Init says %d", flag);
    CHECK_RC(MPI_Finalized(&flag));
    CHECK(flag == 0, "MPI_Finalized before MPI_Init says %d", flag);

    CHECK_RC(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided));
    CHECK(provided == MPI_THREAD_SERIALIZED, "asked SERIALIZED, got %d", provided);
    CHECK_RC(MPI_Query_thread(&flag));
    CHECK(flag == provided, "MPI_Query_thread %d != provided %d", flag, provided);
    CHECK_RC(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized after MPI_Init says %d", flag);

    CHECK_RC(MPI_Is_thread_main(&flag));
    CHECK(flag == 1, "main thread is not the main thread");
    pthread_t t;
    int other = -1;
    CHECK(pthread_create(&t, NULL, thread_main_flag, &other) == 0, "pthread_create");
    pthread_join(t, NULL);
    CHECK(other == 0, "another thread claims to be the main thread");

    CHECK_RC(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_RC(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK(size == atoi(argv[1]), "size %d, expected %s", size, argv[1]);
    CHECK(rank >= 0 && rank < size, "rank %d out of [0,%d)", rank, size);
    const char *pmi_rank = getenv("PMI_RANK");
    if (pmi_rank)
        CHECK(rank == atoi(pmi_rank), "rank %d but PMI_RANK=%s", rank, pmi_rank);
    int srank = -1, ssize = -1;
    CHECK_RC(MPI_Comm_rank(MPI_COMM_SELF, &srank));
    CHECK_RC(MPI_Comm_size(MPI_COMM_SELF, &ssize));
    CHECK(srank == 0 && ssize == 1, "COMM_SELF rank %d size %d", srank, ssize);

    int v = 0, sv = -1;
    CHECK_RC(MPI_Get_version(&v, &sv));
    CHECK(v == 5 && sv == 0, "MPI_Get_version %d.%d", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = -1;
    CHECK_RC(MPI_Get_library_version(lib, &len));
    CHECK(len == (int)strlen(lib) && strstr(lib, "smartmap"), "library version '%s' len %d", lib, len);

    char name[MPI_MAX_PROCESSOR_NAME], host[256];
    CHECK_RC(MPI_Get_processor_name(name, &len));
    gethostname(host, sizeof host);
    CHECK(strcmp(name, host) == 0 && len == (int)strlen(name), "processor name '%s' vs host '%s'", name, host);

    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    CHECK(tick > 0 && tick < 1e-3, "MPI_Wtick %g", tick);
    usleep(20000);
    double dt = MPI_Wtime() - t0;
    CHECK(dt >= 0.019 && dt < 5, "20 ms sleep measured as %g s", dt);

    CHECK_RC(MPI_Barrier(MPI_COMM_WORLD));
    CHECK_RC(MPI_Barrier(MPI_COMM_SELF));
    CHECK_RC(MPI_Finalize());
    CHECK_RC(MPI_Finalized(&flag));
    CHECK(flag == 1, "MPI_Finalized after MPI_Finalize says %d", flag);
    CHECK_RC(MPI_Initialized(&flag));
    CHECK(flag == 1, "MPI_Initialized after MPI_Finalize says %d", flag);
    return 0;
}
