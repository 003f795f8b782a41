/* info.c — what the harness records about one MPI: each rank's CPU binding,
 * then (rank 0) the MPI version and the library's version string.
 *
 *   INFO rank=<r> np=<n> cpus=<list>
 *   INFO mpi_version=<v>.<s>
 *   INFO library=<first line of MPI_Get_library_version>
 *
 * The binding lines come first and are flushed: an MPI that lacks
 * MPI_Get_library_version still tells how it placed the ranks. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

static void cpu_list(char *out, size_t len)
{
    out[0] = 0;
#ifdef __linux__
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s)) {
        snprintf(out, len, "?");
        return;
    }
    size_t used = 0;
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, &s))
            continue;
        int e = c;
        while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, &s))
            e++;
        int w = e > c ? snprintf(out + used, len - used, "%s%d-%d", used ? "," : "", c, e)
                      : snprintf(out + used, len - used, "%s%d", used ? "," : "", c);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
        c = e;
    }
#else
    snprintf(out, len, "?");
#endif
}

int main(int argc, char **argv)
{
    int rank, np;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    char cpus[256];
    cpu_list(cpus, sizeof cpus);
    printf("INFO rank=%d np=%d cpus=%s\n", rank, np, cpus);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int v = 0, s = 0;
        MPI_Get_version(&v, &s);
        printf("INFO mpi_version=%d.%d\n", v, s);
        fflush(stdout);
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        lib[len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING ? len : 0] = 0;
        char *nl = strchr(lib, '\n');
        if (nl)
            *nl = 0;
        printf("INFO library=%s\n", lib);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
