/* Which network libraries a rank maps (DESIGN.md D9, src/net/engine.h):
 *   net_engine none   a one-node job: no network engine plugin, no
 *                     libfabric, none of its providers' libraries (whose
 *                     signal handlers would catch the rank's crashes);
 *   net_engine ofi    a job spanning nodes: the libfabric engine's plugin
 *                     and libfabric are mapped, and traffic crosses;
 *   net_engine ucx    the same with the UCX engine (SMAP_NET_ENGINE=ucx):
 *                     its plugin, libucp and libuct mapped, libfabric not
 *                     (the engine not chosen is never loaded).
 * Each rank reads its own /proc/self/maps after MPI_Init. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smap_test.h"

static const char *const network_libs[] = { "libsmartmap_net_", "libfabric", "libpsm",
                                            "libibverbs", "librdmacm", "libefa",
                                            "libucp", "libuct" };
#define NLIBS (sizeof network_libs / sizeof network_libs[0])

/* Sets found[i] when a mapping's path names network_libs[i]. */
static int read_maps(int found[NLIBS])
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        const char *path = strchr(line, '/');
        for (size_t i = 0; path && i < NLIBS; i++)
            if (strstr(path, network_libs[i]))
                found[i] = 1;
    }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long long init_read = smap_test_proc_io("rchar");
    int rank, size, bad = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (getenv("NET_ENGINE_RCHAR"))   /* engine.sh: libfabric's /proc/kallsyms probe */
        printf("rank %d read %lld bytes by the end of MPI_Init\n", rank, init_read);
    const char *want = argc > 1 ? argv[1] : "";
    int ofi = !strcmp(want, "ofi"), ucx = !strcmp(want, "ucx");
    if (!ofi && !ucx && strcmp(want, "none")) {
        if (rank == 0)
            fprintf(stderr, "usage: net_engine none|ofi|ucx\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int found[NLIBS] = { 0 };
    if (read_maps(found) != 0) {
        fprintf(stderr, "rank %d: cannot read /proc/self/maps\n", rank);
        bad = 1;
    }
    for (size_t i = 0; i < NLIBS; i++) {
        /* ofi: the plugin (0) and libfabric (1) must be there; the rest
         * is whatever this libfabric pulls in.  ucx: the plugin, libucp
         * (6) and libuct (7); libfabric never, the rest is UCX's (its
         * verbs transports) */
        int must = (ofi && i <= 1) || (ucx && (i == 0 || i >= 6)), may = ofi || (ucx && i != 1);
        if (must && !found[i]) {
            fprintf(stderr, "rank %d: FAIL: %s is not mapped in a job across nodes\n", rank,
                    network_libs[i]);
            bad = 1;
        } else if (!may && found[i]) {
            fprintf(stderr, "rank %d: FAIL: %s is mapped in a one-node job\n", rank,
                    network_libs[i]);
            bad = 1;
        }
    }
    /* traffic between every pair of ranks (across the nodes under ofi) */
    int sum = 0, one = 1, bad_any = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size) {
        fprintf(stderr, "rank %d: FAIL: allreduce gave %d, not %d\n", rank, sum, size);
        bad = 1;
    }
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (got != left) {
        fprintf(stderr, "rank %d: FAIL: got %d from the left, not %d\n", rank, got, left);
        bad = 1;
    }
    MPI_Allreduce(&bad, &bad_any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0 && !bad_any)
        printf("net_engine: %d ranks OK (%s)\n", size,
               ofi ? "libfabric engine mapped" : ucx ? "UCX engine mapped"
                                                     : "no network library mapped");
    MPI_Finalize();
    return bad ? 1 : 0;
}
