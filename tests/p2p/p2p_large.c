/* A message larger than 2 GiB (count > INT_MAX bytes through MPI_Send_c /
 * MPI_Recv_c, and an int count of a 1 MiB contiguous type), checked at
 * every page and at the edges.  Needs about 3 x 2.25 GiB of memory: when
 * MemAvailable is lower every rank exits with 77, which CTest reports as
 * skipped (SKIP_RETURN_CODE), never as passed. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static long long mem_available_mib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb / 1024;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    const MPI_Count n = ((MPI_Count)2 << 30) + (MPI_Count)(1 << 28) + 12345;   /* 2.25 GiB + */
    int ok = mem_available_mib() > 3 * (n >> 20) + 2048;
    int all_ok;
    /* Both ranks must agree (two ranks: no collective needed). */
    CHECK_RC(MPI_Sendrecv(&ok, 1, MPI_INT, me ^ 1, 0, &all_ok, 1, MPI_INT, me ^ 1, 0,
                          MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    all_ok = all_ok && ok;
    if (!all_ok) {
        if (me == 0)
            printf("SKIPPED: not enough memory for a %lld-byte message\n", (long long)n);
        MPI_Finalize();
        return 77;
    }
    unsigned char *buf = malloc((size_t)n);
    CHECK(buf, "malloc %lld", (long long)n);
    if (me == 0) {
        for (MPI_Count i = 0; i < n; i += 4096)
            buf[i] = (unsigned char)(i >> 12);
        buf[n - 1] = 0xAB;
        CHECK_RC(MPI_Send_c(buf, n, MPI_BYTE, 1, 1, MPI_COMM_WORLD));
    } else if (me == 1) {
        memset(buf, 0, (size_t)n);
        MPI_Status st;
        CHECK_RC(MPI_Recv_c(buf, n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st));
        MPI_Count c;
        CHECK_RC(MPI_Get_count_c(&st, MPI_BYTE, &c));
        CHECK(c == n, "count %lld", (long long)c);
        int ic;
        MPI_Get_count(&st, MPI_BYTE, &ic);
        CHECK(ic == MPI_UNDEFINED, "int count of a > 2 GiB message: %d", ic);
        for (MPI_Count i = 0; i < n; i += 4096)
            CHECK(buf[i] == (unsigned char)(i >> 12), "byte %lld", (long long)i);
        CHECK(buf[n - 1] == 0xAB, "last byte");
    }
    /* int count of a big type: 2300 x 1 MiB */
    MPI_Datatype mib;
    MPI_Type_contiguous(1 << 20, MPI_BYTE, &mib);
    MPI_Type_commit(&mib);
    int cnt = (int)(n >> 20);
    if (me == 1)
        CHECK_RC(MPI_Send(buf, cnt, mib, 0, 2, MPI_COMM_WORLD));
    else if (me == 0) {
        memset(buf, 0, (size_t)n);
        CHECK_RC(MPI_Recv(buf, cnt, mib, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (MPI_Count i = 0; i < ((MPI_Count)cnt << 20); i += 4096)
            CHECK(buf[i] == (unsigned char)(i >> 12), "typed byte %lld", (long long)i);
    }
    MPI_Type_free(&mib);
    free(buf);
    MPI_Finalize();
    return 0;
}
